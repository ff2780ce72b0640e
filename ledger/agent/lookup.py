"""Where recall finds its candidates: ``search`` hits on the question's words (entity names,
claims, evidence excerpts) turned into claims; and ``suggest`` for words the ledger does not know."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from sqlalchemy import Connection

from ledger import search as searching
from ledger.store import agent_rows

#: How many search hits one question reads, and how many claims an entity hit brings at most.
HITS = 40
CLAIMS_PER_ENTITY = 50
#: How many name suggestions a "nothing recorded" answer offers at most.
SUGGESTIONS = 3
_KINDS: tuple[searching.HitKind, ...] = ("entity", "claim", "evidence")


def candidate_claims(connection: Connection, terms: Sequence[str], scope: str, *, at: Sequence[datetime],
                     known_at: datetime) -> list[int]:
    """Ids of claims in ``scope`` matching ``terms`` (all of them, else any), as held at ``known_at``
    and valid at one of the times ``at``: named by a hit on their subject or object, hit themselves,
    or by an excerpt."""
    if not terms:
        return []
    found: dict[int, None] = {}
    entities: dict[int, None] = {}
    # Every word first (the cheaper, sharper query); any word only when that finds nothing.
    for match in ("all", "any") if len(terms) > 1 else ("all",):
        for valid in at:
            for hit in searching.search(connection, " ".join(terms), scope=scope, kinds=_KINDS, valid_at=valid,
                                        known_at=known_at, limit=HITS, match=match):
                if hit.kind == "entity":
                    entities.setdefault(hit.id, None)
                elif hit.claim_id is not None:
                    found.setdefault(hit.claim_id, None)
        if found or entities:
            break
    for claim_id in agent_rows.claims_about(connection, list(entities), scope, CLAIMS_PER_ENTITY * len(entities)):
        found.setdefault(claim_id, None)
    return list(found)


def times_to_search(valid_at: datetime, period: tuple[datetime, datetime] | None) -> list[datetime]:
    """The valid times a question's candidates are searched at: the time asked, or a period's
    first and last instants and its middle."""
    if period is None:
        return [valid_at]
    start, end = period
    return [start, start + (end - start) / 2, end - timedelta(microseconds=1)]


def suggestions(connection: Connection, terms: Sequence[str], scope: str) -> tuple[str, ...]:
    """Known entity and predicate names the words may have meant, likeliest first (the whole
    phrase, then each word of four or more letters)."""
    phrases = [" ".join(terms)] + [t for t in terms if len(t) >= 4 and len(terms) > 1]
    scored: dict[str, float] = {}
    for phrase in phrases:
        if not phrase:
            continue
        for suggestion in searching.suggest(connection, phrase, scope=scope, limit=SUGGESTIONS):
            scored[suggestion.name] = max(scored.get(suggestion.name, 0.0), suggestion.score)
    return tuple(sorted(scored, key=lambda name: (-scored[name], name))[:SUGGESTIONS])
