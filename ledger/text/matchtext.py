"""A text prepared for quote search (normalized form and offset map), and quotes prepared
for it; the normalization rules are in :mod:`ledger.text.normalize`."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import NamedTuple

from ledger.errors import InvalidInput
from ledger.text.normalize import (
    DASHES, EXPAND, IN_NUMBERS, INVISIBLE, LETTER_CLASS, LIGATURES, SOFT_HYPHEN, is_punctuation, normalize,
    one_to_one, replacement, special_matches,
)

_LEAD_HYPHEN = re.compile(rf"- ?(?={LETTER_CLASS})")
_EDGE_PIPES = re.compile(r"\A\| +| +\|\Z")
_TRAIL_HYPHEN = re.compile(rf"(?<={LETTER_CLASS})-\Z")
DASH_RUN = re.compile(r" ?-+(?: ?-+)* ?")  # dashes, single spaces between and beside them
_DASHES_MATCHED = "-++(?: ?+-++)*+"  # possessive: a whole run of the text, matched one way only
_LETTER = re.compile(LETTER_CLASS)

# --------------------------------------------------------------------------- public types


@dataclass(frozen=True, slots=True)
class Anchor:
    """Where a quote sits in a text: ``text[start:end]`` is the excerpt.

    ``method`` is "exact", "normalized", "position", "quote" or "fuzzy"; ``score`` is 1.0
    except for "fuzzy", where it is the similarity in (0, 1]. ``occurrences``: how many places
    ``locate_quote`` found the quote at (whole words, within the given ranges), this one included.
    """

    start: int
    end: int
    method: str
    score: float
    occurrences: int = 1


class Hit(NamedTuple):
    start: int
    end: int
    tier: int  # 0 exact, 1 equal after normalization, 2 equal up to optional hyphens


class MatchText:
    """A text prepared once for many quote searches (normalized form + offset map)."""

    __slots__ = ("_joins", "_seg_linear", "_seg_n", "_seg_o", "_seg_oend", "normalized", "text")

    def __init__(self, text: str) -> None:
        """Normalize ``text`` and record how normalized offsets map back to it."""
        self.text = text
        t = one_to_one(text)
        pieces: list[str] = []
        # Segments of the normalized text. A linear segment maps normalized offset n to
        # seg_o + (n - seg_n); a non-linear one (a ligature or a collapsed whitespace run)
        # maps all its characters to original [seg_o, seg_oend).
        seg_n = [0]
        seg_o = [0]
        seg_oend = [0]
        seg_linear = [True]
        joins: list[int] = []
        pos = 0
        npos = 0

        def put(n: int, o: int, oend: int, linear: bool) -> None:
            if seg_n[-1] == n:  # the last segment is empty: reuse it
                seg_o[-1], seg_oend[-1], seg_linear[-1] = o, oend, linear
            else:
                seg_n.append(n)
                seg_o.append(o)
                seg_oend.append(oend)
                seg_linear.append(linear)

        for m in special_matches(t):
            a, b = m.span()
            if a > pos:
                pieces.append(t[pos:a])
                npos += a - pos
            r = replacement(m)
            if r:
                put(npos, a, b, False)
                pieces.append(r)
                npos += len(r)
            elif m.lastindex == 1:
                joins.append(npos)
            put(npos, b, b, True)
            pos = b
        pieces.append(t[pos:])
        self.normalized = "".join(pieces)
        self._seg_n = seg_n
        self._seg_o = seg_o
        self._seg_oend = seg_oend
        self._seg_linear = seg_linear
        self._joins = joins

    def __repr__(self) -> str:
        return f"MatchText({len(self.text)} chars)"

    def find_all(self, quote: str) -> list[Anchor]:
        """Every occurrence of ``quote`` (exact or normalized), in text order."""
        query = Query.build(quote)
        return [
            Anchor(h.start, h.end, "exact" if h.tier == 0 else "normalized", 1.0) for h in self.hits(query)
        ]

    # -- offset maps ------------------------------------------------------------------

    def _segment(self, n: int) -> int:
        return bisect.bisect_right(self._seg_n, n) - 1

    def _segment_nend(self, i: int) -> int:
        return self._seg_n[i + 1] if i + 1 < len(self._seg_n) else len(self.normalized)

    def _is_start(self, n: int) -> bool:
        i = self._segment(n)
        return self._seg_linear[i] or n == self._seg_n[i]

    def _is_end(self, e: int) -> bool:
        i = self._segment(e - 1)
        return self._seg_linear[i] or e == self._segment_nend(i)

    def snap(self, ns: int, ne: int) -> tuple[int, int]:
        """Widen a normalized range so it does not split a ligature."""
        i = self._segment(ns)
        if not self._seg_linear[i]:
            ns = self._seg_n[i]
        j = self._segment(ne - 1)
        if not self._seg_linear[j]:
            ne = self._segment_nend(j)
        return ns, ne

    def orig_start(self, n: int) -> int:
        i = self._segment(n)
        if self._seg_linear[i]:
            return self._seg_o[i] + n - self._seg_n[i]
        return self._seg_o[i]

    def orig_end(self, e: int) -> int:
        i = self._segment(e - 1)
        if self._seg_linear[i]:
            return self._seg_o[i] + e - self._seg_n[i]
        return self._seg_oend[i]

    def norm_offset(self, o: int) -> int:
        """The normalized offset of original offset ``o`` (clamped into the text)."""
        o = min(max(o, 0), len(self.text))
        i = bisect.bisect_right(self._seg_o, o) - 1
        if not self._seg_linear[i]:
            return self._seg_n[i]
        return min(self._seg_n[i] + o - self._seg_o[i], self._segment_nend(i))

    # -- search ---------------------------------------------------------------------------

    def hits(self, query: Query) -> list[Hit]:
        """Exact and normalized occurrences of ``query``, deduplicated, in text order."""
        raw, norm = self.text, self.normalized
        found: dict[tuple[int, int], int] = {}
        for s in exact_starts(raw, query.raw):
            found[(s, s + len(query.raw))] = 0
        for ns, ne in query.matches(norm):
            if not (self._is_start(ns) and self._is_end(ne)):
                continue
            s, e = self.orig_start(ns), self.orig_end(ne)
            if query.lead and norm[ns] != "-":
                k = _hyphen_before(raw, s)
                if k is None:
                    continue
                s = k
            if query.trail and norm[ne - 1] != "-":
                k = _hyphen_after(raw, e)
                if k is None:
                    continue
                e = k
            if (s, e) in found:
                continue
            if query.pattern is None and not (query.lead or query.trail):
                tier = 1
            else:
                tier = 1 if normalize(raw[s:e]).strip(" ") == query.text else 2
            found[(s, e)] = 0 if raw[s:e] == query.raw else tier
        if query.text == "-":  # a lone hyphen: a line break may have swallowed it
            for dash in "-" + DASHES:
                for s in exact_starts(raw, dash):
                    found.setdefault((s, s + 1), 0 if dash == query.raw else 1)
        return [Hit(s, e, t) for (s, e), t in sorted(found.items())]


# --------------------------------------------------------------------------- queries


@dataclass(frozen=True, slots=True)
class Query:
    """A quote prepared for search: its stripped raw form and its normalized form."""

    raw: str  # quote.strip(), for the exact search
    text: str  # normalized, stripped
    core: str  # text without a leading "-"/"- " or trailing "-" next to a letter
    lead: bool
    trail: bool
    pattern: re.Pattern[str] | None  # core with optional hyphens and spaces; None: search core literally
    shortest: int  # no match in a normalized text is shorter (dashes and spaces beside punctuation may go)

    @classmethod
    def build(cls, quote: str) -> Query:
        prepared = MatchText(quote.strip())
        norm = prepared.normalized
        text = norm.strip(" ")
        if not text:
            raise InvalidInput("the quote is empty or only whitespace; pass the exact words from the source")
        offset = len(norm) - len(norm.lstrip(" "))
        bordered = _EDGE_PIPES.sub("", text)  # "| small | 7B |": the text drops a row's outer borders
        if bordered and bordered != text:
            offset += text.index(bordered)
            text = bordered
        lead_m = _LEAD_HYPHEN.match(text)
        lead_len = lead_m.end() if lead_m else 0
        trail = _TRAIL_HYPHEN.search(text) is not None and len(text) - 1 > lead_len
        core = text[lead_len : len(text) - 1] if trail else text[lead_len:]
        joins = {j - offset - lead_len for j in prepared._joins}
        joins = {j for j in joins if 0 < j < len(core)}
        # After a ligature a space is optional: viewers copy "Erﬁ nder" where a producer drew a
        # space inside the word (the ingester drops it) and "stuﬀbased" where the gap after it
        # was the space (the ingester keeps it).
        ligature_ends = {
            prepared.norm_offset(i) + len(EXPAND[ch]) - offset - lead_len
            for i, ch in enumerate(prepared.text) if ch in LIGATURES
        }
        ligature_ends = {k for k in ligature_ends if 0 < k < len(core)}
        # A dash typed with or without spaces beside it, or doubled: "peace - war" and
        # "peace--war" match "peace—war" and "peace – war"; between letters it may be missing
        # (the text's "large— a", like a line-break hyphen, reads "largea").
        dashes = {m.start(): m.end() for m in DASH_RUN.finditer(core)}
        # Beside punctuation and brackets a space may be there or not: tokenized text reads
        # "Springfield , Ohio" and "( UNESCO )" where the quote has "Springfield, Ohio" and
        # "(UNESCO)", or the other way round. Never between two letters or digits, nor beside a
        # mark between digits: "1,5" is one number, "1, 5" two.
        loose = any(map(is_punctuation, core))
        pattern = None
        if joins or dashes or ligature_ends or loose:
            pattern = re.compile(_pattern(core, joins, ligature_ends, dashes, loose))
        optional = sum(1 for k, c in enumerate(core) if c == " " and _beside_punctuation(core, k)) if loose else 0
        shortest = len(DASH_RUN.sub("", core)) - optional  # a space of a dash run may count twice: a bound
        return cls(quote.strip(), text, core, lead_m is not None, trail, pattern, shortest)

    def matches(self, norm: str) -> list[tuple[int, int]]:
        """Overlapping matches in ``norm``, widened over a leading/trailing hyphen present there."""
        spans: list[tuple[int, int]] = []
        if self.pattern is None:
            size = len(self.core)
            i = norm.find(self.core)
            while i >= 0:
                spans.append((i, i + size))
                i = norm.find(self.core, i + 1)
        else:
            m = self.pattern.search(norm)
            while m is not None:
                spans.append(m.span())
                m = self.pattern.search(norm, m.start() + 1)
        if not (self.lead or self.trail):
            return spans
        out: list[tuple[int, int]] = []
        for ns, ne in spans:
            if self.lead:
                if ns >= 2 and norm.startswith("- ", ns - 2):
                    ns -= 2
                elif ns >= 1 and norm[ns - 1] == "-":
                    ns -= 1
            if self.trail and norm.startswith("-", ne):
                ne += 1
            out.append((ns, ne))
        return out


_NUMBER_MARK = re.compile(rf"(?<=\d)( ?)([{re.escape(IN_NUMBERS)}])( ?)(?=\d)")


def _pattern(core: str, joins: set[int], ligature_ends: set[int], dashes: dict[int, int], loose: bool) -> str:
    """The regular expression a quote's core is searched as (see Query.build)."""
    numbers, joined = _number_marks(core) if loose else ({}, set())
    parts: list[str] = []
    k = 0
    free = False  # whether a space may come or not at k (not after a dash run or number mark)
    while k < len(core):
        if k in numbers:
            k, part = numbers[k]
            parts.append(part)
            free = False
            continue
        if k in dashes:
            end = dashes[k]
            # a run the quote starts with starts a run of the text: not in its middle,
            # where a search would try every dash of a long run to its end
            parts.append(("(?: ?+" if k else "(?<!-)(?<!- )(?:") + _DASHES_MATCHED
                         + (" ?+)" if end < len(core) else ")"))
            if 0 < k and end < len(core) and _LETTER.match(core, k - 1) and _LETTER.match(core, end):
                parts.append("?")  # between letters: the text may have joined the word
            k = end
            free = False
            continue
        if k in joins:  # between letters, never beside punctuation
            parts.append("-?")
        if loose and free and k not in joined and _beside_punctuation(core, k):
            parts.append(" ?+")
        elif k in ligature_ends:
            parts.append(" ?")
        else:
            parts.append(re.escape(core[k]))
            k += 1
            free = True
            continue
        if core[k] == " ":  # the optional space stands for it
            k += 1
            free = False
            continue
        parts.append(re.escape(core[k]))
        k += 1
        free = True
    return "".join(parts)


