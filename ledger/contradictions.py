"""Contradictions: which claims disagree and why, with each side's evidence down to its source.

The lifecycle already records every contradiction as it arises (a conflicting value from an
independent source, contradicting evidence, an explicit dispute): the claims involved are
disputed in a new version. So the claims the ledger held as disputed at ``known_at`` are the
contradicted, unresolved ones (``queries/contradicted_unresolved.sql``); this module groups
them into ``Contradiction`` records (a pure step, ``group``), finds the rivals a disputed claim
has under a functional predicate (linked by the lifecycle or not: a predicate declared
functional later makes rivals without a link), and attaches evidence and sources. A
resolution is a set of ``resolves`` links (``ledger.resolution``); a resolved contradiction is
read back as it stood a moment before it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, Literal, get_args

from sqlalchemy import Connection

from ledger import queries, reads, store
from ledger.claims.intervals import Interval, surely_overlap
from ledger.claims.rules import functional
from ledger.errors import InvalidInput
from ledger.records import Claim, ClaimId, EntityId, EvidenceId, Relation, SourceId
from ledger.timeline import contains

#: Why claims contradict each other: "functional-overlap" (a predicate that holds one value at a
#: time has different values over overlapping valid intervals), "contradicting-evidence" (a
#: source was cited against the claim), "open-dispute" (the claim was disputed with a reason only,
#: or its rival no longer overlaps it).
ContradictionKind = Literal["functional-overlap", "contradicting-evidence", "open-dispute"]
CONTRADICTION_KINDS: tuple[ContradictionKind, ...] = get_args(ContradictionKind)
_PREFIX: dict[str, ContradictionKind] = {"overlap": "functional-overlap", "evidence": "contradicting-evidence",
                                         "dispute": "open-dispute"}
_ID = re.compile(r"^(overlap|evidence|dispute):([1-9][0-9]{0,18}(?:\+[1-9][0-9]{0,18})*)$")


@dataclass(frozen=True, slots=True)
class SideEvidence:
    """One piece of evidence of a side, with what a reader needs of its source."""

    evidence_id: EvidenceId
    claim_id: ClaimId
    relation: Relation
    excerpt: str
    locator: dict[str, Any]
    page: int | None
    recorded_at: datetime
    source_id: SourceId
    source_kind: str
    title: str | None
    uri: str | None
    publisher: str | None
    published_at: datetime | None
    stale_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class ContradictionSide:
    """One claim in a contradiction, as the ledger held it then, with its evidence known then."""

    claim: Claim
    evidence: tuple[SideEvidence, ...]

    @property
    def supporting(self) -> tuple[SideEvidence, ...]:
        """The evidence that supports this side."""
        return tuple(e for e in self.evidence if e.relation == "supports")

    @property
    def contradicting(self) -> tuple[SideEvidence, ...]:
        """The evidence cited against this side."""
        return tuple(e for e in self.evidence if e.relation == "contradicts")


@dataclass(frozen=True, slots=True)
class Resolution:
    """How a contradiction was resolved: the side kept (confirmed), what became of the others."""

    kept: ClaimId
    superseded: tuple[ClaimId, ...]
    retracted: tuple[ClaimId, ...]
    reason: str | None
    actor: str | None
    resolved_at: datetime


@dataclass(frozen=True, slots=True)
class Contradiction:
    """Claims that disagree, why, and each side's evidence; ``id`` can be passed back to
    ``resolve_contradiction`` (it is "<overlap|evidence|dispute>:<claim ids joined by +>")."""

    id: str
    kind: ContradictionKind
    scope: str
    subject_id: EntityId
    subject: str
    predicate: str
    qualifiers: dict[str, Any]
    sides: tuple[ContradictionSide, ...]
    #: When the ledger began to hold it: the latest start of the sides' current disputes (or a
    #: side's first recording, when later).
    since: datetime
    #: The valid interval the sides share (functional overlaps); a single side's own interval.
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    #: The reason given with the dispute(s), if any.
    reasons: tuple[str, ...] = ()
    resolution: Resolution | None = field(default=None)

    @property
    def open(self) -> bool:
        """True until someone resolved it."""
        return self.resolution is None

    @property
    def claim_ids(self) -> tuple[ClaimId, ...]:
        """The ids of its sides' claims, ascending."""
        return tuple(side.claim.id for side in self.sides)


