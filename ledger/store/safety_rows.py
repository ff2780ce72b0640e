"""Rows promotion and erasure work on: a claim's identity, what cites a source, and the only
deleting statements of the package (erasure's)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, bindparam, delete, select, update

from ledger.errors import NotFound
from ledger.store.driver import (
    Ids,
    aliases,
    claims,
    entities,
    evidence,
    insert_rows,
    links,
    one_of,
    passages,
    retrievals,
    sources,
    tombstones,
    versions,
)

_CLAIM = select(claims).where(claims.c.id == bindparam("id"))
_SOURCE_REVISIONS = select(sources.c.id).where(
    (sources.c.id == bindparam("id")) | (sources.c.revision_of == bindparam("id")))
_CITING = select(evidence.c.claim_id).where(one_of(evidence.c.source_id, "ids")).distinct()
_SUPPORTERS = (
    select(evidence.c.claim_id, evidence.c.source_id)
    .where(one_of(evidence.c.claim_id, "ids"), evidence.c.relation == "supports", evidence.c.stale_at.is_(None))
)
_ABOUT_ENTITY = select(claims.c.id).where(
    (claims.c.subject_id == bindparam("id")) | (claims.c.object_id == bindparam("id")))
_MERGED = select(entities.c.id).where(entities.c.merged_into == bindparam("id"))


def claim_identity(connection: Connection, claim_id: int) -> Mapping[Any, Any]:
    """A claim's immutable row (scope, subject, predicate, object or value, qualifiers), or NotFound."""
    row = connection.execute(_CLAIM, {"id": claim_id}).mappings().first()
    if row is None:
        raise NotFound(f"claim {claim_id} does not exist")
    return row


_SAME_BYTES = select(sources.c.id).where(one_of(sources.c.scope, "scopes"), sources.c.content_hash == bindparam("hash"))
_HASH_AND_SCOPE = select(sources.c.content_hash, sources.c.scope).where(sources.c.id == bindparam("id"))


def source_family(connection: Connection, source_id: int) -> list[int]:
    """A source, the revisions that follow it (and theirs), and the copies of the same bytes that
    promotion made between a scope and its quarantine (and their revisions)."""
    found: list[int] = []
    content_hash, scope = connection.execute(_HASH_AND_SCOPE, {"id": source_id}).one()
    pair = [scope, scope.removeprefix("quarantine:"), f"quarantine:{scope.removeprefix('quarantine:')}"]
    todo = [row[0] for row in connection.execute(_SAME_BYTES, {"scopes": pair, "hash": content_hash})] or [source_id]
    while todo:
        current = todo.pop()
        if current in found:
            continue
        found.append(current)
        todo.extend(r for (r,) in connection.execute(_SOURCE_REVISIONS, {"id": current}) if r != current)
    return found


def claims_citing(connection: Connection, source_ids: Sequence[int]) -> list[int]:
    """The claims with evidence from any of ``source_ids``."""
    return [row[0] for row in connection.execute(_CITING, {"ids": list(source_ids)})] if source_ids else []


def supporting_sources_of(connection: Connection, claim_ids: Sequence[int]) -> dict[int, set[int]]:
    """The sources of each claim's standing supporting evidence."""
    found: dict[int, set[int]] = {claim_id: set() for claim_id in claim_ids}
    if claim_ids:
        for claim_id, source_id in connection.execute(_SUPPORTERS, {"ids": list(claim_ids)}):
            found[claim_id].add(source_id)
    return found


def claims_about(connection: Connection, entity_ids: Iterable[int]) -> list[int]:
    """The claims whose subject or object is one of ``entity_ids``."""
    found: list[int] = []
    for entity_id in entity_ids:
        found.extend(row[0] for row in connection.execute(_ABOUT_ENTITY, {"id": entity_id}))
    return sorted(set(found))


_ENTITIES_OF = select(claims.c.subject_id, claims.c.object_id).where(one_of(claims.c.id, "ids"))


