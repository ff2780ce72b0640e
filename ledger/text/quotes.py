"""Locate a quote in a source's stored text: exact or normalized, whole words only, the
occurrence chosen by its prefix and suffix."""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Sequence

from ledger.errors import InvalidInput, QuoteNotFound
from ledger.text.fuzzy import Context, fuzzy_find, similarity
from ledger.text.matchtext import Anchor, Hit, MatchText, Query
from ledger.text.normalize import BROKEN_END, as_stored, cuts

__all__ = ["locate_quote", "quote_context"]


def _whole(raw: str, hit: Hit, breaks: Collection[int], open_end: bool) -> bool:
    """Whether ``hit`` cuts no word, but where ``breaks`` allow it (a word joined across lines)
    or at its end if ``open_end``."""
    return (hit.start in breaks or not cuts(raw, hit.start)) and (
        open_end or hit.end in breaks or not cuts(raw, hit.end))


def _word_around(raw: str, hit: Hit) -> str:
    """The hit widened to the words it cuts (for an error message)."""
    s, e = hit.start, hit.end
    while s > max(0, hit.start - 40) and cuts(raw, s):
        s -= 1
    while e < min(len(raw), hit.end + 40) and cuts(raw, e):
        e += 1
    return raw[s:e]


_MAX_SCORED = 32  # candidates scored with difflib; the rest only by the quick measure


def _shortlist(raw: str, hits: Sequence[Hit], context: Context) -> list[Hit]:
    """The hits worth comparing with difflib: all, or the _MAX_SCORED best by the quick measure."""
    if len(hits) <= _MAX_SCORED:
        return list(hits)
    quick = {h: context.quick(raw, h.start, h.end) for h in hits}
    return sorted(hits, key=lambda h: -quick[h])[:_MAX_SCORED]


def pick(
    raw: str, hits: Sequence[Hit], context: Context, near: int | None = None
) -> tuple[Hit, float | None]:
    """The best hit by context agreement, then nearness to ``near``, then tier and order."""
    if not context:
        if near is None:
            return min(hits, key=lambda h: (h.tier, h.start)), None
        return min(hits, key=lambda h: (abs(h.start - near), h.tier, h.start)), None
    scored = [(context.score(raw, h.start, h.end), h) for h in _shortlist(raw, hits, context)]
    best_score, best = min(
        scored,
        key=lambda sh: (
            -round(sh[0], 6),
            abs(sh[1].start - near) if near is not None else 0,
            sh[1].tier,
            sh[1].start,
        ),
    )
    return best, best_score


# --------------------------------------------------------------------------- public functions


def _check_ranges(within: Sequence[tuple[int, int]] | None) -> list[tuple[int, int]] | None:
    if within is None:
        return None
    ranges = [(int(a), int(b)) for a, b in within]
    for a, b in ranges:
        if a < 0 or b < a:
            raise InvalidInput(f"within: range ({a}, {b}) must satisfy 0 <= start <= end")
    return ranges


def _inside(hit: Hit, ranges: list[tuple[int, int]] | None) -> bool:
    return ranges is None or any(a <= hit.start and hit.end <= b for a, b in ranges)


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


#: Quotes longer than this (normalized) get no "closest text" hint when they are not found.
_CLOSEST_MAX = 2000


def _not_found(
    mt: MatchText,
    query: Query,
    context: Context,
    ranges: list[tuple[int, int]] | None,
    elsewhere: list[Hit],
) -> QuoteNotFound:
    message = f'quote not found in the source text: "{_clip(query.raw, 80)}"'
    if ranges is not None and elsewhere:
        h = elsewhere[0]
        message += f" within the given range(s); it occurs outside them at characters {h.start}-{h.end}"
        return QuoteNotFound(message)
    if len(query.text) > _CLOSEST_MAX:  # difflib's work grows with the square of the quote
        return QuoteNotFound(message + f"; at {len(query.text):,} characters it is too long to look for similar "
                             "text, check that the quote comes from this source")
    near = _closest(mt, query, context)
    if near is not None:
        text, score, note = near
        message += f'; closest text: "{_clip(text, 160)}" (similarity {score:.2f}{note})'
    else:
        message += "; no similar passage either, check that the quote comes from this source"
    return QuoteNotFound(message)


