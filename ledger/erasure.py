"""Erasure (the right to be forgotten): the only deleting call of the package.

``erase`` removes content, not history's shape: a source's text, passages, retrievals and
metadata, the excerpts and locators of evidence quoting it, the values and qualifiers of claims
left without support (which are retracted, the erasure their reason), an entity's names and
aliases. Ids stay, so links, versions and tombstones still point somewhere; a tombstone per
erased thing keeps ids, reason, actor and time, never content.

The stores keeping copies of content forget them in the same transaction, each through its own
``forget``: the search index (its triggers drop the documents; ``search_index.forget`` merges
SQLite's FTS5 segments) and the agent's tables (``agent_rows.forget`` redacts the tool calls and
deletes the working notes quoting what ``ErasedContent``, collected before the content is
blanked, identifies). After the transaction, ``store.safety_rows.compact`` makes SQLite and
PostgreSQL drop the old bytes (docs/safety.md says what remains).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection

from ledger import store
from ledger.claims import status as lifecycle
from ledger.erased_content import ErasedContent
from ledger.errors import InvalidInput
from ledger.store import agent_rows, search_index
from ledger.store import safety_rows as rows


@dataclass(frozen=True, slots=True)
class Erased:
    """What one erasure removed, by id: the tombstones' content."""

    erasure_id: int
    sources: tuple[int, ...]
    claims: tuple[int, ...]  #: claims whose content was erased (and retracted)
    entities: tuple[int, ...]
    unsupported: tuple[int, ...]  #: claims retracted because the erased sources alone supported them
    kept: tuple[int, ...]  #: claims that lost evidence but keep other support


@dataclass(frozen=True, slots=True)
class Tombstone:
    """What an erasure removed: the kind and id of the thing, why, who, when; never its content."""

    id: int
    scope: str
    kind: str  #: "source", "claim" or "entity"
    ref_id: int
    reason: str
    actor: str | None
    recorded_at: datetime
    erasure_id: int | None


def tombstones(connection: Connection, scope: str) -> list[Tombstone]:
    """The tombstones of ``scope`` (and of its quarantine), oldest first."""
    found = [*rows.tombstone_rows(connection, scope), *rows.tombstone_rows(connection, f"quarantine:{scope}")]
    return [Tombstone(id=r["id"], scope=r["scope"], kind=r["kind"], ref_id=r["ref_id"], reason=r["reason"],
                      actor=r["actor"], recorded_at=r["recorded_at"], erasure_id=r["erasure_id"])
            for r in sorted(found, key=lambda r: r["id"])]


def erase(connection: Connection, ids: store.Ids, now: datetime, *, source: int | None, entity: int | None,
          claim: int | None, reason: str, actor: str | None) -> Erased:
    """Erase one source (with its revisions), entity (with those merged into it) or claim; see the module."""
    if sum(x is not None for x in (source, entity, claim)) != 1:
        raise InvalidInput("erase() takes exactly one of source=, entity= or claim=")
    rows.secure_delete(connection)
    source_ids: list[int] = []
    entity_ids: list[int] = []
    erased_claims: set[int] = set()
    kept: list[int] = []
    unsupported: list[int] = []
    if source is not None:
        store.source_row(connection, source)  # NotFound for an unknown id
        source_ids = rows.source_family(connection, source)
        citing = rows.claims_citing(connection, source_ids)
        support = rows.supporting_sources_of(connection, citing)
        for claim_id in citing:
            if support[claim_id] - set(source_ids):
                kept.append(claim_id)
            else:
                unsupported.append(claim_id)
        erased_claims.update(unsupported)
    elif entity is not None:
        store.entity_row(connection, entity)
        entity_ids = rows.merged_into(connection, entity)
        erased_claims.update(rows.claims_about(connection, entity_ids))
    else:
        assert claim is not None
        rows.claim_identity(connection, claim)
        erased_claims.add(claim)
    if erased_claims and entity is None:
        # entities known only through the erased claims were named by the erased content too
        entity_ids = rows.entities_only_in(connection, sorted(erased_claims))
    scopes = _scopes(connection, source_ids, entity_ids, sorted(erased_claims))
    phrases, names, texts = rows.content_to_erase(connection, source_ids, sorted(erased_claims), entity_ids)
    content = ErasedContent.of(scopes=scopes.values(), source_ids=source_ids, claim_ids=erased_claims,
                               entity_ids=entity_ids, phrases=phrases, names=names, texts=texts)
    if source_ids:
        rows.erase_evidence_content(connection, now, source_ids=source_ids)
        rows.erase_source_content(connection, source_ids)
    if erased_claims:
        rows.erase_evidence_content(connection, now, claim_ids=sorted(erased_claims))
        rows.erase_claim_content(connection, sorted(erased_claims))
    if entity_ids:
        rows.erase_entity_content(connection, entity_ids)
    for claim_id in sorted(erased_claims):  # after the content went: the erasure is the last reason they keep
        if store.current_version(connection, claim_id)["status"] != "retracted":
            lifecycle.apply(connection, lifecycle.retraction(claim_id, reason=f"erased: {reason}", actor=actor),
                            now=now, ids=ids)
    stones = ([{"scope": scopes[("source", i)], "kind": "source", "ref_id": i} for i in source_ids]
              + [{"scope": scopes[("entity", i)], "kind": "entity", "ref_id": i} for i in entity_ids]
              + [{"scope": scopes[("claim", i)], "kind": "claim", "ref_id": i} for i in sorted(erased_claims)])
    erasure_id = rows.insert_tombstones(connection, ids, stones, reason=reason, actor=actor, now=now)
    erased = Erased(erasure_id, tuple(source_ids), tuple(sorted(erased_claims)), tuple(entity_ids),
                    tuple(unsupported), tuple(kept))
    agent_rows.forget(connection, content, erasure_id)
    search_index.forget(connection)
    return erased


def _scopes(connection: Connection, source_ids: list[int], entity_ids: list[int],
            claim_ids: list[int]) -> dict[tuple[str, int], str]:
    found: dict[tuple[str, int], str] = {}
    for source_id in source_ids:
        found[("source", source_id)] = store.source_row(connection, source_id)["scope"]
    for entity_id in entity_ids:
        found[("entity", entity_id)] = store.entity_row(connection, entity_id)["scope"]
    for claim_id in claim_ids:
        found[("claim", claim_id)] = store.claim_scope(connection, claim_id) or ""
    return found
