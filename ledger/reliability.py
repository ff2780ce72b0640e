"""Source reliability: a rating per source and per publisher (0 to 1), settable, with a default
ladder, feeding the confidence of claims asserted without one (``claims.rules.default_confidence``).

A source's own rating wins over its publisher's; an unrated source keeps the trust defaults
(0.6 trusted, 0.2 untrusted).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import Connection

from ledger.errors import InvalidInput
from ledger.store.authority_rows import ratings

#: the default ladder: names ``Ledger.rate`` takes for a rating
LADDER: Mapping[str, float] = {
    "primary": 0.9,  # a primary record: the registry, the statute, the filing, the dataset itself
    "record": 0.75,  # a newspaper of record, an encyclopedia with editorial review
    "blog": 0.45,  # a blog, a press release, a forum answer
    "anonymous": 0.25,  # no author, no publisher, no way to ask
}


def check_rating(rating: object) -> float:
    """A ladder name or a number from 0 to 1, as a number; InvalidInput otherwise."""
    if isinstance(rating, str):
        if rating not in LADDER:
            raise InvalidInput(f"reliability must be a number from 0 to 1 or one of {', '.join(LADDER)}; "
                               f"got {rating!r:.40}")
        return LADDER[rating]
    if isinstance(rating, bool) or not isinstance(rating, (int, float)) or not 0.0 <= rating <= 1.0:
        raise InvalidInput(f"reliability must be a number from 0 to 1 or one of {', '.join(LADDER)}; "
                           f"got {rating!r:.40}")
    return float(rating)


def rated_facts(connection: Connection, facts: dict[int, Mapping[Any, Any]]) -> dict[int, Mapping[Any, Any]]:
    """``facts`` with each rated source's ``reliability`` (its own rating, else its publisher's)."""
    by_source, by_publisher = ratings(connection, {row["scope"] for row in facts.values()})
    if not by_source and not by_publisher:
        return facts  # the common case: nothing rated
    rated: dict[int, Mapping[Any, Any]] = {}
    for source_id, row in facts.items():
        rating = by_source.get(source_id, by_publisher.get((row["scope"], row["publisher"] or "")))
        rated[source_id] = row if rating is None else {**row, "reliability": rating}
    return rated


def source_reliability(connection: Connection, source: Mapping[str, Any]) -> float | None:
    """The rating that holds for a stored source (its own, else its publisher's), or None."""
    by_source, by_publisher = ratings(connection, [source["scope"]])
    return by_source.get(source["id"], by_publisher.get((source["scope"], source["publisher"] or "")))
