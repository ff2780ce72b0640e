"""Engines, SQLite pragmas and transactions: one place that knows how we talk to a database."""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Connection, Engine, create_engine, event, exc
from sqlalchemy.engine import make_url

from ledger.errors import InvalidInput, LedgerError, StoreError

T = TypeVar("T")

DEFAULT_FILE = "ledger.db"
#: Environment variable naming the database when ``Ledger.open()`` gets no URL.
URL_VARIABLE = "LEDGER_URL"
BUSY_TIMEOUT_MS = 10_000
LOCK_RETRIES = 8


def resolve_url(url_or_path: str | os.PathLike[str] | None) -> str:
    """Turn a path, URL or None (``$LEDGER_URL``, else ``./ledger.db``) into a SQLAlchemy URL."""
    if url_or_path is None:
        url_or_path = os.environ.get(URL_VARIABLE) or DEFAULT_FILE
    raw = os.fspath(url_or_path)
    if not raw.strip():
        raise InvalidInput("the database path is empty; pass a file path or a URL such as sqlite:///ledger.db")
    if "://" not in raw:
        return "sqlite:///" + str(Path(raw).expanduser().resolve())
    if raw.startswith(("postgres://", "postgresql://")):
        raw = "postgresql+psycopg://" + raw.split("://", 1)[1]
    try:
        make_url(raw)
    except exc.ArgumentError as error:
        raise InvalidInput(f"{raw!r} is not a database URL: {error}") from error
    return raw


def make_engine(url: str) -> Engine:
    """Create an engine; SQLite gets WAL, foreign keys, a busy timeout and explicit BEGINs."""
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000})
        event.listen(engine, "connect", _sqlite_connect)
        event.listen(engine, "begin", _sqlite_begin)
        return engine
    if url.startswith("postgresql"):
        return create_engine(url, pool_pre_ping=True)
    raise InvalidInput(f"unsupported database {url.split(':', 1)[0]!r}; use a SQLite path or a postgresql:// URL")


def _sqlite_connect(dbapi_connection: Any, _record: Any) -> None:
    # Take transaction control away from the sqlite3 module so BEGIN IMMEDIATE is ours to send.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA journal_mode = WAL")
    cursor.execute("PRAGMA synchronous = NORMAL")
    cursor.execute("PRAGMA cache_size = -65536")  # 64 MiB: index upkeep on bulk writes stays in memory
    cursor.execute("PRAGMA foreign_keys = ON")
    cursor.close()


def _sqlite_begin(connection: Connection) -> None:
    # Writers take the lock up front: a deferred BEGIN that later writes can fail with
    # SQLITE_BUSY without waiting, which the busy timeout cannot help.
    options = connection.get_execution_options()
    if options.get("ledger_single_statement"):
        return  # one SELECT is its own consistent snapshot; skip the BEGIN/ROLLBACK round trip
    statement = "BEGIN IMMEDIATE" if options.get("ledger_write") else "BEGIN"
    try:  # straight to the driver: every transaction pays for this statement
        connection.connection.driver_connection.execute(statement)  # type: ignore[union-attr]
    except sqlite3.Error as error:
        raise exc.DBAPIError.instance(statement, (), error, sqlite3.Error) from error


def is_sqlite(connection: Connection | Engine) -> bool:
    """Whether this connection or engine talks to SQLite."""
    return connection.dialect.name == "sqlite"


@contextmanager
def read_transaction(engine: Engine, *, single_statement: bool = False) -> Iterator[Connection]:
    """A read-only transaction: one consistent snapshot for all its statements.

    ``single_statement=True`` promises one statement, which SQLite then runs without BEGIN.
    """
    try:
        with engine.connect() as connection:
            if single_statement:
                connection.execution_options(ledger_single_statement=True)
            elif not is_sqlite(connection):
                # PostgreSQL's default READ COMMITTED gives each statement its own snapshot.
                connection.execution_options(isolation_level="REPEATABLE READ")
            with connection.begin():
                yield connection
    except exc.DBAPIError as error:
        raise StoreError(f"the database failed while reading: {_reason(error)}") from error


def run_write(engine: Engine, work: Callable[[Connection], T]) -> T:
    """Run ``work`` in one write transaction, retrying a bounded number of times while locked.

    Either everything ``work`` wrote is committed or nothing is.
    """
    for attempt in range(LOCK_RETRIES + 1):
        try:
            with engine.connect() as connection:
                connection.execution_options(ledger_write=True)
                with connection.begin():
                    return work(connection)
        except LedgerError:
            raise
        except exc.OperationalError as error:
            if _is_lock(error) and attempt < LOCK_RETRIES:
                time.sleep(min(0.05 * 2**attempt, 1.0))
                continue
            raise StoreError(f"the database failed while writing; nothing was written: {_reason(error)}") from error
        except exc.DBAPIError as error:
            raise StoreError(f"the database failed while writing; nothing was written: {_reason(error)}") from error
    raise AssertionError("unreachable")  # pragma: no cover


def _is_lock(error: exc.OperationalError) -> bool:
    text = str(error.orig).lower()
    return "locked" in text or "busy" in text or "deadlock" in text or "could not serialize" in text


def _reason(error: exc.DBAPIError) -> str:
    return str(error.orig).strip().splitlines()[0] if error.orig is not None else str(error)


def backup_sqlite(engine: Engine, target: Path) -> None:
    """Online backup of a SQLite database into ``target`` (a new file), checked afterwards."""
    if engine.dialect.name != "sqlite":
        raise InvalidInput("backup() copies SQLite ledgers; back up PostgreSQL with pg_dump (see the README)")
    if target.exists():
        raise InvalidInput(f"{target} already exists; back up into a new file")
    if not target.parent.is_dir():
        raise InvalidInput(f"{target.parent} is not a directory")
    database = engine.url.database
    if not database or database == ":memory:":
        raise InvalidInput("an in-memory ledger has no file to back up")
    _copy_sqlite(lambda: sqlite3.connect(database, timeout=BUSY_TIMEOUT_MS / 1000), target)


def restore_sqlite(backup: Path, target: Path, *, overwrite: bool) -> None:
    """Copy a backup file into ``target`` through the backup API, refusing damaged backups."""
    if not backup.is_file():
        raise InvalidInput(f"backup {backup} does not exist")
    if target.exists() and not overwrite:
        raise InvalidInput(f"{target} already exists; pass overwrite=True (--force) to replace it")
    _verify(backup)
    _copy_sqlite(lambda: sqlite3.connect(f"file:{backup}?mode=ro", uri=True), target)


def _copy_sqlite(open_source: Callable[[], Any], target: Path) -> None:
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    source = open_source()
    try:
        destination = sqlite3.connect(partial)
        try:
            source.backup(destination)  # one step: a consistent snapshot
            destination.execute("PRAGMA journal_mode = WAL")
        finally:
            destination.close()
    except sqlite3.Error as error:
        partial.unlink(missing_ok=True)
        raise StoreError(f"the backup failed; nothing was written to {target}: {error}") from error
    finally:
        source.close()
    _verify(partial)
    for suffix in ("-wal", "-shm"):
        Path(str(target) + suffix).unlink(missing_ok=True)
    partial.replace(target)  # atomic: the target is either the old file or the whole copy


def _verify(path: Path) -> None:
    try:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            result = connection.execute("PRAGMA integrity_check").fetchone()
        finally:
            connection.close()
    except sqlite3.Error as error:
        raise StoreError(f"{path} is not a readable SQLite database: {error}") from error
    if result is None or result[0] != "ok":
        raise StoreError(f"{path} failed SQLite's integrity check: {result}")
