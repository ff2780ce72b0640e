"""Quarantine and promotion: what untrusted sources and sessions wrote waits in ``quarantine:<scope>``
until someone promotes it into the trusted scope, passing the trusted scope's write policy."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Connection

from ledger import reads, sources, store, views
from ledger.claims import status as lifecycle
from ledger.claims.draft import ClaimDraft
from ledger.claims.values import decode_value
from ledger.claims.write import write_claims
from ledger.errors import InvalidInput
from ledger.ingest.base import PassageDraft, SourceDraft
from ledger.records import Citation, Claim, ClaimId, SourceId
from ledger.store.safety_rows import claim_identity

PREFIX = "quarantine:"


def trusted_scope(scope: str) -> str:
    """The scope a quarantine scope is the quarantine of; InvalidInput for a scope that is none."""
    if not scope.startswith(PREFIX):
        raise InvalidInput(f"scope {scope!r} is not a quarantine; only claims in 'quarantine:<scope>' are promoted")
    return scope[len(PREFIX):]


def promote(connection: Connection, ids: store.Ids, now: datetime, claim_id: int, *, reason: str,
            actor: str | None) -> ClaimId:
    """Copy a quarantined claim, its sources and its evidence into the trusted scope (passing its
    write policy), and retract the quarantined one with who and why; the new claim's id."""
    identity = claim_identity(connection, claim_id)
    target = trusted_scope(identity["scope"])
    current = store.current_version(connection, claim_id)
    if current["status"] == "retracted":
        raise InvalidInput(f"claim {claim_id} is retracted; there is nothing to promote")
    citations = []
    for row in store.current_evidence(connection, claim_id):
        copied = _trusted_copy(connection, ids, now, row["source_id"], target, actor)
        citations.append(Citation(source_id=SourceId(copied), scope=target, relation=row["relation"],
                                  excerpt=row["excerpt"], char_start=row["char_start"], char_end=row["char_end"],
                                  locator=dict(row["locator"]), page=row["page"]))
    subject = store.entity_row(connection, identity["subject_id"])["name"]
    obj = store.entity_row(connection, identity["object_id"])["name"] if identity["object_id"] is not None else None
    qualifiers = decode_value(identity["qualifiers"], "json") if identity["qualifiers"] != "{}" else None
    draft = ClaimDraft(
        subject=subject, predicate=identity["predicate"], object=obj,
        value=None if obj is not None else decode_value(identity["value"], identity["datatype"]),
        valid_from=current["valid_from"], valid_until=current["valid_until"], evidence=citations,
        qualifiers=qualifiers, actor=actor, scope=target)
    (promoted,) = write_claims(connection, [draft], now=now, ids=ids)
    change = lifecycle.retraction(claim_id, reason=f"promoted to {target} as claim {promoted}: {reason}", actor=actor)
    lifecycle.apply(connection, change, now=now, ids=ids)
    return promoted


def _trusted_copy(connection: Connection, ids: store.Ids, now: datetime, source_id: int, target: str,
                  actor: str | None) -> int:
    """The source stored again in ``target`` as trusted (same text and passages; idempotent)."""
    row = store.source_row(connection, source_id)
    meta = {k: v for k, v in (row["meta"] or {}).items() if isinstance(v, str)}
    draft = SourceDraft(
        kind=row["kind"], text=row["text"], content_hash=row["content_hash"],
        passages=tuple(PassageDraft(p["char_start"], p["char_end"], p["page"],
                                    tuple(p["bbox"]) if p["bbox"] else None, p["paragraph"])
                       for p in store.source_passages(connection, source_id)),
        uri=row["uri"], title=row["title"], author=row["author"], publisher=row["publisher"],
        published_at=row["published_at"], retrieved_at=row["retrieved_at"], metadata=meta)
    return sources.store_draft(connection, ids, draft, scope=target, trust="trusted", now=now, actor=actor).id


def report(connection: Connection, scope: str, now: datetime) -> list[Claim]:
    """The claims waiting in ``quarantine:<scope>``: held now, in any status but retracted."""
    query = views.versions_query(scope=PREFIX + scope, subject=None, predicate=None)
    waiting = [c for c in reads.find_claims(connection, query, now=now)
               if c.status != "retracted" and c.invalidated_at is None]
    return waiting
