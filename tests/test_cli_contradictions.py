"""``ledger contradictions`` and ``ledger resolve`` on a real SQLite file."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from ledger import Ledger
from ledger.cli import app

runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_list_resolve_and_list_again(tmp_path: Path) -> None:
    db = str(tmp_path / "cli.db")
    with Ledger.open(db) as ledger:
        a = ledger.add_source(text="The car is red.", publisher="A", title="Registration")
        b = ledger.add_source(text="The car is blue.", publisher="B")
        red = ledger.assert_claim("car", "color", value="red", evidence=[ledger.cite(a, "red")])
        blue = ledger.assert_claim("car", "color", value="blue", evidence=[ledger.cite(b, "blue")])
    code, out, _ = run("contradictions", "--db", db)
    assert code == 0 and f"overlap:{red.id}+{blue.id}" in out and "Registration" in out
    code, out, _ = run("contradictions", "car", "color", "--json", "--db", db)
    [found] = json.loads(out)
    assert found["kind"] == "functional-overlap" and [s["claim"]["value"] for s in found["sides"]] == ["red", "blue"]
    assert found["sides"][0]["evidence"][0]["title"] == "Registration" and found["resolution"] is None
    code, _, err = run("resolve", found["id"], "--keep", "999", "--reason", "x", "--db", db)
    assert code == 2 and "one of the sides" in err
    code, out, _ = run("resolve", found["id"], "--keep", str(red.id), "--reason", "registration", "--actor", "ann",
                       "--json", "--db", db)
    assert code == 0 and json.loads(out)["resolution"]["superseded"] == [blue.id]
    code, out, _ = run("contradictions", "--json", "--db", db)
    assert json.loads(out) == []
    code, out, _ = run("contradictions", "--resolved", "--db", db)
    assert "resolved" in out and "by ann" in out
    code, _, err = run("resolve", found["id"], "--keep", str(red.id), "--reason", "again", "--json", "--db", db)
    assert code == 4 and json.loads(err)["error"] == "Conflict"
    code, out, _ = run("explain", str(red.id), "--db", db)
    assert "independent source" in out
