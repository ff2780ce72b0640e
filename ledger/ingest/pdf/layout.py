"""A page's lines in reading order: columns (see :mod:`ledger.ingest.pdf.columns`), rotated
lines, vertical writing, right-to-left text.

Rotated lines and vertical writing
    Lines that do not run left to right (rotated margin stamps, axis labels) follow the
    page's other lines. A page written in vertical columns (Japanese, Chinese) that mupdf gives
    one character to a line, each right under the one before, is read as if turned (x, y) ->
    (y, -x): column by column from the right, each from top to bottom, a character to a line.

Right-to-left text
    mupdf gives Hebrew and Arabic lines with ``dir`` "1 0" like any other and each line's
    characters in logical order (it reverses runs a producer drew from left to right), but cuts
    a line into pieces where a run of the other direction starts (a number, a Latin word):
    "עם מספרים כמו 2024" / " ו-" / "15.5" / " אחוזים,", right to left. On a page holding a
    character whose Unicode bidirectional class is R or AL (``unicodedata.bidirectional``; a
    page of ASCII or without any such character is never looked at twice), a page whose strong
    characters are mostly right to left is laid out in mirror image: its columns read from right
    to left. Lines of one row that come one after the other (the pieces of a line, labels and
    table cells read row by row) then read in the order of their text, as the Unicode
    bidirectional algorithm orders runs: a row of mostly right-to-left text from right to left,
    a run of left-to-right pieces in it (a Latin phrase) from left to right; a row of mostly
    left-to-right text (a line of code on a Hebrew page) the other way round. A piece without
    strong characters (a number, a dash) goes with its neighbours when both agree, else with its
    row. So the text reads as a viewer copies it: "עם מספרים כמו 2024 ו-15.5 אחוזים,".
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from itertools import islice
from operator import itemgetter
from typing import Final
from unicodedata import east_asian_width

from ledger.ingest.base import BBox
from ledger.ingest.pdf.columns import reading_order
from ledger.ingest.pdf.text import Line

#: pieces of one line, in line heights: closer than TOUCHING they touch (a word cut in two,
#: unless a space glyph ends the first or starts the second, or a capital starts it); up to
#: BESIDE apart a space stands between them (wider gaps part columns and table cells)
TOUCHING: Final = 0.1
BESIDE: Final = 0.6
#: what follows a page's last line in :func:`page_order` (block -1)
END_OF_PAGE: Final[Line] = ((0.0, 0.0, 0.0, 0.0), "", -1, False, True, False, False)


def page_order(lines: Sequence[Line]) -> tuple[list[Line], dict[int, float] | None]:
    """A page's lines in reading order, then an end-of-page sentinel (block -1); and None, or on
    a page with right-to-left text, where each line goes on along its row: the index of each
    such line in that order, with the gap to the next piece (see :func:`_bidi_order`).

    Upright lines are ordered by :func:`reading_order`; rotated ones (margin stamps,
    axis labels) follow in content order.
    """
    all_upright = all(map(itemgetter(4), lines))
    upright = lines if all_upright else [line for line in lines if line[4]]
    text = "".join([line[1] for line in lines])
    joins = None
    if not text.isascii() and _RTL_CHARS.search(text) and (counts := strong_characters(text))[0]:
        ordered, joins = _bidi_order(upright, *counts)
    elif not text.isascii() and _vertical(upright):
        ordered = [upright[i] for i in reading_order([_transposed(line[0]) for line in upright])]
    else:
        ordered = [upright[i] for i in reading_order(list(map(itemgetter(0), upright)))]
    if not all_upright:
        ordered.extend(line for line in lines if not line[4])
    ordered.append(END_OF_PAGE)
    return ordered, joins


#: where Unicode gives characters the bidirectional class R or AL (right to left) by default
#: (DerivedBidiClass.txt; not U+FEFF, a byte order mark, nor U+200F, the invisible right-to-left
#: mark): a page with no character in these ranges, or none there of class R or AL, is read as
#: it always was
_RTL_CHARS: Final = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefe\U00010800-\U00010fff\U0001e800-\U0001efff]")
_RTL_CLASSES: Final = frozenset({"R", "AL"})


def strong_characters(text: str) -> tuple[int, int]:
    """How many of ``text``'s characters are strongly right to left (bidirectional class R or
    AL), and how many strongly left to right (L)."""
    rtl = ltr = 0
    bidi_class = unicodedata.bidirectional
    for char, count in Counter(text).items():
        kind = bidi_class(char)
        if kind == "L":
            ltr += count
        elif kind in _RTL_CLASSES:
            rtl += count
    return rtl, ltr


def _vertical(upright: Sequence[Line]) -> bool:
    """Whether a page is written in vertical columns (Japanese, Chinese) that mupdf gives as one
    line per character: most lines are one wide character set right under the line before, as
    close as type is set (a grid of one-character cells, a timetable drawn column by column,
    leaves more room between its rows)."""
    if 2 * list(map(len, map(itemgetter(1), upright))).count(1) < len(upright):
        return False  # most pages: a glance, no loop over their lines
    stacked = 0
    for (box, text, *_), (below, following, *_) in zip(upright, islice(upright, 1, None)):
        height, width = box[3] - box[1], box[2] - box[0]
        if (len(text) == len(following) == 1 and abs(below[0] - box[0]) < 0.25 * width
                and -0.5 * height < below[1] - box[3] and below[1] - box[1] <= _STACKED_PITCH * width
                and east_asian_width(text) in _WIDE and east_asian_width(following) in _WIDE):
            stacked += 1
    return stacked >= _VERTICAL_LINES and 2 * stacked >= len(upright)


#: East Asian widths of the characters set upright in vertical writing (kana, kanji, hanzi, hangul)
_WIDE: Final = frozenset({"W", "F"})
#: a page is written vertically when at least this many characters stand right under another
_VERTICAL_LINES: Final = 8
#: at most this many character widths (ems: wide characters are square) from a character's top
#: to the next one's: type set vertically advances one em, a table's rows of one-character cells
#: more (a timetable in 10 pt type 14 pt apart: 1.4)
_STACKED_PITCH: Final = 1.25


def _transposed(box: BBox) -> BBox:
    """``box`` turned so that vertical columns read from right to left become rows read from
    top to bottom, each from left to right: (x, y) -> (y, -x)."""
    return (box[1], -box[2], box[3], -box[0])


def _mirrored(box: BBox) -> BBox:
    """``box`` reflected left to right (x -> -x): right-to-left reading as left-to-right layout."""
    return (-box[2], box[1], -box[0], box[3])


def _bidi_order(upright: Sequence[Line], rtl: int, ltr: int) -> tuple[list[Line], dict[int, float]]:
    """:func:`page_order` of the upright lines of a page holding right-to-left text (Hebrew,
    Arabic): when most of its strong characters (Unicode bidirectional classes) run right to
    left, the page is read in mirror image (columns from right to left); then the lines of each
    row that come one after the other (pieces of a line, which mupdf cuts where a run of another
    direction starts: a number, a Latin word; labels and table cells read row by row) are put in
    the order of their text (see :func:`_row_logical`). Also gives, for each line that goes on along its row
    (the next one stands beside it, as :func:`_gap_beside` has it), its index and the gap.
    ``rtl`` and ``ltr`` count the page's strong characters of either direction."""
    mirror = rtl > ltr
    boxes = [_mirrored(line[0]) if mirror else line[0] for line in upright]
    ordered = [upright[i] for i in reading_order(boxes)]
    joins: dict[int, float] = {}
    start = 0
    while start < len(ordered):
        end = start + 1
        while end < len(ordered) and same_row(ordered[end - 1][0], ordered[end][0]) and _apart(
                ordered[end - 1][0], ordered[end][0]):
            end += 1
        if end - start > 1:
            row = ordered[start:end]
            if mirror or strong_characters("".join([line[1] for line in row]))[0]:
                row, gaps = _row_logical(sorted(row, key=lambda line: line[0][0]))
                ordered[start:end] = row
            else:  # a row of left-to-right text on a left-to-right page: as it always was
                gaps = [following[0][0] - line[0][2] for line, following in zip(row, islice(row, 1, None))]
            for index, line, gap in zip(range(start, end), row, gaps):
                height = line[0][3] - line[0][1]
                if -TOUCHING * height < gap < BESIDE * height:
                    joins[index] = gap
        start = end
    return ordered, joins