def contradiction_id(kind: ContradictionKind, claim_ids: Iterable[int]) -> str:
    """The stable id of a contradiction: its kind and its sides' claim ids."""
    prefix = next(p for p, k in _PREFIX.items() if k == kind)
    return f"{prefix}:" + "+".join(str(i) for i in sorted(set(claim_ids)))


def parse_id(text: object) -> tuple[ContradictionKind, tuple[int, ...]]:
    """The kind and claim ids a contradiction id names; InvalidInput when it is not one."""
    match = _ID.match(text) if isinstance(text, str) else None
    if match is None:
        raise InvalidInput(f"{text!r} is not a contradiction id (like 'overlap:12+15', 'evidence:7' or "
                           "'dispute:9'); contradictions() lists them")
    ids = tuple(int(i) for i in match.group(2).split("+"))
    if len(set(ids)) != len(ids) or list(ids) != sorted(ids):
        raise InvalidInput(f"{text!r} is not a contradiction id: its claim ids must ascend without repeats")
    return _PREFIX[match.group(1)], ids


# ---------------------------------------------------------------- the pure grouping

@dataclass(frozen=True, slots=True)
class Held:
    """A claim as the grouping sees it, in the version held at the time asked about."""

    claim_id: int
    #: (subject after merges, predicate, qualifiers as canonical JSON)
    key: tuple[int, str, str]
    value: tuple[Any, ...]
    status: str
    interval: Interval
    contradicting: int = 0
    reason: str | None = None

    @property
    def empty(self) -> bool:
        """Superseded as a whole: it holds at no time."""
        start, until = self.interval[0], self.interval[1]
        return start is not None and until is not None and until <= start


@dataclass(frozen=True, slots=True)
class Group:
    """A contradiction before its records are read: kind, claim ids, the shared valid interval."""

    kind: ContradictionKind
    claim_ids: tuple[int, ...]
    valid_from: datetime | None
    valid_until: datetime | None

    @property
    def id(self) -> str:
        """Its stable id."""
        return contradiction_id(self.kind, self.claim_ids)


def group(disputed: Sequence[Held], rivals: Sequence[Held], is_functional: Callable[[Held], bool],
          *, valid_at: datetime | None = None) -> list[Group]:
    """The contradictions among disputed claims: every set of claims with different values of a
    functional predicate over surely overlapping intervals (adjacent intervals and different
    qualifiers never conflict) that includes a disputed claim is one "functional-overlap" (joined
    through shared sides); each disputed claim with contradicting evidence is one
    "contradicting-evidence"; a disputed claim in neither is an "open-dispute". With ``valid_at``
    only those holding then (the overlap, or the claim's own interval) are kept."""
    by_key: dict[tuple[int, str, str], dict[int, Held]] = {}
    for claim in (*disputed, *rivals):
        if not claim.empty:
            by_key.setdefault(claim.key, {})[claim.claim_id] = claim
    parent: dict[int, int] = {}

    def root(i: int) -> int:
        while parent.setdefault(i, i) != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    overlaps: dict[frozenset[int], Interval] = {}
    for claim in disputed:
        if claim.empty or not is_functional(claim):
            continue
        for other in by_key.get(claim.key, {}).values():
            if other.claim_id != claim.claim_id and other.value != claim.value and is_functional(other) \
                    and surely_overlap(claim.interval, other.interval):
                overlaps[frozenset((claim.claim_id, other.claim_id))] = _common(claim.interval, other.interval)
                parent[root(claim.claim_id)] = root(other.claim_id)
    components: dict[int, set[int]] = {}
    spans: dict[int, list[Interval]] = {}
    for pair, span in overlaps.items():
        top = root(next(iter(pair)))
        components.setdefault(top, set()).update(pair)
        if valid_at is None or contains(span[0], span[1], valid_at):
            spans.setdefault(top, []).append(span)
    found: list[Group] = []
    for top, members in components.items():
        shared = spans.get(top)
        if shared:
            start = min(shared, key=lambda s: (s[0] is not None, s[0] or datetime.min))[0]
            until = max(shared, key=lambda s: (s[1] is None, s[1] or datetime.min))[1]
            found.append(Group("functional-overlap", tuple(sorted(members)), start, until))
    paired = {claim_id for pair in overlaps for claim_id in pair}
    for claim in disputed:
        if claim.empty or (valid_at is not None and not contains(claim.interval[0], claim.interval[1], valid_at)):
            continue
        if claim.contradicting:
            found.append(Group("contradicting-evidence", (claim.claim_id,), claim.interval[0], claim.interval[1]))
        elif claim.claim_id not in paired:
            found.append(Group("open-dispute", (claim.claim_id,), claim.interval[0], claim.interval[1]))
    return sorted(found, key=lambda g: (g.claim_ids, g.kind))


