"""Every write and id lookup, in SQLAlchemy Core on prebuilt statements.

Functions here take an open Connection inside a transaction the caller (``db.run_write`` or
``db.read_transaction``) owns; none of them commits.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
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
    String,
    Table,
    Text,
    bindparam,
    exc,
    func,
    insert,
    or_,
    select,
    union_all,
    update,
)
from sqlalchemy.dialects import postgresql
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.visitors import InternalTraversal
from sqlalchemy.types import TypeDecorator, TypeEngine

from ledger import model
from ledger.entities import normalize_name
from ledger.errors import AliasConflict, Conflict, NotFound
from ledger.records import Cause, CauseKind, ClaimId, EffectKind, EntityId, SourceId
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
clock: Table = model.ClockState.__table__  # type: ignore[attr-defined]

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


def cause_columns(causes: Sequence[Cause | None]) -> dict[str, list[Any]]:
    """The version columns that hold these causes (kind, related claim, detail)."""
    return {
        "cause": [None if c is None else c.kind for c in causes],
        "cause_claim_id": [None if c is None else c.claim for c in causes],
        "cause_detail": [None if c is None else _cause_detail(c) for c in causes],
    }


def _cause_detail(cause: Cause) -> dict[str, Any] | None:
    detail: dict[str, Any] = {}
    if cause.effects:
        detail["effects"] = [list(effect) for effect in cause.effects]
    if cause.sources is not None:
        detail["sources"] = cause.sources
    return detail or None


def decode_cause(kind: str | None, claim: int | None, detail: Any) -> Cause | None:
    """A version's cause from its stored columns."""
    if kind is None:
        return None
    if isinstance(detail, str):  # read past SQLAlchemy's JSON processing
        detail = json.loads(detail)
    detail = detail or {}
    return Cause(
        cast(CauseKind, kind), None if claim is None else ClaimId(claim),
        tuple((cast(EffectKind, k), None if c is None else ClaimId(c)) for k, c in detail.get("effects", ())),
        detail.get("sources"),
    )


# ---------------------------------------------------------------- entities

_ROOTS = (
    select(aliases.c.normalized, func.coalesce(entities.c.merged_into, entities.c.id))
    .join(entities, entities.c.id == aliases.c.entity_id)
    .where(aliases.c.scope == bindparam("scope"), one_of(aliases.c.normalized, "names"))
)


def root_entity_ids(connection: Connection, names: Iterable[str], scope: str) -> dict[str, EntityId]:
    """Map normalized names to the entity they resolve to (following merges)."""
    wanted = sorted(set(names))
    if not wanted:
        return {}
    rows = connection.execute(_ROOTS, {"scope": scope, "names": wanted})
    return {normalized: EntityId(root) for normalized, root in rows.all()}


def create_entity(
    connection: Connection, ids: Ids, *, scope: str, name: str, kind: str | None, now: datetime
) -> EntityId:
    """Insert an entity and its name as its first alias."""
    [entity_id] = create_entities(connection, ids, scope=scope, names=[name], now=now, kind=kind)
    return entity_id


def create_entities(
    connection: Connection, ids: Ids, *, scope: str, names: Sequence[str], now: datetime, kind: str | None = None
) -> list[EntityId]:
    """Insert entities whose names (distinct when normalized) no alias of ``scope`` holds yet."""
    if not names:
        return []
    first_entity, first_alias = ids.take(entities, len(names)), ids.take(aliases, len(names))
    insert_rows(connection, entities, [
        {"id": first_entity + n, "scope": scope, "kind": kind, "name": name, "created_at": now}
        for n, name in enumerate(names)
    ])
    insert_rows(connection, aliases, [
        {"id": first_alias + n, "entity_id": first_entity + n, "scope": scope, "alias": name,
         "normalized": normalize_name(name), "language": None, "recorded_at": now}
        for n, name in enumerate(names)
    ])
    return [EntityId(first_entity + n) for n in range(len(names))]


def add_aliases(
    connection: Connection, ids: Ids, entity_id: EntityId, names: Iterable[str], *, scope: str,
    now: datetime, language: str | None = None,
) -> None:
    """Add aliases to an entity; an alias naming another entity raises AliasConflict."""
    wanted = {normalize_name(name): name for name in names}
    taken = root_entity_ids(connection, wanted, scope)
    rows = []
    for normalized, name in wanted.items():
        owner = taken.get(normalized)
        if owner is None:
            rows.append({"id": ids.take(aliases), "entity_id": entity_id, "scope": scope, "alias": name,
                         "normalized": normalized, "language": language, "recorded_at": now})
        elif owner != entity_id:
            raise AliasConflict(
                f"alias {name!r} already names entity {owner} in scope {scope!r}; "
                f"merge the two entities with merge_entities() if they are the same"
            )
    insert_rows(connection, aliases, rows)


