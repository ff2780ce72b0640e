"""What retracting a claim takes back from the claims it changed, decided over loaded values."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from ledger.claims.intervals import Interval
from ledger.claims.rules import last_explicit, settled_status
from ledger.records import Cause, CauseKind, ClaimId
from ledger.timeline import overlaps

#: Causes another claim's assertion gives the claims it changes (with that claim's id).
CHANGED_BY: frozenset[CauseKind] = frozenset({"closed-by", "superseded-by", "corrected-by", "contradicted-by",
                                              "contradicted-in-source", "coalesced-into"})


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
        elif any(cause is not None and cause.did("backfilled-before", retracted)
                 and state.interval[1] == current.interval[1] for cause, state in zip(causes, history, strict=True)):
            interval = (interval[0], None, interval[2], None)  # asserted (or extended) open-ended
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
