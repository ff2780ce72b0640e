"""Resolving a contradiction: the side kept is confirmed, the others superseded by it or
retracted, all as new versions through the lifecycle calls, in one transaction; ``resolves``
links record who resolved it, why and when. Nothing is deleted."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Literal

from sqlalchemy import Connection

from ledger import queries, store
from ledger.claims.batch import Batch, flush, link
from ledger.claims.status import change_status, check_supersession
from ledger.contradictions import Contradiction, Resolution, assemble, held_by_ids, parse_id
from ledger.errors import Conflict, InvalidInput, NotFound
from ledger.records import ClaimId

#: What becomes of the sides not kept: superseded by the kept claim (as a whole: they held at no
#: time), or retracted (withdrawn: never to be believed).
Others = Literal["superseded", "retracted"]
OTHERS: tuple[Others, ...] = ("superseded", "retracted")


def check_others(others: object) -> Others:
    """The ``others=`` argument of resolve_contradiction, checked."""
    if others not in OTHERS:
        raise InvalidInput(f"others must be 'superseded' or 'retracted'; got {others!r}")
    return others


def open_contradiction(connection: Connection, contradiction_id: str, at: datetime) -> Contradiction:
    """The contradiction ``contradiction_id`` names, open at ``at``; NotFound for claims that do not
    exist, Conflict when it is no longer open (resolved, or its sides changed)."""
    _, claim_ids = parse_id(contradiction_id)
    scope = store.claim_scope(connection, claim_ids[0])
    if scope is None:
        raise NotFound(f"contradiction {contradiction_id} names claim {claim_ids[0]}, which does not exist")
    held = held_by_ids(connection, scope, claim_ids, at)
    missing = sorted(set(claim_ids) - {h.claim_id for h in held})
    if missing:
        raise NotFound(f"contradiction {contradiction_id} names claim(s) {missing} that do not exist in scope "
                       f"{scope!r}")
    disputed = [h for h in held if h.status == "disputed"]
    found = next((c for c in assemble(connection, scope, disputed, known_at=at, valid_at=None)
                  if c.id == contradiction_id), None)
    if found is not None:
        return found
    for row in queries.run(connection, "contradiction_resolutions", scope=scope, known_at=at).mappings():
        if row["from_claim_id"] in claim_ids and row["to_claim_id"] in claim_ids:
            by = f" by {row['actor']}" if row["actor"] else ""
            raise Conflict(f"contradiction {contradiction_id} was resolved already at "
                           f"{row['recorded_at'].isoformat()}{by} (kept claim {row['from_claim_id']}): "
                           f"{row['reason']}")
    raise Conflict(f"contradiction {contradiction_id} is not open: its sides changed since it was listed "
                   "(settled, superseded, retracted, or joined by another claim); list contradictions() again")


def resolve(connection: Connection, ids: store.Ids, now: datetime, *, contradiction_id: str, keep: int,
            reason: str, actor: str | None, others: Others) -> Contradiction:
    """Resolve an open contradiction in favour of ``keep``; the contradiction as it stood, with its
    resolution."""
    found = open_contradiction(connection, contradiction_id, now)
    if keep not in found.claim_ids:
        raise InvalidInput(f"keep= must be one of the sides of {contradiction_id} (claims "
                           f"{', '.join(map(str, found.claim_ids))}); got claim {keep}")
    losers = [i for i in found.claim_ids if i != keep]
    for other in losers:
        if others == "superseded":
            check_supersession(connection, other, keep)
            change_status(connection, other, status="superseded", now=now, ids=ids, reason=reason, actor=actor,
                          superseded_by=keep)
        else:
            change_status(connection, other, status="retracted", now=now, ids=ids, reason=reason, actor=actor)
    change_status(connection, keep, status="confirmed", now=now, ids=ids, reason=reason, actor=actor)
    links = [link("resolves", keep, other, found.scope, actor, reason) for other in (losers or [ClaimId(keep)])]
    flush(connection, Batch(links=links), ids, now)
    settled = tuple(ClaimId(i) for i in losers)
    return replace(found, resolution=Resolution(
        kept=ClaimId(keep), superseded=settled if others == "superseded" else (),
        retracted=settled if others == "retracted" else (), reason=reason, actor=actor, resolved_at=now))
