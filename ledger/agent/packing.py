"""Recall's decisions, pure: how well a claim matches, its score, its validity in words, and
packing items under a token budget without near-duplicates."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from datetime import datetime

from ledger.agent.records import PacketItem, RecallWeights, WorkingNote
from ledger.agent.tokens import TokenCounter
from ledger.records import Claim

LOW_CONFIDENCE = 0.4
_DAY = 86400.0


def value_text(claim: Claim) -> str:
    """A claim's object or value as text."""
    if claim.object_id is not None:
        return claim.object or f"entity {claim.object_id}"
    return str(claim.value)


def coverage(terms: Sequence[str], text: str) -> float:
    """The share of ``terms`` found in ``text``: whole words, a word's stem (a term of 4+ letters
    that begins a word, or a word of 4+ letters that begins the term), or inside text without spaces."""
    if not terms:
        return 0.0
    folded = text.casefold()
    words = set(re.findall(r"\w+", folded))
    found = 0
    for term in terms:
        if term in words or (not term.isascii() and term in folded):
            found += 1
        elif len(term) >= 4 and any(w.startswith(term) or (len(w) >= 4 and term.startswith(w)) for w in words):
            found += 1
    return found / len(terms)


def score(relevance: float, claim: Claim, *, sources: int, now: datetime, weights: RecallWeights) -> float:
    """The weighted rank of a claim (see ``RecallWeights``)."""
    since = claim.valid_from or claim.recorded_at
    age_days = max(0.0, (now - since).total_seconds() / _DAY)
    recency = math.pow(0.5, age_days / weights.half_life_days) if weights.half_life_days > 0 else 0.0
    importance = min(1.0, min(sources, 3) / 3 + (0.25 if claim.status == "confirmed" else 0.0))
    return (weights.text * relevance + weights.confidence * claim.confidence + weights.recency * recency
            + weights.importance * importance)


def shown_time(at: datetime | None, precision: str | None) -> str:
    """A bound as precise as it is known: "2026", "2026-03", "2026-03-01", or a full time."""
    if at is None:
        return "an unknown time"
    if precision == "year":
        return f"{at.year:04d}"
    if precision == "month":
        return f"{at.year:04d}-{at.month:02d}"
    if precision in (None, "day") or (at.hour, at.minute, at.second) == (0, 0, 0):
        return at.date().isoformat()
    return at.isoformat(timespec="seconds").replace("+00:00", "Z")


def interval_words(claim: Claim) -> str:
    """A claim's valid interval in words: "since 2026-07-01", "from 2026-03-01 until 2026-07-01"."""
    start = shown_time(claim.valid_from, claim.valid_from_precision)
    end = shown_time(claim.valid_until, claim.valid_until_precision)
    if claim.valid_from is None and claim.valid_until is None:
        return "(validity not recorded)"
    if claim.valid_until is None:
        return f"since {start}"
    if claim.valid_from is None:
        return f"until {end}"
    return f"from {start} until {end}"


def validity(claim: Claim, others: Iterable[Claim]) -> tuple[str, tuple[int, ...]]:
    """The value with its validity, and the value just before and after it among ``others`` (the
    same subject, predicate and qualifiers): "PLN 245 since 2026-07-01; previously PLN 280 from 2026-03-01"."""
    words = f"{value_text(claim)} {interval_words(claim)}"
    earlier = [o for o in others if o.id != claim.id and o.valid_from is not None and claim.valid_from is not None
               and o.valid_from < claim.valid_from and (o.valid_until is None or o.valid_until <= claim.valid_from)]
    later = [o for o in others if o.id != claim.id and o.valid_from is not None and claim.valid_until is not None
             and o.valid_from >= claim.valid_until]
    related: list[int] = []
    if earlier:
        before = max(earlier, key=lambda o: o.valid_from or claim.valid_from)  # type: ignore[arg-type,return-value]
        words += f"; previously {value_text(before)} from {shown_time(before.valid_from, before.valid_from_precision)}"
        related.append(before.id)
    if later:
        after = min(later, key=lambda o: o.valid_from or claim.valid_until)  # type: ignore[arg-type,return-value]
        words += f"; since {shown_time(after.valid_from, after.valid_from_precision)}: {value_text(after)}"
        related.append(after.id)
    return words, tuple(related)


def answers(claim: Claim, *, valid_at: datetime, period: tuple[datetime, datetime] | None) -> bool:
    """Whether a claim holds at ``valid_at``, or (for a period) at some time within it."""
    if claim.never_valid:
        return False
    if period is not None:
        start, end = period
        return ((claim.valid_from is None or claim.valid_from < end)
                and (claim.valid_until is None or claim.valid_until > start))
    return ((claim.valid_from is None or claim.valid_from <= valid_at)
            and (claim.valid_until is None or claim.valid_until > valid_at))


def duplicate_key(item: PacketItem) -> tuple[str, str, str, str]:
    """What makes two items near-duplicates: the same subject, predicate, value and validity, in folded form."""
    return _fold(item.subject), _fold(item.predicate), _fold(item.value), _fold(item.validity)


def _fold(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.casefold()))


def pack(items: Sequence[PacketItem], budget: int, count: TokenCounter) -> tuple[list[PacketItem], int, int]:
    """The best items (``items`` are best first) that fit ``budget`` tokens, skipping near-duplicates;
    (kept, tokens used, how many matching items were left out for the budget)."""
    kept: list[PacketItem] = []
    seen: set[tuple[str, str, str, str]] = set()
    used = omitted = 0
    for item in items:
        key = duplicate_key(item)
        if key in seen:
            continue
        cost = count(item.to_text()) + 1
        if used + cost > budget:
            omitted += 1
            continue
        seen.add(key)
        kept.append(item)
        used += cost
    return kept, used, omitted


def pack_notes(notes: Sequence[WorkingNote], terms: Sequence[str], budget: int,
               count: TokenCounter) -> tuple[list[WorkingNote], int]:
    """All of a run's notes when they fit ``budget``; else, within half of it (the rest is for claims),
    the ones matching the question best (then the newest), in turn order. (kept, tokens used)."""
    costs = {note.id: count(note.to_text()) + 1 for note in notes}
    if sum(costs.values()) <= budget:
        return list(notes), sum(costs.values())
    budget //= 2
    ranked = sorted(notes, key=lambda n: (coverage(terms, n.text), n.turn), reverse=True)
    kept: list[WorkingNote] = []
    used = 0
    for note in ranked:
        if used + costs[note.id] <= budget:
            kept.append(note)
            used += costs[note.id]
    return sorted(kept, key=lambda n: n.turn), used
