"""Find quoted evidence in a source's stored text and re-anchor it in new revisions.

Agents copy quotes from rendered PDFs and web pages, so a quote rarely matches the stored
text character for character. Both the text and the quote are normalized the same way:

- every whitespace run (spaces, newlines, tabs, non-breaking spaces) becomes one space;
- a hyphen or dash followed by whitespace between two letters is a line break inside a
  word and is dropped with the whitespace ("hy-\\nphen" -> "hyphen"); a hyphen between
  letters in the quote may match nothing in the text and vice versa, so "well-known"
  matches "well-\\nknown";
- ligatures expand (U+FB00-FB06 "ﬁ" -> "fi", "…" -> "...");
- soft hyphens and zero-width characters (U+00AD, U+200B-200D, U+2060, U+FEFF) vanish;
- curly quotes, guillemets and primes become ' and ", dashes and the minus sign become -;
  a quote's run of dashes matches a whole run of one or more in the text, with or without a
  space on either side ("war - peace" and "war--peace" match "war—peace" and "war – peace"),
  and between letters it may be missing from the text;
- a table cell separator " | " (web table rows are stored so) is a space: a row copied from
  a browser, cells apart by tabs, matches.

A quote not found as written is looked for in the form the ingesters store text: Unicode NFC
(composed accents, "Ω" U+2126 as "Ω" U+03A9), Arabic presentation forms folded to letters;
then without a line-break hyphen it ends on ("as a high-" copied to the end of a line, where
the ingester joined the word: "as a highlevel").

Matching is otherwise exact and case-sensitive. A match found in the normalized text maps
back to offsets in the original text, never splits a ligature and never starts or ends
with whitespace. Everything here is pure: no database, no I/O.
"""

from __future__ import annotations

import bisect
import difflib
import re
import string
import unicodedata
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from ledger.errors import InvalidInput, QuoteNotFound

__all__ = ["Anchor", "MatchText", "locate_quote", "quote_context", "reanchor"]

# --------------------------------------------------------------------------- normalization

