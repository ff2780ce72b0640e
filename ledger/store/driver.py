"""The one way ledger runs SQL fast: statements compiled once and executed on the DBAPI cursor of
the caller's transaction, bulk inserts given column by column, ids handed out under the write lock,
the ledger clock's row, and the SQL constructs the other store modules build statements from.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from itertools import repeat
from operator import itemgetter
from typing import Any, cast

from sqlalchemy import (
    JSON,
    BindParameter,
    ColumnElement,
    Connection,
    Dialect,
    Select,
    String,
    Table,
    Text,
    bindparam,
    exc,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.dialects import postgresql
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.visitors import InternalTraversal
from sqlalchemy.types import TypeDecorator, TypeEngine

from ledger import model
from ledger.store import search_index
from ledger.timeline import from_micros, to_micros

entities: Table = model.Entity.__table__  # type: ignore[attr-defined]
aliases: Table = model.Alias.__table__  # type: ignore[attr-defined]
sources: Table = model.Source.__table__  # type: ignore[attr-defined]
passages: Table = model.Passage.__table__  # type: ignore[attr-defined]
retrievals: Table = model.SourceRetrieval.__table__  # type: ignore[attr-defined]
claims: Table = model.Claim.__table__  # type: ignore[attr-defined]
versions: Table = model.ClaimVersion.__table__  # type: ignore[attr-defined]
evidence: Table = model.Evidence.__table__  # type: ignore[attr-defined]
links: Table = model.ClaimLink.__table__  # type: ignore[attr-defined]
predicates: Table = model.Predicate.__table__  # type: ignore[attr-defined]
predicate_definitions: Table = model.PredicateDefinition.__table__  # type: ignore[attr-defined]
predicate_aliases: Table = model.PredicateAlias.__table__  # type: ignore[attr-defined]
clock: Table = model.ClockState.__table__  # type: ignore[attr-defined]
tombstones: Table = model.Tombstone.__table__  # type: ignore[attr-defined]
policy_settings: Table = model.PolicySetting.__table__  # type: ignore[attr-defined]
policy_decisions: Table = model.PolicyDecisionRow.__table__  # type: ignore[attr-defined]
grants: Table = model.Grant.__table__  # type: ignore[attr-defined]
challenges: Table = model.Challenge.__table__  # type: ignore[attr-defined]
reliability: Table = model.Reliability.__table__  # type: ignore[attr-defined]

# ---------------------------------------------------------------- lists of values as one parameter

class _ValueList(TypeDecorator[Any]):
    """A list of values bound as one parameter: a JSON array on SQLite, an array on PostgreSQL."""

    impl = Text
    cache_ok = True

    def __init__(self, item_type: TypeEngine[Any]) -> None:
        super().__init__()
        self.item_type = item_type

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        if dialect.name == "postgresql":  # text[], not varchar(n)[]: that cast would truncate the values
            item = Text() if isinstance(self.item_type, String) else self.item_type
            return dialect.type_descriptor(postgresql.ARRAY(item))
        return dialect.type_descriptor(Text())

    def process_bind_param(self, value: Any, dialect: Dialect) -> Any:
        return list(value) if dialect.name == "postgresql" else json.dumps(list(value), ensure_ascii=False)


class _OneOf(ColumnElement[bool]):
    """``column IN (values)`` with the values in one bound list.

    An expanding IN renders one placeholder per value on every execution (more costly than the
    lookup itself for tens of thousands of values) and needs chunks under the drivers' parameter
    limits; a single list parameter needs neither and keeps one cached statement.
    """

    inherit_cache = True
    _traverse_internals = [("column", InternalTraversal.dp_clauseelement),
                           ("values", InternalTraversal.dp_clauseelement)]

    def __init__(self, column: ColumnElement[Any], name: str) -> None:
        self.column = column
        self.values: BindParameter[Any] = bindparam(name, type_=_ValueList(column.type))


@compiles(_OneOf)
def _one_of_sqlite(element: _OneOf, compiler: SQLCompiler, **kw: Any) -> str:
    return (f"{compiler.process(element.column, **kw)} IN "
            f"(SELECT value FROM json_each({compiler.process(element.values, **kw)}))")


@compiles(_OneOf, "postgresql")
def _one_of_postgresql(element: _OneOf, compiler: SQLCompiler, **kw: Any) -> str:
    return f"{compiler.process(element.column, **kw)} = ANY({compiler.process(element.values, **kw)})"


def one_of(column: ColumnElement[Any], name: str) -> ColumnElement[bool]:
    """``column`` is one of the values of list parameter ``name`` (any number of values)."""
    return _OneOf(column, name)


class _Unindexed(ColumnElement[Any]):
    """A column SQLite must not look up through an index: ``+column`` there, the column elsewhere."""

    inherit_cache = True
    _traverse_internals = [("column", InternalTraversal.dp_clauseelement)]

    def __init__(self, column: ColumnElement[Any]) -> None:
        self.column = column
        self.type = column.type


@compiles(_Unindexed)
def _unindexed_default(element: _Unindexed, compiler: SQLCompiler, **kw: Any) -> str:
    return compiler.process(element.column, **kw)


@compiles(_Unindexed, "sqlite")
def _unindexed_sqlite(element: _Unindexed, compiler: SQLCompiler, **kw: Any) -> str:
    return f"+{compiler.process(element.column, **kw)}"


def unindexed(column: ColumnElement[Any]) -> ColumnElement[Any]:
    """``column`` as a filter only: SQLite will not search an index on it (its documented unary
    ``+``). Without statistics SQLite takes ``scope = ?`` for a handful of rows, when it is
    every row of the scope, and searches the scope's rows rather than a selective lookup
    (ids, an object); PostgreSQL, which has statistics, gets the plain column."""
    return _Unindexed(column)

# ---------------------------------------------------------------- clock and ids

_READ_CLOCK = select(clock.c.last_recorded_at).where(clock.c.id == 1)
_READ_CLOCK_LOCKED = _READ_CLOCK.with_for_update()
_ADVANCE_CLOCK = update(clock).where(clock.c.id == 1).values(last_recorded_at=bindparam("now"))


def last_recorded(connection: Connection, *, lock: bool = True) -> datetime | None:
    """The last system time written; on PostgreSQL this also locks out other writers (``lock``)."""
    if connection.dialect.name == "sqlite":
        ((micros,),) = run(connection, _READ_CLOCK)
        return None if micros is None else from_micros(micros)
    ((value,),) = run(connection, _READ_CLOCK_LOCKED if lock else _READ_CLOCK)
    return None if value is None else cast(datetime, value).astimezone(UTC)


def advance_clock(connection: Connection, now: datetime) -> None:
    """Record ``now`` as the last system time written."""
    run(connection, _ADVANCE_CLOCK, {"now": now})


def run(connection: Connection, statement: ClauseElement, params: Mapping[str, Any] | None = None) -> list[Any]:
    """Run a small statement straight through the DBAPI cursor of the connection's transaction;
    returns the raw rows (times as stored: microseconds on SQLite).

    For the few statements every write runs (the clock, id lookups): SQLAlchemy's execution and
    result machinery cost several times what SQLite spends on them. Parameters are converted as
    :func:`insert_columns` converts them; the SQL is compiled once per statement and dialect.
    """
    sql, names, converters, defaults, positional = _plan(statement, connection.dialect)
    given = {**defaults, **params} if params else defaults
    values = [given[name] if convert is None else convert(given[name])
              for name, convert in zip(names, converters, strict=True)]
    return _on_driver(connection, sql, values if positional else dict(zip(names, values, strict=True)))


def rows(connection: Connection, statement: Select[Any], params: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Run a select through :func:`run` (the hot reads: claims as of a time); its rows as dicts,
    times as aware UTC datetimes. Build ``statement`` once (its compiled form is cached by it)."""
    names, times = _result_plan(statement)
    found = [dict(zip(names, row, strict=True)) for row in run(connection, statement, params)]
    sqlite = connection.dialect.name == "sqlite"
    for row in found:
        for name in times:
            value = row[name]
            if value is not None:
                row[name] = from_micros(value) if sqlite else value.astimezone(UTC)
    return found


