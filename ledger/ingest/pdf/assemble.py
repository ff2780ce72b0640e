"""Join a document's pages of ordered lines into the text and its passages: paragraphs,
de-hyphenation, drop capitals.

Paragraphs
    A paragraph is a run of lines from one pymupdf block that continues downward in reading
    order.

De-hyphenation
    When a line ends in a letter followed by "-" (U+002D), "‐" (U+2010) or a soft
    hyphen, and the next line of the same paragraph starts with a lowercase letter,
    the two are joined into one word: the hyphen and the line break are dropped.
    The first line's passage then ends before the hyphen and the second line's passage
    starts right where the first ends (``a.char_end == b.char_start``), so
    "hyphen-" / "ated" gives the text "hyphenated" with passages "hyphen" and "ated".
    The next line may be in another mupdf block if it lies right under the first (less
    than a line height below, overlapping it across): mupdf starts a block where the
    indent changes (hanging indents, description lists), and the broken word joins its
    paragraphs into one. Lines are never joined across columns or pages, and a hyphen
    before an uppercase letter or a digit ("Just-in-" / "Time") is kept with its line
    break.

Drop capitals
    A line that is one capital letter, with the first two lines of a paragraph beside it
    (the first starting within an em of it, at its top, in lower case), is the first
    letter of that paragraph's first word: the two are joined with nothing between them
    ("T" + "he archive" -> "The archive"). Not the capitals that are often words of their
    own ("I" + "was born"; A E I O U Y, and Cyrillic and Greek ones): they stay apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import islice, repeat
from typing import Final

from ledger.ingest.base import BBox, PassageDraft
from ledger.ingest.pdf.layout import BESIDE, TOUCHING, page_order, strong_characters
from ledger.ingest.pdf.text import Line


_LINE_SEP: Final = "\n"
_PARAGRAPH_SEP: Final = "\n\n"
_PAGE_SEP: Final = "\n\n"
#: a line starting this far (points) above the previous one starts a new paragraph
_RISE: Final = 1.0
_HYPHENS: Final = frozenset("-\u2010")


def assemble(
    pages: Sequence[Sequence[Line]],
) -> tuple[str, tuple[PassageDraft, ...], tuple[int, ...]]:
    """Join the pages' lines into the text and its passages (see :mod:`ledger.ingest.pdf`)."""
    parts: list[str] = []
    passages: list[tuple[int, int, int, BBox, int]] = []
    without_text: list[int] = []
    add_part, add_passage = parts.append, passages.append
    line_sep, paragraph_sep, hyphens, rise = _LINE_SEP, _PARAGRAPH_SEP, _HYPHENS, _RISE
    position = 0
    paragraph = -1
    for page_number, lines in enumerate(pages, start=1):
        if not lines:
            without_text.append(page_number)
            continue
        ordered, joins = page_order(lines)
        separator = _PAGE_SEP if position else ""
        continued = False  # does this line continue the previous line's paragraph?
        for index, ((bbox, text, block, soft_break, upright, _, spaced), following) in enumerate(
                zip(ordered, islice(ordered, 1, None))):
            if not continued:
                paragraph += 1
            # a piece the row goes on from ("ה-" / "iPhone" on a right-to-left page) is no line break
            broken = (soft_break or text[-1] in hyphens) and _hyphenated(text, soft_break, following[1]) and not (
                joins is not None and index in joins)
            continued = (following[2] == block and following[0][1] >= bbox[1] - rise) or (
                broken and _next_line(bbox, following[0]))
            start = position + len(separator)
            add_part(separator)
            if not broken and upright and following[4] and (
                    gap := _gap_beside(bbox, following[0]) if joins is None else joins.get(index)) is not None:
                # mupdf cut one line into pieces ("For " / "shipboard service" / "s please"),
                # often in blocks of their own: the row reads on, a space where one was drawn
                # or a gap shows, none where the pieces touch (a word cut in two) unless a
                # capital starts the next one ("Testerino" / "Date:"); on a page with right-to-left
                # text the pieces come in the order of their text's direction (see _bidi_order),
                # and a Latin word may start right after a right-to-left piece ("ב-" / "Google")
                capital = following[1][:1].isupper() and (joins is None or not strong_characters(text)[0])
                touching = gap < TOUCHING * (bbox[3] - bbox[1]) and not (spaced or following[5] or capital)
                continued, separator = True, "" if touching else " "
            elif not continued and len(text) == 1 and _drop_capital(bbox, text, following, ordered[index + 2 : index + 3]):
                continued, separator = True, ""  # "T" + "he archive ...": one word again
            elif not continued:
                separator = paragraph_sep
            elif broken:
                separator = ""
                if not soft_break:
                    text = text[:-1]  # the hyphen; a soft hyphen is already gone
            else:
                separator = line_sep
            position = start + len(text)
            add_passage((start, position, page_number, bbox, paragraph))
            add_part(text)
    # tuple.__new__ makes the named tuples in C (PassageDraft's own __new__ is Python code).
    drafts = tuple(map(tuple.__new__, repeat(PassageDraft), passages))
    return "".join(parts), drafts, tuple(without_text)


