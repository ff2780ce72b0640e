"""Alembic, configured in code: the package's migrations run on the caller's connection."""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.migration import MigrationContext
from sqlalchemy import Connection, Engine, inspect, text

from ledger.db import (
    check_is_ledger,
    check_sqlite_file,
    describe,
    is_sqlite,
    make_engine,
    reason,
    resolve_url,
)
from ledger.errors import InvalidInput, NotFound, StoreError
from ledger.store.search_index import TABLES as SEARCH_TABLES

# Any constant works; it only has to be the same for every ledger process.
_PG_MIGRATION_LOCK = 7_316_352_001


def migrations_dir() -> Path:
    """The alembic script directory, whether installed (ledger.migrations) or in a checkout."""
    try:
        installed = resources.files("ledger.migrations")
        if installed.joinpath("env.py").is_file():
            return Path(str(installed))
    except ModuleNotFoundError:
        pass
    return Path(__file__).resolve().parent.parent / "migrations"


def compared(name: str | None, type_: str, parent_names: object) -> bool:
    """Whether alembic compares a database object with the models: not the search index's
    tables, which differ by database and are made by migration 0009 alone."""
    if type_ != "table" or name is None:
        return True
    return name not in SEARCH_TABLES and not name.startswith(("search_index_", "search_names_"))


def alembic_config(connection: Connection | None = None) -> Config:
    """An alembic Config pointing at ledger's migrations, bound to ``connection`` if given."""
    config = Config()
    config.set_main_option("script_location", str(migrations_dir()))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def upgrade(engine: Engine, *, create: bool = True) -> None:
    """Bring the database to the newest schema; concurrent openers wait for each other.

    An empty database becomes a new ledger if ``create``; one holding other tables is refused.
    """
    with engine.connect() as connection:
        connection.execution_options(ledger_write=True)
        sqlite = is_sqlite(connection)
        if sqlite:
            # SQLite changes a table's constraints by copying the table, which the rows citing it
            # would refuse; its documented procedure: foreign keys off outside the transaction,
            # checked before it commits.
            connection.connection.driver_connection.execute("PRAGMA foreign_keys = OFF")  # type: ignore[union-attr]
        try:
            with connection.begin():
                if not sqlite:
                    connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_MIGRATION_LOCK})
                inspector = inspect(connection)
                tables = set(inspector.get_table_names()) | set(inspector.get_view_names())
                check_is_ledger(tables, describe(engine.url), create=create)
                before = MigrationContext.configure(connection).get_current_revision()
                command.upgrade(alembic_config(connection), "head")
                migrated = MigrationContext.configure(connection).get_current_revision() != before
                if sqlite and migrated and (broken := connection.exec_driver_sql("PRAGMA foreign_key_check").first()):
                    raise StoreError(f"upgrading the schema would leave a reference from table {broken[0]} "
                                     f"row {broken[1]} to a missing row of {broken[2]}; nothing was changed (the reference was "
                                     f"broken before; `PRAGMA foreign_key_check` in the sqlite3 shell lists such rows)")
        finally:
            if sqlite:
                connection.connection.driver_connection.execute("PRAGMA foreign_keys = ON")  # type: ignore[union-attr]


def open_engine(url_or_path: str | os.PathLike[str] | None, *, create: bool) -> Engine:
    """An engine on the ledger at ``url_or_path``, its schema brought to the newest (created if
    ``create`` and empty); InvalidInput for what is not a ledger, StoreError if it cannot be reached."""
    url = resolve_url(url_or_path)
    check_sqlite_file(url, create=create)  # before SQLite creates or touches the file
    engine = make_engine(url)
    try:
        upgrade(engine, create=create)
    except Exception as exc:
        engine.dispose()
        if isinstance(exc, (InvalidInput, NotFound)):
            raise
        raise StoreError(f"cannot open the ledger at {describe(url)}: {reason(exc)}") from exc
    return engine