def stored_time(value: Any) -> datetime | None:
    """A time column read past SQLAlchemy's processing (microseconds on SQLite, timestamptz on
    PostgreSQL) as an aware UTC datetime."""
    if value is None:
        return None
    return from_micros(value) if isinstance(value, int) else cast(datetime, value).astimezone(UTC)


_RESULT_PLANS: dict[Select[Any], tuple[tuple[str, ...], tuple[str, ...]]] = {}


def _result_plan(statement: Select[Any]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(column names, names of the time columns) of a select."""
    plan = _RESULT_PLANS.get(statement)
    if plan is None:
        columns = list(statement.selected_columns)
        plan = _RESULT_PLANS[statement] = (
            tuple(str(c.key) for c in columns), tuple(str(c.key) for c in columns if isinstance(c.type, model.UTCTime)))
    return plan


def _on_driver(connection: Connection, sql: str, parameters: Any, *, many: bool = False) -> list[Any]:
    """Execute SQL on the DBAPI cursor of the connection's own transaction; the rows it returns.

    A driver error is raised as SQLAlchemy's DBAPIError, as SQLAlchemy would raise it, so that
    callers (the lock retries in ``db.run_write``) see one kind of error.
    """
    cursor = connection.connection.cursor()
    try:
        if many:
            cursor.executemany(sql, parameters)
            return []
        cursor.execute(sql, parameters)
        return list(cursor.fetchall()) if cursor.description else []
    except connection.dialect.loaded_dbapi.Error as error:
        shown = parameters[:1] if many else parameters
        raise exc.DBAPIError.instance(sql, shown, error, connection.dialect.loaded_dbapi.Error) from error
    finally:
        cursor.close()


_RunPlan = tuple[str, tuple[str, ...], tuple[Any, ...], dict[str, Any], bool]
_RUN_PLANS: dict[tuple[ClauseElement, str], _RunPlan] = {}


def _plan(statement: ClauseElement, dialect: Dialect) -> _RunPlan:
    """(SQL, parameter names in order, their converters, values fixed in the statement, positional?)."""
    key = (statement, f"{dialect.name}+{dialect.driver}")
    plan = _RUN_PLANS.get(key)
    if plan is None:
        compiled = cast(SQLCompiler, statement.compile(dialect=dialect))
        binds = {name: bind for bind, name in compiled.bind_names.items()}
        # positional SQL names a parameter once per use, so a name can repeat
        names = tuple(compiled.positiontup or ()) if compiled.positional else tuple(binds)
        converters = tuple(_converter(binds[name].type, dialect.name) for name in names)
        fixed = {name: bind.effective_value for name, bind in binds.items() if not bind.required}
        plan = _RUN_PLANS[key] = (str(compiled), names, converters, fixed, compiled.positional)
    return plan


_MAX_IDS: dict[tuple[str, ...], Any] = {}  # statements built once: building one costs as much as running it


class Ids:
    """Hands out primary keys under the write lock, so batches insert with executemany."""

    def __init__(self, connection: Connection) -> None:
        self._connection = connection
        self._next: dict[str, int] = {}

    def prepare(self, *tables: Table) -> None:
        """Look up the current maximum id of each table not looked up yet, in one statement."""
        missing = tuple(table for table in tables if table.name not in self._next)
        if not missing:
            return
        names = tuple(table.name for table in missing)
        statement = _MAX_IDS.get(names)
        if statement is None:
            statement = _MAX_IDS[names] = select(
                *(select(func.max(table.c.id)).scalar_subquery() for table in missing))
        for name, current in zip(names, run(self._connection, statement)[0], strict=True):
            self._next[name] = (current or 0) + 1

    def take(self, table: Table, count: int = 1) -> int:
        """Reserve ``count`` consecutive ids of ``table``; returns the first."""
        name = table.name
        if name not in self._next:
            self.prepare(table)
        first = self._next[name]
        self._next[name] = first + count
        return first


def insert_rows(
    connection: Connection, table: Table, rows: Sequence[Mapping[Any, Any]], *, same: Mapping[str, Any] | None = None
) -> None:
    """executemany-insert plain dict rows (all with the same keys); see :func:`insert_columns`."""
    if rows:
        insert_columns(connection, table, {key: list(map(itemgetter(key), rows)) for key in rows[0]}, same=same)


def insert_columns(
    connection: Connection, table: Table, columns: Mapping[str, Sequence[Any]], *,
    same: Mapping[str, Any] | None = None,
) -> None:
    """executemany-insert rows given column by column (equal lengths) straight through the DBAPI.

    ``same`` holds the values every row shares (a batch's ``recorded_at``), converted once. The
    statement is compiled by SQLAlchemy once per table and column set; values are converted here
    (times to the stored form, JSON to text unless the column is a :class:`JsonTexts`), skipping
    SQLAlchemy's per-row processing, which costs more than the insert itself on bulk writes.
    """
    count = len(next(iter(columns.values()))) if columns else 0
    if not count:
        return
    shared = same or {}
    # A column that is NULL in every row is left out of the statement (binding it costs as much
    # as a value); map() and zip() keep the per-value work in C.
    keys = tuple(k for k, cells in columns.items()
                 if cells[0] is not None or cells.count(None) < count or table.c[k].server_default is not None)
    sql, order, converters, positional = _insert_plan(table, (*keys, *shared), connection.dialect)
    values: list[Any] = []
    for column, convert in zip(order, converters, strict=True):
        if column in shared:
            value = shared[column]
            values.append(repeat(convert(value) if convert is not None else value, count))
            continue
        cells = columns[column]
        if convert is None or (convert is _json_text and isinstance(cells, JsonTexts)):
            values.append(cells)
        else:
            values.append(list(map(convert, cells)))
    data: list[Any] = list(zip(*values, strict=True))
    if not positional:
        data = [dict(zip(order, record, strict=True)) for record in data]
    # Straight to the driver: SQLAlchemy's exec_driver_sql would walk every parameter row again
    # in Python before handing them over.
    _on_driver(connection, sql, data, many=True)
    if table.name in search_index.INDEXED_TABLES:  # the new rows into the search index, in one statement
        for statement, parameters in search_index.upkeep(connection.dialect.name, table.name, columns["id"]):
            _on_driver(connection, statement, parameters)


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector for bulk work.

    A bulk load or a book-sized ingest allocates millions of short-lived objects that hold no
    cycles (reading one web page, hundreds of thousands); the collector would traverse them (and
    everything else alive) again and again: about 15% of a bulk load, up to half of storing a
    200-page PDF's passages, about 4% of ingesting a web page.
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


_PLANS: dict[tuple[str, tuple[str, ...], str], tuple[str, tuple[str, ...], tuple[Any, ...], bool]] = {}


def _insert_plan(
    table: Table, keys: tuple[str, ...], dialect: Dialect
) -> tuple[str, tuple[str, ...], tuple[Any, ...], bool]:
    """(SQL, column order of its parameters, value converters, positional?) for these keys."""
    dialect_name = dialect.name
    key = (table.name, keys, f"{dialect_name}+{dialect.driver}")
    plan = _PLANS.get(key)
    if plan is None:
        compiled = insert(table).compile(dialect=dialect, column_keys=list(keys))
        columns = tuple(compiled.positiontup or ()) if compiled.positional else keys
        converters = tuple(_converter(table.c[c].type, dialect_name) for c in columns)
        plan = _PLANS[key] = (str(compiled), columns, converters, compiled.positional)
    return plan


def _converter(column_type: Any, dialect_name: str) -> Any:
    if isinstance(column_type, model.UTCTime):
        return None if dialect_name == "postgresql" else _micros_of
    if isinstance(column_type, JSON):
        return _json_text
    return None


_last_time: tuple[datetime | None, int] = (None, 0)


def _micros_of(value: datetime | None) -> int | None:
    # A batch stamps every row with the same `now`: remember the last conversion. The pair is
    # swapped as one tuple, so threads sharing it never see a time with another's micros.
    global _last_time
    if value is None:
        return None
    last = _last_time
    if last[0] is not value:
        last = _last_time = (value, to_micros(value))
    return last[1]


class JsonText(str):
    """JSON already serialized (e.g. one locator shared by many evidence rows)."""


class JsonTexts(list[str | None]):
    """A whole column of JSON already serialized (None for NULL), for :func:`insert_columns`."""


def json_text(value: Any) -> JsonText:
    """Serialize a value for a JSON column once."""
    return JsonText(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def _json_text(value: Any) -> str | None:
    if value is None or isinstance(value, JsonText):
        return value
    return json_text(value)
