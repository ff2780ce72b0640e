"""Where recall finds its candidates: claims whose words hold the question's terms, and name
suggestions for terms the ledger does not know."""

from __future__ import annotations

from sqlalchemy import Connection

from ledger.store import agent_rows

#: How many candidate claims one term may bring at most.
PER_TERM = 200


def candidate_claims(connection: Connection, terms: list[str], scope: str) -> list[int]:
    """Ids of claims in ``scope`` matching any of ``terms`` (by names, predicate, value or excerpts)."""
    found: dict[int, None] = {}
    for term in terms:
        for claim_id in agent_rows.claims_containing(connection, term, scope, PER_TERM):
            found.setdefault(claim_id, None)
    return list(found)


def suggestions(connection: Connection, terms: list[str], scope: str) -> tuple[str, ...]:
    """Names of entities or predicates in ``scope`` the terms may have meant."""
    return ()