#: Every character str.isspace() accepts, except the plain space (a test checks the list).
_WHITESPACE = (
    "\t\n\v\f\r\x1c\x1d\x1e\x1f\x85\xa0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)
_QUOTES = {
    "\u2018": "'",  # ‘
    "\u2019": "'",  # ’
    "\u201a": "'",  # ‚
    "\u201b": "'",  # ‛
    "\u2032": "'",  # ′
    "\u201c": '"',  # “
    "\u201d": '"',  # ”
    "\u201e": '"',  # „
    "\u201f": '"',  # ‟
    "\u2033": '"',  # ″
    "\u00ab": '"',  # « (French, Russian, Spanish, Swiss German quotation marks)
    "\u00bb": '"',  # »
    "\u2039": "'",  # ‹
    "\u203a": "'",  # ›
}
_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"  # ‐ ‑ ‒ – — ― −
#: One character to one character: applied first with str.replace, keeps offsets.
_ONE_TO_ONE: tuple[tuple[str, str], ...] = (
    *((c, " ") for c in _WHITESPACE),
    *_QUOTES.items(),
    *((c, "-") for c in _DASHES),
)
#: One character to several (NFKC-style).
_EXPAND = {
    "\ufb00": "ff",
    "\ufb01": "fi",
    "\ufb02": "fl",
    "\ufb03": "ffi",
    "\ufb04": "ffl",
    "\ufb05": "st",
    "\ufb06": "st",
    "\u2026": "...",
}
_LIGATURES = frozenset("\ufb00\ufb01\ufb02\ufb03\ufb04\ufb05\ufb06")
_SOFT_HYPHEN = "\u00ad"
_INVISIBLE = "\u00ad\u200b\u200c\u200d\u2060\ufeff"  # removed wherever they stand

_L = r"[^\W\d_]"  # a letter
_Z = "\\u00ad\\u200b\\u200c\\u200d\\u2060\\ufeff"
_X = "".join(f"\\u{ord(c):04x}" for c in _EXPAND)
# Applied to the text after _ONE_TO_ONE, so all whitespace is " " and all dashes are "-".
# Every match starts with one character of a small set, which lets the regex engine skip
# ahead quickly; lookbehinds then tell which rule applies:
#   group 1: a line-break hyphen between letters, with the whitespace after it -> ""
#   group 2: a run of two or more spaces/invisibles -> " " (or "" if only invisibles)
#   group 3: a ligature -> its letters; an invisible character -> ""
#   group 4: the "|" of a table cell separator " | ", with the spaces after it -> ""
_SPECIAL = re.compile(
    rf"[- {_Z}{_X}|]"
    rf"(?:((?<={_L}-)(?=[{_Z}]*+ )[ {_Z}]*+(?={_L})|(?<={_L}\u00ad)[ {_Z}]*+(?={_L}))"
    rf"|((?<=[ {_Z}])[ {_Z}]++)"
    rf"|((?<=[{_X}{_Z}]))"
    rf"|((?<= \|)[ {_Z}]++))"
)
_LEAD_HYPHEN = re.compile(rf"- ?(?={_L})")
_EDGE_PIPES = re.compile(r"\A\| +| +\|\Z")
_TRAIL_HYPHEN = re.compile(rf"(?<={_L})-\Z")
_DASH_RUN = re.compile(r" ?-+(?: ?-+)* ?")  # dashes, single spaces between and beside them
_DASHES_MATCHED = "-++(?: ?+-++)*+"  # possessive: a whole run of the text, matched one way only
_LETTER = re.compile(_L)
_WORD = re.compile(r"[^ ]+")


def _one_to_one(text: str) -> str:
    for src, dst in _ONE_TO_ONE:
        if src in text:
            text = text.replace(src, dst)
    return text


def _replacement(m: re.Match[str]) -> str:
    group = m.lastindex
    if group == 1 or group == 4:  # line-break hyphen; cell separator
        return ""
    if group == 2:
        return " " if " " in m.group() else ""
    return _EXPAND.get(m.group(), "")


def _normalize(text: str) -> str:
    """The normalized form of ``text`` (no offset map); see the module docstring."""
    return _SPECIAL.sub(_replacement, _one_to_one(text))


_RUN = frozenset(" " + _INVISIBLE)
_SPACES_END = re.compile(" *+")


def _special_matches(t: str) -> Iterator[re.Match[str]]:
    """What ``_SPECIAL.finditer(t)`` yields, found faster on long texts.

    A match can only start at a hyphen followed by whitespace, an invisible, a ligature, or
    a space that begins a run; str.find locates those in C, where the regex engine alone
    would try every position of a long text.
    """
    starts: list[int] = []
    for needle in ("  ", "- ", "| ", *_INVISIBLE, *_EXPAND):
        i = t.find(needle)
        while i >= 0:
            starts.append(i)
            i += len(needle)
            if needle == "  " and t.startswith(" ", i):  # skip the rest of a long run
                i = _SPACES_END.match(t, i).end()  # type: ignore[union-attr]
            i = t.find(needle, i)
    starts.sort()
    pos = 0
    for c in starts:
        if c < pos:
            continue
        m = None
        if t[c] in _RUN:
            while c > pos and t[c - 1] in _RUN:  # a run may begin before what was found
                c -= 1
            if c > pos and t[c - 1] == "-":  # a line-break hyphen with invisibles after it
                m = _SPECIAL.match(t, c - 1)
        if m is None:
            m = _SPECIAL.match(t, c)
        if m is not None:
            yield m
            pos = m.end()


# --------------------------------------------------------------------------- public types


@dataclass(frozen=True, slots=True)
class Anchor:
    """Where a quote sits in a text: ``text[start:end]`` is the excerpt.

    ``method`` is "exact", "normalized", "position", "quote" or "fuzzy"; ``score`` is 1.0
    except for "fuzzy", where it is the similarity in (0, 1].
    """

    start: int
    end: int
    method: str
    score: float


class _Hit(NamedTuple):
    start: int
    end: int
    tier: int  # 0 exact, 1 equal after normalization, 2 equal up to optional hyphens


class MatchText:
    """A text prepared once for many quote searches (normalized form + offset map)."""

    __slots__ = ("_joins", "_seg_linear", "_seg_n", "_seg_o", "_seg_oend", "normalized", "text")

    def __init__(self, text: str) -> None:
        """Normalize ``text`` and record how normalized offsets map back to it."""
        self.text = text
        t = _one_to_one(text)
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

        for m in _special_matches(t):
            a, b = m.span()
            if a > pos:
                pieces.append(t[pos:a])
                npos += a - pos
            r = _replacement(m)
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
        query = _Query.build(quote)
        return [
            Anchor(h.start, h.end, "exact" if h.tier == 0 else "normalized", 1.0) for h in self._hits(query)
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

    def _snap(self, ns: int, ne: int) -> tuple[int, int]:
        """Widen a normalized range so it does not split a ligature."""
        i = self._segment(ns)
        if not self._seg_linear[i]:
            ns = self._seg_n[i]
        j = self._segment(ne - 1)
        if not self._seg_linear[j]:
            ne = self._segment_nend(j)
        return ns, ne

    def _orig_start(self, n: int) -> int:
        i = self._segment(n)
        if self._seg_linear[i]:
            return self._seg_o[i] + n - self._seg_n[i]
        return self._seg_o[i]

    def _orig_end(self, e: int) -> int:
        i = self._segment(e - 1)
        if self._seg_linear[i]:
            return self._seg_o[i] + e - self._seg_n[i]
        return self._seg_oend[i]

    def _norm_offset(self, o: int) -> int:
        """The normalized offset of original offset ``o`` (clamped into the text)."""
        o = min(max(o, 0), len(self.text))
        i = bisect.bisect_right(self._seg_o, o) - 1
        if not self._seg_linear[i]:
            return self._seg_n[i]
        return min(self._seg_n[i] + o - self._seg_o[i], self._segment_nend(i))

    # -- search ---------------------------------------------------------------------------

    def _hits(self, query: _Query) -> list[_Hit]:
        """Exact and normalized occurrences of ``query``, deduplicated, in text order."""
        raw, norm = self.text, self.normalized
        found: dict[tuple[int, int], int] = {}
        for s in _exact_starts(raw, query.raw):
            found[(s, s + len(query.raw))] = 0
        for ns, ne in query.matches(norm):
            if not (self._is_start(ns) and self._is_end(ne)):
                continue
            s, e = self._orig_start(ns), self._orig_end(ne)
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
                tier = 1 if _normalize(raw[s:e]).strip(" ") == query.text else 2
            found[(s, e)] = 0 if raw[s:e] == query.raw else tier
        if query.text == "-":  # a lone hyphen: a line break may have swallowed it
            for dash in "-" + _DASHES:
                for s in _exact_starts(raw, dash):
                    found.setdefault((s, s + 1), 0 if dash == query.raw else 1)
        return [_Hit(s, e, t) for (s, e), t in sorted(found.items())]


# --------------------------------------------------------------------------- queries


@dataclass(frozen=True, slots=True)
class _Query:
    """A quote prepared for search: its stripped raw form and its normalized form."""

    raw: str  # quote.strip(), for the exact search
    text: str  # normalized, stripped
    core: str  # text without a leading "-"/"- " or trailing "-" next to a letter
    lead: bool
    trail: bool
    pattern: re.Pattern[str] | None  # core with optional hyphens; None: search core literally

    @classmethod
    def build(cls, quote: str) -> _Query:
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
            prepared._norm_offset(i) + len(_EXPAND[ch]) - offset - lead_len
            for i, ch in enumerate(prepared.text) if ch in _LIGATURES
        }
        ligature_ends = {k for k in ligature_ends if 0 < k < len(core)}
        # A dash typed with or without spaces beside it, or doubled: "peace - war" and
        # "peace--war" match "peace—war" and "peace – war"; between letters it may be missing
        # (the text's "large— a", like a line-break hyphen, reads "largea").
        dashes = {m.start(): m.end() for m in _DASH_RUN.finditer(core)}
        pattern = None
        if joins or dashes or ligature_ends:
            parts: list[str] = []
            k = 0
            while k < len(core):
                if k in dashes:
                    end = dashes[k]
                    # a run the quote starts with starts a run of the text: not in its middle,
                    # where a search would try every dash of a long run to its end
                    parts.append(("(?: ?+" if k else "(?<!-)(?<!- )(?:") + _DASHES_MATCHED
                                 + (" ?+)" if end < len(core) else ")"))
                    if 0 < k and end < len(core) and _LETTER.match(core, k - 1) and _LETTER.match(core, end):
                        parts.append("?")  # between letters: the text may have joined the word
                    k = end
                    continue
                if k in joins:
                    parts.append("-?")
                if k in ligature_ends:
                    parts.append(" ?")
                    if core[k] == " ":
                        k += 1
                        continue
                parts.append(re.escape(core[k]))
                k += 1
            pattern = re.compile("".join(parts))
        return cls(quote.strip(), text, core, lead_m is not None, trail, pattern)

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


# --------------------------------------------------------------------------- whole words

# Scripts written without spaces between words (Thai, Lao, Tibetan, Myanmar, Khmer, Hangul
# jamo and syllables, kana, CJK ideographs): a quote may begin or end at any of their letters.
UNSPACED_SCRIPTS = re.compile(
    "[\u0e00-\u0fff\u1000-\u109f\u1100-\u11ff\u1780-\u17ff\u3040-\u30ff\u3130-\u318f"
    "\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f"
    "\U00020000-\U0003134f]"
)


def _cuts(text: str, p: int) -> bool:
    """Whether a quote beginning or ending at offset ``p`` cuts a word or a number of ``text``:
    "10" out of "100", "10.5", "1,000", "10:30" or "10/12", "Anna" out of "Annabelle", a letter
    off its accent."""
    if p <= 0 or p >= len(text):
        return False
    a, b = text[p - 1], text[p]
    if unicodedata.category(b)[0] == "M":  # a combining accent or vowel sign belongs to a
        return True
    if a.isalnum() and b.isalnum():
        return not (UNSPACED_SCRIPTS.match(a) or UNSPACED_SCRIPTS.match(b))
    if a.isdigit():  # "10" of "10.5", "1,000", a time "10:30", a fraction or date "10/12"
        return b in _IN_NUMBERS and text[p + 1 : p + 2].isdigit()
    return b.isdigit() and a in _IN_NUMBERS and text[p - 2 : p - 1].isdigit()


# Between two digits, part of one number: decimal and thousands marks, a time's or a ratio's
# colon, a fraction's or a date's slash (full-width and typographic forms too). "Windows 10" is
# thus not found in "Windows 10/11": quoting the whole "10/11" is the fix the error suggests.
_IN_NUMBERS = ".,:/\uff0e\uff0c\uff1a\uff0f\u2236\u2044"


def _whole(raw: str, hit: _Hit, breaks: Collection[int], open_end: bool) -> bool:
    """Whether ``hit`` cuts no word, but where ``breaks`` allow it (a word joined across lines)
    or at its end if ``open_end``."""
    return (hit.start in breaks or not _cuts(raw, hit.start)) and (
        open_end or hit.end in breaks or not _cuts(raw, hit.end))


def _word_around(raw: str, hit: _Hit) -> str:
    """The hit widened to the words it cuts (for an error message)."""
    s, e = hit.start, hit.end
    while s > max(0, hit.start - 40) and _cuts(raw, s):
        s -= 1
    while e < min(len(raw), hit.end + 40) and _cuts(raw, e):
        e += 1
    return raw[s:e]


def _exact_starts(raw: str, quote: str) -> list[int]:
    out: list[int] = []
    i = raw.find(quote)
    while i >= 0:
        out.append(i)
        i = raw.find(quote, i + 1)
    return out


_DASH_CHARS = frozenset("-" + _DASHES)


def _hyphen_before(raw: str, s: int) -> int | None:
    """Offset of the hyphen just before ``s`` (across whitespace and invisibles), if any."""
    k, soft = s - 1, None
    while k >= 0 and s - k <= 64 and (raw[k].isspace() or raw[k] in _INVISIBLE):
        if raw[k] == _SOFT_HYPHEN and soft is None:
            soft = k
        k -= 1
    return k if k >= 0 and raw[k] in _DASH_CHARS else soft


def _hyphen_after(raw: str, e: int) -> int | None:
    """Offset just past the hyphen right after ``e`` (across invisibles), if any."""
    k, soft = e, None
    while k < len(raw) and k - e <= 64 and raw[k] in _INVISIBLE:
        if raw[k] == _SOFT_HYPHEN and soft is None:
            soft = k
        k += 1
    if k < len(raw) and raw[k] in _DASH_CHARS:
        return k + 1
    return soft + 1 if soft is not None else None


# --------------------------------------------------------------------------- context


class _Context:
    """Normalized prefix/suffix of a quote, to score how well a candidate's surroundings agree."""

    __slots__ = ("prefix", "suffix")

    def __init__(self, prefix: str | None, suffix: str | None) -> None:
        self.prefix = _normalize(prefix).rstrip(" ")[-64:].lstrip(" ") if prefix else ""
        self.suffix = _normalize(suffix).lstrip(" ")[:64].rstrip(" ") if suffix else ""

    def __bool__(self) -> bool:
        return bool(self.prefix or self.suffix)

    def _around(self, raw: str, s: int, e: int) -> tuple[str, str]:
        before = after = ""
        if self.prefix:
            before = _normalize(raw[max(0, s - 2 * len(self.prefix) - 16) : s]).rstrip(" ")
            before = before[len(before) - len(self.prefix) :] if len(before) > len(self.prefix) else before
        if self.suffix:
            after = _normalize(raw[e : e + 2 * len(self.suffix) + 16]).lstrip(" ")[: len(self.suffix)]
        return before, after

    def quick(self, raw: str, s: int, e: int) -> float:
        """Share of the context that agrees character for character at the boundary."""
        before, after = self._around(raw, s, e)
        scores: list[float] = []
        if self.prefix:
            n = 0
            while n < len(before) and before[-1 - n] == self.prefix[-1 - n]:
                n += 1
            scores.append(n / len(self.prefix))
        if self.suffix:
            n = 0
            while n < len(after) and after[n] == self.suffix[n]:
                n += 1
            scores.append(n / len(self.suffix))
        return sum(scores) / len(scores) if scores else 0.0

    def score(self, raw: str, s: int, e: int) -> float:
        """Similarity in [0, 1] of the candidate's surroundings to the prefix and suffix."""
        before, after = self._around(raw, s, e)
        scores: list[float] = []
        if self.prefix:
            scores.append(difflib.SequenceMatcher(None, self.prefix, before, autojunk=False).ratio())
        if self.suffix:
            scores.append(difflib.SequenceMatcher(None, self.suffix, after, autojunk=False).ratio())
        return sum(scores) / len(scores) if scores else 0.0


_MAX_SCORED = 32  # candidates scored with difflib; the rest only by the quick measure


def _pick(
    raw: str, hits: Sequence[_Hit], context: _Context, near: int | None = None
) -> tuple[_Hit, float | None]:
    """The best hit by context agreement, then nearness to ``near``, then tier and order."""
    if not context:
        if near is None:
            return min(hits, key=lambda h: (h.tier, h.start)), None
        return min(hits, key=lambda h: (abs(h.start - near), h.tier, h.start)), None
    pool = list(hits)
    if len(pool) > _MAX_SCORED:
        quick = {h: context.quick(raw, h.start, h.end) for h in pool}
        pool.sort(key=lambda h: -quick[h])
        pool = pool[:_MAX_SCORED]
    scored = [(context.score(raw, h.start, h.end), h) for h in pool]
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


# --------------------------------------------------------------------------- similarity

_CHAR_LEVEL_LIMIT = 60_000  # len(a) * len(b) above which similarity works word by word


def _matched_chars(a: str, b: str) -> int:
    if len(a) * len(b) > _CHAR_LEVEL_LIMIT:
        return 0
    blocks = difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks()
    return sum(block.size for block in blocks)


def _similarity(a: str, b: str) -> float:
    """difflib-style ratio 2*M/T of two normalized strings; word-level for long ones."""
    if a == b:
        return 1.0
    if not a or not b:
        return 0.0
    if len(a) * len(b) <= _CHAR_LEVEL_LIMIT:
        return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()
    aw, bw = a.split(" "), b.split(" ")
    matched = 0
    matcher = difflib.SequenceMatcher(None, aw, bw, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            matched += sum(len(w) for w in aw[i1:i2]) + (i2 - i1)
        elif tag == "replace":
            matched += _matched_chars(" ".join(aw[i1:i2]), " ".join(bw[j1:j2])) + 1
    matched = min(matched, len(a), len(b))
    return 2.0 * matched / (len(a) + len(b))


# --------------------------------------------------------------------------- fuzzy search


class _Candidate(NamedTuple):
    objective: float
    score: float
    start: int  # original offsets
    end: int


_MAX_SEED_HITS = 32  # a seed occurring more often than this says nothing about position
_MAX_WINDOWS = 6


def _find_some(norm: str, needle: str, limit: int) -> list[int] | None:
    out: list[int] = []
    i = norm.find(needle)
    while i >= 0:
        if len(out) == limit:
            return None
        out.append(i)
        i = norm.find(needle, i + 1)
    return out


def _seed_votes(norm: str, q: str, context: _Context, near: int | None) -> list[tuple[int, int]]:
    """Guesses (normalized start, weight) of where ``q`` might begin in ``norm``."""
    words = q.split(" ")
    offsets: list[int] = []
    pos = 0
    for w in words:
        offsets.append(pos)
        pos += len(w) + 1
    k = 1 if len(words) <= 4 else 2 if len(words) <= 12 else 3
    chunks = [(offsets[i], " ".join(words[i : i + k])) for i in range(0, len(words), k)]
    chunks = [c for c in chunks if len(c[1]) >= 4]
    if len(chunks) > 24:
        step = len(chunks) / 24
        chunks = [chunks[int(i * step)] for i in range(24)]
    votes: list[tuple[int, int]] = []
    for offset, chunk in chunks:
        hits = _find_some(norm, chunk, _MAX_SEED_HITS)
        votes.extend((h - offset, 1) for h in hits or ())
    if len(context.prefix) >= 4:
        tail = context.prefix[-24:]
        hits = _find_some(norm, tail, _MAX_SEED_HITS)
        votes.extend((h + len(tail) + 1, 1) for h in hits or ())
    if len(context.suffix) >= 4:
        head = context.suffix[:24]
        hits = _find_some(norm, head, _MAX_SEED_HITS)
        votes.extend((h - len(q) - 1, 1) for h in hits or ())
    if near is not None:
        votes.append((near, 2))
    return votes


def _windows(votes: list[tuple[int, int]], q: str, near: int | None) -> list[tuple[int, int]]:
    """Cluster votes; the (first, last) start guesses of the best-supported clusters."""
    tolerance = 16 + len(q) // 8
    groups: list[list[int]] = []  # [first, last, weight]
    for p, w in sorted(votes):
        if groups and p - groups[-1][1] <= tolerance and p - groups[-1][0] <= len(q) + tolerance:
            groups[-1][1] = p
            groups[-1][2] += w
        else:
            groups.append([p, p, w])

    def rank(g: list[int]) -> tuple[int, int]:
        return (-g[2], abs(g[0] - near) if near is not None else 0)

    return [(g[0], g[1]) for g in sorted(groups, key=rank)[:_MAX_WINDOWS]]


def _tokens(norm: str, lo: int, hi: int) -> list[tuple[int, int, str]]:
    """Words of ``norm`` overlapping [lo, hi), widened to whole words."""
    if lo > 0 and norm[lo - 1] != " ":
        sp = norm.rfind(" ", max(0, lo - 64), lo)
        lo = sp + 1 if sp >= 0 else max(0, lo - 64)
    if hi < len(norm) and norm[hi - 1 : hi] != " ":
        sp = norm.find(" ", hi, hi + 64)
        hi = sp if sp >= 0 else min(len(norm), hi + 64)
    return [(m.start(), m.end(), m.group()) for m in _WORD.finditer(norm, lo, hi)]


def _align(q_words: list[str], tokens: list[tuple[int, int, str]]) -> tuple[int, int] | None:
    """Token range [i, j) of ``tokens`` that best lines up with ``q_words``."""
    if not tokens:
        return None
    words = [t[2] for t in tokens]
    blocks = [
        b
        for b in difflib.SequenceMatcher(None, q_words, words, autojunk=False).get_matching_blocks()
        if b.size
    ]
    if not blocks:
        if len(q_words) > 3:
            return None
        n = len(q_words)
        q = " ".join(q_words)
        spans = [
            (i, min(len(words), i + size)) for i in range(len(words)) for size in (n - 1, n, n + 1) if size
        ]
        return max(spans, key=lambda ij: _similarity(q, " ".join(words[ij[0] : ij[1]])))
    # Drop stray blocks at either edge: small ones whose offset disagrees with their neighbour.
    while len(blocks) >= 2:
        f, g = blocks[0], blocks[1]
        if f.size <= 2 and abs((g.b - f.b) - (g.a - f.a)) > max(2, f.size):
            blocks.pop(0)
            continue
        f, g = blocks[-1], blocks[-2]
        if f.size <= 2 and abs((f.b - g.b) - (f.a - g.a)) > max(2, f.size):
            blocks.pop()
            continue
        break
    first, last = blocks[0], blocks[-1]
    # Words of the quote left unmatched at an edge correspond to as many words of the text.
    i = max(0, first.b - first.a)
    j = min(len(words), last.b + last.size + (len(q_words) - last.a - last.size))
    return i, j


def _fuzzy(
    mt: MatchText, q: str, context: _Context, near: int | None, passed_over: Callable[[int, int], bool] | None = None
) -> _Candidate | None:
    """The best approximate occurrence of normalized quote ``q`` (bounded work); spans for
    which ``passed_over(start, end)`` holds are not candidates."""
    norm = mt.normalized
    votes = _seed_votes(norm, q, context, near)
    q_words = q.split(" ")
    slack = 16 + len(q) // 4

    def usable(cand: _Candidate | None) -> bool:
        return cand is not None and (passed_over is None or not passed_over(cand.start, cand.end))

    best: tuple[_Candidate, list[tuple[int, int, str]], int, int] | None = None
    for first, last in _windows(votes, q, near):
        lo, hi = max(0, first - slack), min(len(norm), last + len(q) + slack)
        if lo >= hi:
            continue
        tokens = _tokens(norm, lo, hi)
        span = _align(q_words, tokens)
        if span is None or span[0] >= span[1]:
            continue
        cand = _candidate(mt, q, context, tokens, *span)
        if cand is not None and usable(cand) and (best is None or cand.objective > best[0].objective):
            best = (cand, tokens, *span)
    if best is None:
        return None
    cand, tokens, i, j = best
    # Refine the edges by a word either way, by likeness to the quote: the context chose the
    # place, but near the end (or start) of a text what follows a span says little about it.
    # A word standing in for the quote's first or last word stays, though dropping it would look
    # more alike: "approved the route" is found again as "rejected the route", not "the route".
    keep_first, keep_last = _substituted_edges(q_words, [t[2] for t in tokens[i:j]])
    # ... unless it is the word that stood beside the quote before, or the span's last word
    # follows a sentence end the quote did not have: then the quote's edge word was deleted and
    # the span reached into the context ("council the route" for "approved the route"), which
    # it gives back.
    drop_first = keep_first and j - i > 1 and _bare(tokens[i][2]) == _bare(context.prefix.rsplit(" ", 1)[-1])
    drop_last = keep_last and j - i > 1 and (
        _bare(tokens[j - 1][2]) == _bare(context.suffix.split(" ", 1)[0])
        or (_ends_sentence(tokens[j - 2][2]) and not (len(q_words) > 1 and _ends_sentence(q_words[-2]))))
    if drop_first or drop_last:
        i, j = i + drop_first, j - drop_last
        if i >= j:
            return cand
        trimmed = _candidate(mt, q, context, tokens, i, j)
        if trimmed is None or not usable(trimmed):
            return cand
        cand = trimmed
    keep_first, keep_last = keep_first and not drop_first, keep_last and not drop_last
    for di in (-1, 0, 1):
        for dj in (-1, 0, 1):
            if (di > 0 and keep_first) or (dj < 0 and keep_last) or (di < 0 and drop_first) or (dj > 0 and drop_last):
                continue
            if (di or dj) and 0 <= i + di < j + dj <= len(tokens):
                other = _candidate(mt, q, context, tokens, i + di, j + dj)
                if other is not None and other.score > cand.score + 1e-9 and usable(other):
                    cand = other
    return cand


def _bare(word: str) -> str:
    return word.strip(string.punctuation)


def _ends_sentence(word: str) -> bool:
    return word.endswith((".", "!", "?"))


def _substituted_edges(q_words: list[str], words: list[str]) -> tuple[bool, bool]:
    """Whether the first (last) words of ``words`` take the place of the quote's first (last)
    words rather than being words the quote does not have."""
    opcodes = difflib.SequenceMatcher(None, q_words, words, autojunk=False).get_opcodes()
    if not opcodes:
        return False, False
    return opcodes[0][0] == "replace", opcodes[-1][0] == "replace"


def _lead_punct(word: str) -> int:
    return len(word) - len(word.lstrip(string.punctuation))


def _trail_punct(word: str) -> int:
    return len(word) - len(word.rstrip(string.punctuation))


def _candidate(
    mt: MatchText, q: str, context: _Context, tokens: list[tuple[int, int, str]], i: int, j: int
) -> _Candidate | None:
    ns, ne = tokens[i][0], tokens[j - 1][1]
    # The quote may begin or end inside a word: trim the edge words to what it holds.
    words = q.split(" ")
    first, last = tokens[i][2], tokens[j - 1][2]
    if first != words[0]:
        if first.endswith(words[0]):
            ns = tokens[i][1] - len(words[0])
        else:  # drop punctuation the quote does not open with, as in "(held" for "holds"
            ns += max(0, _lead_punct(first) - _lead_punct(words[0]))
    if last != words[-1]:
        if last.startswith(words[-1]):
            ne = tokens[j - 1][0] + len(words[-1])
        else:  # ... or close with, as in "2025," for "2024"
            ne -= max(0, _trail_punct(last) - _trail_punct(words[-1]))
    if ns >= ne:
        ns, ne = tokens[i][0], tokens[j - 1][1]
    ns, ne = mt._snap(ns, ne)
    score = _similarity(q, mt.normalized[ns:ne])
    if score <= 0.0:
        return None
    s, e = mt._orig_start(ns), mt._orig_end(ne)
    agreement = context.score(mt.text, s, e) if context else 0.0
    return _Candidate(score + 0.5 * agreement, score, s, e)


# --------------------------------------------------------------------------- public functions


def _check_ranges(within: Sequence[tuple[int, int]] | None) -> list[tuple[int, int]] | None:
    if within is None:
        return None
    ranges = [(int(a), int(b)) for a, b in within]
    for a, b in ranges:
        if a < 0 or b < a:
            raise InvalidInput(f"within: range ({a}, {b}) must satisfy 0 <= start <= end")
    return ranges


def _inside(hit: _Hit, ranges: list[tuple[int, int]] | None) -> bool:
    return ranges is None or any(a <= hit.start and hit.end <= b for a, b in ranges)


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


#: Quotes longer than this (normalized) get no "closest text" hint when they are not found.
_CLOSEST_MAX = 2000


def _not_found(
    mt: MatchText,
    query: _Query,
    context: _Context,
    ranges: list[tuple[int, int]] | None,
    elsewhere: list[_Hit],
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


def _closest(mt: MatchText, query: _Query, context: _Context) -> tuple[str, float, str] | None:
    """A near-match for the error message: same letters in another case, or a fuzzy match."""
    folded = re.compile(re.escape(query.text), re.IGNORECASE).search(mt.normalized)
    if folded is not None:
        ns, ne = mt._snap(*folded.span())
        s, e = mt._orig_start(ns), mt._orig_end(ne)
        score = _similarity(query.text, mt.normalized[ns:ne])
        return mt.text[s:e], score, "; matching is case-sensitive"
    cand = _fuzzy(mt, query.text, context, None)
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
    ``suffix`` wins, else the first; ``within`` keeps only occurrences inside one of the
    given [start, end) ranges (a PDF page, say). An occurrence must not begin or end inside
    a word or number ("10" is not in "100", "Anna" not in "Annabelle"), except in scripts
    written without spaces and at ``breaks``: offsets where the text joins a word that was
    broken across lines (a quote copied from the second line begins there).

    Raises:
        InvalidInput: the quote is empty or whitespace, or a range is malformed.
        QuoteNotFound: the quote does not occur; the message shows the closest text.
    """
    ranges = _check_ranges(within)
    context = _Context(prefix, suffix)
    try:
        return _locate(text, quote, context, ranges, breaks)
    except QuoteNotFound as refused:
        error = refused
    stored = _as_stored(quote)
    for retry in dict.fromkeys((stored, _BROKEN_END.sub("", stored))):
        if retry == quote:
            continue
        try:
            # a quote cut off at a break hyphen ("as a high-") ends inside the joined word
            return _locate(text, retry, context, ranges, breaks, open_end=retry is not stored)
        except QuoteNotFound as refused:
            if retry is stored:  # its closest text is the telling one
                error = refused
    raise error


# The ingesters store text in NFC, with Arabic presentation forms (what a PDF viewer may put on
# the clipboard) folded to letters, and join words broken at line ends: a quote not found as
# written is looked for in that form, then without a hyphen it ends on ("as a high-" copied
# from the end of a line, where the text reads "as a highlevel").
_PRESENTATION_FORMS = re.compile("[\ufb50-\ufdff\ufe70-\ufefe]+")
_BROKEN_END = re.compile(r"(?<=[^\W\d_])[-\u2010\u00ad]\s*\Z")


def _as_stored(quote: str) -> str:
    """The quote in the form the ingesters store text."""
    folded = _PRESENTATION_FORMS.sub(lambda m: unicodedata.normalize("NFKC", m.group()), quote)
    return unicodedata.normalize("NFC", folded)


def _locate(
    text: str | MatchText, quote: str, context: _Context, ranges: list[tuple[int, int]] | None,
    breaks: Collection[int], *, open_end: bool = False,
) -> Anchor:
    raw = text.text if isinstance(text, MatchText) else text
    query = _Query.build(quote)
    exact = [
        hit
        for s in _exact_starts(raw, query.raw)
        if _inside(hit := _Hit(s, s + len(query.raw), 0), ranges) and _whole(raw, hit, breaks, open_end)
    ]
    if exact:
        best, agreement = _pick(raw, exact, context)
        if agreement is None or agreement >= 1.0:
            return Anchor(best.start, best.end, "exact", 1.0)
    mt = text if isinstance(text, MatchText) else MatchText(raw)
    if len(_DASH_RUN.sub("", query.core)) > len(mt.normalized):  # dashes and their spaces may match less
        raise QuoteNotFound(
            f'quote not found in the source text: "{_clip(query.raw, 80)}" is {len(query.text):,} characters '
            f"long, longer than the whole source text ({len(mt.normalized):,}); cite a passage of this source"
        )
    every = mt._hits(query)
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
    best, _ = _pick(raw, hits, context)
    return Anchor(best.start, best.end, "exact" if best.tier == 0 else "normalized", 1.0)


def quote_context(text: str, start: int, end: int, *, width: int = 32) -> tuple[str, str]:
    """(prefix, suffix): up to ``width`` characters before ``start`` and after ``end``."""
    if not 0 <= start <= end <= len(text):
        raise InvalidInput(f"offsets ({start}, {end}) must satisfy 0 <= start <= end <= {len(text)}")
    if width < 0:
        raise InvalidInput(f"width must be >= 0, not {width}")
    return text[max(0, start - width) : start], text[end : end + width]


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
    query = _Query.build(exact)
    old = prefix + exact + suffix
    cut_start, cut_end = _cuts(old, len(prefix)), _cuts(old, len(prefix) + len(exact))

    def whole(s: int, e: int) -> bool:
        return (cut_start or not _cuts(raw, s)) and (cut_end or not _cuts(raw, e))

    if 0 <= start <= end <= len(raw) and raw[start:end] == exact and whole(start, end):
        return Anchor(start, end, "position", 1.0)
    context = _Context(prefix, suffix)
    exact_hits = [_Hit(s, s + len(query.raw), 0) for s in _exact_starts(raw, query.raw) if whole(s, s + len(query.raw))]
    if exact_hits:
        best, agreement = _pick(raw, exact_hits, context, near=start)
        if agreement is None or agreement >= 1.0:
            return Anchor(best.start, best.end, "quote", 1.0)
    mt = new_text if isinstance(new_text, MatchText) else MatchText(raw)
    hits = [h for h in mt._hits(query) if whole(h.start, h.end)]
    if hits:
        best, _ = _pick(raw, hits, context, near=start)
        return Anchor(best.start, best.end, "quote", 1.0)
    if not fuzzy:
        return None
    before = MatchText(old_text) if isinstance(old_text, str) else old_text() if callable(old_text) else old_text

    def held_before(s: int, e: int) -> bool:
        # compared normalized: a PDF reflows the lines after a deleted sentence
        return before is not None and _held_elsewhere(
            before.normalized, _normalize(raw[s:e]).strip(" "), before._norm_offset(start), before._norm_offset(end))

    cand = _fuzzy(mt, query.text, context, mt._norm_offset(start), held_before)
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