def entities_only_in(connection: Connection, claim_ids: Sequence[int]) -> list[int]:
    """The entities (subjects and objects of ``claim_ids``) that no other claim names."""
    named = {e for row in connection.execute(_ENTITIES_OF, {"ids": list(claim_ids)}) for e in row if e is not None}
    wanted = set(claim_ids)
    return sorted(e for e in named if set(claims_about(connection, [e])) <= wanted)


def merged_into(connection: Connection, entity_id: int) -> list[int]:
    """The entity and those merged into it."""
    return [entity_id, *(row[0] for row in connection.execute(_MERGED, {"id": entity_id}))]


# ------------------------------------------------------------------------------- erasure's deletes

_REDACTED = "[erased]"


def erase_source_content(connection: Connection, source_ids: Sequence[int]) -> None:
    """Delete the sources' passages and retrievals and blank their text and metadata (the row stays
    as the target of evidence ids and revision links, with nothing of the document in it)."""
    ids = list(source_ids)
    connection.execute(delete(passages).where(passages.c.source_id.in_(ids)))
    connection.execute(delete(retrievals).where(retrievals.c.source_id.in_(ids)))
    for source_id in ids:  # (content_hash is unique per scope: each gets its own placeholder)
        connection.execute(update(sources).where(sources.c.id == source_id).values(
            text="", uri=None, title=None, author=None, publisher=None, meta=None, published_at=None,
            retrieved_at=None, content_hash=f"erased:{source_id}", text_hash=f"erased:{source_id}"))


def erase_evidence_content(connection: Connection, now: datetime, *, source_ids: Sequence[int] = (),
                           claim_ids: Sequence[int] = ()) -> None:
    """Blank the excerpt and locator of the evidence from ``source_ids`` or of ``claim_ids``, and flag
    it stale: it no longer supports anything."""
    blank = {"excerpt": "", "locator": {}, "char_start": 0, "char_end": 0, "page": None}
    for column, wanted in ((evidence.c.source_id, source_ids), (evidence.c.claim_id, claim_ids)):
        if wanted:
            connection.execute(update(evidence).where(column.in_(list(wanted))).values(**blank))
            connection.execute(update(evidence).where(column.in_(list(wanted)), evidence.c.stale_at.is_(None))
                               .values(stale_at=now))


def erase_claim_content(connection: Connection, claim_ids: Sequence[int]) -> None:
    """Blank the claims' values and qualifiers, and the reasons of their versions."""
    ids = list(claim_ids)
    if ids:
        connection.execute(update(claims).where(claims.c.id.in_(ids)).values(
            value=_REDACTED_JSON, qualifiers="{}"))
        connection.execute(update(versions).where(versions.c.claim_id.in_(ids)).values(reason=None))
        connection.execute(update(links).where(links.c.from_claim_id.in_(ids) | links.c.to_claim_id.in_(ids))
                           .values(reason=None))


_REDACTED_JSON = '"[erased]"'


def erase_entity_content(connection: Connection, entity_ids: Sequence[int]) -> None:
    """Delete the entities' aliases and blank their names and properties."""
    ids = list(entity_ids)
    connection.execute(delete(aliases).where(aliases.c.entity_id.in_(ids)))
    for entity_id in ids:
        connection.execute(update(entities).where(entities.c.id == entity_id).values(
            name=f"[erased entity {entity_id}]", properties=None))


def insert_tombstones(connection: Connection, ids: Ids, rows: Sequence[Mapping[str, Any]], *, reason: str,
                      actor: str | None, now: datetime) -> int:
    """Write one tombstone per (scope, kind, ref_id) row; returns the erasure's id (its first tombstone's)."""
    first = ids.take(tombstones, len(rows))
    insert_rows(connection, tombstones, [
        {"id": first + n, **row, "reason": reason, "actor": actor, "recorded_at": now, "erasure_id": first}
        for n, row in enumerate(rows)])
    return first


