"""Online backup and restore of SQLite ledgers, including while another process writes."""

from __future__ import annotations

import multiprocessing
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ledger import InvalidInput, Ledger
from ledger.cli import app


def _writer(path: str, stop_after: float, writing: Any) -> None:
    with Ledger.open(path) as ledger:
        source = ledger.add_source(text="Counter source: tick.")
        deadline, n = float("inf"), 0
        while time.monotonic() < deadline:
            ledger.assert_claims([{"subject": f"writer-{n}", "predicate": f"tick {k}", "value": k,
                                   "evidence": [ledger.cite(source, "tick")]} for k in range(20)])
            n += 1
            if n == 2:  # the backup starts once batches are flowing, however slow the machine
                writing.set()
                deadline = time.monotonic() + stop_after


def test_backup_while_a_writer_runs_is_consistent_and_restores(tmp_path: Path) -> None:
    path = tmp_path / "live.db"
    Ledger.open(path).close()
    context = multiprocessing.get_context("spawn")
    writing = context.Event()
    writer = context.Process(target=_writer, args=(str(path), 4.0, writing))
    writer.start()
    try:
        assert writing.wait(timeout=120), "the writer process never wrote"
        with Ledger.open(path) as ledger:
            copy = ledger.backup(tmp_path / "copy.db")
    finally:
        writer.join(timeout=30)
    assert writer.exitcode == 0
    restored = Ledger.restore(copy, tmp_path / "restored.db")
    with Ledger.open(restored) as ledger:
        assert ledger.check().ok
        claims = [c for c in ledger.claims() if c.predicate.startswith("tick")]
        per_batch: dict[str, int] = {}
        for claim in claims:
            per_batch[claim.subject] = per_batch.get(claim.subject, 0) + 1
        assert claims and all(count == 20 for count in per_batch.values())  # whole batches only


def test_backup_and_restore_refuse_to_overwrite(tmp_path: Path) -> None:
    with Ledger.open(tmp_path / "a.db") as ledger:
        ledger.add_source(text="something")
        ledger.backup(tmp_path / "b.db")
        with pytest.raises(InvalidInput, match="already exists"):
            ledger.backup(tmp_path / "b.db")
    with pytest.raises(InvalidInput, match="already exists"):
        Ledger.restore(tmp_path / "b.db", tmp_path / "a.db")
    with pytest.raises(InvalidInput, match="does not exist"):
        Ledger.restore(tmp_path / "missing.db", tmp_path / "c.db")
    with pytest.raises(InvalidInput, match="must be the path of a SQLite file"):
        Ledger.restore(tmp_path / "b.db", ":memory:")
    assert not Path(":memory:").exists()


def test_cli_backup_and_restore(tmp_path: Path) -> None:
    runner = CliRunner()
    db = str(tmp_path / "main.db")
    assert runner.invoke(app, ["demo", "--db", db]).exit_code == 0
    result = runner.invoke(app, ["backup", str(tmp_path / "bk.db"), "--db", db])
    assert result.exit_code == 0 and "backed up" in result.stdout
    (tmp_path / "garbage.db").write_bytes(b"not a database at all" * 100)
    result = runner.invoke(app, ["restore", str(tmp_path / "garbage.db"), "--db", str(tmp_path / "r.db")])
    assert result.exit_code == 6 and not (tmp_path / "r.db").exists()
    result = runner.invoke(app, ["restore", str(tmp_path / "bk.db"), "--db", str(tmp_path / "r.db")])
    assert result.exit_code == 0 and "check: ok" in " ".join(result.stdout.split())
    with Ledger.open(tmp_path / "r.db") as ledger:
        assert [c.value for c in ledger.claims("home", "electricity bill")] == ["PLN 245"]
