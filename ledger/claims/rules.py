"""Claim lifecycle rules (DESIGN.md §4) as pure decisions over frozen values.

Nothing here touches a database: the write path loads what the rules need, asks them, and
writes what they answer. ``decide`` handles a new assertion; the rest answer the smaller
questions the write path and the explicit lifecycle calls ask (how many independent sources
back a claim, what status that earns it, which claims clash under a functional predicate).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ledger.records import Cause, CauseKind, ClaimId, EffectKind
from ledger.timeline import end_window, overlaps, start_window

#: (valid_from, valid_until, their precisions)
Interval = tuple[datetime | None, datetime | None, str | None, str | None]
#: Confidence given to an assertion that names none, by the trust of its best source.
DEFAULT_CONFIDENCE = {"trusted": 0.6, "untrusted": 0.2}
#: Causes another claim's assertion gives the claims it changes (with that claim's id).
CHANGED_BY: frozenset[CauseKind] = frozenset({"closed-by", "superseded-by", "corrected-by", "contradicted-by",
                                              "contradicted-in-source", "coalesced-into"})


@dataclass(frozen=True, slots=True)
class Document:
    """A source behind a claim, as the correction rule sees it."""

    source_id: int
    #: The first revision of its document (``family_of``).
    family: int
    content_hash: str
    publisher: str | None = None
    published_at: datetime | None = None


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
    their year or month bounds, conflict, update or correct each other.
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
            interval = (new.valid_from, _closing_at(nearest.valid_from, nearest.valid_from_precision, None),
                        new.valid_from_precision, nearest.valid_from_precision)
    touching = [s for s in live if s.object_key == new.object_key and s.claim_id not in new.supersedes
                and touches(interval, s.interval)]
    if touching:
        return _coalesce(touching, interval, new, others if functional else [], changes, links, now)
    corrector = next((s for s in others if surely_overlap(interval, s.interval) and not _starts_later(new, s)
                      and corrects(s.documents, new.documents)), None)
    if corrector is not None:  # an older version of a document whose newer version is held already
        return Decision(changes=tuple(changes), links=(*links, LinkDraft("supersedes", corrector.claim_id, None)),
                        cause=Cause("corrected-by", ClaimId(corrector.claim_id)),
                        corrected_at=new.valid_from if new.valid_from is not None else now)
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
    links: list[LinkDraft], now: datetime,
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
    # what the grown interval newly covers is checked against the other values, as an assertion is
    fresh = [s for s in others if not surely_overlap(target.interval, s.interval)]
    disputed, _ = _against_others(union, new.documents, fresh, now, changes, links, [])
    return Decision(corroborates=target.claim_id, disputed=disputed, changes=tuple(changes), links=tuple(links),
                    cause=Cause("extended"), extends=union)


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
            changes.append(Change(claim.claim_id, status, claim.valid_from,
                                  _closing_at(start, start_precision, claim.valid_until), "closed-by",
                                  end_precision=start_precision))
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


def _closing_at(start: datetime | None, precision: str | None, end: datetime | None) -> datetime | None:
    """Where a claim ends that a value starting at ``start`` closes: at that start, or, for a start
    known only to the year, at the end of that year (it ended sometime then; see ``surely_overlap``),
    never later than its own ``end``."""
    window = start_window(start, precision)
    closing = start if window is None else window[1]
    return end if end is not None and closing is not None and end < closing else closing


def _starts_later(new: Incoming, claim: Standing) -> bool:
    """Whether ``new`` starts after ``claim`` does (an update of it, not a correction)."""
    return new.valid_from is not None and (claim.valid_from is None or new.valid_from > claim.valid_from)


def _end_window(claim: Standing) -> datetime:
    """The earliest instant a claim's end may fall at (its end, less a year or month if that
    is all that is known of it)."""
    assert claim.valid_until is not None
    window = end_window(claim.valid_until, claim.valid_until_precision)
    return claim.valid_until if window is None else window[0]


def touches(a: Interval, b: Interval) -> bool:
    """Whether two intervals overlap or meet (closed comparison: [1, 2) and [2, 3) touch)."""
    return (a[1] is None or b[0] is None or b[0] <= a[1]) and (b[1] is None or a[0] is None or a[0] <= b[1])


def surely_overlap(a: Interval, b: Interval) -> bool:
    """Whether two intervals overlap beyond where one's end and the other's start coincide within
    their precision: "until 1994" and "from 1994" (both known only to the year) may meet anywhere
    in 1994, so they neither overlap nor leave a gap; "1000 from 2020 until 2030" and "900 in
    2024 and 2025" do overlap."""
    if not overlaps(a[0], a[1], b[0], b[1]):
        return False
    lo = max((t for t in (a[0], b[0]) if t is not None), default=None)
    hi = min((t for t in (a[1], b[1]) if t is not None), default=None)
    if lo is None or hi is None:
        return True
    return not any(
        first is not None and second is not None and max(first[0], second[0]) <= lo and hi <= min(first[1], second[1])
        for first, second in ((end_window(a[1], a[3]), start_window(b[0], b[2])),
                              (end_window(b[1], b[3]), start_window(a[0], a[2]))))


