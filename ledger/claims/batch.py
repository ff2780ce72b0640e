"""What one write transaction does to claims, collected while the rules are applied and then
written column-wise in one go (``flush``): new claims, new versions, evidence rows and links.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from operator import attrgetter
from typing import Any

from sqlalchemy import Connection

from ledger import store
from ledger.claims.confidence import from_sources, noisy_or, source_weight
from ledger.claims.draft import Prepared
from ledger.claims.intervals import Interval
from ledger.claims.provenance import (
    SourceFacts,
    document,
    independence_keys,
    independent_sources,
)
from ledger.claims.rules import (
    Change,
    Decision,
    Standing,
    default_confidence,
    promoted,
)
from ledger.records import Cause, Citation


@dataclass(slots=True)
class Live:
    """A claim's state while a batch is being decided."""

    claim_id: int
    object_key: str
    status: str
    confidence: float
    valid_from: datetime | None
    valid_until: datetime | None
    valid_from_precision: str | None
    valid_until_precision: str | None
    #: Ids of the sources of its supporting evidence (repeats allowed).
    sources: list[int]
    version_id: int | None
    scope: str = ""
    datatype: str | None = None
    reason: str | None = None
    actor: str | None = None
    cause: Cause | None = None

    def standing(self, facts: SourceFacts) -> Standing:
        """The claim as the rules see it."""
        return Standing(self.claim_id, self.object_key, self.status, self.valid_from, self.valid_until,
                        frozenset(document(facts, s) for s in self.sources), self.valid_from_precision,
                        self.valid_until_precision)

    def independent_sources(self, facts: SourceFacts) -> int:
        """How many independent sources support it."""
        return independent_sources(self.sources, facts)


@dataclass(slots=True)
class Batch:
    """What a batch will insert, collected while deciding and written column-wise by ``flush``."""

    #: (new claim id, its draft)
    claims: list[tuple[int, Prepared]] = field(default_factory=list)
    #: Claims that get a new version: their state when the batch is decided is that version.
    versions: dict[int, Live] = field(default_factory=dict)
    invalidate: list[int] = field(default_factory=list)
    #: (claim id, citation, actor) of new evidence rows
    evidence: list[tuple[int, Citation, str | None]] = field(default_factory=list)
    #: new claim links, without ids (like every row of a batch, they get them when flushed)
    links: list[dict[str, Any]] = field(default_factory=list)


def create(
    batch: Batch, claim_id: int, item: Prepared, decision: Decision, facts: SourceFacts,
    *, ends_precision: str | None,
) -> Live:
    """Queue a new claim with the version ``decision`` gives it."""
    batch.claims.append((claim_id, item))
    supporting = [c for c in item.citations if c.relation == "supports"]
    confidence = item.confidence
    if confidence is None:
        confidence = max((source_weight(facts[c.source_id]) for c in supporting), default=default_confidence(()))
    valid_until = decision.valid_until if item.valid_until is None else item.valid_until.at
    until_precision = item.valid_until.precision if item.valid_until is not None else ends_precision
    claim = Live(
        claim_id=claim_id, object_key=item.object_key, status=item.status, confidence=confidence,
        valid_from=item.valid_from.at if item.valid_from else None, valid_until=valid_until,
        valid_from_precision=item.valid_from.precision if item.valid_from else None,
        valid_until_precision=until_precision,
        sources=[c.source_id for c in supporting], version_id=None, scope=item.scope, datatype=item.datatype,
        actor=item.actor, cause=decision.cause,
    )
    independent = claim.independent_sources(facts) if len(claim.sources) >= 2 else len(claim.sources)
    if item.confidence is None and independent >= 2:  # the formula over its independent sources
        claim.confidence, _ = from_sources({s: independence_keys(facts, s) for s in set(claim.sources)},
                                           {s: source_weight(facts[s]) for s in set(claim.sources)})
    if decision.corrected_at is not None:  # corrected already: it holds at no time
        (claim.valid_from, claim.valid_until, claim.valid_from_precision,
         claim.valid_until_precision) = emptied(claim, decision.corrected_at)
        claim.status = "superseded"
    elif decision.disputed or len(supporting) < len(item.citations):  # contradicting evidence came along
        claim.status = "disputed"
    else:
        claim.status = promoted(claim.status, independent)
    batch.versions[claim_id] = claim
    batch.evidence.extend((claim_id, citation, item.actor) for citation in item.citations)
    return claim



def corroborate(batch: Batch, target: Live, item: Prepared, facts: SourceFacts) -> None:
    """Add ``item``'s evidence to the claim it says again; a new independent source raises its
    confidence (and may confirm it), contradicting evidence disputes it."""
    batch.evidence.extend((target.claim_id, citation, item.actor) for citation in item.citations)
    supporting = [c for c in item.citations if c.relation == "supports"]
    before = target.independent_sources(facts)
    target.sources.extend(c.source_id for c in supporting)
    after = target.independent_sources(facts)
    contradicted = any(c.relation == "contradicts" for c in item.citations)
    if after <= before and not contradicted:
        return  # the same source again: more rows, not more evidence
    confidence = target.confidence
    if after > before:
        added = item.confidence
        if added is None:
            added = max((source_weight(facts[c.source_id]) for c in supporting), default=default_confidence(()))
        # each new independent source, as if cited in turn
        confidence = noisy_or((confidence, *[added] * (after - before)))
    status = "disputed" if contradicted else promoted(target.status, after)
    change(batch, target, status=status, interval=None, cause=Cause("corroborated", sources=after),
           reason=None, actor=item.actor, confidence=confidence)


