"""Engines, SQLite pragmas and transactions: one place that knows how we talk to a database."""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy import Connection, Engine, create_engine, event, exc
from sqlalchemy.engine import URL, make_url
from sqlalchemy.pool import QueuePool

from ledger.errors import InvalidInput, LedgerError, StoreError
from ledger.text.fold import search_fold
from ledger.timeline import Clock, LedgerClock

if TYPE_CHECKING:
    from ledger.store import Ids

T = TypeVar("T")

DEFAULT_FILE = "ledger.db"
#: Environment variable naming the database when ``Ledger.open()`` gets no URL.
URL_VARIABLE = "LEDGER_URL"
BUSY_TIMEOUT_MS = 10_000
LOCK_RETRIES = 8
#: What every SQLite file starts with (https://www.sqlite.org/fileformat.html).
SQLITE_HEADER = b"SQLite format 3\x00"
MEMORY = ":memory:"
#: Tables that, together, mark a database as a ledger: alembic's, and one only ledger makes.
ALEMBIC_TABLE = "alembic_version"
LEDGER_MARKER = "ledger_clock"


def resolve_url(url_or_path: str | os.PathLike[str] | None) -> str:
    """Turn a path, URL or None (``$LEDGER_URL``, else ``./ledger.db``) into a SQLAlchemy URL.

    ``":memory:"`` names a new in-memory SQLite ledger.
    """
    if url_or_path is None:
        url_or_path = os.environ.get(URL_VARIABLE) or DEFAULT_FILE
    raw = _path_text(url_or_path)
    if not raw.strip():
        raise InvalidInput("the database path is empty; pass a file path or a URL such as sqlite:///ledger.db")
    if raw == MEMORY:
        return "sqlite://"
    if "://" not in raw:
        return "sqlite:///" + str(Path(raw).expanduser().resolve())
    if raw.startswith(("postgres://", "postgresql://")):
        raw = "postgresql+psycopg://" + raw.split("://", 1)[1]
    try:
        make_url(raw)
    except exc.ArgumentError as error:
        raise InvalidInput(f"{raw!r} is not a database URL: {error}") from error
    return raw


def _path_text(url_or_path: object) -> str:
    """The text of a path or URL; anything else is refused."""
    raw = os.fspath(url_or_path) if isinstance(url_or_path, (str, os.PathLike)) else None
    if not isinstance(raw, str):
        raise InvalidInput(f"the database must be a file path or a URL string, not {type(url_or_path).__name__} "
                           f"{url_or_path!r}; pass e.g. 'ledger.db' or 'postgresql://user@host/db'")
    return raw


