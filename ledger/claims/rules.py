"""Claim lifecycle rules (DESIGN.md §4) as pure decisions over frozen values.

Nothing here touches a database: the write path loads what the rules need, asks them, and
writes what they answer. ``decide`` handles a new assertion; the rest answer the smaller
questions the write path and the explicit lifecycle calls ask (what status a claim earns,
which claims clash under a functional predicate). Intervals, provenance and what a retraction
takes back have modules of their own: ``intervals``, ``provenance``, ``restore``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ledger.claims.confidence import TRUST_WEIGHT, noisy_or, weight
from ledger.claims.intervals import Interval, hull, surely_overlap, touches
from ledger.claims.provenance import Document, corrects, same_documents
from ledger.records import Cause, CauseKind, ClaimId, EffectKind
from ledger.timeline import end_window, start_window

#: Confidence given to an assertion that names none, by the trust of its best source
#: (``confidence.TRUST_WEIGHT``: a source's default weight in the confidence formula).
DEFAULT_CONFIDENCE = TRUST_WEIGHT


@dataclass(frozen=True, slots=True)
class Standing:
    """An existing claim's current version, as the rules see it."""

    claim_id: int
    object_key: str
    status: str
    valid_from: datetime | None
    valid_until: datetime | None
    #: The sources of its supporting evidence.
    documents: frozenset[Document]
    valid_from_precision: str | None = None
    valid_until_precision: str | None = None

    @property
    def empty(self) -> bool:
        """A claim superseded as a whole holds at no time."""
        return self.valid_from is not None and self.valid_until is not None and self.valid_until <= self.valid_from

    @property
    def interval(self) -> Interval:
        """Its valid interval with the precisions of its bounds."""
        return self.valid_from, self.valid_until, self.valid_from_precision, self.valid_until_precision


@dataclass(frozen=True, slots=True)
class Incoming:
    """A new assertion, as the rules see it."""

    object_key: str
    valid_from: datetime | None
    valid_until: datetime | None
    #: The sources of its supporting evidence.
    documents: frozenset[Document]
    supersedes: frozenset[int] = frozenset()
    valid_from_precision: str | None = None
    valid_until_precision: str | None = None


@dataclass(frozen=True, slots=True)
class Change:
    """A new version for a standing claim: a status and possibly a new valid interval.

    ``cause`` is the kind of cause the version gets; the claim that makes the change is its
    related claim."""

    claim_id: int
    status: str
    valid_from: datetime | None
    valid_until: datetime | None
    cause: CauseKind
    #: True when only the status changes and the interval stays as it was.
    keeps_interval: bool = False
    #: The precision of a new end (the start of the claim that closes it).
    end_precision: str | None = None


@dataclass(frozen=True, slots=True)
class LinkDraft:
    """A link to write; ``from_claim_id`` None stands for the new claim."""

    kind: str
    from_claim_id: int | None
    to_claim_id: int | None


ASSERTED = Cause("asserted")


@dataclass(frozen=True, slots=True)
class Decision:
    """What asserting ``Incoming`` does to the ledger."""

    corroborates: int | None = None
    disputed: bool = False
    valid_until: datetime | None = None
    changes: tuple[Change, ...] = ()
    links: tuple[LinkDraft, ...] = ()
    cause: Cause = ASSERTED
    #: Claims an update with an end interrupts: each holds again after it, as a continuation
    #: (``Change.valid_from``/``valid_until`` give the continuation's interval).
    resumes: tuple[Change, ...] = ()
    #: The interval (with precisions) the corroborated claim grows to: the union of its own and
    #: the new assertion's, which meet or overlap.
    extends: Interval | None = None
    #: The standing claim that already corrects the new one (it cites a later version of every
    #: document the new one cites): the new claim is stored superseded as a whole, at this instant.
    corrected_at: datetime | None = None