def change(
    batch: Batch, target: Live, *, status: str, interval: Interval | None, cause: Cause,
    reason: str | None, actor: str | None, confidence: float | None = None,
) -> None:
    """Give ``target`` a new current version (or amend the one this batch already made).

    Every change to a claim's versioned state goes through here: the batch writes the state a
    queued claim has when it is flushed as its new version.

    ``interval`` is (valid_from, valid_until, their precisions), or None to keep it.
    """
    if interval is not None:
        (target.valid_from, target.valid_until,
         target.valid_from_precision, target.valid_until_precision) = interval
    target.status = status
    target.cause, target.reason, target.actor = cause, reason, actor
    if confidence is not None:
        target.confidence = confidence
    if target.version_id is not None:
        batch.invalidate.append(target.version_id)
        target.version_id = None
    batch.versions[target.claim_id] = target


def change_interval(change: Change, target: Live) -> Interval | None:
    """The interval (with precisions) a rule's change gives ``target``, None to keep its own."""
    if change.keeps_interval:
        return None
    if change.valid_from == change.valid_until and change.valid_from is not None:  # superseded as a whole
        return emptied(target, change.valid_from)
    return change.valid_from, change.valid_until, target.valid_from_precision, change.end_precision


def emptied(claim: Live, at: datetime) -> Interval:
    """The empty interval [at, at) of a claim superseded as a whole: it holds at no time. Its
    bounds keep the precision of the claim's start (an instant, for a claim without one)."""
    precision = claim.valid_from_precision if claim.valid_from is not None else "second"
    return at, at, precision, precision


def link(kind: str, source: int, target: int, scope: str, actor: str | None,
         reason: str | None = None) -> dict[str, Any]:
    """A claim link row to queue in ``Batch.links``."""
    return {"scope": scope, "kind": kind, "from_claim_id": source, "to_claim_id": target, "reason": reason,
            "actor": actor}


_LOCATORS: dict[int, tuple[Citation, store.JsonText]] = {}


def _locator_json(citation: Citation) -> store.JsonText:
    """The citation's locator as JSON, serialized once however many claims reuse the citation."""
    cached = _LOCATORS.get(id(citation))
    if cached is None or cached[0] is not citation:
        if len(_LOCATORS) > 100_000:
            _LOCATORS.clear()
        cached = _LOCATORS[id(citation)] = (citation, store.json_text(citation.locator))
    return cached[1]


def flush(connection: Connection, batch: Batch, ids: store.Ids, now: datetime) -> None:
    """Write everything the batch collected."""
    recorded = {"recorded_at": now}
    if batch.claims:
        claim_ids, items = zip(*batch.claims)
        columns = _columns(items, _CLAIM_FIELDS)
        columns["value"] = columns.pop("value_text")
        store.insert_columns(connection, store.claims, {"id": claim_ids, **columns}, same=recorded)
    store.invalidate_versions(connection, batch.invalidate, now)
    if batch.versions:
        first = ids.take(store.versions, len(batch.versions))
        versions = list(batch.versions.values())
        store.insert_columns(connection, store.versions, {
            "id": range(first, first + len(versions)), **_columns(versions, _VERSION_FIELDS),
            **store.cause_columns([v.cause for v in versions]),
        }, same=recorded)
    cited = _unrepeated(connection, batch)
    if cited:
        claim_ids, citations, actors = zip(*cited)
        first = ids.take(store.evidence, len(citations))
        store.insert_columns(connection, store.evidence, {
            "id": range(first, first + len(citations)), "claim_id": claim_ids, **_columns(citations, _CITATION_FIELDS),
            "locator": list(map(_locator_json, citations)), "actor": actors,
        }, same={**recorded, **_CITED})
    if batch.links:
        first = ids.take(store.links, len(batch.links))
        store.insert_rows(connection, store.links, [{"id": first + n, **row} for n, row in enumerate(batch.links)],
                          same=recorded)


def _unrepeated(connection: Connection, batch: Batch) -> list[tuple[int, Citation, str | None]]:
    """The batch's evidence minus what its claims already have (the same source, span and
    relation): asserting a claim again from the same quote adds no row."""
    created = {claim_id for claim_id, _ in batch.claims}
    seen = store.evidence_spans(connection, {claim_id for claim_id, _, _ in batch.evidence} - created)
    kept = []
    for claim_id, citation, actor in batch.evidence:
        span = (claim_id, citation.source_id, citation.char_start, citation.char_end, citation.relation)
        if span not in seen:
            seen.add(span)
            kept.append((claim_id, citation, actor))
    return kept


_CLAIM_FIELDS = ("scope", "subject_id", "predicate", "object_id", "value_text", "datatype", "qualifiers", "actor")
_VERSION_FIELDS = ("claim_id", "status", "confidence", "valid_from", "valid_until", "valid_from_precision",
                   "valid_until_precision", "reason", "actor")
_CITATION_FIELDS = ("source_id", "relation", "excerpt", "char_start", "char_end", "page")


def _columns(objects: Iterable[Any], names: Sequence[str]) -> dict[str, list[Any]]:
    """The named attributes of ``objects`` as columns (attrgetter and map keep it in C)."""
    listed = list(objects)
    return {name: list(map(attrgetter(name), listed)) for name in names}


_CITED = {"anchor_method": "cited", "anchor_score": 1.0}


def live_from_row(row: Mapping[str, Any], *, object_key: str, sources: list[int]) -> Live:
    """A claim's state from a standing-claims row."""
    return Live(
        claim_id=row["claim_id"], object_key=object_key, status=row["status"], confidence=row["confidence"],
        valid_from=row["valid_from"], valid_until=row["valid_until"],
        valid_from_precision=row["valid_from_precision"], valid_until_precision=row["valid_until_precision"],
        sources=sources, version_id=row["version_id"], datatype=row["datatype"], scope=row["scope"],
        reason=row["reason"], actor=row["actor"],
    )
