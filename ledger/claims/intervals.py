"""Valid intervals as the lifecycle rules compare them: touching, surely overlapping (bounds
known only to the year are windows), and their union."""

from __future__ import annotations

from datetime import datetime

from ledger.timeline import end_window, overlaps, start_window

#: (valid_from, valid_until, their precisions)
Interval = tuple[datetime | None, datetime | None, str | None, str | None]


def touches(a: Interval, b: Interval) -> bool:
    """Whether two intervals overlap or meet (closed comparison: [1, 2) and [2, 3) touch)."""
    return (a[1] is None or b[0] is None or b[0] <= a[1]) and (b[1] is None or a[0] is None or a[0] <= b[1])


def surely_overlap(a: Interval, b: Interval) -> bool:
    """Whether two intervals overlap beyond where one's end and the other's start coincide within
    their precision: "until 1994" and "from 1994" (both known only to the year) may meet anywhere
    in 1994, so they neither overlap nor leave a gap; "1000 from 2020 until 2030" and "900 in 2024
    and 2025" do overlap."""
    if not overlaps(a[0], a[1], b[0], b[1]):
        return False
    lo = max((t for t in (a[0], b[0]) if t is not None), default=None)
    hi = min((t for t in (a[1], b[1]) if t is not None), default=None)
    if lo is None or hi is None:
        return True
    return not (_meet_within(a, b, lo, hi) or _meet_within(b, a, lo, hi))


def _meet_within(earlier: Interval, later: Interval, lo: datetime, hi: datetime) -> bool:
    """Whether ``earlier``'s end and ``later``'s start, both known only to the year, may be one
    instant: the overlap [lo, hi) lies within both their years. (An exact bound inside the other's
    year pins it instead: "A until 2011, B from 2011-01-01" is an update.)"""
    ends, starts = end_window(earlier[1], earlier[3]), start_window(later[0], later[2])
    if ends is None or starts is None:
        return False
    return max(ends[0], starts[0]) <= lo and hi <= min(ends[1], starts[1])


def hull(a: Interval, b: Interval) -> Interval:
    """The smallest interval holding both (touching) intervals, with the precisions of its bounds."""
    start, start_precision = (a[0], a[2]) if a[0] is None or (b[0] is not None and a[0] <= b[0]) else (b[0], b[2])
    end, end_precision = (a[1], a[3]) if a[1] is None or (b[1] is not None and a[1] >= b[1]) else (b[1], b[3])
    if a[0] is not None and a[0] == b[0]:  # one instant given twice: the finer precision says more
        start_precision = min(a[2], b[2], key=_coarseness)
    if a[1] is not None and a[1] == b[1]:
        end_precision = min(a[3], b[3], key=_coarseness)
    return start, end, start_precision, end_precision


def _coarseness(precision: str | None) -> int:
    return {"year": 3, "month": 2, "day": 1}.get(precision or "", 0)