def _row_logical(visual: Sequence[Line]) -> tuple[list[Line], list[float]]:
    """The pieces of one row, given from left to right, in the order of their text, and the gap
    between each one and the next, as the Unicode bidirectional algorithm orders runs: a row
    whose strong characters are mostly right to left reads from right to left, a run of pieces
    of left-to-right text within it from left to right; a row of mostly left-to-right text
    reads from left to right, a run of pieces of right-to-left text within it from right to
    left. A piece is right to left when most of its strong characters are; a piece without any
    (a number, a dash) goes with the pieces on both sides of it when they agree, else with the
    row. mupdf gives each piece's characters in logical order already."""
    kinds: list[bool | None] = []  # right to left? None: no strong character
    rtl = ltr = 0
    for line in visual:
        r, l = strong_characters(line[1])
        rtl, ltr = rtl + r, ltr + l
        kinds.append(None if r == l == 0 else r > l)
    row_rtl = rtl > ltr
    resolved: list[bool] = []
    for index, kind in enumerate(kinds):
        if kind is None:
            before = next((k for k in reversed(kinds[:index]) if k is not None), None)
            after = next((k for k in islice(kinds, index + 1, None) if k is not None), None)
            kind = before if before is not None and before == after else row_rtl
        resolved.append(kind)
    units: list[list[int]] = []  # left to right; pieces against the row's direction run together
    for index, kind in enumerate(resolved):
        if kind != row_rtl and units and resolved[units[-1][-1]] != row_rtl:
            units[-1].append(index)
        else:
            units.append([index])
    if row_rtl:
        units.reverse()
    else:
        units = [unit[::-1] for unit in units]
    x0 = [line[0][0] for line in visual]
    x1 = [line[0][2] for line in visual]
    gaps: list[float] = []
    for unit, following in zip(units, [*units[1:], None]):
        # pieces of a unit stand side by side; so do consecutive units
        gaps.extend(max(x0[b] - x1[a], x0[a] - x1[b]) for a, b in zip(unit, islice(unit, 1, None)))
        if following is not None:
            gaps.append(max(min(x0[i] for i in following) - max(x1[i] for i in unit),
                            min(x0[i] for i in unit) - max(x1[i] for i in following)))
    return [visual[i] for unit in units for i in unit], gaps


def same_row(bbox: BBox, following: BBox) -> bool:
    """Whether two lines share a row: each one's middle lies inside the other's box."""
    middle, following_middle = (bbox[1] + bbox[3]) / 2, (following[1] + following[3]) / 2
    return bbox[1] < following_middle < bbox[3] and following[1] < middle < following[3]


def _apart(bbox: BBox, following: BBox) -> bool:
    """Whether two lines stand side by side, overlapping across by less than :data:`TOUCHING`
    line heights (lines of one column in tall boxes share a row by their middles, but overlap)."""
    overlap = TOUCHING * (bbox[3] - bbox[1])
    return following[0] > bbox[2] - overlap or bbox[0] > following[2] - overlap
