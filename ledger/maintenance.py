"""``maintain``: upkeep of a scope that never deletes.

It merges duplicate claims (the same statement over the same interval, as merged entities or
concurrent writers leave them) by asserting the statement again, through the write path, with
the duplicates' evidence: the lifecycle's coalescing rule then keeps one claim, adds the
evidence to it (new rows, counted as sources like any corroboration) and supersedes the others
as a whole (cause ``coalesced-into``, a ``supersedes`` link), all in one transaction; their own
evidence rows stay where they were. It also lists claims still unconfirmed after a given age,
claims whose supporting evidence all went stale, and the open contradictions.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from sqlalchemy import Connection

from ledger import contradictions, queries, reads, store
from ledger.claims.draft import ClaimDraft
from ledger.claims.load import entity_scopes
from ledger.claims.write import write_claims
from ledger.contradictions import Contradiction, Wanted
from ledger.records import STATUSES, Citation, Claim, ClaimId, Evidence

#: How old an unconfirmed claim must be before ``maintain`` lists it, by default.
DEFAULT_UNCONFIRMED_AGE = timedelta(days=90)
_FORMATS = {"year": "%Y", "month": "%Y-%m", "day": "%Y-%m-%d"}


@dataclass(frozen=True, slots=True)
class DuplicateMerge:
    """Duplicate claims joined into one: ``kept`` got the evidence of ``merged``, which it supersedes."""

    kept: ClaimId
    merged: tuple[ClaimId, ...]
    #: Evidence rows added to ``kept`` (a dry run: the rows it would get).
    evidence_added: int


@dataclass(frozen=True, slots=True)
class MaintenanceReport:
    """What ``maintain`` did (or, with ``dry_run``, would do) and what it found to look at."""

    scope: str
    ran_at: datetime
    dry_run: bool
    #: Duplicates joined (or to be joined), each group once.
    merges: tuple[DuplicateMerge, ...]
    #: Claims still ``reported`` (neither confirmed nor disputed) first recorded before ``ran_at - older_than``.
    unconfirmed: tuple[Claim, ...]
    #: Claims whose supporting evidence all vanished from newer revisions of its sources.
    unsupported: tuple[Claim, ...]
    #: The contradictions open at ``ran_at`` (after any merge).
    contradictions: tuple[Contradiction, ...]
    older_than: timedelta

    @property
    def changed(self) -> bool:
        """Whether this run wrote anything (never for a dry run)."""
        return not self.dry_run and bool(self.merges)


def _number(value: Any) -> Decimal | None:
    if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
        return None
    try:
        return Decimal(str(value)).normalize()
    except InvalidOperation:
        return None


def statement_key(claim: Claim, roots: Mapping[int, int]) -> tuple[Any, ...]:
    """What makes two claims duplicates: scope, root subject, predicate, qualifiers, root object
    or value (numbers by value), and the valid interval with its precisions."""
    if claim.object_id is not None:
        said: tuple[Any, ...] = ("entity", roots.get(claim.object_id, claim.object_id))
    elif (number := _number(claim.value)) is not None:
        said = ("number", number)
    else:
        said = ("value", claim.datatype, json.dumps(claim.value, sort_keys=True, default=str))
    return (claim.scope, roots.get(claim.subject_id, claim.subject_id), claim.predicate,
            json.dumps(claim.qualifiers, sort_keys=True, default=str), said, claim.valid_from, claim.valid_until,
            claim.valid_from_precision, claim.valid_until_precision)


def duplicate_groups(current: Iterable[Claim], roots: Mapping[int, int]) -> list[list[Claim]]:
    """Groups of two or more current claims that say the same over the same interval, oldest
    claim first; retracted claims and claims valid at no time are never duplicates."""
    keyed: dict[tuple[Any, ...], list[Claim]] = {}
    for claim in current:
        if claim.status != "retracted" and not claim.never_valid:
            keyed.setdefault(statement_key(claim, roots), []).append(claim)
    return sorted((sorted(g, key=lambda c: c.id) for g in keyed.values() if len(g) > 1), key=lambda g: g[0].id)


def citation_of(evidence: Evidence, scope: str) -> Citation | None:
    """A stored evidence row as a citation to attach again (None when it has no text position)."""
    position = next((s for s in evidence.locator.get("selectors", ()) if s.get("type") == "TextPositionSelector"),
                    None)
    if position is None:
        return None
    return Citation(source_id=evidence.source_id, scope=scope, relation=evidence.relation, excerpt=evidence.excerpt,
                    char_start=int(position["start"]), char_end=int(position["end"]), locator=evidence.locator,
                    page=evidence.page)


def _bound(at: datetime | None, precision: str | None) -> str | datetime | None:
    if at is None or precision not in _FORMATS:
        return at
    return at.strftime(_FORMATS[precision])


def _restatement(kept: Claim, citations: Sequence[Citation], actor: str) -> ClaimDraft:
    """The kept claim's statement again, with the duplicates' evidence."""
    return ClaimDraft(
        subject=kept.subject_id, predicate=kept.predicate, object=kept.object_id,
        value=None if kept.object_id is not None else kept.value,
        valid_from=_bound(kept.valid_from, kept.valid_from_precision),
        valid_until=_bound(kept.valid_until, kept.valid_until_precision),
        evidence=list(citations), qualifiers=kept.qualifiers or None, actor=actor, scope=kept.scope)


def _spans(evidence: Iterable[Evidence]) -> set[tuple[int, str, str]]:
    return {(e.source_id, e.relation, json.dumps(e.locator.get("selectors", ()), sort_keys=True)) for e in evidence}


def _current(connection: Connection, scope: str, now: datetime) -> dict[int, list[Claim]]:
    query = reads.Filter(scope=scope, statuses=STATUSES, all_versions=True)
    by_claim: dict[int, list[Claim]] = {}
    for version in reads.find_claims(connection, query, now=now):
        by_claim.setdefault(version.id, []).append(version)
    return by_claim


def run(connection: Connection, ids: store.Ids | None, now: datetime, *, scope: str, older_than: timedelta,
        actor: str) -> MaintenanceReport:
    """Merge duplicates (unless ``ids`` is None: a dry run, nothing written) and list what needs a look."""
    versions = _current(connection, scope, now)
    current = [history[-1] for history in versions.values()]
    roots = {i: root for i, (_, root) in entity_scopes(
        connection, {c.subject_id for c in current} | {c.object_id for c in current if c.object_id}).items()}
    groups = duplicate_groups(current, roots)
    evidence = reads.evidence_rows(connection, sorted({c.id for g in groups for c in g}), known_at=None)
    merges = []
    drafts: list[ClaimDraft] = []
    for group in groups:
        kept, others = group[0], [c.id for c in group[1:]]
        on_kept = _spans(e for e in evidence if e.claim_id == kept.id)
        moving = [e for e in evidence if e.claim_id in others and e.stale_at is None]
        fresh = {span for span in _spans(moving) if span not in on_kept}
        own = [e for e in evidence if e.claim_id == kept.id and e.stale_at is None]  # adds no row: the same spans
        citations = [c for c in (citation_of(e, scope) for e in [*moving, *own]) if c is not None]
        if citations:  # a statement is restated only with evidence: without any, the group stays as it is
            merges.append(DuplicateMerge(kept.id, tuple(ClaimId(i) for i in others), len(fresh)))
            drafts.append(_restatement(kept, citations, actor))
    if ids is not None and drafts:
        write_claims(connection, drafts, now=now, ids=ids)
        merges = _outcome(connection, scope, now, merges)
    cutoff = now - older_than
    unconfirmed = tuple(h[-1] for h in versions.values() if h[-1].status == "reported" and h[0].recorded_at <= cutoff)
    stale = sorted({row["claim_id"] for row in queries.run(connection, "stale_evidence", scope=scope).mappings()
                    if not row["claim_supported"]})
    unsupported = tuple(versions[i][-1] for i in stale if i in versions and versions[i][-1].status != "retracted")
    found = contradictions.find(connection, Wanted(scope=scope, known_at=now))
    return MaintenanceReport(scope=scope, ran_at=now, dry_run=ids is None, merges=tuple(merges),
                             unconfirmed=unconfirmed, unsupported=unsupported, contradictions=tuple(found),
                             older_than=older_than)


def _outcome(connection: Connection, scope: str, now: datetime,
             planned: Sequence[DuplicateMerge]) -> list[DuplicateMerge]:
    """What the write did: per group, the claim left standing and the evidence rows it gained."""
    touched = sorted({i for m in planned for i in (m.kept, *m.merged)})
    added: dict[int, int] = {}
    for e in reads.evidence_rows(connection, touched, known_at=None):
        if e.recorded_at == now:
            added[e.claim_id] = added.get(e.claim_id, 0) + 1
    done = []
    for merge in planned:
        members = (merge.kept, *merge.merged)
        states = {i: reads.claim_versions(connection, [i], scope)[-1] for i in members}
        standing = [i for i in members if not states[i].never_valid and states[i].status != "retracted"]
        kept = standing[0] if standing else merge.kept
        merged = tuple(ClaimId(i) for i in members if i != kept and states[i].never_valid)
        if merged:
            done.append(DuplicateMerge(ClaimId(kept), merged, added.get(kept, 0)))
    return done
