"""Text normalization for quote matching: what a quote and a stored text are compared as.

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
  a browser, cells apart by tabs, matches;
- beside punctuation and brackets (not dashes, nor "_") a space may be in the quote and not in
  the text or the other way round: "Springfield, Ohio (UNESCO)" matches the tokenized
  "Springfield , Ohio ( UNESCO )". Never between two letters or digits ("Spring field" is not
  "Springfield", "1 000" not "1000"), nor beside a mark between digits: "1,5" is one number,
  "1, 5" and "1 , 5" are two. (This rule is applied to the quote's search pattern, in
  ``matchtext``; the normalized text keeps its spaces.)

A quote not found as written is looked for in the form the ingesters store text: Unicode NFC
(composed accents, "Ω" U+2126 as "Ω" U+03A9), Arabic presentation forms folded to letters;
then without a line-break hyphen it ends on ("as a high-" copied to the end of a line, where
the ingester joined the word: "as a highlevel").

Matching is otherwise exact and case-sensitive. A match found in the normalized text maps
back to offsets in the original text, never splits a ligature and never starts or ends
with whitespace. Everything here is pure: no database, no I/O.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

# --------------------------------------------------------------------------- normalization

#: Every character str.isspace() accepts, except the plain space (a test checks the list).
WHITESPACE = (
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
DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"  # ‐ ‑ ‒ – — ― −
#: One character to one character: applied first with str.replace, keeps offsets.
_ONE_TO_ONE: tuple[tuple[str, str], ...] = (
    *((c, " ") for c in WHITESPACE),
    *_QUOTES.items(),
    *((c, "-") for c in DASHES),
)
#: One character to several (NFKC-style).
EXPAND = {
    "\ufb00": "ff",
    "\ufb01": "fi",
    "\ufb02": "fl",
    "\ufb03": "ffi",
    "\ufb04": "ffl",
    "\ufb05": "st",
    "\ufb06": "st",
    "\u2026": "...",
}
LIGATURES = frozenset("\ufb00\ufb01\ufb02\ufb03\ufb04\ufb05\ufb06")
SOFT_HYPHEN = "\u00ad"
INVISIBLE = "\u00ad\u200b\u200c\u200d\u2060\ufeff"  # removed wherever they stand

LETTER_CLASS = r"[^\W\d_]"  # a letter
_Z = "\\u00ad\\u200b\\u200c\\u200d\\u2060\\ufeff"
_X = "".join(f"\\u{ord(c):04x}" for c in EXPAND)
# Applied to the text after _ONE_TO_ONE, so all whitespace is " " and all dashes are "-".
# Every match starts with one character of a small set, which lets the regex engine skip
# ahead quickly; lookbehinds then tell which rule applies:
#   group 1: a line-break hyphen between letters, with the whitespace after it -> ""
#   group 2: a run of two or more spaces/invisibles -> " " (or "" if only invisibles)
#   group 3: a ligature -> its letters; an invisible character -> ""
#   group 4: the "|" of a table cell separator " | ", with the spaces after it -> ""
_SPECIAL = re.compile(
    rf"[- {_Z}{_X}|]"
    rf"(?:((?<={LETTER_CLASS}-)(?=[{_Z}]*+ )[ {_Z}]*+(?={LETTER_CLASS})|(?<={LETTER_CLASS}\u00ad)[ {_Z}]*+(?={LETTER_CLASS}))"
    rf"|((?<=[ {_Z}])[ {_Z}]++)"
    rf"|((?<=[{_X}{_Z}]))"
    rf"|((?<= \|)[ {_Z}]++))"
)


def one_to_one(text: str) -> str:
    for src, dst in _ONE_TO_ONE:
        if src in text:
            text = text.replace(src, dst)
    return text


def replacement(m: re.Match[str]) -> str:
    group = m.lastindex
    if group == 1 or group == 4:  # line-break hyphen; cell separator
        return ""
    if group == 2:
        return " " if " " in m.group() else ""
    return EXPAND.get(m.group(), "")


def normalize(text: str) -> str:
    """The normalized form of ``text`` (no offset map); see the module docstring."""
    return _SPECIAL.sub(replacement, one_to_one(text))


_RUN = frozenset(" " + INVISIBLE)
_SPACES_END = re.compile(" *+")


def special_matches(t: str) -> Iterator[re.Match[str]]:
    """What ``_SPECIAL.finditer(t)`` yields, found faster on long texts.

    A match can only start at a hyphen followed by whitespace, an invisible, a ligature, or
    a space that begins a run; str.find locates those in C, where the regex engine alone
    would try every position of a long text.
    """
    starts: list[int] = []
    for needle in ("  ", "- ", "| ", *INVISIBLE, *EXPAND):
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


# --------------------------------------------------------------------------- punctuation

#: Punctuation a space may stand beside or not, as tokenized text has it ("Springfield , Ohio",
#: "( UNESCO )"): all but dashes (their own rule) and connectors such as "_" (part of a word).
_PUNCTUATION = frozenset(("Po", "Ps", "Pe", "Pi", "Pf"))


def is_punctuation(c: str) -> bool:
    """Whether a space beside character ``c`` may be there or not (see _PUNCTUATION)."""
    return unicodedata.category(c) in _PUNCTUATION


def loose(text: str) -> str:
    """``text`` case-folded and without the spaces beside punctuation, to compare context."""
    last = len(text) - 1
    return "".join(
        c for i, c in enumerate(text)
        if c != " " or not ((i > 0 and is_punctuation(text[i - 1])) or (i < last and is_punctuation(text[i + 1])))
    ).casefold()


# --------------------------------------------------------------------------- whole words

# Scripts written without spaces between words (Thai, Lao, Tibetan, Myanmar, Khmer, Hangul
# jamo and syllables, kana, CJK ideographs): a quote may begin or end at any of their letters.
UNSPACED_SCRIPTS = re.compile(
    "[\u0e00-\u0fff\u1000-\u109f\u1100-\u11ff\u1780-\u17ff\u3040-\u30ff\u3130-\u318f"
    "\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f"
    "\U00020000-\U0003134f]"
)


def cuts(text: str, p: int) -> bool:
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
        return b in IN_NUMBERS and text[p + 1 : p + 2].isdigit()
    return b.isdigit() and a in IN_NUMBERS and text[p - 2 : p - 1].isdigit()


# Between two digits, part of one number: decimal and thousands marks, a time's or a ratio's
# colon, a fraction's or a date's slash (full-width and typographic forms too). "Windows 10" is
# thus not found in "Windows 10/11": quoting the whole "10/11" is the fix the error suggests.
IN_NUMBERS = ".,:/\uff0e\uff0c\uff1a\uff0f\u2236\u2044"


# The ingesters store text in NFC, with Arabic presentation forms (what a PDF viewer may put on
# the clipboard) folded to letters, and join words broken at line ends: a quote not found as
# written is looked for in that form, then without a hyphen it ends on ("as a high-" copied
# from the end of a line, where the text reads "as a highlevel").
_PRESENTATION_FORMS = re.compile("[\ufb50-\ufdff\ufe70-\ufefe]+")
BROKEN_END = re.compile(r"(?<=[^\W\d_])[-\u2010\u00ad]\s*\Z")


def as_stored(quote: str) -> str:
    """The quote in the form the ingesters store text."""
    folded = _PRESENTATION_FORMS.sub(lambda m: unicodedata.normalize("NFKC", m.group()), quote)
    return unicodedata.normalize("NFC", folded)