def hull(a: Interval, b: Interval) -> Interval:
    """The smallest interval holding both (touching) intervals, with the precisions of its bounds."""
    start, start_precision = (a[0], a[2]) if a[0] is None or (b[0] is not None and a[0] <= b[0]) else (b[0], b[2])
    end, end_precision = (a[1], a[3]) if a[1] is None or (b[1] is not None and a[1] >= b[1]) else (b[1], b[3])
    return start, end, start_precision, end_precision


def corrects(new: frozenset[Document], old: frozenset[Document]) -> bool:
    """Whether evidence from ``new`` corrects a claim backed by ``old``: every document behind it
    has, among the new ones, a later revision or a later publication of its publisher. A source
    that states two values at once, unchanged, corrects nothing."""
    return bool(old) and all(any(_later_version(n, o) for n in new) for o in old)


def _later_version(new: Document, old: Document) -> bool:
    if new.family == old.family:
        return new.source_id > old.source_id and new.content_hash != old.content_hash
    return (new.publisher is not None and new.publisher == old.publisher and new.published_at is not None
            and old.published_at is not None and new.published_at > old.published_at)


def same_documents(new: frozenset[Document], old: frozenset[Document]) -> bool:
    """Whether every document behind a claim is one behind the new assertion too (the same
    revision family or the same bytes): a conflict inside one source, not between sources."""
    return bool(old) and all(any(n.family == o.family or n.content_hash == o.content_hash for n in new) for o in old)


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
    """Noisy-or: two independent sources raise confidence, never past 1."""
    return 1.0 - (1.0 - current) * (1.0 - added)


def default_confidence(trusts: Iterable[str]) -> float:
    """The confidence of an assertion that names none: by the trust of its best source."""
    return DEFAULT_CONFIDENCE["trusted" if "trusted" in trusts else "untrusted"]


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


# ---------------------------------------------------------------- independent sources

SourceFacts = Mapping[int, Mapping[str, Any]]


def family_of(facts: SourceFacts, source_id: int) -> int:
    """The first revision of a source: revisions of one document count as one source."""
    seen = set()
    while (parent := facts[source_id]["revision_of"]) is not None and source_id not in seen:
        seen.add(source_id)
        source_id = parent
    return source_id


def document(facts: SourceFacts, source_id: int) -> Document:
    """A source as the correction rule sees it."""
    row = facts[source_id]
    return Document(source_id, family_of(facts, source_id), row["content_hash"], row["publisher"],
                    row["published_at"])


def document_keys(facts: SourceFacts, source_id: int) -> frozenset[str]:
    """Keys two sources share when they are the same document: one revision family, or the same
    original bytes (a page that came to hold another address's bytes)."""
    return frozenset({f"family:{family_of(facts, source_id)}", f"bytes:{facts[source_id]['content_hash']}"})


def independence_keys(facts: SourceFacts, source_id: int) -> frozenset[str]:
    """Keys two sources share when they are not independent (same document, or same text and publisher)."""
    cache = _KEYS.get(id(facts))
    if cache is None or cache[0] is not facts:
        _KEYS.clear()
        cache = _KEYS[id(facts)] = (facts, {})
    known = cache[1].get(source_id)
    if known is None:
        row = facts[source_id]
        known = document_keys(facts, source_id)
        if row["publisher"]:
            known |= {f"text:{row['publisher']}|{row['text_hash']}"}
        cache[1][source_id] = known
    return known


