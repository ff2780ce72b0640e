"""The command line: one API call per command, JSON for machines, non-zero exits on failure."""

from __future__ import annotations

import json
import os
import re
import warnings
from pathlib import Path

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from ledger import Ledger
from ledger.cli import app

from .conftest import table_dump

runner = CliRunner()
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


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
    notes = tmp_path / "n.txt"
    notes.write_text("Some text.", encoding="utf-8")
    run("add-source", str(notes), "--db", db)
    code, _, err = run("explain", "42", "--db", db)
    assert code == 3 and "claim 42 does not exist" in err
    code, _, err = run("claims", "x", "--valid-at", "someday", "--db", db)
    assert code == 2 and "ISO" in err
    code, _, err = run("assert", "a", "b", "--value", "c", "--source", "1", "--quote", "absent words", "--db", db)
    assert code == 3 and "absent words" in err


def test_ingest_reports_each_document_and_fails_when_one_fails(tmp_path: Path) -> None:
    fixtures = FIXTURES
    db = str(tmp_path / "cli.db")
    code, out, _ = run("ingest", str(fixtures / "pdf" / "two-column.pdf"), str(fixtures / "html" / "article.html"),
                       "--db", db)
    assert code == 0 and out.count("ingested") == 2
    code, out, _ = run("ingest", str(fixtures / "pdf" / "two-column.pdf"), "--db", db)
    assert code == 0 and "unchanged" in out
    code, out, err = run("ingest", str(fixtures / "pdf" / "encrypted.pdf"), str(fixtures / "pdf" / "image-only.pdf"),
                         "--db", db)
    assert code == 2 and "encrypted" in out and "needs OCR" in out and "2 of 2 failed" in err


def test_ingest_names_pages_that_lost_lines_only_ocr_can_read(tmp_path: Path) -> None:
    pdf, db = str(FIXTURES / "pdf" / "coded-glyphs.pdf"), str(tmp_path / "cli.db")
    code, out, _ = run("ingest", pdf, "--db", db)
    assert code == 0 and "ingested" in out
    assert re.search(r"lines\W+only\W+OCR\W+can\W+read\W+left\W+out\W+on\W+page\W+2\b", out)  # the table wraps
    code, out, _ = run("ingest", pdf, "--json", "--db", db)
    assert code == 0 and json.loads(out)[0]["pages_partly_unreadable"] == [2]


def test_ingest_tells_what_it_cannot_read_and_sniffs_files_without_a_known_extension(tmp_path: Path) -> None:
    db = str(tmp_path / "cli.db")
    notes, empty = tmp_path / "notes.txt", tmp_path / "empty-folder"
    notes.write_text("Plain notes, not a document.", encoding="utf-8")
    empty.mkdir()
    (tmp_path / "paper.bin").write_bytes((FIXTURES / "pdf" / "two-column.pdf").read_bytes())
    (tmp_path / "page.download").write_bytes((FIXTURES / "html" / "article.html").read_bytes())
    code, out, err = run("ingest", str(notes), str(empty), str(tmp_path / "paper.bin"),
                         str(tmp_path / "page.download"), "--json", "--db", db)
    rows = {Path(r["target"]).name: r for r in json.loads(out)}
    assert code == 2 and json.loads(err)["message"] == "2 of 4 failed"
    assert "neither a PDF nor an HTML page; for plain text use `ledger add-source`" in rows["notes.txt"]["message"]
    assert "holds no PDF or HTML file" in rows["empty-folder"]["message"]
    assert rows["paper.bin"]["outcome"] == rows["page.download"]["outcome"] == "ingested"


def test_ingest_keeps_third_party_date_warnings_off_the_screen(tmp_path: Path) -> None:
    """htmldate hands a <time datetime> with a zone name to dateutil, which warns that it cannot
    place "PST"; the ingest's output stays the table."""
    page = tmp_path / "ferry.html"
    paragraph = "<p>The ferry to the north islands resumed its winter timetable this week after repairs.</p>"
    page.write_text(f"<html><body><article>{paragraph * 5}<p>Posted <time datetime='2016-12-16 15:00 PST'>"
                    "on Friday</time> by the harbour office.</p></article></body></html>", encoding="utf-8")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code, out, _ = run("ingest", str(page), "--db", str(tmp_path / "cli.db"))
    assert code == 0 and "ingested" in out
    assert not [w for w in caught if "tzname" in str(w.message)]