def decide(
    new: Incoming, standing: Sequence[Standing], *, functional: bool, now: datetime
) -> Decision:
    """Apply the lifecycle rules, in DESIGN.md §4's precedence, to one new assertion.

    ``standing`` holds the current versions of the claims with the same scope, subject,
    predicate and qualifiers that are not retracted; explicitly superseded claims are
    included by the caller even when their key differs.

    The same statement over an interval that meets or overlaps one already held corroborates
    that claim and extends it to the union of both (claims it now bridges are coalesced into
    it); under a functional predicate only intervals that surely overlap, beyond the windows of
    their bounds known only to the year, conflict, update or correct each other.
    """
    live = [s for s in standing if not s.empty]
    changes: list[Change] = []
    links: list[LinkDraft] = []
    effects: list[tuple[EffectKind, ClaimId | None]] = []
    for claim in live:
        if claim.claim_id in new.supersedes:
            changes.append(_whole(claim, now, "superseded-by"))
            links.append(LinkDraft("supersedes", None, claim.claim_id))
    others = [s for s in live if s.claim_id not in new.supersedes and s.object_key != new.object_key]
    # an open end runs until the next value that starts later (a backfill)
    interval: Interval = (new.valid_from, new.valid_until, new.valid_from_precision, new.valid_until_precision)
    nearest = None
    if functional and new.valid_until is None and new.valid_from is not None:
        later = [s for s in others if s.valid_from is not None and new.valid_from < s.valid_from]
        if later:
            nearest = min(later, key=lambda s: (s.valid_from, s.claim_id))
            closing, precision = _closing(nearest.valid_from, nearest.valid_from_precision)
            interval = (new.valid_from, closing, new.valid_from_precision, precision)
    corrector = next((s for s in others if functional and surely_overlap(interval, s.interval)
                      and not _starts_later(new, s) and corrects(s.documents, new.documents)), None)
    if corrector is not None:  # an older version of a document whose newer version is held already
        return Decision(changes=tuple(changes), links=(*links, LinkDraft("supersedes", corrector.claim_id, None)),
                        cause=Cause("corrected-by", ClaimId(corrector.claim_id)),
                        corrected_at=new.valid_from if new.valid_from is not None else now)
    touching = [s for s in live if s.object_key == new.object_key and s.claim_id not in new.supersedes
                and touches(interval, s.interval)]
    if touching:
        return _coalesce(touching, interval, new, others if functional else [], changes, links, now, nearest)
    if changes:
        effects.append(("supersedes", None))
    if nearest is not None:
        links.append(LinkDraft("supersedes", nearest.claim_id, None))
        effects.append(("backfilled-before", ClaimId(nearest.claim_id)))
    if not functional:
        return Decision(valid_until=new.valid_until, changes=tuple(changes), links=tuple(links),
                        cause=Cause("asserted", effects=tuple(effects)))
    disputed, resumes = _against_others(interval, new.documents, others, now, changes, links, effects)
    return Decision(disputed=disputed, valid_until=interval[1], changes=tuple(changes),
                    links=tuple(links), cause=Cause("asserted", effects=tuple(effects)), resumes=tuple(resumes))


def _coalesce(
    touching: list[Standing], interval: Interval, new: Incoming, others: list[Standing], changes: list[Change],
    links: list[LinkDraft], now: datetime, backfilled: Standing | None,
) -> Decision:
    """The new assertion says again what ``touching`` claims say over meeting or overlapping
    intervals: the first corroborates and grows to the union; the others are coalesced into it."""
    target = touching[0]
    union = target.interval
    for claim in touching[1:]:
        union = hull(union, claim.interval)
        changes.append(_whole(claim, now, "coalesced-into"))
        links.append(LinkDraft("supersedes", None, claim.claim_id))
    union = hull(union, interval)
    if union == target.interval:
        return Decision(corroborates=target.claim_id, changes=tuple(changes), links=tuple(links),
                        cause=Cause("corroborated"))
    effects: list[tuple[EffectKind, ClaimId | None]] = []
    if backfilled is not None and union[1] == interval[1]:  # it grew to where a later value starts
        links.append(LinkDraft("supersedes", backfilled.claim_id, None))
        effects.append(("backfilled-before", ClaimId(backfilled.claim_id)))
    # what the grown interval newly covers is checked against the other values, as an assertion is
    fresh = [s for s in others if not surely_overlap(target.interval, s.interval)]
    disputed, _ = _against_others(union, new.documents, fresh, now, changes, links, [])
    return Decision(corroborates=target.claim_id, disputed=disputed, changes=tuple(changes), links=tuple(links),
                    cause=Cause("extended", effects=tuple(effects)), extends=union)


