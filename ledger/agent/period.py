"""Time expressions in a question ("in April", "in March 2026", "in 2025", "2026-04") as a period (pure).

Only these simple forms are read; anything else is left to the caller's ``valid_at``. A month
without a year is the latest such month that has begun by the ledger clock's now.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import NamedTuple

MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
_MONTH_NAMES = {name: number for number, name in enumerate(MONTHS, 1)} | {
    name[:3]: number for number, name in enumerate(MONTHS, 1)} | {"sept": 9}
_MONTH = "|".join(sorted(_MONTH_NAMES, key=len, reverse=True))
# "in April", "in April 2026", "during Apr. 2026", "April 2026", "2026-04", "in 2025"
_MONTH_PHRASE = re.compile(rf"\b(?:(?:in|during|for)\s+)?({_MONTH})\.?(?:\s+(?:of\s+)?((?:19|20)\d\d))?\b", re.I)
_ISO_MONTH = re.compile(r"\b((?:19|20)\d\d)-(0[1-9]|1[0-2])\b(?!-\d)")
_YEAR_PHRASE = re.compile(r"\b(?:in|during|for)\s+((?:19|20)\d\d)\b", re.I)


class Period(NamedTuple):
    """A half-open period of world time a question asks about, and the words that named it."""

    start: datetime
    end: datetime
    words: str


def period_in(question: str, now: datetime) -> Period | None:
    """The period a simple time expression in ``question`` names, or None."""
    if match := _ISO_MONTH.search(question):
        return _month(int(match.group(1)), int(match.group(2)), match.group(0))
    for match in _MONTH_PHRASE.finditer(question):
        name = match.group(1).casefold()
        if name == "may" and match.group(2) is None and not match.group(0).casefold().startswith(("in", "during")):
            continue  # "may" alone is the verb more often than the month
        month = _MONTH_NAMES[name]
        year = int(match.group(2)) if match.group(2) else (now.year if month <= now.month else now.year - 1)
        return _month(year, month, match.group(0))
    if match := _YEAR_PHRASE.search(question):
        year = int(match.group(1))
        return Period(datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC), match.group(0))
    return None


def _month(year: int, month: int, words: str) -> Period:
    start = datetime(year, month, 1, tzinfo=UTC)
    end = datetime(year + month // 12, month % 12 + 1, 1, tzinfo=UTC)
    return Period(start, end, words)


def without_period(question: str, period: Period | None) -> str:
    """The question with the words that named its period taken out (they are not searched for)."""
    return question if period is None else question.replace(period.words, " ", 1)