_ENTITY = select(entities).where(entities.c.id == bindparam("id"))
_ENTITY_ALIASES = select(aliases.c.alias).where(one_of(aliases.c.entity_id, "ids")) \
    .order_by(aliases.c.id)
_MERGED = select(entities.c.id).where(or_(entities.c.id == bindparam("root"),
                                          entities.c.merged_into == bindparam("root")))


def entity_row(connection: Connection, entity_id: int) -> Mapping[Any, Any]:
    """The entity row, or NotFound."""
    row = connection.execute(_ENTITY, {"id": entity_id}).mappings().first()
    if row is None:
        raise NotFound(f"entity {entity_id} does not exist")
    return row


def entity_aliases(connection: Connection, entity_ids: Sequence[int]) -> tuple[str, ...]:
    """Every alias of the given entities, oldest first."""
    return tuple(connection.execute(_ENTITY_ALIASES, {"ids": list(entity_ids)}).scalars())


def merged_ids(connection: Connection, root: int) -> list[int]:
    """The entity and every entity merged into it."""
    return list(connection.execute(_MERGED, {"root": root}).scalars())


def merge_entities(connection: Connection, keep: int, other: int, now: datetime) -> None:
    """Point ``other`` (and whatever was merged into it) at ``keep``; no claim row changes."""
    if keep == other:
        raise Conflict(f"cannot merge entity {keep} into itself")
    connection.execute(
        update(entities).where(or_(entities.c.id == other, entities.c.merged_into == other))
        .values(merged_into=keep, merged_at=now)
    )


# ---------------------------------------------------------------- sources

_SOURCE = select(sources).where(sources.c.id == bindparam("id"))
_BY_HASH_OR_URI = union_all(
    # Every source with these bytes (a page that came back to earlier content has several), first
    # revisions and later ones apart: each half has its own partial unique index, which a query
    # uses only when it names the index's condition (else it scans the scope's sources) ...
    *(select(sources.c.id, sources.c.content_hash, sources.c.uri)
      .where(sources.c.scope == bindparam("scope"), sources.c.content_hash == bindparam("hash"), revision)
      for revision in (sources.c.revision_of.is_(None), sources.c.revision_of.is_not(None))),
    # ... and the newest revision under the uri.
    select(
        select(sources.c.id, sources.c.content_hash, sources.c.uri)
        .where(sources.c.scope == bindparam("scope"), sources.c.uri == bindparam("uri"))
        .order_by(sources.c.id.desc()).limit(1).subquery()
    ),
)
_PASSAGE_COUNT = select(func.count()).select_from(passages).where(passages.c.source_id == bindparam("id"))


def sources_by_hash_or_uri(
    connection: Connection, scope: str, content_hash: str, uri: str | None
) -> list[Any]:
    """(id, content_hash, uri) of the sources in ``scope`` with these bytes and of the newest
    revision under ``uri``. A new document costs one small statement."""
    return run(connection, _BY_HASH_OR_URI, {"scope": scope, "hash": content_hash, "uri": uri})


def source_row(connection: Connection, source_id: int) -> Mapping[Any, Any]:
    """The source row, or NotFound."""
    row = connection.execute(_SOURCE, {"id": source_id}).mappings().first()
    if row is None:
        raise NotFound(f"source {source_id} does not exist")
    return row


def passage_count(connection: Connection, source_id: int) -> int:
    """How many passages a source has."""
    return int(connection.execute(_PASSAGE_COUNT, {"id": source_id}).scalar_one())


def insert_source(
    connection: Connection, ids: Ids, row: Mapping[Any, Any], passage_columns: Mapping[str, Sequence[Any]]
) -> SourceId:
    """Insert a source and its passages (page, bbox, char_start, char_end, paragraph as columns);
    returns the new id."""
    ids.prepare(sources, passages)
    source_id = ids.take(sources)
    insert_columns(connection, sources, {key: (value,) for key, value in row.items()} | {"id": (source_id,)})
    count = len(passage_columns["char_start"])
    if count:
        first = ids.take(passages, count)
        insert_columns(connection, passages, {
            **passage_columns, "id": range(first, first + count), "ordinal": range(count),
        }, same={"source_id": source_id})
    return SourceId(source_id)


_PASSAGES_FOR = (
    select(passages.c.ordinal, passages.c.page, passages.c.bbox, passages.c.char_start, passages.c.char_end,
           passages.c.paragraph)
    .where(passages.c.source_id == bindparam("id"))
    .order_by(passages.c.ordinal)
)
_PASSAGES_ON_PAGE = _PASSAGES_FOR.where(passages.c.page == bindparam("page"))


