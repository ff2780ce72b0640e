"""Sources and their passages: lookups by hash or uri, inserts, the facts independence needs."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, cast

from sqlalchemy import (
    Connection,
    bindparam,
    func,
    select,
    union_all,
)

from ledger.errors import NotFound
from ledger.records import SourceId
from ledger.store.driver import (
    Ids,
    insert_columns,
    one_of,
    passages,
    retrievals,
    run,
    sources,
    stored_time,
)

_SOURCE = select(sources).where(sources.c.id == bindparam("id"))
_SEEN_AT = func.coalesce(sources.c.retrieved_at, sources.c.recorded_at).label("seen_at")
_BY_HASH_OR_URI = union_all(
    # Every source with these bytes (a page that came back to earlier content has several), first
    # revisions and later ones apart: each half has its own partial unique index, which a query
    # uses only when it names the index's condition (else it scans the scope's sources) ...
    *(select(sources.c.id, sources.c.content_hash, sources.c.uri, _SEEN_AT)
      .where(sources.c.scope == bindparam("scope"), sources.c.content_hash == bindparam("hash"), revision)
      for revision in (sources.c.revision_of.is_(None), sources.c.revision_of.is_not(None))),
    # ... and the newest revision under the uri.
    select(
        select(sources.c.id, sources.c.content_hash, sources.c.uri, _SEEN_AT)
        .where(sources.c.scope == bindparam("scope"), sources.c.uri == bindparam("uri"))
        .order_by(sources.c.id.desc()).limit(1).subquery()
    ),
)
_PASSAGE_COUNT = select(func.count()).select_from(passages).where(passages.c.source_id == bindparam("id"))


def sources_by_hash_or_uri(
    connection: Connection, scope: str, content_hash: str, uri: str | None
) -> list[tuple[int, str, str | None, datetime]]:
    """(id, content_hash, uri, when retrieved or else stored) of the sources in ``scope`` with these
    bytes and of the newest revision under ``uri``. A new document costs one small statement."""
    return [(row[0], row[1], row[2], cast(datetime, stored_time(row[3])))  # recorded_at is never NULL
            for row in run(connection, _BY_HASH_OR_URI, {"scope": scope, "hash": content_hash, "uri": uri})]


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
    sources.c.content_hash, sources.c.trust, sources.c.published_at,
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
