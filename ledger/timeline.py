"""Time: parsing with precision, half-open intervals, and the ledger clock.

All times are aware UTC datetimes. A partial date ("2026", "2026-04") denotes its first
instant and keeps its precision, so it can be shown the way it was given.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Literal

from ledger.errors import ClockError, InvalidInput, InvalidTime

Precision = Literal["year", "month", "day", "second"]
TimeInput = datetime | date | str
Clock = Callable[[], datetime]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_PARTIAL = re.compile(r"^\s*(\d{4})(?:-(\d{2}))?\s*$")
MIN_YEAR, MAX_YEAR = 1, 9999


@dataclass(frozen=True, slots=True)
class Instant:
    """A point in time with the precision it was given at."""

    at: datetime
    precision: Precision


def utc_now() -> datetime:
    """The default clock: the current time in UTC."""
    return datetime.now(UTC)


def parse_time(value: TimeInput, *, what: str = "time") -> Instant:
    """Parse a date, aware datetime or ISO string (also "2026" and "2026-04") into an Instant.

    Raises:
        InvalidTime: the value is naive, malformed or out of range; the message says what to pass.
    """
    if isinstance(value, datetime):
        return Instant(require_aware(value, what=what), "second")
    if isinstance(value, date):
        return Instant(datetime(value.year, value.month, value.day, tzinfo=UTC), "day")
    if not isinstance(value, str):
        raise InvalidTime(
            f"{what} must be a date, an aware datetime or an ISO string like '2026-04-15', "
            f"not {type(value).__name__}"
        )
    return _parse_text(value, what)


@lru_cache(maxsize=8192)
def _parse_text(value: str, what: str) -> Instant:
    text = value.strip()
    partial = _PARTIAL.match(text)
    if partial:
        year, month = int(partial.group(1)), partial.group(2)
        if month is None:
            return Instant(_checked(what, value, year, 1, 1), "year")
        return Instant(_checked(what, value, year, int(month), 1), "month")
    if "\x00" in text:
        raise InvalidTime(f"{what} {value[:40]!r} contains a NUL byte; pass an ISO date such as '2026-04-15'")
    if len(text) > 64:
        raise InvalidTime(f"{what} {value[:40]!r}… ({len(value)} characters) is not an ISO date or datetime; "
                          f"use e.g. '2026-04-15' or '2026-04-15T09:30:00Z'")
    try:
        if len(text) == 10:
            parsed_date = date.fromisoformat(text)
            return Instant(datetime(parsed_date.year, parsed_date.month, parsed_date.day, tzinfo=UTC), "day")
        parsed = datetime.fromisoformat(text.replace("z", "Z"))
    except ValueError as exc:
        reason = _reason(text, exc)
        raise InvalidTime(
            f"{what} {value!r} is not an ISO date or datetime{reason}; use e.g. '2026', '2026-04', "
            f"'2026-04-15' or '2026-04-15T09:30:00Z' (years 1 to 9999)"
        ) from exc
    return Instant(require_aware(parsed, what=what), "second")


_ISO_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})")


def _reason(text: str, error: ValueError) -> str:
    """What is wrong with a date-shaped string, when Python's parser can tell ("day is out of range
    for month", "year 0 is out of range"); empty for text that is no date at all."""
    shaped = _ISO_DATE.match(text)
    if shaped is None:
        return ""
    year, month, day = (int(part) for part in shaped.groups())
    try:
        datetime(year, month, day)
    except ValueError as exc:
        return f" ({exc})"
    return f" ({error})" if "Invalid isoformat" not in str(error) else ""


def _checked(what: str, raw: str, year: int, month: int, day: int) -> datetime:
    try:
        return datetime(year, month, day, tzinfo=UTC)
    except ValueError as exc:
        raise InvalidTime(f"{what} {raw!r} is out of range: {exc}") from exc


def require_aware(value: datetime, *, what: str = "time") -> datetime:
    """Return ``value`` in UTC, refusing naive datetimes."""
    if value.tzinfo is None or value.utcoffset() is None:
        raise InvalidTime(
            f"{what} {value.isoformat()} has no time zone; pass an aware datetime "
            f"(e.g. datetime(..., tzinfo=UTC)) or an ISO string ending in 'Z' or '+00:00'"
        )
    try:
        return value.astimezone(UTC)
    except OverflowError as exc:
        raise InvalidTime(
            f"{what} {value.isoformat()} is out of range: in UTC it falls outside the years 1 to 9999"
        ) from exc


def optional_time(value: TimeInput | None, *, what: str) -> Instant | None:
    """``parse_time`` that passes None through."""
    return None if value is None else parse_time(value, what=what)


