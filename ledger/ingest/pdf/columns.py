"""Reading order of a page's lines by a recursive XY-cut on their boxes: columns, bands,
labels and list marks.

Reading order
    Lines are ordered geometrically per page by a recursive XY-cut on their bboxes: a
    region is split into columns where a vertical gap wider than 5 pt crosses it (when
    at least two of the columns hold two rows or more, so that a run-in heading such
    as "Keywords  JavaScript, tracing" is not taken for a column), otherwise into
    horizontal bands; consecutive bands that share a gutter are read as one
    multi-column region. Columns are not columns when a horizontal gap wider than their
    gutters cuts the region into two parts with no columns in either (a title page: the
    title at the left, the subtitle at the right, the author at the foot): the region is
    cut there instead. A line or two at the foot (or head) of a region that reach across
    its gutter and touch no line over or under them, only lines beside them and not level
    with them (a running foot whose box reaches up into a "Continued" set large at the foot
    of a column), are set apart as a band of their own when that leaves real columns. A
    two-column page thus reads down the left column, then the right one, with full-width
    titles, figures and footers in their place, whatever order the content stream drew the
    lines in. Rows are told apart by the lines'
    middles (line boxes are taller than the leading of most text, so the lines of one
    column touch). A column of labels is not a column of text: when every line of a
    column is narrow (at most four line heights wide), at least 80% of them sit on rows
    of the column beside it (the one to the right is tried first), and they number at
    least 80% of that column's rows alongside them (section and page numbers in a table
    of contents, line numbers of a listing, the cells of a table), the two are read
    together, row by row, each row left to right. A column of single words beside a
    paragraph, one on each of its rows, is read that way too: it looks like a table. A
    column of list marks (bullets, "1.") inside the text, each level with a line just to
    its right, goes with that column however few of its rows it marks (items that wrap).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Sequence
from itertools import accumulate, islice
from operator import itemgetter, lt
from typing import Final

from ledger.ingest.base import BBox


#: a vertical gap wider than this (points) separates columns: under LaTeX's 5 TeX points (4.98 pt,
#: the gap of ltxdoc's macro names in the margin), so that margin notes stand apart; over a 9 pt
#: typewriter space (4.71 pt), which indents code listings. Measured on 740 texlive PDFs.
_COLUMN_GAP: Final = 4.9
#: a column whose lines are at most this many line heights wide may be labels of the
#: column beside it (numbers, table cells), read with it row by row
_LABEL_WIDTH: Final = 4.0
#: ... when at least this share of its lines sits on rows of that column, and its lines
#: number at least this share of that column's rows alongside them
_LABELS_ON_ROWS: Final = 0.8
#: a column of marks, lines at most this many line heights wide (bullets, dashes, "1.", "(iv)"),
#: each on a row of the column to its right, less than _MARK_GAP line heights from it and
#: inside the text (not in a margin), marks the items of a list: it is read with that column
#: row by row however few of its rows it marks (items that wrap over several lines).
#: Measured on 4,600 Apache FOP and 4,000 texlive pages: bullets and numbers 0.26-0.65,
#: "2.1"-style numbers up to 1.5; table cells of short words lie 3-10 line heights away.
_MARK_WIDTH: Final = 1.5
_MARK_GAP: Final = 2.5
#: at most this many lines at a region's foot (or head) are set apart when they alone, touching
#: only lines beside them, keep it from being cut into columns (a running foot)
_EDGE_LINES: Final = 2


def reading_order(boxes: Sequence[BBox]) -> list[int]:
    """Indexes of ``boxes`` in reading order (see the module docstring)."""
    if not boxes or _single_column(boxes):
        return list(range(len(boxes)))
    return _XYCut(boxes).order()


def _single_column(boxes: Sequence[BBox]) -> bool:
    """True if the lines already come top-down in one column: the XY-cut would keep them.

    Each line starts lower than the one before, and all x-ranges share a point (up to a
    column gap), so there are neither columns nor side-by-side lines to reorder.
    """
    tops = list(map(itemgetter(1), boxes))
    if not all(map(lt, tops, islice(tops, 1, None))):
        return False
    left: float = max(map(itemgetter(0), boxes))
    right: float = min(map(itemgetter(2), boxes))
    return left - right <= _COLUMN_GAP


_Interval = tuple[float, float]


class _XYCut:
    """A recursive XY-cut over line bboxes, run with an explicit stack.

    Coordinates are kept as four sequences indexed by line, so that sorting and
    projections run through C-level ``__getitem__`` keys.
    """

    __slots__ = ("x0", "x1", "y0", "y1")

    def __init__(self, boxes: Sequence[BBox]) -> None:
        self.x0, self.y0, self.x1, self.y1 = zip(*boxes)

    def order(self) -> list[int]:
        left, right = self.x0.__getitem__, self.x1.__getitem__
        order: list[int] = []
        stack: list[list[int]] = [list(range(len(self.x0)))]
        while stack:
            group = stack.pop()
            if len(group) == 1:
                order.append(group[0])
                continue
            if max(map(left, group)) - min(map(right, group)) <= _COLUMN_GAP:
                # all x-ranges share a point: no column split anywhere below, so the
                # XY-cut comes down to reading top to bottom
                order.extend(self._top_down(group))
                continue
            parts = self._split(group)
            if parts is None:
                order.extend(self._top_down(group))
            else:
                stack.extend(reversed(parts))
        return order

    def _top_down(self, group: list[int]) -> list[int]:
        """By top edge, then by left edge; lines whose tops differ by less than a quarter of the
        lower line's height are one row, read left to right (a bullet or label set in another
        font, its box a fraction of a point lower, stays before its line)."""
        x0, y0, y1 = self.x0, self.y0, self.y1
        ordered = sorted(sorted(group, key=x0.__getitem__), key=y0.__getitem__)
        out: list[int] = []
        row: list[int] = []
        for i in ordered:
            if row and y0[i] - y0[row[0]] < 0.25 * min(y1[row[0]] - y0[row[0]], y1[i] - y0[i]):
                row.append(i)
                continue
            out.extend(sorted(row, key=x0.__getitem__))
            row = [i]
        out.extend(sorted(row, key=x0.__getitem__))
        return out

    def _rows(self, group: list[int]) -> list[list[int]]:
        """The lines in rows, top down: a line whose middle lies below the bottom of some line
        of the current row starts the next row. (Line boxes are taller than the leading of
        most text, so lines of one column touch; their middles do not. A tall box, set in a
        font with a large ascent, does not pull the next row into its own.)"""
        y0, y1 = self.y0, self.y1
        ordered = sorted(group, key=lambda i: (y0[i] + y1[i], self.x0[i]))
        rows: list[list[int]] = []
        bottom = float("-inf")
        for i in ordered:
            if (y0[i] + y1[i]) / 2 > bottom:
                rows.append([i])
                bottom = y1[i]
            else:
                rows[-1].append(i)
                bottom = min(bottom, y1[i])
        return rows

    def _split(self, group: list[int]) -> list[list[int]] | None:
        """Split a region into columns, else into bands; None if it cannot be split. A
        region of labels and the lines they label comes back as its lines, row by row."""
        bands = _runs(group, self.y0, self.y1, 0.0)
        columns = _runs(group, self.x0, self.x1, _COLUMN_GAP)
        if len(columns) > 1:
            columns = self._labels_joined(columns)
            if len(columns) == 1:  # labels and the lines they label: row by row, left to right
                x0 = self.x0.__getitem__
                return [[i] for row in self._rows(group) for i in sorted(row, key=x0)]
        if len(bands) == 1 and self._row_rest(columns):  # "breaths.  Then she" / "and smiles."
            x0 = self.x0.__getitem__
            return [[i] for row in self._rows(group) for i in sorted(row, key=x0)]
        if len(columns) > 1 and (len(bands) == 1 or self._columnar(columns)):
            return self._apart(bands, columns) or columns
        if len(bands) == 1:
            return self._edge_apart(group)
        if len(bands) == len(group):  # one line per band
            return bands
        return self._merge_columnar(bands)

    def _edge_apart(self, group: list[int]) -> list[list[int]] | None:
        """The region with its last line (or two), else its first, set apart as a band of their
        own, when they are what keeps its columns from being cut: without them the region has
        real columns (see :meth:`_columnar`) and one of them reaches across a gutter; a gap
        clears them from every line over or under them, and no line beside them is level with
        them, only reaches into their boxes (a running foot whose box reaches up into a
        "Continued" set large at the foot of the right column). None if there are no such lines.
        """
        if len(group) < 5:  # two columns of two lines each, and the edge line
            return None
        x0, y0, y1 = self.x0, self.y0, self.y1
        last = sorted(group, key=lambda i: (-y1[i], x0[i]))[:_EDGE_LINES]
        first = sorted(group, key=lambda i: (y0[i], x0[i]))[:_EDGE_LINES]
        for edge, below in ((last, True), (first, False)):
            for count in range(1, len(edge) + 1):
                apart = edge[:count]
                rest = [i for i in group if i not in apart]
                if not all(self._clear(j, i, below) for j in apart for i in rest):
                    break  # an edge line touches a line over or under it, or is level with one
                columns = self._columns(rest)
                if self._columnar(columns) and any(self._across(j, columns) for j in apart):
                    return [rest, apart] if below else [apart, rest]
        return None

    def _across(self, line: int, columns: list[list[int]]) -> bool:
        """Whether ``line`` reaches over at least two of ``columns`` (across a gutter)."""
        x0, x1 = self.x0, self.x1
        reached = sum(x0[line] < max(map(x1.__getitem__, column)) and min(map(x0.__getitem__, column)) < x1[line]
                      for column in columns)
        return bool(reached >= 2)

    def _clear(self, edge: int, line: int, below: bool) -> bool:
        """Whether ``edge``, set apart below (else above) ``line``, is clear of it: ``line`` ends
        before ``edge`` starts when one is over the other, and has its middle before that
        otherwise (beside ``edge``, it may reach into its box, not share its row)."""
        x0, y0, x1, y1 = self.x0, self.y0, self.x1, self.y1
        over = x0[line] < x1[edge] and x0[edge] < x1[line]
        if below:
            return bool((y1[line] if over else (y0[line] + y1[line]) / 2) <= y0[edge])
        return bool((y0[line] if over else (y0[line] + y1[line]) / 2) >= y1[edge])

    def _row_rest(self, columns: list[list[int]]) -> bool:
        """Whether a "column" is one line on the first row of the column to its left, as tall as
        that row's lines: the rest of that row, which mupdf cut at a wide gap (two spaces after a
        full stop in a typewriter font), not a column of its own."""
        if len(columns) != 2 or len(columns[1]) != 1 or len(columns[0]) < 2:
            return False
        (j,) = columns[1]
        y0, y1 = self.y0, self.y1
        first = self._rows(columns[0])[0]
        middle = (y0[j] + y1[j]) / 2
        return any(y0[i] <= middle <= y1[i] for i in first) and all(
            y1[i] - y0[i] < 1.5 * (y1[j] - y0[j]) for i in first)

    def _apart(self, bands: list[list[int]], columns: list[list[int]]) -> list[list[int]] | None:
        """The region cut in two at its widest band gap, if that gap is wider than every gutter
        between ``columns`` and neither side holds columns of its own; else None.

        Lines far apart leave gutters without being columns: a title page with the title at
        the left, the subtitle at the right and the author at the foot reads top to bottom.
        """
        if len(bands) == 1:
            return None
        y0, y1, x0, x1 = self.y0.__getitem__, self.y1.__getitem__, self.x0.__getitem__, self.x1.__getitem__
        tops, bottoms = [min(map(y0, band)) for band in bands], [max(map(y1, band)) for band in bands]
        gaps = [top - bottom for top, bottom in zip(islice(tops, 1, None), bottoms)]  # bands come top down
        widest = max(gaps)
        lefts, rights = [min(map(x0, column)) for column in columns], [max(map(x1, column)) for column in columns]
        if widest <= max(left - right for left, right in zip(islice(lefts, 1, None), rights)):
            return None
        cut = gaps.index(widest) + 1
        parts = [[i for band in bands[:cut] for i in band], [i for band in bands[cut:] for i in band]]
        if any(self._columnar(self._columns(part)) for part in parts):
            return None
        return parts

    def _merge_columnar(self, bands: list[list[int]]) -> list[list[int]]:
        """Merge consecutive bands that share a column gutter into one region.

        Two bands merge when their union still has a gap and either both have one,
        or the single-column one fits inside a column of the other (a column that
        runs on alone for a while). A merged region that is not truly columnar (see
        :meth:`_columnar`) is given back as its bands.
        """
        coverage = self._coverage
        regions: list[list[list[int]]] = [[bands[0]]]
        cover = coverage(bands[0])
        for band in islice(bands, 1, None):
            band_cover = coverage(band)
            if len(cover) > 1:
                compatible = len(band_cover) > 1 or _inside(band_cover[0], cover)
            else:
                compatible = len(band_cover) > 1 and _inside(cover[0], band_cover)
            if compatible:
                union = _merge_intervals(cover + band_cover)
                if len(union) > 1:
                    regions[-1].append(band)
                    cover = union
                    continue
            regions.append([band])
            cover = band_cover
        result: list[list[int]] = []
        for region in regions:
            if len(region) == 1:
                result.append(region[0])
                continue
            merged = [i for band in region for i in band]
            if self._columnar(self._columns(merged)):
                result.append(merged)
            else:
                result.extend(region)
        return result

    def _columns(self, group: list[int]) -> list[list[int]]:
        """The group's columns, a column of labels joined to the lines it labels."""
        return self._labels_joined(_runs(group, self.x0, self.x1, _COLUMN_GAP))

    def _columnar(self, columns: list[list[int]]) -> bool:
        """True if a split into columns is real: at least two columns of two rows or more.

        A run-in heading ("Keywords  JavaScript, tracing") followed by a short line looks
        like two columns in its x-projection, but one of them is a single line; a section
        number joined to its title is one row. A drop capital beside two columns still
        leaves two real ones.
        """
        return sum(len(column) >= 2 and len(self._rows(column)) >= 2 for column in columns) >= 2

    def _labels_joined(self, columns: list[list[int]]) -> list[list[int]]:
        """The columns, each column of labels joined to the one it labels: the next one to the
        right (a number before its line), else the one to the left (a page number after its
        title). A column that would label both goes with the left one when it sits on that
        one's rows clearly more exactly (the page numbers of the left column of a two-column
        table of contents share its baselines; the right column's rows are merely close)."""
        index = 0
        while index < len(columns) and len(columns) > 1:
            fits = [n for n in (index + 1, index - 1)
                    if 0 <= n < len(columns) and self._labels_rows_of(columns[index], columns[n])]
            if not fits and index + 1 < len(columns) and self._marks_of(columns[index], columns[index + 1]):
                fits = [index + 1]
            if len(fits) == 2 and (self._misalignment(columns[index], columns[index - 1]) + 0.5
                                   < self._misalignment(columns[index], columns[index + 1])):
                fits = [index - 1]
            if fits:
                labels = columns.pop(index)
                columns[min(fits[0], index)] += labels  # the neighbour's place once labels are out
                index = 0  # the joined column may now label another
            else:
                index += 1
        return columns

    def _misalignment(self, column: list[int], beside: list[int]) -> float:
        """How far, on average, the middles of ``column``'s lines are from the nearest middle of
        a line of ``beside``."""
        return sum(self._off_middles(column, beside)) / len(column)

    def _off_middles(self, column: list[int], beside: list[int]) -> Iterator[float]:
        """For each line of ``column``, how far its middle is from the nearest middle of a line
        of ``beside``."""
        y0, y1 = self.y0, self.y1
        middles = sorted((y0[j] + y1[j]) / 2 for j in beside)
        for i in column:
            middle = (y0[i] + y1[i]) / 2
            k = bisect_right(middles, middle)
            yield min(abs(middle - middles[n]) for n in (k - 1, k) if 0 <= n < len(middles))

    def _labels_rows_of(self, column: list[int], beside: list[int]) -> bool:
        """Whether ``column`` labels the rows of ``beside``: its lines are all narrow, most of
        them sit on rows of ``beside``, and they are enough to label most of the rows of
        ``beside`` between its first and its last line (a few words spread down the side of
        a paragraph label nothing)."""
        x0, y0, x1, y1 = self.x0, self.y0, self.x1, self.y1
        if any(x1[i] - x0[i] > _LABEL_WIDTH * (y1[i] - y0[i]) for i in column):
            return False
        first, last = min(map(y0.__getitem__, column)), max(map(y1.__getitem__, column))
        alongside = [j for j in beside if first <= (y0[j] + y1[j]) / 2 <= last]
        if len(column) < _LABELS_ON_ROWS * len(self._rows(alongside)):
            return False
        rows = sorted((y0[j], y1[j]) for j in beside)
        tops = [top for top, _ in rows]
        reach = list(accumulate((bottom for _, bottom in rows), max))  # lowest bottom so far
        on_rows = 0
        for i in column:
            middle = (y0[i] + y1[i]) / 2
            above = bisect_right(tops, middle)  # the rows of ``beside`` starting above the middle
            on_rows += above > 0 and reach[above - 1] >= middle  # one of them spans it
        return on_rows >= _LABELS_ON_ROWS * len(column)

    def _marks_of(self, column: list[int], beside: list[int]) -> bool:
        """Whether ``column`` marks the items of a list in ``beside``, the column to its right:
        its lines are all marks (bullets, "1.", "(iv)": at most _MARK_WIDTH line heights wide,
        no taller than its lines), each level with a line of ``beside`` (their middles less than a
        quarter of its height apart), less than _MARK_GAP line heights before it, and another
        line of the page starts at or left of them and runs past the gap (so they are inside
        the text: margin notes and an edition's line numbers stand left of all of it)."""
        x0, y0, x1, y1 = self.x0, self.y0, self.x1, self.y1
        height = max(y1[i] - y0[i] for i in column)
        if height > 1.5 * sorted(y1[j] - y0[j] for j in beside)[len(beside) // 2]:
            return False  # a drop capital, as tall as several lines
        if any(x1[i] - x0[i] > _MARK_WIDTH * (y1[i] - y0[i]) for i in column):
            return False
        left, start = min(map(x0.__getitem__, column)), min(map(x0.__getitem__, beside))
        if start - max(map(x1.__getitem__, column)) > _MARK_GAP * height:
            return False
        # each on the middle of a line: not a line number in a smaller font
        if any(off > 0.25 * (y1[i] - y0[i]) for i, off in zip(column, self._off_middles(column, beside))):
            return False
        marks = set(column)
        return any(x0[k] <= left + 1.0 and x1[k] > start for k in range(len(x0)) if k not in marks)

    def _coverage(self, band: list[int]) -> list[_Interval]:
        """The x-intervals a band covers, merged across gaps narrower than a column gap."""
        x0, x1 = self.x0, self.x1
        if len(band) == 1:
            return [(x0[band[0]], x1[band[0]])]
        if len(band) == 2:
            i, j = band if x0[band[0]] <= x0[band[1]] else band[::-1]
            if x0[j] - x1[i] > _COLUMN_GAP:
                return [(x0[i], x1[i]), (x0[j], x1[j])]
            return [(x0[i], max(x1[i], x1[j]))]
        return _merge_intervals(list(zip(map(x0.__getitem__, band), map(x1.__getitem__, band))))


def _runs(group: list[int], starts: Sequence[float], ends: Sequence[float], gap: float) -> list[list[int]]:
    """Group indexes into runs along one axis, split where a gap wider than ``gap`` opens."""
    ordered = sorted(group, key=starts.__getitem__)
    current = [ordered[0]]
    runs = [current]
    end = ends[ordered[0]]
    for i in islice(ordered, 1, None):
        if starts[i] - end > gap:
            current = [i]
            runs.append(current)
        else:
            current.append(i)
        end = max(end, ends[i])
    return runs


def _merge_intervals(intervals: list[_Interval]) -> list[_Interval]:
    if len(intervals) == 1:
        return intervals
    intervals.sort()
    merged = [intervals[0]]
    for start, end in islice(intervals, 1, None):
        last_start, last_end = merged[-1]
        if start - last_end > _COLUMN_GAP:
            merged.append((start, end))
        elif end > last_end:
            merged[-1] = (last_start, end)
    return merged


def _inside(interval: _Interval, cover: list[_Interval]) -> bool:
    start, end = interval
    return any(lo - _COLUMN_GAP <= start and end <= hi + _COLUMN_GAP for lo, hi in cover)