_KEYS: dict[int, tuple[SourceFacts, dict[int, frozenset[str]]]] = {}


def count_independent(key_sets: Iterable[frozenset[str]]) -> int:
    """How many mutually independent sources a set of sources amounts to (sources sharing a
    key, directly or through others, count once)."""
    groups: list[set[str]] = []
    for keys in key_sets:
        touching = [g for g in groups if not g.isdisjoint(keys)]
        if not touching:
            groups.append(set(keys))
            continue
        first = touching[0]
        first.update(keys)
        for other in touching[1:]:
            first.update(other)
            groups.remove(other)
    return len(groups)


def independent_sources(sources: Iterable[int], facts: SourceFacts) -> int:
    """How many of these sources are independent of each other."""
    distinct = set(sources)
    if len(distinct) < 2:
        return len(distinct)
    if len(distinct) == 2:
        first, second = (independence_keys(facts, s) for s in distinct)
        return 2 if first.isdisjoint(second) else 1
    return count_independent([independence_keys(facts, s) for s in distinct])


# ---------------------------------------------------------------- revision identity

@dataclass(frozen=True, slots=True)
class Stored:
    """A stored source as revision identity sees it."""

    source_id: int
    content_hash: str
    uri: str | None
    #: When it was retrieved, else when it was stored.
    seen_at: datetime


def revision_identity(
    found: Sequence[Stored], *, content_hash: str, uri: str | None, retrieved_at: datetime | None
) -> tuple[int | None, int | None]:
    """(the source these bytes are stored as, or else the revision a new source follows); either
    may be None. ``found`` holds the sources of the scope with these bytes and the newest under ``uri``.

    A document is its uri's history: bytes other than those of the uri's newest revision make a
    new revision of it, even bytes it had before (a page A, B, then A again) or bytes stored
    under another uri, unless they were retrieved before the newest revision was: an older copy
    of a revision stored already, which they are. Without a history, bytes stored already (under
    another uri, or none) are the first source stored with them.
    """
    newest = max((s for s in found if uri is not None and s.uri == uri), key=lambda s: s.source_id, default=None)
    same = [s for s in found if s.content_hash == content_hash]
    if newest is None:  # the first source stored with these bytes, not a later revision holding them
        return (min(s.source_id for s in same) if same else None), None
    if newest.content_hash == content_hash:
        return newest.source_id, None
    earlier = [s.source_id for s in same if s.uri == uri]
    if earlier and retrieved_at is not None and retrieved_at < newest.seen_at:
        return max(earlier), None
    return None, newest.source_id


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
    groups: dict[tuple[Any, ...], list[Held]] = {}
    for claim in held:
        groups.setdefault(claim.key, []).append(claim)
    for key, group in groups.items():
        group.sort(key=lambda c: (c.valid_from is not None, c.valid_from or datetime.min, c.claim_id))
        active: list[Held] = []
        for claim in group:
            active = [a for a in active if surely_overlap(a.interval, claim.interval)]
            clash = next((a for a in active if a.value != claim.value), None)
            if clash is not None:
                return clash.claim_id, claim.claim_id, key
            active.append(claim)
    return None


# ---------------------------------------------------------------- undoing a retracted claim

@dataclass(frozen=True, slots=True)
class State:
    """One version of a claim: status, interval and cause."""

    status: str
    interval: Interval
    cause: Cause | None = None

    @property
    def never_valid(self) -> bool:
        """Superseded as a whole: the interval [t, t) holds at no time."""
        return self.interval[0] is not None and self.interval[0] == self.interval[1]


@dataclass(frozen=True, slots=True)
class Competitor:
    """Another standing claim of the same subject and predicate, which may hold a value where a
    restored claim would get its interval back."""

    claim_id: int
    disputed: bool
    same_qualifiers: bool
    same_value: bool
    valid_from: datetime | None
    valid_until: datetime | None
    valid_from_precision: str | None