def _sqlite_file(url: str) -> Path | None:
    """The file a SQLite URL names; None for PostgreSQL and in-memory SQLite."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or _is_memory(parsed):
        return None
    return Path(parsed.database or "")


def default_sqlite_file() -> Path:
    """The SQLite file ``Ledger.open(None)`` opens: ``$LEDGER_URL``'s, else ``./ledger.db``.

    InvalidInput if ``$LEDGER_URL`` names another kind of database.
    """
    url = resolve_url(None)
    path = _sqlite_file(url)
    if path is None:
        raise InvalidInput(f"${URL_VARIABLE} names {describe(url)}, not a SQLite file; pass the file's path")
    return path


def _is_memory(url: URL) -> bool:
    """Whether a SQLite URL names an in-memory database (``sqlite://``, ``sqlite:///:memory:``)."""
    return url.get_backend_name() == "sqlite" and url.database in (None, "", MEMORY)


def describe(url: str | URL) -> str:
    """How messages name a database: its file, "the in-memory database", or the URL without password."""
    parsed = make_url(url)
    if _is_memory(parsed):
        return "the in-memory database"
    if parsed.get_backend_name() == "sqlite":
        return str(parsed.database)
    return parsed.render_as_string(hide_password=True)


def check_sqlite_file(url: str, *, create: bool) -> None:
    """Refuse, before SQLite creates or touches anything, a file that cannot be (or become) a ledger.

    Args:
        create: whether a missing file may be created; if not, a missing file is refused.
    """
    path = _sqlite_file(url)
    if path is None:
        return
    if not path.parent.is_dir():
        raise InvalidInput(f"the folder {path.parent} does not exist; create it or pass another path")
    if path.is_dir():
        raise InvalidInput(f"{path} is a folder; pass the path of a ledger file, such as {path / DEFAULT_FILE}")
    if not path.exists():
        if not create:
            raise _no_ledger_at(str(path))
        return
    header = _header(path)
    if header not in (b"", SQLITE_HEADER):
        raise InvalidInput(f"{path} is not a SQLite database; pass a new file or an existing ledger")
    if header:  # looked at read-only: opening it for real would already switch it to WAL
        check_is_ledger(_sqlite_tables(path), str(path), create=create)


def check_is_ledger(tables: set[str], where: str, *, create: bool) -> None:
    """Refuse a database that is not a ledger: another application's, or none yet unless ``create``.

    Args:
        tables: the names of the tables and views in the database (its default schema).
        where: the database as messages name it.
    """
    if not tables and not create:
        raise _no_ledger_at(where)
    if tables and not _is_ledger(tables):
        named = ", ".join(sorted(tables)[:5]) + (", …" if len(tables) > 5 else "")
        raise InvalidInput(f"{where} is not a ledger: it holds other tables ({named}); "
                           "pass a new file or an existing ledger")


def _is_ledger(tables: set[str]) -> bool:
    # Alembic's table alone is a ledger downgraded to the base revision.
    return ALEMBIC_TABLE in tables and (LEDGER_MARKER in tables or tables == {ALEMBIC_TABLE})


def _sqlite_tables(path: Path) -> set[str]:
    """The names of the file's tables and views, read without changing its journal mode."""
    try:
        try:
            return _table_names(sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True))
        except sqlite3.OperationalError as error:
            if not getattr(error, "sqlite_errorname", "").startswith("SQLITE_READONLY"):
                raise
        # A writer killed mid-transaction left a hot journal: only a connection that may write can
        # roll it back, as the first open for real would.
        return _table_names(sqlite3.connect(path))
    except sqlite3.Error as error:
        raise StoreError(f"cannot open the ledger at {path}: {error}") from error


def _table_names(connection: sqlite3.Connection) -> set[str]:
    try:
        rows = connection.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view') "
                                  "AND name NOT LIKE 'sqlite~_%' ESCAPE '~'").fetchall()
    finally:
        connection.close()
    return {name for (name,) in rows}


def _no_ledger_at(where: str) -> InvalidInput:
    """The error for reading a ledger that does not exist."""
    return InvalidInput(f"no ledger exists at {where}; check the path or URL (--db or ${URL_VARIABLE}), "
                        "or create one with a command that writes, such as `ledger add-source`")


def _header(path: Path) -> bytes:
    try:
        with path.open("rb") as file:
            return file.read(len(SQLITE_HEADER))
    except OSError as error:
        raise InvalidInput(f"cannot read {path}: {error.strerror or error}") from error


def make_engine(url: str) -> Engine:
    """Create an engine; SQLite gets WAL, foreign keys, a busy timeout and explicit BEGINs.

    An in-memory SQLite ledger lives in one connection that every call (and thread) takes in
    turn, so it lasts as long as the engine.
    """
    if url.startswith("sqlite"):
        if _is_memory(make_url(url)):
            engine = _memory_engine(url)
        else:
            engine = create_engine(url, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000})
        event.listen(engine, "connect", _sqlite_connect)
        event.listen(engine, "begin", _sqlite_begin)
        return engine
    if url.startswith("postgresql"):
        return create_engine(url, pool_pre_ping=True)
    raise InvalidInput(f"unsupported database {url.split(':', 1)[0]!r}; use a SQLite path or a postgresql:// URL")