_TOMBSTONES = select(tombstones).where(tombstones.c.scope == bindparam("scope")).order_by(tombstones.c.id)


def tombstone_rows(connection: Connection, scope: str) -> list[Mapping[Any, Any]]:
    """The tombstones of a scope, oldest first."""
    return list(connection.execute(_TOMBSTONES, {"scope": scope}).mappings())


_EXCERPTS = select(evidence.c.excerpt).where(one_of(evidence.c.source_id, "sources") | one_of(evidence.c.claim_id, "claims"))
_VALUES = select(claims.c.value, claims.c.qualifiers).where(one_of(claims.c.id, "ids"))
_NAMES = select(entities.c.name).where(one_of(entities.c.id, "ids"))
_ALIASES = select(aliases.c.alias).where(one_of(aliases.c.entity_id, "ids"))
_SOURCE_CONTENT = select(sources.c.text, sources.c.title, sources.c.author, sources.c.uri).where(
    one_of(sources.c.id, "ids"))


def content_to_erase(connection: Connection, source_ids: Sequence[int], claim_ids: Sequence[int],
                     entity_ids: Sequence[int]) -> tuple[list[str], list[str], list[str]]:
    """Before erasure blanks them: (phrases: excerpts, string values and qualifiers, source titles,
    authors and uris; names: entity names and aliases; texts: the sources' text)."""
    phrases: list[str] = []
    names: list[str] = []
    texts: list[str] = []
    phrases.extend(r[0] for r in connection.execute(_EXCERPTS, {"sources": list(source_ids), "claims": list(claim_ids)}))
    for value, qualifiers in connection.execute(_VALUES, {"ids": list(claim_ids)}):
        phrases.extend(_strings(_decoded(value)))
        phrases.extend(_strings(_decoded(qualifiers)))
    names.extend(r[0] for r in connection.execute(_NAMES, {"ids": list(entity_ids)}))
    names.extend(r[0] for r in connection.execute(_ALIASES, {"ids": list(entity_ids)}))
    for text, *labels in connection.execute(_SOURCE_CONTENT, {"ids": list(source_ids)}):
        texts.append(text or "")
        phrases.extend(label for label in labels if label)
    return [p for p in phrases if p], names, texts


def _decoded(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


def secure_delete(connection: Connection) -> None:
    """On SQLite, make this connection overwrite what it deletes with zeros (PRAGMA secure_delete)."""
    if connection.dialect.name == "sqlite":
        connection.exec_driver_sql("PRAGMA secure_delete = ON")


#: the tables erasure touches, vacuumed after it on PostgreSQL
ERASED_TABLES = ("sources", "passages", "source_retrievals", "evidence", "claims", "claim_versions", "claim_links",
                 "entities", "aliases", "search_documents", "agent_events", "working_notes")


def compact(engine: Engine) -> None:
    """After an erasure: SQLite checkpoints the WAL into the file, VACUUMs (rewriting every page,
    freed ones gone) and truncates the WAL to zero bytes; PostgreSQL runs VACUUM FULL on the tables
    erasure touched (rewriting them without the dead rows)."""
    raw = engine.raw_connection()  # outside any transaction: neither VACUUM runs inside one
    try:
        driver: Any = raw.driver_connection
        if engine.dialect.name == "sqlite":  # (ledger's SQLite connections are in autocommit mode)
            for statement in ("PRAGMA secure_delete = ON", "PRAGMA wal_checkpoint(TRUNCATE)", "VACUUM",
                              "PRAGMA wal_checkpoint(TRUNCATE)"):
                driver.execute(statement)
        elif engine.dialect.name == "postgresql":
            driver.autocommit = True
            try:
                for table in ERASED_TABLES:  # names from the constant above, never from input
                    driver.execute(f"VACUUM (FULL, ANALYZE) {table}")
            finally:
                driver.autocommit = False
    finally:
        raw.close()