def _against_others(
    interval: Interval, documents: frozenset[Document], others: Sequence[Standing], now: datetime,
    changes: list[Change], links: list[LinkDraft], effects: list[tuple[EffectKind, ClaimId | None]],
) -> tuple[bool, list[Change]]:
    """Update, correct or conflict with the other values that surely overlap ``interval``
    (appending to ``changes``, ``links`` and ``effects``); whether the new claim is disputed, and
    the claims it interrupts for a while only."""
    start, until, start_precision, _ = interval
    disputed = False
    resumes: list[Change] = []
    for claim in others:
        if not surely_overlap(interval, claim.interval):
            continue  # apart, or meeting only within the windows of their imprecise bounds
        if start is not None and (claim.valid_from is None or start > claim.valid_from):
            # A disputed claim stays disputed over the interval it keeps: closing it at the
            # new start does not settle what it contradicted before then.
            status = "disputed" if claim.status == "disputed" else "superseded"
            closing, precision = _closing(start, start_precision, until=interval, end=claim.valid_until,
                                          end_precision=claim.valid_until_precision)
            changes.append(Change(claim.claim_id, status, claim.valid_from, closing, "closed-by",
                                  end_precision=precision))
            links.append(LinkDraft("supersedes", None, claim.claim_id))
            effects.append(("updates", ClaimId(claim.claim_id)))
            if until is not None and (claim.valid_until is None or until < _end_window(claim)):
                # a value for a while only ("900 in July and August"): the old one holds again after
                # it, unless the old one's end was only known to fall in the period the new one ends in
                resumes.append(Change(claim.claim_id, claim.status, until, claim.valid_until, "asserted"))
        elif corrects(documents, claim.documents):
            changes.append(_whole(claim, now, "corrected-by"))
            links.append(LinkDraft("supersedes", None, claim.claim_id))
            effects.append(("corrects", ClaimId(claim.claim_id)))
        else:
            disputed = True
            within = same_documents(documents, claim.documents)
            if claim.status != "disputed":
                changes.append(Change(claim.claim_id, "disputed", claim.valid_from, claim.valid_until,
                                      "contradicted-in-source" if within else "contradicted-by", keeps_interval=True))
            links.append(LinkDraft("contradicts", None, claim.claim_id))
            effects.append(("conflicts-in-source" if within else "conflicts-with", ClaimId(claim.claim_id)))
    return disputed, resumes


def _closing(start: datetime | None, start_precision: str | None, *, until: Interval | None = None,
             end: datetime | None = None, end_precision: str | None = None) -> tuple[datetime | None, str | None]:
    """Where (and how precisely) a claim ends that a value starting at ``start`` closes: at that
    start, or, for a start known only to the year, at the end of that year (it ended sometime
    then; see ``surely_overlap``) unless the closing value (``until``) ends within that year too;
    never after the claim's own ``end``."""
    window = start_window(start, start_precision)
    at, precision = (start, start_precision) if window is None else (window[1], start_precision)
    if window is not None and until is not None and until[1] is not None and until[1] < window[1]:
        # the closing value ends within its own start year: the claim ended before it, at its start
        at, precision = start, "day"
    if end is not None and at is not None and end <= at:
        return end, end_precision
    return at, precision


def _starts_later(new: Incoming, claim: Standing) -> bool:
    """Whether ``new`` starts after ``claim`` does (an update of it, not a correction)."""
    return new.valid_from is not None and (claim.valid_from is None or new.valid_from > claim.valid_from)