def source_passages(connection: Connection, source_id: int, page: int | None = None) -> list[Mapping[Any, Any]]:
    """A source's passages in order (only those of ``page`` if given)."""
    if page is None:
        return list(connection.execute(_PASSAGES_FOR, {"id": source_id}).mappings())
    return list(connection.execute(_PASSAGES_ON_PAGE, {"id": source_id, "page": page}).mappings())


_SOURCE_FACTS = select(
    sources.c.id, sources.c.scope, sources.c.revision_of, sources.c.publisher, sources.c.text_hash,
    sources.c.content_hash, sources.c.trust,
).where(one_of(sources.c.id, "ids"))


def source_facts(connection: Connection, source_ids: Iterable[int]) -> dict[int, Mapping[Any, Any]]:
    """id → (scope, revision_of, publisher, text_hash, content_hash, trust), following revisions to their roots."""
    facts: dict[int, Mapping[Any, Any]] = {}
    pending = set(source_ids)
    while pending:
        rows = connection.execute(_SOURCE_FACTS, {"ids": sorted(pending)}).mappings().all()
        pending.clear()
        for row in rows:
            facts[row["id"]] = row
            parent = row["revision_of"]
            if parent is not None and parent not in facts:
                pending.add(parent)
    return facts


_SOURCE_TEXTS = select(sources.c.id, sources.c.text).where(one_of(sources.c.id, "ids"))


def source_texts(connection: Connection, source_ids: Iterable[int]) -> dict[int, str]:
    """The stored text of each source."""
    wanted = sorted(set(source_ids))
    return dict(connection.execute(_SOURCE_TEXTS, {"ids": wanted}).all()) if wanted else {}


_RETRIEVALS = (
    select(retrievals.c.retrieved_at, retrievals.c.uri, retrievals.c.actor, retrievals.c.recorded_at)
    .where(retrievals.c.source_id == bindparam("id"))
    .order_by(retrievals.c.retrieved_at, retrievals.c.id)
)


def insert_retrieval(
    connection: Connection, ids: Ids, source_id: int, *, retrieved_at: datetime, uri: str | None,
    actor: str | None, now: datetime,
) -> None:
    """Record that a source's bytes were fetched or read at ``retrieved_at`` from ``uri``."""
    insert_columns(connection, retrievals, {
        "id": (ids.take(retrievals),), "source_id": (source_id,), "retrieved_at": (retrieved_at,), "uri": (uri,),
        "actor": (actor,), "recorded_at": (now,),
    })


def source_retrievals(connection: Connection, source_id: int) -> list[Mapping[Any, Any]]:
    """(retrieved_at, uri, actor, recorded_at) of a source's retrievals, oldest retrieved_at first."""
    return list(connection.execute(_RETRIEVALS, {"id": source_id}).mappings())


# ---------------------------------------------------------------- claims

_STANDING_COLUMNS = (
    claims.c.id.label("claim_id"), claims.c.scope, claims.c.subject_id, claims.c.predicate, claims.c.object_id,
    claims.c.value, claims.c.datatype, claims.c.qualifiers,
    versions.c.id.label("version_id"), versions.c.status, versions.c.confidence, versions.c.valid_from,
    versions.c.valid_until, versions.c.valid_from_precision, versions.c.valid_until_precision,
    versions.c.reason, versions.c.actor,
)


_STANDING = select(*_STANDING_COLUMNS).join(versions, versions.c.claim_id == claims.c.id).where(
    versions.c.invalidated_at.is_(None), versions.c.status != "retracted"
)
# subject IN (...) AND predicate IN (...) is a superset of the keys; standing_claims filters it.
_STANDING_BY_KEYS = _STANDING.where(
    claims.c.scope == bindparam("scope"), one_of(claims.c.subject_id, "subjects"),
    one_of(claims.c.predicate, "predicates"),
)
_STANDING_BY_IDS = _STANDING.where(one_of(claims.c.id, "ids"))


def standing_claims(
    connection: Connection, keys: Iterable[tuple[str, int, str]], claim_ids: Iterable[int] = ()
) -> list[Mapping[Any, Any]]:
    """Current, non-retracted versions of claims with these (scope, subject, predicate) keys
    or these ids."""
    rows: list[Mapping[Any, Any]] = []
    wanted = set(keys)
    for scope in sorted({k[0] for k in wanted}):
        found = connection.execute(_STANDING_BY_KEYS, {
            "scope": scope, "subjects": sorted({k[1] for k in wanted if k[0] == scope}),
            "predicates": sorted({k[2] for k in wanted if k[0] == scope}),
        }).mappings()
        rows.extend(r for r in found if (scope, r["subject_id"], r["predicate"]) in wanted)
    seen = {row["claim_id"] for row in rows}
    missing = sorted(set(claim_ids) - seen)
    if missing:
        rows.extend(connection.execute(_STANDING_BY_IDS, {"ids": missing}).mappings())
    return rows


