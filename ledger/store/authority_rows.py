"""Grants (who holds which role in a scope) and challenges (changes waiting for someone with authority)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, select, update

from ledger.errors import NotFound
from ledger.store.driver import Ids, challenges, claims, grants, insert_rows, one_of, reliability

_GRANTS = select(grants.c.actor, grants.c.role).where(grants.c.scope == bindparam("scope"))
_ASSERTER = select(claims.c.actor, claims.c.scope).where(claims.c.id == bindparam("id"))
_CHALLENGE = select(challenges).where(challenges.c.id == bindparam("id"))
_CHALLENGES = select(challenges).where(challenges.c.scope == bindparam("scope")).order_by(challenges.c.id)


def scope_grants(connection: Connection, scope: str) -> dict[str, set[str]]:
    """The roles each actor holds in ``scope`` (empty: the scope is not protected)."""
    found: dict[str, set[str]] = {}
    for actor, role in connection.execute(_GRANTS, {"scope": scope}):
        found.setdefault(actor, set()).add(role)
    return found


def insert_grant(connection: Connection, ids: Ids, *, scope: str, actor: str, role: str, granted_by: str | None,
                 now: datetime) -> None:
    """Give ``actor`` ``role`` in ``scope``."""
    insert_rows(connection, grants, [{"id": ids.take(grants), "scope": scope, "actor": actor, "role": role,
                                      "granted_by": granted_by, "recorded_at": now}])


def asserter(connection: Connection, claim_id: int) -> tuple[str | None, str]:
    """(the actor who asserted a claim, its scope), or NotFound."""
    row = connection.execute(_ASSERTER, {"id": claim_id}).first()
    if row is None:
        raise NotFound(f"claim {claim_id} does not exist")
    return row[0], row[1]


def insert_challenge(connection: Connection, ids: Ids, row: Mapping[str, Any], now: datetime) -> int:
    """Record a challenge; its id."""
    challenge_id = ids.take(challenges)
    insert_rows(connection, challenges, [{"id": challenge_id, **row, "recorded_at": now, "resolved_at": None,
                                          "resolved_by": None, "outcome": None}])
    return challenge_id


def challenge_row(connection: Connection, challenge_id: int) -> Mapping[Any, Any]:
    """One challenge, or NotFound."""
    row = connection.execute(_CHALLENGE, {"id": challenge_id}).mappings().first()
    if row is None:
        raise NotFound(f"challenge {challenge_id} does not exist")
    return row


def challenge_rows(connection: Connection, scope: str) -> list[Mapping[Any, Any]]:
    """The challenges of a scope, oldest first."""
    return list(connection.execute(_CHALLENGES, {"scope": scope}).mappings())


def resolve_challenge(connection: Connection, challenge_id: int, *, outcome: str, actor: str | None,
                      now: datetime) -> None:
    """Close a challenge with its outcome."""
    connection.execute(update(challenges).where(challenges.c.id == challenge_id).values(
        resolved_at=now, resolved_by=actor, outcome=outcome))


# ------------------------------------------------------------------------------ source reliability

_RATINGS = (
    select(reliability.c.scope, reliability.c.source_id, reliability.c.publisher, reliability.c.rating)
    .where(one_of(reliability.c.scope, "scopes")).order_by(reliability.c.id)
)


def insert_rating(connection: Connection, ids: Ids, *, scope: str, source_id: int | None, publisher: str | None,
                  rating: float, actor: str | None, now: datetime) -> None:
    """Rate a source or a publisher in ``scope``."""
    insert_rows(connection, reliability, [{"id": ids.take(reliability), "scope": scope, "source_id": source_id,
                                           "publisher": publisher, "rating": rating, "actor": actor,
                                           "recorded_at": now}])


def ratings(connection: Connection, scopes: Iterable[str]) -> tuple[dict[int, float], dict[tuple[str, str], float]]:
    """The newest ratings of the scopes: by source id, and by (scope, publisher)."""
    by_source: dict[int, float] = {}
    by_publisher: dict[tuple[str, str], float] = {}
    wanted = sorted(set(scopes))
    if wanted:
        for scope, source_id, publisher, rating in connection.execute(_RATINGS, {"scopes": wanted}):
            if source_id is not None:
                by_source[source_id] = rating
            elif publisher is not None:
                by_publisher[(scope, publisher)] = rating
    return by_source, by_publisher