@dataclass(frozen=True, slots=True)
class Linked:
    """A claim linked to a retracted one, with what deciding its restoration needs."""

    claim_id: int
    #: Its versions, oldest first; the last is the current one.
    history: tuple[State, ...]
    independent: int
    #: The retracted claim contradicted it (or it was asserted in conflict with it).
    rival: bool
    #: A claim besides the retracted one that is not retracted disputes it.
    disputed_by_others: bool
    #: Where its continuation after the retracted claim begins (start, precision), if it has one.
    resumes_at: tuple[datetime | None, str | None] | None
    functional: bool
    competitors: tuple[Competitor, ...]
    #: Its continuations (and theirs) whose current status is disputed.
    disputed_continuations: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Restoration:
    """A new version for a claim the retraction changes: a status and, if not None, an interval."""

    claim_id: int
    status: str
    interval: Interval | None
    cause: Cause


def restore(retracted: int, continuations: Sequence[int], linked: Sequence[Linked]) -> list[Restoration]:
    """Take back what ``retracted`` did to other claims: a retracted claim was never to be believed.

    Its continuations (after values for a while only) stand on its evidence and are retracted
    with it. A claim it closed or superseded gets back the interval it had before, if it still
    has the one the retracted claim gave it, whatever versions came since (a corroboration, a
    confirmation); a claim asserted open-ended but backfilled against it is reopened. A claim
    it disputed, or that was asserted in conflict with it, is settled unless another claim
    still disputes it or someone disputed it explicitly. A settled claim is "confirmed" if it
    was confirmed explicitly or by independent sources, else "reported". An interval given back
    never makes two undisputed values of a functional predicate overlap.
    """
    because = Cause("retracted-with", ClaimId(retracted))
    plan = [Restoration(c, "retracted", None, because) for c in sorted(continuations)]
    because = Cause("restored-after", ClaimId(retracted))
    for claim in sorted(linked, key=lambda c: c.claim_id):
        current, history = claim.history[-1], claim.history
        causes = [state.cause for state in history]
        made = [n for n, cause in enumerate(causes)
                if cause is not None and cause.kind in CHANGED_BY and cause.claim == retracted]
        interval = current.interval
        if made and made[0] > 0 and interval == history[made[-1]].interval:
            interval = history[made[0] - 1].interval  # closed or superseded by it: as before
            if claim.resumes_at is not None:  # ... up to where its continuation after it begins
                interval = (interval[0], claim.resumes_at[0], interval[2], claim.resumes_at[1])
        elif causes[0] is not None and causes[0].did("backfilled-before", retracted) and (
            current.interval[1] == history[0].interval[1]
        ):
            interval = (interval[0], None, interval[2], None)  # asserted open-ended
        settled = settled_status(causes, claim.independent)
        status = current.status
        if status == "superseded" and interval != current.interval:
            status = settled
        elif status == "disputed" and claim.rival:
            if not (last_explicit(causes) == "disputed" or claim.disputed_by_others):
                status = settled
        if (status, interval) == (current.status, current.interval):
            continue  # nothing it did is left, or what it did was changed since
        until = restorable_until(claim, State(status, interval))
        if until is None:
            continue
        if status != "disputed" and until[0] is not None and until[0] != interval[1]:
            status = "superseded"  # a value asserted since closes it, as an update would have
        plan.append(Restoration(claim.claim_id, status, (interval[0], until[0], interval[2], until[1]), because))
        if current.status == "disputed" and status != "disputed":  # its continuations are settled alike
            plan.extend(Restoration(c, status, None, because) for c in claim.disputed_continuations)
    return plan


def restorable_until(claim: Linked, previous: State) -> tuple[datetime | None, str | None] | None:
    """The end (and its precision) ``claim`` can get back with its ``previous`` state, keeping one
    undisputed value per functional predicate at a time: its old end, or the start of a value
    asserted since that begins later (as an update would have closed it); None if a value
    asserted since holds from its start already."""
    start, until, _, precision = previous.interval
    if previous.status == "disputed" or previous.never_valid or not claim.functional:
        return until, precision
    for other in claim.competitors:
        if (
            other.disputed or not other.same_qualifiers or other.same_value
            or (other.valid_from is not None and other.valid_from == other.valid_until)
            or not overlaps(start, until, other.valid_from, other.valid_until)
        ):
            continue
        if start is None or other.valid_from is None or other.valid_from <= start:
            return None
        until, precision = other.valid_from, other.valid_from_precision
    return until, precision