_SUPPORT_SOURCES = (
    select(evidence.c.claim_id, evidence.c.source_id)
    .where(one_of(evidence.c.claim_id, "ids"), evidence.c.relation == "supports")
    .distinct()
)


def supporting_sources(connection: Connection, claim_ids: Iterable[int]) -> dict[int, set[int]]:
    """claim id → ids of the sources of its supporting evidence."""
    found: dict[int, set[int]] = {}
    wanted = sorted(set(claim_ids))
    if wanted:
        for claim_id, source_id in connection.execute(_SUPPORT_SOURCES, {"ids": wanted}).all():
            found.setdefault(claim_id, set()).add(source_id)
    return found


_INVALIDATE = (
    update(versions)
    .where(versions.c.id == bindparam("version_id"), versions.c.invalidated_at.is_(None))
    .values(invalidated_at=bindparam("now"))
)


def invalidate_versions(connection: Connection, version_ids: Sequence[int], now: datetime) -> None:
    """Close the system-time interval of these versions at ``now``."""
    if version_ids:
        connection.execute(_INVALIDATE, [{"version_id": v, "now": now} for v in version_ids])


_CURRENT_VERSION = (
    select(versions, claims.c.scope)
    .join(claims, claims.c.id == versions.c.claim_id)
    .where(versions.c.claim_id == bindparam("id"), versions.c.invalidated_at.is_(None))
)


_HISTORY = select(versions).where(versions.c.claim_id == bindparam("id")).order_by(versions.c.id)


def version_history(connection: Connection, claim_id: int) -> Sequence[Mapping[Any, Any]]:
    """Every version row of a claim, oldest first."""
    return connection.execute(_HISTORY, {"id": claim_id}).mappings().all()


def current_version(connection: Connection, claim_id: int) -> Mapping[Any, Any]:
    """The current version row of a claim (with its scope), or NotFound."""
    row = connection.execute(_CURRENT_VERSION, {"id": claim_id}).mappings().first()
    if row is None:
        raise NotFound(f"claim {claim_id} does not exist")
    return row


_FIRST_VERSION = select(versions).where(versions.c.claim_id == bindparam("id")).order_by(versions.c.id).limit(1)


def first_version(connection: Connection, claim_id: int) -> Mapping[Any, Any]:
    """The version a claim was asserted with."""
    return connection.execute(_FIRST_VERSION, {"id": claim_id}).mappings().one()


_MARK_STALE = (
    update(evidence).where(evidence.c.id == bindparam("evidence_id"), evidence.c.stale_at.is_(None))
    .values(stale_at=bindparam("now"))
)


def _standing_evidence(rows: Iterable[Mapping[Any, Any]]) -> list[Mapping[Any, Any]]:
    """The rows neither flagged stale nor carried into a newer revision by another of ``rows``."""
    listed = list(rows)
    carried = {row["reanchored_from"] for row in listed}
    return [row for row in listed if row["stale_at"] is None and row["id"] not in carried]


_EVIDENCE_SPANS = select(
    evidence.c.claim_id, evidence.c.source_id, evidence.c.char_start, evidence.c.char_end, evidence.c.relation,
).where(one_of(evidence.c.claim_id, "ids"))


def evidence_spans(connection: Connection, claim_ids: Iterable[int]) -> set[tuple[int, int, int, int, str]]:
    """(claim, source, char_start, char_end, relation) of the claims' evidence, stale rows included:
    citing a span again does not undo its staleness, a newer revision that has the quote does."""
    ids = sorted(set(claim_ids))
    if not ids:
        return set()
    return {tuple(row) for row in connection.execute(_EVIDENCE_SPANS, {"ids": ids})}


_CLAIM_EVIDENCE = select(evidence).where(evidence.c.claim_id == bindparam("id")).order_by(evidence.c.id)


def current_evidence(connection: Connection, claim_id: int) -> list[Mapping[Any, Any]]:
    """A claim's evidence as it stands: rows neither flagged stale nor carried into a newer
    revision by another row."""
    return _standing_evidence(connection.execute(_CLAIM_EVIDENCE, {"id": claim_id}).mappings())


def mark_stale(connection: Connection, evidence_ids: Sequence[int], now: datetime) -> None:
    """Flag evidence whose quote vanished from the newest revision of its source."""
    if evidence_ids:
        connection.execute(_MARK_STALE, [{"evidence_id": e, "now": now} for e in evidence_ids])


_PREDICATES = select(predicates).where(one_of(predicates.c.name, "names"))


def predicate_rows(connection: Connection, names: Iterable[str]) -> dict[str, Mapping[Any, Any]]:
    """Declared predicates by name."""
    wanted = sorted(set(names))
    if not wanted:
        return {}
    return {row["name"]: row for row in connection.execute(_PREDICATES, {"names": wanted}).mappings()}
