"""Reads that assemble records from several queries: one claim as of a time, audits,
explanations, stale evidence and a source's passages."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from datetime import datetime

from sqlalchemy import Connection

from ledger import queries, reads, store, validate
from ledger.claims.confidence import ConfidenceExplanation, from_sources, source_weight
from ledger.claims.provenance import independence_keys
from ledger.errors import InvalidInput, NotFound
from ledger.records import (
    STATUSES,
    Audit,
    Claim,
    EvidenceTrail,
    Explanation,
    Passage,
    Source,
    StaleEvidence,
)
from ledger.reliability import rated_facts
from ledger.timeline import TimeInput
from ledger.validate import EntityRef


def claims_query(
    *, scope: str, subject: EntityRef | None, predicate: str | None, object: EntityRef | None,
    valid_at: TimeInput | None, known_at: TimeInput | None, during: tuple[TimeInput, TimeInput] | None,
    statuses: Iterable[str] | None,
) -> reads.Filter:
    """The checked filter of a ``claims()`` read."""
    query = reads.Filter(
        scope=validate.check_scope(scope), subject=validate.entity_ref(subject),
        predicate=validate.optional_predicate(predicate), object=validate.entity_ref(object),
        statuses=validate.statuses(statuses), valid_at=validate.moment(valid_at, "valid_at"),
        known_at=validate.moment(known_at, "known_at"), during=validate.during(during))
    if query.valid_at is not None and query.during is not None:
        raise InvalidInput("pass either valid_at= or during=, not both")
    return query


def versions_query(*, scope: str, subject: EntityRef | None, predicate: str | None) -> reads.Filter:
    """The checked filter of a read of every version (history, audit)."""
    return reads.Filter(scope=validate.check_scope(scope), subject=validate.entity_ref(subject),
                        predicate=validate.optional_predicate(predicate), statuses=STATUSES, all_versions=True)


def claim_at(connection: Connection, claim_id: int, known_at: datetime | None) -> Claim:
    """A claim in the version the ledger held at ``known_at`` (None: its current one)."""
    scope = store.claim_scope(connection, claim_id)
    if scope is None:
        raise NotFound(f"claim {claim_id} does not exist")
    versions = reads.claim_versions(connection, [claim_id], scope)
    for version in reversed(versions):
        if known_at is None or (version.recorded_at <= known_at and (
                version.invalidated_at is None or version.invalidated_at > known_at)):
            return version
    raise NotFound(f"claim {claim_id} was not yet recorded at {known_at}")


def audit(connection: Connection, query: reads.Filter, *, wanted: Collection[str], now: datetime) -> list[Audit]:
    """Every version of the claims ``query`` finds whose current status is ``wanted``, with their links."""
    by_claim: dict[int, list[Claim]] = {}
    for version in reads.find_claims(connection, query, now=now):
        by_claim.setdefault(version.id, []).append(version)
    links = reads.claim_links(connection, list(by_claim))
    audits = []
    for claim_id, versions in sorted(by_claim.items()):
        if versions[-1].status in wanted:
            touching = tuple(link for link in links if claim_id in (link.from_claim_id, link.to_claim_id))
            audits.append(Audit(claim=versions[-1], versions=tuple(versions), links=touching))
    return audits


def explain(connection: Connection, claim_id: int) -> Explanation:
    """A claim's versions, links, and evidence with its source and locator."""
    current = claim_at(connection, claim_id, None)
    versions = reads.claim_versions(connection, [claim_id], current.scope)
    evidence = reads.evidence_rows(connection, [claim_id], known_at=None)
    rows = {e.source_id: store.source_row(connection, e.source_id) for e in evidence}
    trails = tuple(EvidenceTrail(e, reads.source_record(connection, rows[e.source_id])) for e in evidence)
    return Explanation(claim=current, versions=tuple(versions),
                       links=tuple(reads.claim_links(connection, [claim_id])), evidence=trails,
                       confidence=confidence_of(connection, current.confidence,
                                                {e.source_id for e in evidence if e.relation == "supports"}))


def confidence_of(connection: Connection, stored: float, source_ids: Collection[int],
                  weights: Mapping[int, float] | None = None) -> ConfidenceExplanation:
    """Why a claim backed by these sources has its confidence (``weights``: each source's, by
    default its trust's)."""
    facts = rated_facts(connection, store.source_facts(connection, source_ids))
    chosen = {s: source_weight(facts[s]) for s in source_ids} if weights is None else dict(weights)
    value, contributions = from_sources({s: independence_keys(facts, s) for s in source_ids}, chosen)
    return ConfidenceExplanation(from_sources=value, stored=stored,
                                 independent=sum(c.counted for c in contributions), sources=contributions)


def stale_evidence(connection: Connection, scope: str) -> list[StaleEvidence]:
    """Evidence whose quote vanished from a newer revision of its source."""
    return [StaleEvidence(
        evidence_id=r["evidence_id"], claim_id=r["claim_id"], source_id=r["source_id"],
        newer_source_id=r["newer_source_id"], relation=r["relation"], excerpt=r["excerpt"],
        stale_at=r["stale_at"], claim_supported=bool(r["claim_supported"]),
    ) for r in queries.run(connection, "stale_evidence", scope=scope).mappings()]


def source(connection: Connection, source_id: int) -> Source:
    """A stored source."""
    return reads.source_record(connection, store.source_row(connection, source_id))


def passages(connection: Connection, source_id: int, page: int | None) -> list[Passage]:
    """A source's passages in text order (those of ``page`` only, if given)."""
    return reads.passages(connection, source_id, store.source_row(connection, source_id)["text"], page)