def check_interval(start: datetime | None, end: datetime | None, *, what: str = "valid") -> None:
    """Refuse an empty or reversed closed-open interval ``[start, end)``."""
    if start is not None and end is not None and end <= start:
        raise InvalidTime(
            f"{what}_until {end.isoformat()} must be later than {what}_from {start.isoformat()} "
            f"(intervals are closed-open: [from, until))"
        )


def contains(start: datetime | None, end: datetime | None, at: datetime) -> bool:
    """Whether ``at`` lies in ``[start, end)``; None bounds are open."""
    return (start is None or start <= at) and (end is None or at < end)


#: Precisions coarse enough that a bound stands for a window of possible instants: "from 1994"
#: began sometime in 1994. A month bound ("from 2026-07") is taken, like a day, as its first
#: instant: that is how such dates are written for a bill or a lease.
WINDOWED: frozenset[str] = frozenset({"year"})


def shift(at: datetime, precision: str | None, steps: int) -> datetime:
    """``at`` moved by ``steps`` years or months (for a windowed precision; else unchanged)."""
    if precision == "year":
        return at.replace(year=min(max(at.year + steps, MIN_YEAR), MAX_YEAR))
    if precision == "month":
        months = at.year * 12 + at.month - 1 + steps
        year, month = divmod(months, 12)
        if not MIN_YEAR <= year <= MAX_YEAR:
            return at
        return at.replace(year=year, month=month + 1, day=min(at.day, 28))
    return at


Window = tuple[datetime, datetime]


def start_window(start: datetime | None, precision: str | None) -> Window | None:
    """The instants a start known only to the year may be: [start, start + 1 year); None if exact."""
    return (start, shift(start, precision, 1)) if start is not None and precision in WINDOWED else None


def end_window(end: datetime | None, precision: str | None) -> Window | None:
    """The instants an end known only to the year may be: [end - 1 year, end); None if exact."""
    return (shift(end, precision, -1), end) if end is not None and precision in WINDOWED else None


def in_window(at: datetime, start: datetime | None, end: datetime | None, start_precision: str | None,
              end_precision: str | None) -> bool:
    """Whether ``at`` lies inside the window of possible instants of a windowed bound."""
    return any(window is not None and window[0] <= at < window[1]
               for window in (start_window(start, start_precision), end_window(end, end_precision)))


def overlaps(
    a_start: datetime | None, a_end: datetime | None, b_start: datetime | None, b_end: datetime | None
) -> bool:
    """Whether two closed-open intervals share an instant; adjacent intervals do not."""
    if a_start is not None and a_end is not None and a_end <= a_start:
        return False
    if b_start is not None and b_end is not None and b_end <= b_start:
        return False
    return (a_end is None or b_start is None or b_start < a_end) and (
        b_end is None or a_start is None or a_start < b_end
    )


def to_micros(value: datetime) -> int:
    """Microseconds since the Unix epoch for an aware datetime."""
    delta = value - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def from_micros(value: int) -> datetime:
    """The aware UTC datetime for microseconds since the epoch."""
    return _EPOCH + timedelta(microseconds=value)


class LedgerClock:
    """Wraps the caller's clock: readings must be aware and never run backwards."""

    def __init__(self, clock: Clock | None) -> None:
        if clock is not None and not callable(clock):
            raise InvalidInput(
                f"clock must be a zero-argument callable returning an aware datetime, not a "
                f"{type(clock).__name__}; for a fixed time pass lambda: that_time"
            )
        self._clock = clock or utc_now
        self._written: datetime | None = None  # the latest reading a write of this ledger used

    def seen(self, written: datetime | None) -> None:
        """Note a write found in the database (its last write when it is opened): later readings,
        for reads too, must not be earlier."""
        if written is not None and (self._written is None or written > self._written):
            self._written = written

    def read(self, *, not_before: datetime | None, for_write: bool = False) -> datetime:
        """Read the clock, refusing a time earlier than ``not_before`` (the database's last write)
        or than the last write made through this clock: a read at such a "now" would answer
        about a moment the ledger has already moved past."""
        try:
            now = self._clock()
        except Exception as error:  # the caller's code: say where it failed
            raise ClockError(f"the clock failed: {type(error).__name__}: {error}") from error
        if not isinstance(now, datetime):
            raise ClockError(f"the clock returned {type(now).__name__}; it must return an aware datetime")
        if now.tzinfo is None or now.utcoffset() is None:
            raise ClockError("the clock returned a naive datetime; it must return an aware (UTC) datetime")
        now = now.astimezone(UTC)
        if self._written is not None and (not_before is None or not_before < self._written):
            not_before = self._written
        if not_before is not None and now < not_before:
            raise ClockError(
                f"the clock reads {now.isoformat()}, earlier than the ledger's last write at "
                f"{not_before.isoformat()}; system time never runs backwards within one database"
            )
        if for_write:
            self._written = now
        return now


def is_finite_number(value: float) -> bool:
    """True for a real, finite float."""
    return not (math.isnan(value) or math.isinf(value))