def _memory_engine(url: str) -> Engine:
    # One connection, never a second: a second would be a second, empty database. Another
    # thread waits for it as it would wait for a file's lock.
    return create_engine(url, poolclass=QueuePool, pool_size=1, max_overflow=0,
                         pool_timeout=BUSY_TIMEOUT_MS / 1000, connect_args={"check_same_thread": False})


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
    # The search index's triggers (migration 0009) fold text with it; see ledger/search.py.
    dbapi_connection.create_function("ledger_fold", 1, search_fold, deterministic=True)


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
    except (exc.DBAPIError, exc.TimeoutError) as error:
        raise StoreError(f"the database failed while reading: {reason(error)}") from error


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
            raise StoreError(f"the database failed while writing; nothing was written: {reason(error)}") from error
        except (exc.DBAPIError, exc.TimeoutError) as error:
            raise StoreError(f"the database failed while writing; nothing was written: {reason(error)}") from error
    raise AssertionError("unreachable")  # pragma: no cover


def _is_lock(error: exc.OperationalError) -> bool:
    text = str(error.orig).lower()
    return "locked" in text or "busy" in text or "deadlock" in text or "could not serialize" in text


def reason(error: BaseException) -> str:
    """One line saying why: the driver's own message, without SQLAlchemy's SQL and links."""
    if isinstance(error, exc.DBAPIError) and error.orig is not None:
        error = error.orig
    if isinstance(error, exc.TimeoutError):  # the pool had no free connection
        return f"the database stayed busy for longer than {BUSY_TIMEOUT_MS // 1000} s; try again"
    first = str(error).strip().split("\n", 1)[0]  # later lines: SQLAlchemy's SQL and "Background" link
    if isinstance(error, exc.SQLAlchemyError) and first.startswith("(") and ") " in first:
        first = first.split(") ", 1)[1]  # "(sqlite3.OperationalError) unable to open …": the message
    return first or type(error).__name__


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


def backup_to(engine: Engine, path: str | os.PathLike[str]) -> Path:
    """Back a SQLite ledger up into ``path``; the resolved path."""
    target = Path(path).expanduser().resolve()
    backup_sqlite(engine, target)
    return target


def restore_to(backup: object, path: object, *, overwrite: bool) -> Path:
    """Restore a backup file into the SQLite file ``path``; both must be paths of files."""
    for name, value in (("backup", backup), ("path", path)):
        if not isinstance(value, (str, os.PathLike)) or os.fspath(value) in ("", MEMORY):
            raise InvalidInput(f"{name} must be the path of a SQLite file, not {value!r:.60}")
    assert isinstance(backup, (str, os.PathLike)) and isinstance(path, (str, os.PathLike))
    source, target = Path(backup).expanduser().resolve(), Path(path).expanduser().resolve()
    restore_sqlite(source, target, overwrite=overwrite)
    return target


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


class Transactions:
    """One ledger's engine and clock: write transactions stamped with the clock's reading (never
    earlier than the last write), and read snapshots."""

    def __init__(self, engine: Engine, clock: Clock | None) -> None:
        from ledger import store

        self._store = store
        self.engine = engine
        self._clock = LedgerClock(clock)
        # a read at a "now" before the database's last write would answer about the past
        self._clock.seen(self.read(lambda connection: store.last_recorded(connection, lock=False)))

    def write(self, work: Callable[[Connection, datetime, Ids], T]) -> T:
        """Run ``work(connection, now, ids)`` in one write transaction, retried while locked."""
        store = self._store

        def transaction(connection: Connection) -> T:
            now = self._clock.read(not_before=store.last_recorded(connection), for_write=True)
            result = work(connection, now, store.Ids(connection))
            store.refresh_search(connection)  # what updates made stale, by this write or another program
            store.advance_clock(connection, now)
            return result

        return run_write(self.engine, transaction)

    def read(self, work: Callable[[Connection], T], *, single_statement: bool = False) -> T:
        """Run ``work(connection)`` on one consistent snapshot."""
        with read_transaction(self.engine, single_statement=single_statement) as connection:
            return work(connection)

    def now(self) -> datetime:
        """The clock's reading, refused if earlier than the last write this ledger knows of."""
        return self._clock.read(not_before=None)
