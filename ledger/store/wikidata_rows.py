"""What the Wikidata import reads back: the statements earlier revisions of an entity gave claims."""

from __future__ import annotations

from sqlalchemy import Connection, and_, bindparam, select

from ledger.store.driver import claims, evidence, sources, versions

_CITED_FROM = (
    select(evidence.c.claim_id, evidence.c.excerpt, versions.c.status)
    .join(sources, sources.c.id == evidence.c.source_id)
    .join(versions, and_(versions.c.claim_id == evidence.c.claim_id, versions.c.invalidated_at.is_(None)))
    .where(sources.c.scope == bindparam("scope"), sources.c.uri == bindparam("uri"))
)
_IN_USE = select(claims.c.id).where(claims.c.scope == bindparam("scope"), claims.c.predicate == bindparam("name")) \
    .limit(1)


def statements_of(connection: Connection, scope: str, uri: str) -> dict[str, dict[int, tuple[str, str]]]:
    """statement id → {claim: (the statement's line it cites, its current status)} for claims
    citing any revision of the source at ``uri`` (the import writes "<statement id>: ..." lines)."""
    found: dict[str, dict[int, tuple[str, str]]] = {}
    for claim_id, excerpt, status in connection.execute(_CITED_FROM, {"scope": scope, "uri": uri}):
        if excerpt.startswith("reference of ") or ": " not in excerpt:
            continue
        found.setdefault(excerpt.split(": ", 1)[0], {})[claim_id] = (excerpt, status)
    return found


def predicate_in_use(connection: Connection, scope: str, name: str) -> bool:
    """Whether claims of ``scope`` are stored under predicate ``name``."""
    return connection.execute(_IN_USE, {"scope": scope, "name": name}).first() is not None