def test_ingest_options_unlock_and_bound_what_is_read(tmp_path: Path) -> None:
    db = str(tmp_path / "cli.db")
    pdf, html = FIXTURES / "pdf", FIXTURES / "html"
    code, out, _ = run("ingest", str(pdf / "multi-page.pdf"), str(html / "article.html"), "--max-pages", "3",
                       "--json", "--db", db)
    rows = json.loads(out)
    assert code == 2 and [r["outcome"] for r in rows] == ["error", "ingested"]
    assert "claims 4 pages; the limit is 3" in rows[0]["message"] and "--max-pages" in rows[0]["message"]
    code, out, _ = run("ingest", str(pdf / "multi-page.pdf"), str(html / "article.html"), "--max-bytes", "5000",
                       "--json", "--db", db)
    assert code == 2 and [r["outcome"] for r in json.loads(out)] == ["error", "error"]
    assert all("over the limit of 5,000 bytes" in r["message"] and "--max-bytes" in r["message"]
               for r in json.loads(out))
    code, out, _ = run("ingest", str(pdf / "encrypted.pdf"), "--json", "--db", db)
    assert code == 2 and "--password" in json.loads(out)[0]["message"]
    code, out, _ = run("ingest", str(pdf / "encrypted.pdf"), str(pdf / "multi-page.pdf"), "--password",
                       "open-sesame", "--max-pages", "4", "--db", db)
    assert code == 0 and out.count("ingested") == 2
    code, out, _ = run("ingest", str(pdf / "image-only.pdf"), str(pdf / "title-page.pdf"), "--db", db)
    assert "│ 1 page " in out and "1 pages" not in out


def _one_line(err: str) -> str:
    assert err.endswith("\n") and err.count("\n") == 1, repr(err)
    return err.strip()


READ_COMMANDS = [
    ["claims"], ["claims", "home", "--json"], ["history", "home", "electricity bill"], ["audit"], ["explain", "1"],
    ["check"], ["backup", "copy.db"],
]


@pytest.mark.parametrize("command", READ_COMMANDS, ids=lambda c: " ".join(c))
def test_reading_a_ledger_that_does_not_exist_fails_and_creates_nothing(tmp_path: Path, command: list[str]) -> None:
    typo = tmp_path / "typo.db"
    code, out, err = run(*command, "--db", str(typo))
    expected = f"no ledger exists at {typo}"
    message = json.loads(err)["message"] if "--json" in command else _one_line(err)
    assert code == 2 and expected in message and out == ""
    assert list(tmp_path.iterdir()) == []


