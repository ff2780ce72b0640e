"""Approximate comparison: how alike two texts are, how well a candidate's surroundings agree
with a quote's prefix and suffix, and the best approximate occurrence of a quote."""

from __future__ import annotations

import difflib
import re
import string
from collections.abc import Callable
from typing import NamedTuple

from ledger.text.matchtext import MatchText
from ledger.text.normalize import loose, normalize

_WORD = re.compile(r"[^ ]+")

# --------------------------------------------------------------------------- context


class Context:
    """Normalized prefix/suffix of a quote, to tell whether a candidate's surroundings agree."""

    __slots__ = ("prefix", "prefix_key", "suffix", "suffix_key")

    def __init__(self, prefix: str | None, suffix: str | None) -> None:
        self.prefix = normalize(prefix).rstrip(" ")[-64:].lstrip(" ") if prefix else ""
        self.suffix = normalize(suffix).lstrip(" ")[:64].rstrip(" ") if suffix else ""
        self.prefix_key = loose(self.prefix)
        self.suffix_key = loose(self.suffix)

    def __bool__(self) -> bool:
        return bool(self.prefix or self.suffix)

    def _around(self, raw: str, s: int, e: int) -> tuple[str, str]:
        before = after = ""
        if self.prefix:
            before = normalize(raw[max(0, s - 2 * len(self.prefix) - 16) : s]).rstrip(" ")
            before = before[len(before) - len(self.prefix) :] if len(before) > len(self.prefix) else before
        if self.suffix:
            after = normalize(raw[e : e + 2 * len(self.suffix) + 16]).lstrip(" ")[: len(self.suffix)]
        return before, after

    def _loose_around(self, raw: str, s: int, e: int) -> tuple[str, str]:
        """The text before and after a candidate as long as the loose prefix and suffix."""
        before = after = ""
        if self.prefix_key:
            before = loose(normalize(raw[max(0, s - 2 * len(self.prefix) - 16) : s]).rstrip(" "))
            before = before[max(0, len(before) - len(self.prefix_key)) :]
        if self.suffix_key:
            after = loose(normalize(raw[e : e + 2 * len(self.suffix) + 16]).lstrip(" "))[: len(self.suffix_key)]
        return before, after

    def agrees(self, raw: str, s: int, e: int) -> tuple[bool, bool]:
        """Whether the text right before (after) a candidate reads as the prefix (suffix): the same
        in any case and spacing around punctuation, or nearly so (similarity >= AGREES); a side
        not given agrees."""
        before, after = self._loose_around(raw, s, e)
        return _alike(self.prefix_key, before), _alike(self.suffix_key, after)

    def quick(self, raw: str, s: int, e: int) -> float:
        """Share of the context that agrees character for character at the boundary (loosely)."""
        before, after = self._loose_around(raw, s, e)
        scores: list[float] = []
        if self.prefix_key:
            n = 0
            while n < len(before) and before[-1 - n] == self.prefix_key[-1 - n]:
                n += 1
            scores.append(n / len(self.prefix_key))
        if self.suffix_key:
            n = 0
            while n < len(after) and after[n] == self.suffix_key[n]:
                n += 1
            scores.append(n / len(self.suffix_key))
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


#: How alike (difflib's ratio, loosely compared) a prefix or suffix must be to the text beside an
#: occurrence to count as standing there: a typo passes, another phrase sharing some words
#: ("Chelsea appointed" for "Manchester United appointed") does not, nor other digits ("In 2021"
#: for "In 2022").
AGREES = 0.8


def _alike(context: str, beside: str) -> bool:
    if not context or context == beside:
        return True
    if [c for c in context if c.isdigit()] != [c for c in beside if c.isdigit()]:
        return False
    return difflib.SequenceMatcher(None, context, beside, autojunk=False).ratio() >= AGREES


# --------------------------------------------------------------------------- similarity

_CHAR_LEVEL_LIMIT = 60_000  # len(a) * len(b) above which similarity works word by word


def _matched_chars(a: str, b: str) -> int:
    if len(a) * len(b) > _CHAR_LEVEL_LIMIT:
        return 0
    blocks = difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks()
    return sum(block.size for block in blocks)


def similarity(a: str, b: str) -> float:
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


def _seed_votes(norm: str, q: str, context: Context, near: int | None) -> list[tuple[int, int]]:
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
        return max(spans, key=lambda ij: similarity(q, " ".join(words[ij[0] : ij[1]])))
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


def fuzzy_find(
    mt: MatchText, q: str, context: Context, near: int | None, passed_over: Callable[[int, int], bool] | None = None
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
    mt: MatchText, q: str, context: Context, tokens: list[tuple[int, int, str]], i: int, j: int
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
    ns, ne = mt.snap(ns, ne)
    score = similarity(q, mt.normalized[ns:ne])
    if score <= 0.0:
        return None
    s, e = mt.orig_start(ns), mt.orig_end(ne)
    agreement = context.score(mt.text, s, e) if context else 0.0
    return _Candidate(score + 0.5 * agreement, score, s, e)