def _closest(mt: MatchText, query: Query, context: Context) -> tuple[str, float, str] | None:
    """A near-match for the error message: same letters in another case, or a fuzzy match."""
    folded = re.compile(re.escape(query.text), re.IGNORECASE).search(mt.normalized)
    if folded is not None:
        ns, ne = mt.snap(*folded.span())
        s, e = mt.orig_start(ns), mt.orig_end(ne)
        score = similarity(query.text, mt.normalized[ns:ne])
        return mt.text[s:e], score, "; matching is case-sensitive"
    cand = fuzzy_find(mt, query.text, context, None)
    if cand is None or cand.score < 0.5:
        return None
    return mt.text[cand.start : cand.end], cand.score, ""


def locate_quote(
    text: str | MatchText,
    quote: str,
    *,
    prefix: str | None = None,
    suffix: str | None = None,
    within: Sequence[tuple[int, int]] | None = None,
    breaks: Collection[int] = (),
) -> Anchor:
    """Find ``quote`` in ``text``, exactly or after normalization, and return its offsets.

    Among several occurrences the one whose surroundings best agree with ``prefix`` and
    ``suffix`` wins, else the first (as written before normalized); a prefix or suffix must
    stand beside the occurrence (in any case and spacing, a typo allowed, digits the same).
    ``Anchor.occurrences`` counts them all. ``within`` keeps only occurrences inside one of the
    given [start, end) ranges (a PDF page, say). An occurrence must not begin or end inside
    a word or number ("10" is not in "100", "Anna" not in "Annabelle"), except in scripts
    written without spaces and at ``breaks``: offsets where the text joins a word that was
    broken across lines (a quote copied from the second line begins there).

    Raises:
        InvalidInput: the quote is empty or whitespace, or a range is malformed.
        QuoteNotFound: the quote does not occur (the message shows the closest text), or its
            prefix or suffix stands beside none of its occurrences (the message shows them).
    """
    ranges = _check_ranges(within)
    context = Context(prefix, suffix)
    try:
        return _locate(text, quote, context, ranges, breaks)
    except QuoteNotFound as refused:
        error = refused
    stored = as_stored(quote)
    for retry in dict.fromkeys((stored, BROKEN_END.sub("", stored))):
        if retry == quote:
            continue
        try:
            # a quote cut off at a break hyphen ("as a high-") ends inside the joined word
            return _locate(text, retry, context, ranges, breaks, open_end=retry is not stored)
        except QuoteNotFound as refused:
            if retry is stored:  # its closest text is the telling one
                error = refused
    raise error


def _locate(
    text: str | MatchText, quote: str, context: Context, ranges: list[tuple[int, int]] | None,
    breaks: Collection[int], *, open_end: bool = False,
) -> Anchor:
    raw = text.text if isinstance(text, MatchText) else text
    query = Query.build(quote)
    mt = text if isinstance(text, MatchText) else prepared(raw)
    if query.shortest > len(mt.normalized):
        raise QuoteNotFound(
            f'quote not found in the source text: "{_clip(query.raw, 80)}" is {len(query.text):,} characters '
            f"long, longer than the whole source text ({len(mt.normalized):,}); cite a passage of this source"
        )
    every = mt.hits(query)
    inside = [h for h in every if _inside(h, ranges)]
    hits = [h for h in inside if _whole(raw, h, breaks, open_end)]
    if inside and not hits:
        raise QuoteNotFound(
            f'quote not found as whole words: "{_clip(query.raw, 80)}" occurs only inside a longer word or number, '
            f'as in "{_clip(_word_around(raw, inside[0]), 120)}" (characters {inside[0].start}-{inside[0].end}); '
            "quote whole words and numbers"
        )
    if not hits:
        raise _not_found(mt, query, context, ranges, every)
    candidates = hits
    if context:
        candidates = [h for h in _shortlist(raw, hits, context) if all(context.agrees(raw, h.start, h.end))]
        if not candidates:
            raise _beside_nowhere(raw, query, context, ranges, hits)
    best, _ = pick(raw, candidates, context)
    return Anchor(best.start, best.end, "exact" if best.tier == 0 else "normalized", 1.0, len(hits))


