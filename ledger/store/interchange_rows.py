"""Rows for export and import: one scope's tables streamed as held at a moment, id offsets,
reference checks and the verbatim inserts a restore needs."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import BindParameter, Connection, Select, Table, bindparam, func, select, update

from ledger.model import UTCTime
from ledger.store.driver import (
    aliases,
    claims,
    entities,
    evidence,
    links,
    one_of,
    passages,
    predicates,
    retrievals,
    sources,
    versions,
)

#: Rows fetched per round trip while streaming (server-side cursors on PostgreSQL).
CHUNK = 1000

_K = bindparam("known_at", type_=UTCTime())
_SCOPE: BindParameter[str] = bindparam("scope")

#: What each export section reads: the scope's rows recorded at or before :known_at, by id.
SECTIONS: dict[str, Select[Any]] = {
    "predicate": select(predicates).where(predicates.c.recorded_at <= _K).order_by(predicates.c.name),
    "entity": select(entities).where(entities.c.scope == _SCOPE, entities.c.created_at <= _K)
    .order_by(entities.c.id),
    "merge": select(entities.c.id, entities.c.merged_into, entities.c.merged_at)
    .where(entities.c.scope == _SCOPE, entities.c.merged_into.is_not(None), entities.c.merged_at <= _K)
    .order_by(entities.c.id),
    "alias": select(aliases).where(aliases.c.scope == _SCOPE, aliases.c.recorded_at <= _K).order_by(aliases.c.id),
    "source": select(sources).where(sources.c.scope == _SCOPE, sources.c.recorded_at <= _K).order_by(sources.c.id),
    "claim": select(claims).where(claims.c.scope == _SCOPE, claims.c.recorded_at <= _K).order_by(claims.c.id),
    "version": select(versions).join(claims, claims.c.id == versions.c.claim_id)
    .where(claims.c.scope == _SCOPE, versions.c.recorded_at <= _K).order_by(versions.c.id),
    "evidence": select(evidence).join(claims, claims.c.id == evidence.c.claim_id)
    .where(claims.c.scope == _SCOPE, evidence.c.recorded_at <= _K).order_by(evidence.c.id),
    "link": select(links).where(links.c.scope == _SCOPE, links.c.recorded_at <= _K).order_by(links.c.id),
}

_subject, _object = entities.alias("subject"), entities.alias("object")
#: Evidence with what an annotation shows of its claim and source, by evidence id.
ANNOTATED_EVIDENCE: Select[Any] = (
    select(evidence, sources.c.uri.label("source_uri"), sources.c.title.label("source_title"),
           sources.c.kind.label("source_kind"), _subject.c.name.label("subject_name"), claims.c.predicate,
           _object.c.name.label("object_name"), claims.c.value, claims.c.datatype)
    .join(claims, claims.c.id == evidence.c.claim_id)
    .join(sources, sources.c.id == evidence.c.source_id)
    .join(_subject, _subject.c.id == claims.c.subject_id)
    .outerjoin(_object, _object.c.id == claims.c.object_id)
    .where(claims.c.scope == _SCOPE, evidence.c.recorded_at <= _K)
    .order_by(evidence.c.id)
)
#: Claims with each version, grouped by claim (the RDF export reads a claim's versions together).
CLAIM_VERSIONS: Select[Any] = (
    select(claims.c.id.label("claim_id"), claims.c.subject_id, claims.c.predicate, claims.c.object_id,
           claims.c.value, claims.c.datatype, claims.c.qualifiers, claims.c.actor.label("claim_actor"),
           versions.c.id.label("version_id"), versions.c.status, versions.c.confidence, versions.c.valid_from,
           versions.c.valid_until, versions.c.valid_from_precision, versions.c.valid_until_precision,
           versions.c.recorded_at, versions.c.invalidated_at, versions.c.reason, versions.c.cause,
           versions.c.cause_claim_id)
    .join(versions, versions.c.claim_id == claims.c.id)
    .where(claims.c.scope == _SCOPE, versions.c.recorded_at <= _K)
    .order_by(claims.c.id, versions.c.id)
)
_PASSAGES = select(passages.c.page, passages.c.bbox, passages.c.char_start, passages.c.char_end,
                   passages.c.paragraph).where(passages.c.source_id == bindparam("id")).order_by(passages.c.ordinal)
_RETRIEVALS = (
    select(retrievals.c.retrieved_at, retrievals.c.uri, retrievals.c.actor, retrievals.c.recorded_at)
    .where(retrievals.c.source_id == bindparam("id"), retrievals.c.recorded_at <= _K).order_by(retrievals.c.id)
)


def stream(connection: Connection, statement: Select[Any], *, scope: str, known_at: datetime
           ) -> Iterator[Mapping[Any, Any]]:
    """The rows of one of the statements above, fetched ``CHUNK`` at a time (never all at once)."""
    result = connection.execution_options(yield_per=CHUNK).execute(
        statement, {"scope": scope, "known_at": known_at})
    for partition in result.mappings().partitions():
        yield from partition


def count(connection: Connection, statement: Select[Any], *, scope: str, known_at: datetime) -> int:
    """How many rows ``stream`` will yield."""
    counted = select(func.count()).select_from(statement.order_by(None).subquery())
    return int(connection.execute(counted, {"scope": scope, "known_at": known_at}).scalar_one())


def source_parts(connection: Connection, source_id: int, known_at: datetime
                 ) -> tuple[list[Mapping[Any, Any]], list[Mapping[Any, Any]]]:
    """A source's passages (in order) and its retrievals recorded by ``known_at``."""
    found: list[Mapping[Any, Any]] = list(connection.execute(_PASSAGES, {"id": source_id}).mappings())
    seen: list[Mapping[Any, Any]] = list(
        connection.execute(_RETRIEVALS, {"id": source_id, "known_at": known_at}).mappings())
    return found, seen