def _end_window(claim: Standing) -> datetime:
    """The earliest instant a claim's end may fall at (its end, less a year or month if that
    is all that is known of it)."""
    assert claim.valid_until is not None
    window = end_window(claim.valid_until, claim.valid_until_precision)
    return claim.valid_until if window is None else window[0]


def _whole(claim: Standing, now: datetime, cause: CauseKind) -> Change:
    # Superseded as a whole: the empty interval [t, t) holds at no time.
    at = claim.valid_from if claim.valid_from is not None else now
    return Change(claim.claim_id, "superseded", at, at, cause)


def functional(definition: Mapping[str, Any] | None, object_id: int | None) -> bool:
    """Whether a predicate holds one value at a time: as declared, else one for values and
    many for entities."""
    if definition is not None:
        return bool(definition["cardinality"] == "one")
    return object_id is None


# ---------------------------------------------------------------- confidence and status

def combine_confidence(current: float, added: float) -> float:
    """Noisy-or (``confidence.noisy_or``): two independent sources raise confidence, never past 1."""
    return noisy_or((current, added))


def default_confidence(trusts: Iterable[str], reliability: float | None = None) -> float:
    """The confidence of an assertion that names none: the weight of its best source (by trust,
    or by its reliability rating when rated; ``confidence.weight``)."""
    return weight("trusted" if "trusted" in trusts else "untrusted", reliability)


def promoted(status: str, independent: int) -> str:
    """A reported claim backed by two or more independent sources is confirmed."""
    return "confirmed" if status == "reported" and independent >= 2 else status


def settled_status(history: Sequence[Cause | None], independent: int) -> str:
    """The status a claim returns to when its dispute is settled: "confirmed" if it was confirmed
    explicitly (and not disputed explicitly since) or by independent sources, else "reported"."""
    if last_explicit(history) == "confirmed":
        return "confirmed"
    return "confirmed" if independent >= 2 else "reported"


def last_explicit(history: Sequence[Cause | None]) -> CauseKind | None:
    """The last explicit confirm or dispute in a claim's version causes, if any."""
    explicit = [c.kind for c in history if c is not None and c.kind in ("confirmed", "disputed")]
    return explicit[-1] if explicit else None


# ---------------------------------------------------------------- functional clashes

@dataclass(frozen=True, slots=True)
class Held:
    """A standing, undisputed claim as the clash check sees it."""

    claim_id: int
    key: tuple[Any, ...]
    value: tuple[Any, ...]
    valid_from: datetime | None
    valid_until: datetime | None
    valid_from_precision: str | None = None
    valid_until_precision: str | None = None

    @property
    def interval(self) -> Interval:
        """Its valid interval with the precisions of its bounds."""
        return self.valid_from, self.valid_until, self.valid_from_precision, self.valid_until_precision


def first_clash(held: Iterable[Held]) -> tuple[int, int, tuple[Any, ...]] | None:
    """Two claims with the same key (scope, subject, functional predicate, qualifiers) that give
    different values at the same time, as (earlier claim, later claim, key); None if none do."""
    return next(all_clashes(held), None)


def all_clashes(held: Iterable[Held]) -> Iterator[tuple[int, int, tuple[Any, ...]]]:
    """Every pair of claims with the same key that give different values at the same time, as
    (earlier claim, later claim, key), key by key."""
    groups: dict[tuple[Any, ...], list[Held]] = {}
    for claim in held:
        groups.setdefault(claim.key, []).append(claim)
    for key, group in groups.items():
        group.sort(key=lambda c: (c.valid_from is not None, c.valid_from or datetime.min, c.claim_id))
        active: list[Held] = []
        for claim in group:
            active = [a for a in active if surely_overlap(a.interval, claim.interval)]
            for other in active:
                if other.value != claim.value:
                    yield other.claim_id, claim.claim_id, key
            active.append(claim)
