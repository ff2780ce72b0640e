"""The graph commands: neighborhood, paths, graph export and ask, on a small real ledger."""

from __future__ import annotations

import json
from pathlib import Path

import networkx
from typer.testing import CliRunner

from ledger import Ledger
from ledger.cli import app

runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def make(tmp_path: Path) -> str:
    db = str(tmp_path / "graph.db")
    with Ledger.open(db) as ledger:
        ledger.define_predicate("works_at", cardinality="many", object_kind="entity")
        source = ledger.add_source(text="Ann works for Acme. Bob works for Acme. Acme owns Initech.")
        for subject, obj, quote in (("Ann", "Acme", "Ann works for Acme"), ("Bob", "Acme", "Bob works for Acme"),
                                    ("Acme", "Initech", "Acme owns Initech")):
            predicate = "owns" if subject == "Acme" else "works_at"
            ledger.assert_claim(subject, predicate, obj, valid_from="2020", evidence=ledger.cite(source, quote))
    return db


def test_neighborhood_paths_and_ask_as_json(tmp_path: Path) -> None:
    db = make(tmp_path)
    code, out, _ = run("neighborhood", "Ann", "--depth", "2", "--json", "--db", db)
    data = json.loads(out)
    assert code == 0 and sorted(n["name"] for n in data["nodes"]) == ["Acme", "Ann", "Bob", "Initech"]
    code, out, _ = run("neighborhood", "Ann", "--depth", "2", "--direction", "out", "--json", "--db", db)
    assert sorted(n["name"] for n in json.loads(out)["nodes"]) == ["Acme", "Ann", "Initech"]
    code, out, _ = run("neighborhood", "Ann", "--valid-at", "2019", "--db", db)
    assert code == 0 and "1 entities, 0 claims" in out
    code, out, _ = run("paths", "Ann", "Initech", "--json", "--db", db)
    assert code == 0 and [[e["predicate"] for e in p["edges"]] for p in json.loads(out)] == [["works_at", "owns"]]
    code, out, _ = run("ask", "relationships_during", "--param", "start=2021", "--param", "end=2022", "--json",
                       "--db", db)
    assert code == 0 and len(json.loads(out)) == 3


def test_graph_export_writes_graphml_and_json(tmp_path: Path) -> None:
    db = make(tmp_path)
    for kind, name in (("graphml", "g.graphml"), ("json", "g.json")):
        code, out, _ = run("graph", "export", "--format", kind, "--out", str(tmp_path / name), "--db", db)
        assert code == 0 and "4 entities and 3 claims" in out
    assert networkx.read_graphml(tmp_path / "g.graphml").number_of_edges() == 3
    assert len(json.loads((tmp_path / "g.json").read_text(encoding="utf-8"))["edges"]) == 3


def test_failures_exit_non_zero(tmp_path: Path) -> None:
    db = make(tmp_path)
    assert run("neighborhood", "Nobody", "--db", db)[0] == 3
    assert run("neighborhood", "Ann", "--direction", "up", "--db", db)[0] == 2
    assert run("graph", "export", "--format", "xml", "--out", str(tmp_path / "x"), "--db", db)[0] == 2
    assert run("graph", "import", "--out", str(tmp_path / "x"), "--json", "--db", db)[0] == 2
    assert run("ask", "believed_as_of", "--param", "known_at", "--db", db)[0] == 2
    assert run("ask", "no_such_question", "--json", "--db", db)[0] == 2