def _beside_nowhere(
    raw: str, query: Query, context: Context, ranges: list[tuple[int, int]] | None, hits: list[Hit]
) -> QuoteNotFound:
    """The error for a quote whose prefix or suffix stands beside none of its occurrences."""
    sides = [context.agrees(raw, h.start, h.end) for h in _shortlist(raw, hits, context)]
    prefix_fails = bool(context.prefix) and not any(p for p, _ in sides)
    suffix_fails = bool(context.suffix) and not any(s for _, s in sides)
    if not (prefix_fails or suffix_fails):  # each agrees somewhere, never both at once
        prefix_fails = suffix_fails = True
    wanted: list[str] = []
    if prefix_fails:
        wanted.append(f'after the prefix "{_clip(context.prefix, 60)}"')
    if suffix_fails:
        wanted.append(f'before the suffix "{_clip(context.suffix, 60)}"')
    count = "once" if len(hits) == 1 else f"{len(hits):,} times"
    where = " within the given range(s)" if ranges is not None else ""
    places = "; ".join(_place(raw, h, before=prefix_fails, after=suffix_fails) for h in hits[:_SHOWN])
    more = f"; and {len(hits) - _SHOWN:,} more" if len(hits) > _SHOWN else ""
    none = "not" if len(hits) == 1 else "none"
    which = "prefix or suffix" if prefix_fails and suffix_fails else "prefix" if prefix_fails else "suffix"
    return QuoteNotFound(
        f'quote "{_clip(query.raw, 80)}" occurs {count} in the source text{where}, but {none} {" and ".join(wanted)}: '
        f"it occurs at {places}{more}; give the words that stand right beside it in the source, or no {which}"
    )


_SHOWN = 3  # occurrences a prefix/suffix error shows


def _place(raw: str, hit: Hit, *, before: bool, after: bool) -> str:
    """Where a hit is, with the words before and/or after it (for an error message)."""
    text = f"characters {hit.start}-{hit.end}"
    if before:
        words = " ".join(raw[max(0, hit.start - 40) : hit.start].split(" ")[-5:])
        text += f', after "{_clip(words, 40)}"' if words.strip() else ", at the start of the text"
    if after:
        words = " ".join(raw[hit.end : hit.end + 40].split(" ")[:5])
        joint = " and" if before else ","
        text += f'{joint} before "{_clip(words, 40)}"' if words.strip() else f"{joint} at the end of the text"
    return text


#: Texts up to this many characters are kept prepared (see :func:`prepared`).
_KEPT_CHARS = 4_000_000


def prepared(text: str) -> MatchText:
    """``text`` prepared for search. An agent cites one source many times, and counting a quote's
    occurrences needs the normalized text: the last few texts of up to _KEPT_CHARS are kept."""
    return _kept(text) if len(text) <= _KEPT_CHARS else MatchText(text)


@functools.lru_cache(maxsize=4)
def _kept(text: str) -> MatchText:
    return MatchText(text)


def quote_context(text: str, start: int, end: int, *, width: int = 32) -> tuple[str, str]:
    """(prefix, suffix): up to ``width`` characters before ``start`` and after ``end``."""
    if not 0 <= start <= end <= len(text):
        raise InvalidInput(f"offsets ({start}, {end}) must satisfy 0 <= start <= end <= {len(text)}")
    if width < 0:
        raise InvalidInput(f"width must be >= 0, not {width}")
    return text[max(0, start - width) : start], text[end : end + width]