def _number_marks(core: str) -> tuple[dict[int, tuple[int, str]], set[int]]:
    """Number marks between digits in a quote: {start: (end, pattern)} for those with a space
    beside them (a space may move to the other side but not vanish), and the offsets right of
    those without one (where no space may come)."""
    spaced: dict[int, tuple[int, str]] = {}
    joined: set[int] = set()
    for m in _NUMBER_MARK.finditer(core):
        mark = re.escape(m.group(2))
        if m.group(1) or m.group(3):
            spaced[m.start()] = (m.end(), f"(?: ?+{mark} | {mark})")
        else:
            joined.update((m.start(2), m.end(2)))
    return spaced, joined


def _beside_punctuation(core: str, k: int) -> bool:
    """Whether offset ``k`` of a quote (a space, or the gap before a character) touches punctuation."""
    if core[k] == " ":
        return is_punctuation(core[k - 1]) or (k + 1 < len(core) and is_punctuation(core[k + 1]))
    return is_punctuation(core[k - 1]) or is_punctuation(core[k])


def exact_starts(raw: str, quote: str) -> list[int]:
    out: list[int] = []
    i = raw.find(quote)
    while i >= 0:
        out.append(i)
        i = raw.find(quote, i + 1)
    return out


_DASH_CHARS = frozenset("-" + DASHES)


def _hyphen_before(raw: str, s: int) -> int | None:
    """Offset of the hyphen just before ``s`` (across whitespace and invisibles), if any."""
    k, soft = s - 1, None
    while k >= 0 and s - k <= 64 and (raw[k].isspace() or raw[k] in INVISIBLE):
        if raw[k] == SOFT_HYPHEN and soft is None:
            soft = k
        k -= 1
    return k if k >= 0 and raw[k] in _DASH_CHARS else soft


def _hyphen_after(raw: str, e: int) -> int | None:
    """Offset just past the hyphen right after ``e`` (across invisibles), if any."""
    k, soft = e, None
    while k < len(raw) and k - e <= 64 and raw[k] in INVISIBLE:
        if raw[k] == SOFT_HYPHEN and soft is None:
            soft = k
        k += 1
    if k < len(raw) and raw[k] in _DASH_CHARS:
        return k + 1
    return soft + 1 if soft is not None else None
