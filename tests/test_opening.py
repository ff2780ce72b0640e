"""Ledger.open: what it accepts, what it creates, and what it refuses before touching anything."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool

from ledger import InvalidInput, Ledger, StoreError
from ledger.db import make_engine, resolve_url, run_write

from .conftest import BACKEND, TestClock, assert_consistent, table_dump

sqlite_only = pytest.mark.skipif(BACKEND != "sqlite", reason="about SQLite files; runs on the SQLite backend")


def _record_one_claim(ledger: Ledger) -> int:
    source = ledger.add_source(text="Kraków is in Poland.")
    return ledger.assert_claim("Kraków", "country", "Poland", evidence=[ledger.cite(source, "Poland")]).id


def _execute(url: str, *statements: str) -> None:
    """Run statements on the database behind ``url`` with an engine of its own (no ledger)."""
    engine = create_engine(resolve_url(url), poolclass=NullPool)
    try:
        with engine.begin() as connection:
            for statement in statements:
                connection.execute(text(statement))
    finally:
        engine.dispose()


@sqlite_only
def test_a_ledger_a_killed_writer_left_with_a_hot_journal_opens(tmp_path: Path) -> None:
    """A writer killed mid-transaction in rollback-journal mode leaves a hot journal, which a
    read-only connection cannot roll back ("attempt to write a readonly database"): opening
    rolls it back, and what was committed is there."""
    import shutil

    with Ledger.open(tmp_path / "ledger.db") as ledger:
        claim_id = _record_one_claim(ledger)
    writer = sqlite3.connect(tmp_path / "ledger.db", isolation_level=None)
    writer.execute("PRAGMA journal_mode = DELETE")
    writer.execute("PRAGMA cache_size = 1")  # the transaction's pages spill into the file
    writer.execute("BEGIN IMMEDIATE")
    for _ in range(200):
        writer.execute("INSERT INTO ledger_clock (id, last_recorded_at) VALUES (NULL, ?)", ("x" * 4000,))
    for suffix in ("", "-journal"):  # the files as a kill at this moment leaves them
        shutil.copy(tmp_path / f"ledger.db{suffix}", tmp_path / f"killed.db{suffix}")
    writer.execute("ROLLBACK")
    writer.close()
    with pytest.raises(sqlite3.OperationalError, match="readonly"):  # what the check met before
        sqlite3.connect((tmp_path / "killed.db").as_uri() + "?mode=ro", uri=True).execute(
            "SELECT count(*) FROM sqlite_master").fetchall()

    with Ledger.open(tmp_path / "killed.db") as ledger:
        assert ledger.claim(claim_id).object == "Poland"
        assert_consistent(ledger)


# ---------------------------------------------------------------- in memory


@pytest.mark.parametrize("url", [":memory:", "sqlite://", "sqlite:///:memory:"])
def test_memory_is_an_in_memory_ledger_that_lasts_across_calls_and_threads(
    url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clock: TestClock
) -> None:
    monkeypatch.chdir(tmp_path)
    with Ledger.open(url, clock=clock) as ledger:
        claim_id = _record_one_claim(ledger)
        seen: list[list[int]] = []
        reader = threading.Thread(target=lambda: seen.append([c.id for c in ledger.claims("Kraków")]))
        reader.start()
        reader.join()
        assert seen == [[claim_id]] and [c.id for c in ledger.claims("Kraków")] == [claim_id]
        with pytest.raises(InvalidInput, match="in-memory ledger has no file"):
            ledger.backup(tmp_path / "copy.db")
        assert_consistent(ledger)
    assert list(tmp_path.iterdir()) == []  # no file named ":memory:" or anything else
    with Ledger.open(url) as fresh:  # each in-memory ledger is its own
        assert fresh.claims("Kraków") == []


def test_threads_take_turns_on_an_in_memory_ledger(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clock: TestClock
) -> None:
    monkeypatch.chdir(tmp_path)
    with Ledger.open(":memory:", clock=clock) as ledger:
        source = ledger.add_source(text="Values: v0 v1 v2 v3 v4 v5 v6 v7.")
        failures: list[BaseException] = []

        def write(n: int) -> None:
            try:
                ledger.assert_claim(f"thing {n}", "value", value=f"v{n}", evidence=[ledger.cite(source, f"v{n}")])
            except BaseException as error:  # noqa: BLE001 - reported below
                failures.append(error)

        threads = [threading.Thread(target=write, args=(n,)) for n in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert failures == []
        assert sorted(c.value for n in range(8) for c in ledger.claims(f"thing {n}")) == [f"v{n}" for n in range(8)]
        assert_consistent(ledger)
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------- what is not a path


@pytest.mark.parametrize("bad", [5, b"ledger.db", ["ledger.db"], 3.5])
def test_a_path_that_is_not_text_is_invalid_input(bad: object) -> None:
    with pytest.raises(InvalidInput, match="must be a file path or a URL string, not"):
        Ledger.open(bad)  # type: ignore[arg-type]


@sqlite_only
def test_a_missing_folder_is_named_in_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "no" / "such"
    with pytest.raises(InvalidInput) as caught:
        Ledger.open(missing / "x.db")
    assert str(caught.value) == f"the folder {missing} does not exist; create it or pass another path"
    assert not (tmp_path / "no").exists()


@sqlite_only
def test_a_folder_is_not_a_ledger_file(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="is a folder"):
        Ledger.open(tmp_path)


# ---------------------------------------------------------------- databases that are not ledgers


def test_another_applications_database_is_refused_and_left_alone(db_url: str) -> None:
    _execute(db_url, "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)",
             "CREATE TABLE orders (id INTEGER PRIMARY KEY)", "INSERT INTO users VALUES (1, 'Ola')")
    before = table_dump(db_url)
    file_bytes = Path(db_url).read_bytes() if BACKEND == "sqlite" else None
    with pytest.raises(InvalidInput, match=r"is not a ledger: it holds other tables \(orders, users\); "
                                           r"pass a new file or an existing ledger"):
        Ledger.open(db_url)
    assert table_dump(db_url) == before == {"orders": [], "users": [(1, "Ola")]}
    if file_bytes is not None:
        assert Path(db_url).read_bytes() == file_bytes  # not even switched to WAL


def test_another_alembic_managed_database_is_not_a_ledger(db_url: str) -> None:
    _execute(db_url, "CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL)",
             "INSERT INTO alembic_version VALUES ('abc123')", "CREATE TABLE sources (id INTEGER PRIMARY KEY)")
    with pytest.raises(InvalidInput, match=r"not a ledger: it holds other tables \(alembic_version, sources\)"):
        Ledger.open(db_url)


def test_a_ledger_with_tables_of_its_users_beside_it_still_opens(db_url: str, clock: TestClock) -> None:
    with Ledger.open(db_url, clock=clock) as ledger:
        claim_id = _record_one_claim(ledger)
    _execute(db_url, "CREATE TABLE my_notes (id INTEGER PRIMARY KEY)")
    with Ledger.open(db_url, clock=clock, create=False) as ledger:
        assert [c.id for c in ledger.claims("Kraków")] == [claim_id]


@sqlite_only
def test_a_file_that_is_not_sqlite_is_refused_and_left_alone(tmp_path: Path) -> None:
    notes = tmp_path / "notes.db"
    notes.write_text("Shopping list: milk, bread.\n" * 20, encoding="utf-8")
    with pytest.raises(InvalidInput, match=f"{notes} is not a SQLite database; pass a new file or an existing ledger"):
        Ledger.open(notes)
    assert notes.read_text(encoding="utf-8") == "Shopping list: milk, bread.\n" * 20
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.db"]


@sqlite_only
def test_a_damaged_sqlite_file_is_a_one_line_store_error(tmp_path: Path) -> None:
    damaged = tmp_path / "damaged.db"
    damaged.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000)
    with pytest.raises(StoreError, match=f"cannot open the ledger at {damaged}") as caught:
        Ledger.open(damaged)
    assert "\n" not in str(caught.value) and "sqlalche.me" not in str(caught.value)


@sqlite_only
@pytest.mark.parametrize("make", ["zero bytes", "no tables"])
def test_an_empty_sqlite_file_becomes_a_ledger(make: str, tmp_path: Path, clock: TestClock) -> None:
    path = tmp_path / "empty.db"
    if make == "zero bytes":
        path.touch()
    else:
        connection = sqlite3.connect(path)
        connection.executescript("CREATE TABLE scratch (x); DROP TABLE scratch;")
        connection.close()
    with Ledger.open(path, clock=clock) as ledger:
        _record_one_claim(ledger)
        assert_consistent(ledger)


# ---------------------------------------------------------------- create=False


def test_create_false_refuses_an_empty_database_and_creates_nothing(db_url: str) -> None:
    with pytest.raises(InvalidInput, match="no ledger exists at"):
        Ledger.open(db_url, create=False)
    if BACKEND == "sqlite":
        assert not Path(db_url).exists()
    else:
        assert table_dump(db_url) == {}


@sqlite_only
def test_create_false_refuses_an_empty_file(tmp_path: Path) -> None:
    (tmp_path / "empty.db").touch()
    with pytest.raises(InvalidInput, match="no ledger exists at"):
        Ledger.open(tmp_path / "empty.db", create=False)


def test_create_false_opens_an_existing_ledger(db_url: str, clock: TestClock) -> None:
    with Ledger.open(db_url, clock=clock) as ledger:
        claim_id = _record_one_claim(ledger)
    with Ledger.open(db_url, clock=clock, create=False) as ledger:
        assert [c.id for c in ledger.claims("Kraków")] == [claim_id]


# ---------------------------------------------------------------- messages are one line


def test_an_unreachable_server_is_one_line_without_sqlalchemy_links() -> None:
    with pytest.raises(StoreError, match="cannot open the ledger at postgresql") as caught:
        Ledger.open("postgresql+psycopg://nobody@127.0.0.1:9/none?connect_timeout=2")
    assert "\n" not in str(caught.value) and "sqlalche.me" not in str(caught.value)


def test_a_failed_write_is_one_line_without_sqlalchemy_links(db_url: str) -> None:
    Ledger.open(db_url).close()
    engine = make_engine(resolve_url(db_url))
    try:
        with pytest.raises(StoreError, match="nothing was written") as caught:
            run_write(engine, lambda connection: connection.execute(text("INSERT INTO no_such_table VALUES (1)")))
    finally:
        engine.dispose()
    message = str(caught.value)
    assert "no_such_table" in message and "\n" not in message and "sqlalche.me" not in message
    assert "[SQL:" not in message
