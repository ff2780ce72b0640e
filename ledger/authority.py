"""Authority between actors: in a scope with grants, a retraction or supersession by an actor who
is neither the claim's asserter nor an owner or reviewer becomes a challenge, and the claim keeps
its status until an owner or reviewer accepts or rejects it. Scopes without grants are unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from sqlalchemy import Connection

from ledger import store
from ledger.claims import status as lifecycle
from ledger.errors import Conflict, InvalidInput, PolicyViolation
from ledger.store import authority_rows as rows

Role = Literal["owner", "reviewer"]
ROLES: tuple[Role, ...] = ("owner", "reviewer")
_DECIDING = frozenset(ROLES)


@dataclass(frozen=True, slots=True)
class Challenge:
    """A change to a claim asked for without authority, waiting (``outcome`` None) or resolved."""

    id: int
    scope: str
    claim_id: int
    status: str  #: the status asked for: "retracted" or "superseded"
    superseded_by: int | None
    reason: str | None
    actor: str | None
    recorded_at: datetime
    resolved_at: datetime | None = None
    resolved_by: str | None = None
    outcome: str | None = None  #: "accepted", "rejected" or None while it waits


def may_change(actor: str | None, asserted_by: str | None, grants: Mapping[str, Set[str]]) -> bool:
    """Whether ``actor`` may retract or supersede a claim ``asserted_by`` someone in a scope with ``grants`` (pure)."""
    if not grants:
        return True  # an unprotected scope: today's behaviour
    if actor is None:
        return False
    return actor == asserted_by or bool(grants.get(actor, set()) & _DECIDING)


def check_role(role: object) -> Role:
    """``role`` if it is a known role, else InvalidInput."""
    if role not in ROLES:
        raise InvalidInput(f"role must be one of {', '.join(ROLES)}; got {role!r:.40}")
    return role


def apply_or_challenge(connection: Connection, change: lifecycle.StatusChange, *, now: datetime,
                       ids: store.Ids) -> int:
    """Carry out a lifecycle call, unless it is a retraction or supersession without authority in a
    protected scope: then record a challenge and leave the claim as it is. The claim's id."""
    if change.status in ("retracted", "superseded"):
        asserted_by, scope = rows.asserter(connection, change.claim_id)
        grants = rows.scope_grants(connection, scope)
        if not may_change(change.actor, asserted_by, grants):
            rows.insert_challenge(connection, ids, {
                "scope": scope, "claim_id": change.claim_id, "status": change.status,
                "superseded_by": change.superseded_by, "reason": change.reason, "actor": change.actor}, now)
            return change.claim_id
    return lifecycle.apply(connection, change, now=now, ids=ids)


def resolve(connection: Connection, ids: store.Ids, now: datetime, challenge_id: int, *, accept: bool,
            actor: str | None, reason: str | None) -> Challenge:
    """Accept (the change is made, by ``actor``) or reject a waiting challenge; only an owner or reviewer may."""
    row = rows.challenge_row(connection, challenge_id)
    if row["outcome"] is not None:
        raise Conflict(f"challenge {challenge_id} was {row['outcome']} already")
    grants = rows.scope_grants(connection, row["scope"])
    if actor is None or not grants.get(actor, set()) & _DECIDING:
        raise PolicyViolation(f"only an owner or reviewer of scope {row['scope']!r} resolves challenges; "
                              f"{actor!r} is neither", rule="authority:resolve", field="actor", span=(0, 0))
    if accept:
        said = f"accepted challenge {challenge_id} by {row['actor'] or 'an anonymous actor'}: " \
               f"{reason or row['reason'] or 'no reason given'}"
        lifecycle.apply(connection, lifecycle.StatusChange(
            claim_id=row["claim_id"], status=row["status"], reason=said, actor=actor,
            superseded_by=row["superseded_by"]), now=now, ids=ids)
    rows.resolve_challenge(connection, challenge_id, outcome="accepted" if accept else "rejected", actor=actor,
                           now=now)
    return challenge(rows.challenge_row(connection, challenge_id))


def challenge(row: Mapping[str, object]) -> Challenge:
    """A challenge record from its row."""
    return Challenge(**{name: row[name] for name in Challenge.__slots__})  # type: ignore[arg-type]