# ---------------------------------------------------------------- import

_OCCUPIED = [select(table.c.id).where(table.c.scope == _SCOPE).limit(1)
             for table in (entities, aliases, sources, claims, links)]


def scope_is_empty(connection: Connection, scope: str) -> bool:
    """Whether ``scope`` holds no entity, alias, source, claim or link."""
    return all(connection.execute(statement, {"scope": scope}).first() is None for statement in _OCCUPIED)


_MAX_ID = {table.name: select(func.max(table.c.id)) for table in
           (entities, aliases, sources, passages, retrievals, claims, versions, evidence, links)}


def max_id(connection: Connection, table: Table) -> int:
    """The largest id in ``table`` (0 when empty): imported ids are shifted past it."""
    return int(connection.execute(_MAX_ID[table.name]).scalar() or 0)


_IN_SCOPE: dict[str, Select[Any]] = {
    "entity": select(entities.c.id).where(entities.c.scope == _SCOPE, one_of(entities.c.id, "ids")),
    "source": select(sources.c.id).where(sources.c.scope == _SCOPE, one_of(sources.c.id, "ids")),
    "claim": select(claims.c.id).where(claims.c.scope == _SCOPE, one_of(claims.c.id, "ids")),
    "evidence": select(evidence.c.id).join(claims, claims.c.id == evidence.c.claim_id)
    .where(claims.c.scope == _SCOPE, one_of(evidence.c.id, "ids")),
}


def ids_in_scope(connection: Connection, kind: str, ids: Iterable[int], scope: str) -> set[int]:
    """Which of these ids of ``kind`` (entity, source, claim, evidence) exist in ``scope``."""
    wanted = sorted(set(ids))
    if not wanted:
        return set()
    return set(connection.execute(_IN_SCOPE[kind], {"scope": scope, "ids": wanted}).scalars())


_MISQUOTED = (
    select(evidence.c.id).join(sources, sources.c.id == evidence.c.source_id)
    .where(one_of(evidence.c.id, "ids"),
           func.substr(sources.c.text, evidence.c.char_start + 1, evidence.c.char_end - evidence.c.char_start)
           != evidence.c.excerpt)
)


def misquoted(connection: Connection, evidence_ids: Iterable[int]) -> set[int]:
    """Which of these evidence rows have an excerpt that is not their source's text at their offsets."""
    wanted = sorted(set(evidence_ids))
    return set(connection.execute(_MISQUOTED, {"ids": wanted}).scalars()) if wanted else set()


_MERGE = update(entities).where(entities.c.id == bindparam("entity")).values(
    merged_into=bindparam("into"), merged_at=bindparam("at", type_=UTCTime()))


def set_merges(connection: Connection, merges: Sequence[Mapping[Any, Any]]) -> None:
    """Point entities at the entity they were merged into, at the recorded time."""
    if merges:
        connection.execute(_MERGE, list(merges))


_PREDICATE = select(predicates).where(predicates.c.name == bindparam("name"))


def predicate_row(connection: Connection, name: str) -> Mapping[Any, Any] | None:
    """The declaration of ``name``, if any."""
    return connection.execute(_PREDICATE, {"name": name}).mappings().first()


TABLES: dict[str, Table] = {
    "predicate": predicates, "entity": entities, "alias": aliases, "source": sources, "passage": passages,
    "retrieval": retrievals, "claim": claims, "version": versions, "evidence": evidence, "link": links,
}
