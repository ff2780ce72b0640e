"""The schema comes from alembic alone, and the models agree with the migrations."""

from __future__ import annotations

import sqlite3

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from ledger import Ledger
from ledger.db import make_engine, resolve_url
from ledger.migrate import alembic_config, compared
from ledger.model import metadata


def test_models_and_migrations_agree(db_url: str) -> None:
    Ledger.open(db_url).close()
    engine = make_engine(resolve_url(db_url))
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True, "include_name": compared})
        assert compare_metadata(context, metadata) == []
    with engine.connect() as connection, connection.begin():
        command.check(alembic_config(connection))  # raises when autogenerate would emit anything
    engine.dispose()


def test_open_upgrades_an_older_database(db_url: str) -> None:
    Ledger.open(db_url).close()
    engine = make_engine(resolve_url(db_url))
    with engine.connect() as connection, connection.begin():
        command.downgrade(alembic_config(connection), "base")
    with engine.connect() as connection:
        assert "claims" not in inspect(connection).get_table_names()
    with Ledger.open(db_url) as ledger:
        doc = ledger.add_source(text="Upgraded databases work.")
        assert ledger.cite(doc, "work").excerpt == "work"
    with engine.connect() as connection:
        assert MigrationContext.configure(connection).get_current_revision() == _head()
    engine.dispose()


def test_upgrading_keeps_the_data_of_the_first_schema(db_url: str, clock) -> None:
    """0002 lets a revision hold bytes stored before; sources stored under 0001 stay as they were."""
    url = "https://port.example/notice"
    with Ledger.open(db_url, clock=clock) as ledger:
        first = ledger.add_source(text="The pier opens at 8.", uri=url)
        clock.tick()
        second = ledger.add_source(text="The pier opens at 9.", uri=url)
        claim = ledger.assert_claim("pier", "opens at", value=9, evidence=[ledger.cite(second, "opens at 9")])
    engine = make_engine(resolve_url(db_url))
    with engine.connect() as connection:
        if connection.dialect.name == "sqlite":  # SQLite copies the table: see ledger.migrate.upgrade
            connection.connection.driver_connection.execute("PRAGMA foreign_keys = OFF")  # type: ignore[union-attr]
        with connection.begin():
            command.downgrade(alembic_config(connection), "0001")
    engine.dispose()
    clock.tick()
    with Ledger.open(db_url, clock=clock) as ledger:
        assert ledger.source(second.id).revision_of == first.id
        back = ledger.add_source(text="The pier opens at 8.", uri=url)
        assert back.created and back.revision_of == second.id and back.content_hash == first.content_hash
        assert [e.source_id for e in ledger.stale_evidence()] == [second.id]  # the copied table kept its rows
        assert [t.source.id for t in ledger.explain(claim).evidence] == [second.id]
        assert ledger.check().ok
    with engine.connect() as connection:
        assert MigrationContext.configure(connection).get_current_revision() == _head()
    engine.dispose()


def test_a_ledger_with_a_broken_reference_opens_so_check_can_report_it(tmp_path) -> None:
    path = tmp_path / "broken.db"
    with Ledger.open(path) as ledger:
        source = ledger.add_source(text="Some text. The pier opens at 8.")
        ledger.assert_claim("pier", "opens at", value=8, evidence=[ledger.cite(source, "The pier opens at 8")])
    with sqlite3.connect(path) as raw:  # the sqlite3 shell's default: foreign keys off
        raw.execute("UPDATE passages SET source_id = 999")
    raw.close()
    with Ledger.open(path) as ledger:  # only an upgrade checks every reference before it commits
        assert not ledger.check().ok


def _head() -> str:
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


def test_sqlite_runs_in_wal_with_foreign_keys(tmp_path) -> None:
    path = tmp_path / "x.db"
    Ledger.open(path).close()
    engine = make_engine(resolve_url(str(path)))  # the engine set-up every ledger uses
    with engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar() >= 5000
    engine.dispose()


def test_default_database_is_ledger_db_in_the_working_directory(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("LEDGER_URL", raising=False)
    with Ledger.open() as ledger:
        ledger.add_source(text="default file")
    assert (tmp_path / "ledger.db").is_file()
    monkeypatch.setenv("LEDGER_URL", str(tmp_path / "other.db"))
    Ledger.open().close()
    assert (tmp_path / "other.db").is_file()