def _common(a: Interval, b: Interval) -> Interval:
    """The part two overlapping intervals share."""
    start = max((t for t in (a[0], b[0]) if t is not None), default=None)
    until = min((t for t in (a[1], b[1]) if t is not None), default=None)
    return start, until, None, None


# ---------------------------------------------------------------- reading them

def held(row: Mapping[Any, Any]) -> Held:
    """A claims_held_* or contradicted_unresolved row as the grouping sees it."""
    return Held(row["claim_id"], (row["subject_root"], row["predicate"], row["qualifiers"]),
                (row["object_id"], row["value"]), row["status"],
                (row["valid_from"], row["valid_until"], row["valid_from_precision"], row["valid_until_precision"]),
                int(row["contradicting"] or 0), row["reason"])


@dataclass(frozen=True, slots=True)
class Wanted:
    """What a contradictions() call asks for, checked."""

    scope: str
    known_at: datetime
    valid_at: datetime | None = None
    subject_root: int | None = None
    predicate: str | None = None
    include_resolved: bool = False


def find(connection: Connection, wanted: Wanted) -> list[Contradiction]:
    """The contradictions of a scope open at ``known_at`` (and, if asked, those resolved by then)."""
    rows = queries.run(connection, "contradicted_unresolved", scope=wanted.scope, known_at=wanted.known_at)
    disputed = [held(r) for r in rows.mappings() if _matches(r, wanted)]
    found = assemble(connection, wanted.scope, disputed, known_at=wanted.known_at, valid_at=wanted.valid_at)
    if wanted.include_resolved:
        found.extend(resolved(connection, wanted))
    return sorted(found, key=lambda c: (c.since, c.claim_ids, c.kind, c.resolution is not None))


def _matches(row: Mapping[Any, Any], wanted: Wanted) -> bool:
    return ((wanted.subject_root is None or row["subject_root"] == wanted.subject_root)
            and (wanted.predicate is None or row["predicate"] == wanted.predicate))


def held_by_ids(connection: Connection, scope: str, claim_ids: Sequence[int], known_at: datetime) -> list[Held]:
    """These claims in the version held at ``known_at`` (those recorded by then)."""
    rows = queries.run(connection, "claims_held_by_ids", scope=scope, ids=list(claim_ids), known_at=known_at)
    return [held(r) for r in rows.mappings()]


def assemble(connection: Connection, scope: str, disputed: Sequence[Held], *, known_at: datetime,
             valid_at: datetime | None, among: Sequence[Held] | None = None) -> list[Contradiction]:
    """Group disputed claims with their functional rivals (those ``among`` if given, else every
    claim on their subjects and predicates) into records with evidence and sources."""
    if not disputed:
        return []
    definitions = store.predicate_rows(connection, {d.key[1] for d in disputed})

    def is_functional(claim: Held) -> bool:
        return functional(definitions.get(claim.key[1]), claim.value[0])

    candidates = [d for d in disputed if not d.empty and is_functional(d)]
    rivals: list[Held] = list(among or ())
    if candidates and among is None:
        rows = queries.run(connection, "claims_held_by_subjects", scope=scope,
                           roots=sorted({d.key[0] for d in candidates}),
                           predicates=sorted({d.key[1] for d in candidates}), known_at=known_at)
        keys = {d.key for d in candidates}
        rivals = [r for r in map(held, rows.mappings()) if r.key in keys]
    groups = group(disputed, rivals, is_functional, valid_at=valid_at)
    return records(connection, scope, groups, {h.claim_id: h for h in (*rivals, *disputed)}, known_at)


