"""Find evidence again in a new revision of its document, and tell whether a near match
changed its meaning."""

from __future__ import annotations

import re
from collections.abc import Callable

from ledger.errors import InvalidInput
from ledger.text.fuzzy import Context, fuzzy_find
from ledger.text.matchtext import Anchor, Hit, MatchText, Query, exact_starts
from ledger.text.normalize import cuts, normalize
from ledger.text.quotes import pick

__all__ = ["changes_meaning", "reanchor"]


def reanchor(
    new_text: str | MatchText,
    *,
    exact: str,
    start: int,
    end: int,
    prefix: str,
    suffix: str,
    min_score: float = 0.85,
    fuzzy: bool = True,
    old_text: str | MatchText | Callable[[], MatchText] | None = None,
) -> Anchor | None:
    """Find evidence again in a new revision of its document; None if the quote is gone.

    Tries, in order: the old position ("position"), occurrences of the quote picked by
    prefix/suffix agreement then nearness to the old start ("quote"), and, if ``fuzzy``, the
    best approximate match scoring at least ``min_score`` ("fuzzy"). None of them may cut a word
    or number the quote did not cut in the old text (between ``prefix`` and ``suffix``):
    "budget is 10" is not found again in "budget is 100". Given ``old_text`` (the text the
    evidence was found in, at ``start``:``end``), a near match that the old text already held
    elsewhere is another passage, not the quote changed: a deleted "open on weekdays" is not
    found again as the "open on weekends" next to it. ``old_text`` may be a function giving it,
    called only if the fuzzy search is reached (reading the old text costs a query).

    Raises:
        InvalidInput: ``exact`` is empty or whitespace, or ``min_score`` is outside [0, 1].
    """
    if not 0.0 <= min_score <= 1.0:
        raise InvalidInput(f"min_score must be between 0 and 1, not {min_score}")
    raw = new_text.text if isinstance(new_text, MatchText) else new_text
    query = Query.build(exact)
    old = prefix + exact + suffix
    cut_start, cut_end = cuts(old, len(prefix)), cuts(old, len(prefix) + len(exact))

    def whole(s: int, e: int) -> bool:
        return (cut_start or not cuts(raw, s)) and (cut_end or not cuts(raw, e))

    if 0 <= start <= end <= len(raw) and raw[start:end] == exact and whole(start, end):
        return Anchor(start, end, "position", 1.0)
    context = Context(prefix, suffix)
    exact_hits = [Hit(s, s + len(query.raw), 0) for s in exact_starts(raw, query.raw) if whole(s, s + len(query.raw))]
    if exact_hits:
        best, agreement = pick(raw, exact_hits, context, near=start)
        if agreement is None or agreement >= 1.0:
            return Anchor(best.start, best.end, "quote", 1.0)
    mt = new_text if isinstance(new_text, MatchText) else MatchText(raw)
    hits = [h for h in mt.hits(query) if whole(h.start, h.end)]
    if hits:
        best, _ = pick(raw, hits, context, near=start)
        return Anchor(best.start, best.end, "quote", 1.0)
    if not fuzzy:
        return None
    before = MatchText(old_text) if isinstance(old_text, str) else old_text() if callable(old_text) else old_text

    def held_before(s: int, e: int) -> bool:
        # compared normalized: a PDF reflows the lines after a deleted sentence
        return before is not None and _held_elsewhere(
            before.normalized, normalize(raw[s:e]).strip(" "), before.norm_offset(start), before.norm_offset(end))

    cand = fuzzy_find(mt, query.text, context, mt.norm_offset(start), held_before)
    if cand is None or cand.score < min_score or cand.score <= 0.0 or not whole(cand.start, cand.end):
        return None
    return Anchor(cand.start, cand.end, "fuzzy", min(1.0, cand.score))


def _held_elsewhere(old_text: str, passage: str, start: int, end: int) -> bool:
    """Whether ``old_text`` holds ``passage`` somewhere not overlapping ``start``:``end``."""
    if not passage:
        return False
    at = old_text.find(passage)
    while at >= 0:
        if at >= end or at + len(passage) <= start:
            return True
        at = old_text.find(passage, at + 1)
    return False


_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")


def _numbers(text: str) -> list[str]:
    """The numbers in a text, as written (a fuzzy re-anchor must not change any of them)."""
    return _DIGITS.findall(text)


# Words that negate, in the languages the ledger sees most; a fuzzy re-anchor that adds or drops
# one turns a statement into its opposite at a high similarity score.
_NEGATIONS = frozenset({
    "not", "no", "never", "none", "nor", "neither", "nothing", "nobody", "cannot", "without",
    "nicht", "kein", "keine", "keinen", "keinem", "keiner", "keines", "nie", "niemals", "ohne",
    "ne", "pas", "jamais", "sans", "aucun", "aucune", "nunca", "sin", "ningún", "ninguna", "nigdy", "bez",
})
_WORDS = re.compile(r"\w+(?:'t)?")


def changes_meaning(old: str, new: str) -> bool:
    """Whether a near match changed a number or the negations of the excerpt: "10 euros" is not
    "19 euros", "is safe" is not "is not safe"."""
    return _numbers(new) != _numbers(old) or _negations(new) != _negations(old)


def _negations(text: str) -> int:
    return sum(1 for word in _WORDS.findall(text.lower().replace("\u2019", "'"))
               if word in _NEGATIONS or word.endswith("n't"))