def test_reading_without_db_or_ledger_url_does_not_create_ledger_db(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("LEDGER_URL", raising=False)
    code, _, err = run("claims")
    assert code == 2 and f"no ledger exists at {tmp_path / 'ledger.db'}" in err
    assert not (tmp_path / "ledger.db").exists()


def test_writing_creates_the_ledger(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("Some text.", encoding="utf-8")
    assert run("add-source", str(notes), "--db", str(tmp_path / "new.db"))[0] == 0
    assert run("ingest", str(FIXTURES / "html" / "article.html"), "--db", str(tmp_path / "other.db"))[0] == 0
    assert (tmp_path / "new.db").is_file() and (tmp_path / "other.db").is_file()


def test_a_missing_folder_is_one_clear_line(tmp_path: Path) -> None:
    code, _, err = run("demo", "--db", str(tmp_path / "nonexistent" / "dir" / "x.db"))
    assert code == 2
    assert _one_line(err) == f"error: the folder {tmp_path / 'nonexistent' / 'dir'} does not exist; " \
                             "create it or pass another path"


def test_another_applications_database_is_refused(tmp_path: Path) -> None:
    import sqlite3

    other = tmp_path / "app.db"
    connection = sqlite3.connect(other)
    connection.execute("CREATE TABLE users (id INTEGER)")
    connection.commit()
    connection.close()
    code, _, err = run("demo", "--db", str(other))
    assert code == 2 and "is not a ledger: it holds other tables (users)" in _one_line(err)


# ---------------------------------------------------------------- the demo leaves real ledgers alone


def test_demo_runs_twice_on_the_default_ledger(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("LEDGER_URL", raising=False)
    for _ in range(2):
        code, out, _ = run("demo")
        assert code == 0 and "PLN 245" in out
    assert (tmp_path / "ledger.db").is_file()
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        assert [c.value for c in ledger.claims("home", "electricity bill")] == ["PLN 245"]
        assert ledger.check().ok


def _a_real_ledger(path: Path, *, scope: str = "default") -> None:
    with Ledger.open(path) as ledger:
        bills = ledger.add_source(text="The electricity bill is PLN 300.", scope=scope)
        ledger.assert_claim("home", "electricity bill", value="PLN 300", valid_from="2026-01-01",
                            evidence=[ledger.cite(bills, "PLN 300")], scope=scope)


@pytest.mark.parametrize("scope", ["default", "family"])
def test_demo_refuses_a_ledger_with_other_data_and_changes_nothing(tmp_path: Path, scope: str) -> None:
    real = tmp_path / "real.db"
    _a_real_ledger(real, scope=scope)
    before = table_dump(str(real))
    code, out, err = run("demo", "--db", str(real))
    assert code == 4 and out == ""
    assert f"{real} already holds data the demo did not write (sources: 1, " in _one_line(err)
    assert "ledger demo --db" in err
    assert table_dump(str(real)) == before


def test_demo_refuses_the_ledger_named_by_ledger_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = tmp_path / "real.db"
    _a_real_ledger(real)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LEDGER_URL", str(real))
    before = table_dump(str(real))
    code, _, err = run("demo", "--json")
    assert code == 4 and json.loads(err)["error"] == "Conflict"
    assert table_dump(str(real)) == before and not (tmp_path / "ledger.db").exists()


def test_demo_refuses_a_ledger_where_someone_confirmed_a_demo_claim(tmp_path: Path) -> None:
    db = tmp_path / "demo.db"
    assert run("demo", "--db", str(db))[0] == 0
    with Ledger.open(db) as ledger:
        ledger.confirm(2, actor="me")
    code, _, err = run("demo", "--db", str(db))
    assert code == 4 and "claim versions: 1" in err


# ---------------------------------------------------------------- --json everywhere


def test_every_command_takes_json_and_db() -> None:
    commands = list(get_command(app).commands.items())  # type: ignore[attr-defined]
    while commands:
        name, command = commands.pop()
        if hasattr(command, "commands"):  # a group (ledger graph, ledger import): each of its commands
            commands.extend((f"{name} {sub}", c) for sub, c in command.commands.items())
            continue
        options = {option for parameter in command.params for option in parameter.opts}
        assert {"--json", "--db"} <= options, name


def test_json_errors_are_one_object_on_stderr(tmp_path: Path) -> None:
    db = str(tmp_path / "cli.db")
    run("demo", "--db", db)
    code, out, err = run("explain", "42", "--json", "--db", db)
    assert code == 3 and out == ""
    assert json.loads(err) == {"error": "NotFound", "message": "claim 42 does not exist"}
    code, out, err = run("claims", "--valid-at", "someday", "--json", "--db", db)
    assert code == 2 and out == "" and json.loads(err)["error"] == "InvalidTime"
    missing = tmp_path / "missing.txt"
    code, _, err = run("restore", str(missing), "--json", "--db", str(tmp_path / "r.db"))
    assert code == 2 and json.loads(err) == {"error": "InvalidInput", "message": f"backup {missing} does not exist"}


def test_ingest_json_has_one_row_per_document(tmp_path: Path) -> None:
    db = str(tmp_path / "cli.db")
    pdf, html = str(FIXTURES / "pdf" / "two-column.pdf"), str(FIXTURES / "html" / "article.html")
    code, out, err = run("ingest", pdf, html, "--json", "--db", db)
    assert code == 0 and err == ""
    rows = json.loads(out)
    assert [(r["target"], r["outcome"], r["source"]) for r in rows] == [(pdf, "ingested", 1), (html, "ingested", 2)]
    assert rows[0]["pages"] >= 1 and rows[1]["passages"] >= 1
    encrypted, scanned = str(FIXTURES / "pdf" / "encrypted.pdf"), str(FIXTURES / "pdf" / "image-only.pdf")
    code, out, err = run("ingest", pdf, encrypted, scanned, "--json", "--db", db)
    assert code == 2
    assert [r["outcome"] for r in json.loads(out)] == ["unchanged", "error", "needs OCR"]
    assert "encrypted" in json.loads(out)[1]["message"]
    assert json.loads(err) == {"error": "IngestError", "message": "2 of 3 failed"}


def test_demo_backup_and_restore_print_json(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    code, out, _ = run("demo", "--json", "--db", str(db))
    shown = json.loads(out)
    assert code == 0 and shown["answers"] == {"now": ["PLN 245"], "true on 2026-04-15": ["PLN 280"],
                                              "true on 2026-07-01": ["PLN 245"]}
    assert [v["status"] for v in shown["history"]] == ["reported", "reported", "superseded"]
    code, out, _ = run("backup", str(tmp_path / "copy.db"), "--json", "--db", str(db))
    assert code == 0 and json.loads(out) == {"path": str(tmp_path / "copy.db"),
                                             "bytes": os.path.getsize(tmp_path / "copy.db")}
    code, out, _ = run("restore", str(tmp_path / "copy.db"), "--json", "--db", str(tmp_path / "back.db"))
    restored = json.loads(out)
    assert code == 0 and restored["path"] == str(tmp_path / "back.db") and restored["check"]["findings"] == []
