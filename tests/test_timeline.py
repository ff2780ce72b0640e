"""Time parsing, precision and half-open intervals."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.errors import ClockError, InvalidTime
from ledger.timeline import LedgerClock, contains, from_micros, overlaps, parse_time, to_micros


@pytest.mark.parametrize(("text", "expected", "precision"), [
    ("2026", datetime(2026, 1, 1, tzinfo=UTC), "year"),
    ("2026-04", datetime(2026, 4, 1, tzinfo=UTC), "month"),
    ("2026-04-15", datetime(2026, 4, 15, tzinfo=UTC), "day"),
    ("2026-04-15T09:30:00Z", datetime(2026, 4, 15, 9, 30, tzinfo=UTC), "second"),
    ("2026-04-15T11:30:00+02:00", datetime(2026, 4, 15, 9, 30, tzinfo=UTC), "second"),
])
def test_inputs_parse_with_their_precision(text: str, expected: datetime, precision: str) -> None:
    instant = parse_time(text)
    assert (instant.at, instant.precision) == (expected, precision)


def test_dates_and_aware_datetimes_are_accepted_naive_ones_refused() -> None:
    assert parse_time(date(2026, 1, 2)).precision == "day"
    assert parse_time(datetime(2026, 1, 2, tzinfo=timezone(timedelta(hours=5)))).at.tzinfo == UTC
    with pytest.raises(InvalidTime, match="no time zone"):
        parse_time(datetime(2026, 1, 2))
    with pytest.raises(InvalidTime, match="no time zone"):
        parse_time("2026-01-02T10:00:00")


@pytest.mark.parametrize("bad", ["", "yesterday", "2026-02-30", "2026-13", "0000", "20260101T", "2026-01-01\x00", "9" * 500])
def test_malformed_times_say_what_to_pass(bad: str) -> None:
    with pytest.raises(InvalidTime):
        parse_time(bad)


def test_adjacent_intervals_do_not_overlap() -> None:
    mar, jul, sep = (datetime(2026, m, 1, tzinfo=UTC) for m in (3, 7, 9))
    assert not overlaps(mar, jul, jul, None)
    assert overlaps(mar, None, jul, sep)
    assert contains(jul, None, jul) and not contains(mar, jul, jul)
    assert not overlaps(jul, jul, None, None)  # the empty interval holds at no time


aware = st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30), timezones=st.just(UTC))


@given(aware)
def test_microsecond_storage_round_trips(value: datetime) -> None:
    assert from_micros(to_micros(value)) == value


@given(aware, aware, aware, aware)
def test_overlap_is_symmetric(a: datetime, b: datetime, c: datetime, d: datetime) -> None:
    assert overlaps(a, b, c, d) == overlaps(c, d, a, b)


def test_clock_refuses_to_run_backwards_or_naive() -> None:
    last = datetime(2026, 5, 1, tzinfo=UTC)
    with pytest.raises(ClockError, match="backwards"):
        LedgerClock(lambda: datetime(2026, 4, 1, tzinfo=UTC)).read(not_before=last)
    with pytest.raises(ClockError, match="naive"):
        LedgerClock(lambda: datetime(2026, 6, 1)).read(not_before=last)
    assert LedgerClock(lambda: last).read(not_before=last) == last