#: capitals that are words of their own as often as not in the languages most written in
#: these scripts ("I was", "A long", "O Brasil", "Y entonces", "E poi", "Я родился", "В
#: городе", "Ο Νίκος"): as drop capitals they are left apart rather than glued to the next word
_WORD_LETTERS: Final = frozenset("AEIOUYАВИКОСУЯΗΟ")


def _drop_capital(bbox: BBox, text: str, following: Line, after: Sequence[Line]) -> bool:
    """True if ``text`` is a drop capital: one capital letter beside the first two lines of
    the text it begins, at least as tall as both, whose word goes on in lower case in the
    first of them, which starts within an em of it."""
    (x0, y0, _, y1), rest = following[0], following[1]
    height = y1 - y0
    if not (text.isupper() and text not in _WORD_LETTERS and rest[:1].islower() and height > 0):
        return False
    beside = bbox[3] - bbox[1] >= 1.8 * height and bbox[2] - 1.0 <= x0 <= bbox[2] + height
    if not beside or abs(y0 - bbox[1]) > height:  # the first line starts at the capital's top
        return False
    # the second line of that text is beside the capital too
    return bool(after) and after[0][2] == following[2] and after[0][0][1] < bbox[3] and abs(after[0][0][0] - x0) <= 1.0


def _gap_beside(bbox: BBox, following: BBox) -> float | None:
    """The gap from a line to the next one in reading order when that one goes on along the
    same row (starting less than :data:`BESIDE` line heights on, each one's middle inside the
    other's box); None otherwise."""
    height = bbox[3] - bbox[1]
    gap = following[0] - bbox[2]
    if not -TOUCHING * height < gap < BESIDE * height:
        return None
    middle, following_middle = (bbox[1] + bbox[3]) / 2, (following[1] + following[3]) / 2
    if not (bbox[1] < following_middle < bbox[3] and following[1] < middle < following[3]):
        return None
    return gap


def _next_line(bbox: BBox, following: BBox) -> bool:
    """Whether ``following`` is the line right under ``bbox`` in the same column: below it,
    less than a line height further down, and overlapping it across. mupdf starts a new block
    where the indentation changes (a hanging indent, a description list), so a word broken
    over such lines is still joined."""
    height = bbox[3] - bbox[1]
    return (
        following[1] >= bbox[1] + 0.5 * height
        and following[1] - bbox[3] <= height
        and following[0] < bbox[2] and following[2] > bbox[0]
    )


def _hyphenated(text: str, soft_break: bool, following: str) -> bool:
    """True if a word is split by a hyphen between line ``text`` and ``following``."""
    if not following[:1].islower():
        return False
    if soft_break:  # the soft hyphen is already removed
        return text[-1].isalpha()
    if following.split(maxsplit=1)[0] in _CONJUNCTIONS:
        return False  # a suspended hyphen: "Film-" / "und Fernsehfonds", "pre-" / "and post-war"
    return len(text) >= 2 and text[-1] in _HYPHENS and text[-2].isalpha()


# Words after which a line-end hyphen is a suspended one ("Film- und Fernsehfonds"), never the
# rest of a broken word (no hyphenation leaves them as a word's tail, unlike "to" in "pho-to").
_CONJUNCTIONS = frozenset({"und", "oder", "bzw.", "sowie", "and", "nor"})