def records(connection: Connection, scope: str, groups: Sequence[Group], by_id: Mapping[int, Held],
            known_at: datetime) -> list[Contradiction]:
    """The records of grouped contradictions: each side's claim and evidence as held at ``known_at``."""
    ids = sorted({i for g in groups for i in g.claim_ids})
    if not ids:
        return []
    claims: dict[int, Claim] = {c.id: c for c in reads.claims_at(connection, ids, scope, known_at)}
    times: dict[int, list[Mapping[Any, Any]]] = {}
    for row in queries.run(connection, "version_times", ids=ids, known_at=known_at).mappings():
        times.setdefault(row["claim_id"], []).append(row)
    evidence: dict[int, list[SideEvidence]] = {}
    for row in queries.run(connection, "evidence_with_sources", ids=ids, known_at=known_at).mappings():
        evidence.setdefault(row["claim_id"], []).append(_side_evidence(row))
    found = []
    for g in groups:
        sides = tuple(ContradictionSide(claims[i], tuple(evidence.get(i, ()))) for i in g.claim_ids)
        first = sides[0].claim
        found.append(Contradiction(
            id=g.id, kind=g.kind, scope=scope, subject_id=first.subject_id, subject=first.subject,
            predicate=first.predicate, qualifiers=first.qualifiers, sides=sides,
            since=max(_since(times[i]) for i in g.claim_ids),
            valid_from=g.valid_from, valid_until=g.valid_until,
            reasons=tuple(dict.fromkeys(r for i in g.claim_ids if (r := by_id[i].reason) and by_id[i].status
                                        == "disputed")),
        ))
    return found


def _since(versions: Sequence[Mapping[Any, Any]]) -> datetime:
    """When a side's current dispute began (its first recording, if it is not disputed): the
    versions are those recorded by the time asked about, the last one visible being held then."""
    visible = [v for v in versions if v["invalidated_at"] is None or v["invalidated_at"] > v["recorded_at"]]
    since: datetime = visible[0]["recorded_at"]
    for version in reversed(visible):
        if version["status"] != "disputed":
            break
        since = version["recorded_at"]
    return since


def _side_evidence(row: Mapping[Any, Any]) -> SideEvidence:
    return SideEvidence(
        evidence_id=EvidenceId(row["id"]), claim_id=ClaimId(row["claim_id"]), relation=row["relation"],
        excerpt=row["excerpt"], locator=row["locator"], page=row["page"], recorded_at=row["recorded_at"],
        source_id=SourceId(row["source_id"]), source_kind=row["kind"], title=row["title"], uri=row["uri"],
        publisher=row["publisher"], published_at=row["published_at"], stale_at=row["stale_at"],
    )


#: How long before a resolution a contradiction is read back as it stood: the smallest step of
#: system time the ledger stores.
BEFORE = timedelta(microseconds=1)


def resolved(connection: Connection, wanted: Wanted) -> list[Contradiction]:
    """The contradictions of a scope resolved by ``known_at``, each as it stood a moment before
    its resolution, with the resolution."""
    resolutions: dict[tuple[datetime, int], list[Mapping[Any, Any]]] = {}
    for row in queries.run(connection, "contradiction_resolutions", scope=wanted.scope,
                           known_at=wanted.known_at).mappings():
        resolutions.setdefault((row["recorded_at"], row["from_claim_id"]), []).append(row)
    found = []
    for (at, kept), rows in resolutions.items():
        sides = sorted({kept, *(r["to_claim_id"] for r in rows)})
        before = at - BEFORE
        # every side is named by the resolution: the claims it conflicted with then are among them
        held_then = [h for h in held_by_ids(connection, wanted.scope, sides, before)
                     if (wanted.subject_root is None or h.key[0] == wanted.subject_root)
                     and (wanted.predicate is None or h.key[1] == wanted.predicate)]
        disputed = [h for h in held_then if h.status == "disputed"]
        then = assemble(connection, wanted.scope, disputed, known_at=before, valid_at=wanted.valid_at,
                        among=[h for h in held_then if h.status != "retracted"])
        match = next((c for c in then if sorted(c.claim_ids) == sides), None)
        if match is None:
            continue
        after = {h.claim_id: h.status for h in held_by_ids(connection, wanted.scope, sides, at)}
        others = [i for i in sides if i != kept]
        found.append(replace(match, resolution=Resolution(
            kept=ClaimId(kept), superseded=tuple(ClaimId(i) for i in others if after.get(i) == "superseded"),
            retracted=tuple(ClaimId(i) for i in others if after.get(i) == "retracted"),
            reason=rows[0]["reason"], actor=rows[0]["actor"], resolved_at=at)))
    return found


