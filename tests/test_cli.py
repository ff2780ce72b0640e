"""The command line: one API call per command, JSON for machines, non-zero exits on failure."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from ledger.cli import app

runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_demo_then_read_back_as_json(tmp_path: Path) -> None:
    db = str(tmp_path / "cli.db")
    code, out, _ = run("demo", "--db", db)
    assert code == 0 and "PLN 245" in out
    code, out, _ = run("claims", "home", "electricity bill", "--valid-at", "2026-04-15", "--json", "--db", db)
    assert code == 0 and [c["value"] for c in json.loads(out)] == ["PLN 280"]
    code, out, _ = run("history", "home", "electricity bill", "--json", "--db", db)
    assert [v["status"] for v in json.loads(out)] == ["reported", "reported", "superseded"]
    code, out, _ = run("explain", "2", "--json", "--db", db)
    assert json.loads(out)["evidence"][0]["evidence"]["excerpt"].endswith("PLN 245")
    # Running the demo again corroborates instead of duplicating.
    run("demo", "--db", db)
    code, out, _ = run("audit", "--json", "--db", db)
    assert len(json.loads(out)) == 2


def test_add_source_and_assert(tmp_path: Path) -> None:
    db = str(tmp_path / "cli.db")
    notes = tmp_path / "notes.txt"
    notes.write_text("Ola moved to Gdańsk in May 2026.", encoding="utf-8")
    code, out, _ = run("add-source", str(notes), "--json", "--db", db)
    source = json.loads(out)["id"]
    code, out, _ = run("assert", "Ola", "lives in", "--object", "Gdańsk", "--valid-from", "2026-05",
                       "--source", str(source), "--quote", "moved to Gdańsk", "--json", "--db", db)
    assert code == 0 and json.loads(out)["object"] == "Gdańsk"


def test_failures_exit_non_zero_with_a_message(tmp_path: Path) -> None:
    db = str(tmp_path / "cli.db")
    code, _, err = run("explain", "42", "--db", db)
    assert code == 3 and "claim 42 does not exist" in err
    code, _, err = run("claims", "x", "--valid-at", "someday", "--db", db)
    assert code == 2 and "ISO" in err
    notes = tmp_path / "n.txt"
    notes.write_text("Some text.", encoding="utf-8")
    run("add-source", str(notes), "--db", db)
    code, _, err = run("assert", "a", "b", "--value", "c", "--source", "1", "--quote", "absent words", "--db", db)
    assert code == 3 and "absent words" in err


def test_ingest_reports_each_document_and_fails_when_one_fails(tmp_path: Path) -> None:
    fixtures = Path(__file__).resolve().parents[1] / "fixtures"
    db = str(tmp_path / "cli.db")
    code, out, _ = run("ingest", str(fixtures / "pdf" / "two-column.pdf"), str(fixtures / "html" / "article.html"),
                       "--db", db)
    assert code == 0 and out.count("ingested") == 2
    code, out, _ = run("ingest", str(fixtures / "pdf" / "two-column.pdf"), "--db", db)
    assert code == 0 and "unchanged" in out
    code, out, err = run("ingest", str(fixtures / "pdf" / "encrypted.pdf"), str(fixtures / "pdf" / "image-only.pdf"),
                         "--db", db)
    assert code == 2 and "encrypted" in out and "needs OCR" in out and "1 of 2 failed" in err
