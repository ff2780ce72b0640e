"""The write path for claims: load what the rules need, let ``rules.decide`` decide each draft,
and write every row of a batch in one transaction (load → decide → write).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Connection

from ledger import store
from ledger.claims.batch import (
    Batch,
    Live,
    change,
    change_interval,
    corroborate,
    create,
    flush,
)
from ledger.claims.batch import link as link_row
from ledger.claims.draft import ClaimDraft, Prepared, prepare
from ledger.claims.load import (
    CLAIM_KEY,
    check_citations,
    load_standing,
    resolve_entities,
)
from ledger.claims.provenance import document
from ledger.claims.rules import (
    Change,
    Decision,
    Incoming,
    decide,
    functional,
    promoted,
    settled_status,
)
from ledger.claims.values import NUMBER_TYPES
from ledger.claims.vocabulary import definitions as predicate_definitions
from ledger.claims.vocabulary import resolve_names
from ledger.errors import InvalidInput, NotFound
from ledger.records import Cause, Citation, ClaimId, EffectKind
from ledger.reliability import rated_facts
from ledger.timeline import Instant, Precision, overlaps

UNCONTESTED = Decision()

def write_claims(
    connection: Connection, drafts: Sequence[ClaimDraft], *, now: datetime, ids: store.Ids
) -> list[ClaimId]:
    """Assert a batch of claims; returns, per draft, the claim it created or corroborated."""
    if len(drafts) < 1000:
        return _write_claims(connection, drafts, now=now, ids=ids)
    with store.paused_gc():
        return _write_claims(connection, drafts, now=now, ids=ids)


def _write_claims(
    connection: Connection, drafts: Sequence[ClaimDraft], *, now: datetime, ids: store.Ids
) -> list[ClaimId]:
    from ledger.policy.apply import screen_claims

    drafts = screen_claims(connection, drafts, now=now, ids=ids)  # the write policy: every claim passes here
    prepared = [prepare(d) for d in drafts]
    resolve_entities(connection, prepared, ids, now)
    facts = check_citations(connection, [(p.scope, p.citations) for p in prepared])
    names = resolve_names(connection, {(p.scope, p.predicate) for p in prepared})
    for item in prepared:  # "P6", "mayor" and "head of government" are stored as the last
        item.predicate = names[(item.scope, item.predicate)]
    facts = rated_facts(connection, facts)  # source and publisher reliability feed the confidence
    definitions = predicate_definitions(connection, {(p.scope, p.predicate) for p in prepared})
    _check_predicate_kinds(prepared, definitions)
    live = load_standing(connection, prepared, facts)
    by_id = {claim.claim_id: claim for group in live.values() for claim in group}
    batch = Batch()
    results: list[ClaimId] = []
    first_claim_id = ids.take(store.claims, len(prepared))
    next_claim_id = first_claim_id
    for item in prepared:
        key = (item.scope, item.subject_id, item.predicate, item.qualifiers)
        group = live.setdefault(key, [])
        candidates = group
        if item.supersedes:
            targets = [by_id[i] for i in item.supersedes if i in by_id and by_id[i].scope == item.scope]
            missing = item.supersedes - {x.claim_id for x in targets}
            if missing:
                raise NotFound(
                    f"supersedes= names claim(s) {sorted(missing)} that do not exist in scope {item.scope!r} "
                    f"or are already retracted"
                )
            candidates = group + [t for t in targets if t not in group]
        if candidates:
            _check_same_datatype(item, group)
            documents = frozenset(document(facts, c.source_id) for c in item.citations if c.relation == "supports")
            incoming = Incoming(item.object_key, _at(item.valid_from), _at(item.valid_until), documents,
                                item.supersedes, item.valid_from.precision if item.valid_from else None,
                                item.valid_until.precision if item.valid_until else None)
            decision = decide(incoming, [c.standing(facts) for c in candidates],
                              functional=functional(definitions.get((item.scope, item.predicate)), item.object_id), now=now)
        else:
            decision = UNCONTESTED  # nothing standing to compare with: the common case in bulk loads
        if decision.corroborates is not None:
            target = next(c for c in candidates if c.claim_id == decision.corroborates)
            corroborate(batch, target, item, facts)
            if decision.extends is not None:  # the same statement over a meeting or overlapping interval
                independent = target.independent_sources(facts)
                status = "disputed" if decision.disputed else target.status
                if status == "superseded":  # it holds again past where it was closed
                    status = promoted("reported", independent)
                change(batch, target, status=status, interval=decision.extends, reason=None, actor=item.actor,
                       cause=Cause("extended", effects=decision.cause.effects, sources=independent))
            disputed_by_rivals = target.status == "disputed" and _rivals(target, group)
            _apply(batch, decision, target.claim_id, item, by_id)  # claims it names in supersedes=
            if disputed_by_rivals and not _rivals(target, group):  # the named claims were its rivals
                superseded: tuple[tuple[EffectKind, ClaimId | None], ...] = tuple(
                    ("superseded", ClaimId(c.claim_id)) for c in decision.changes if c.cause == "superseded-by")
                change(batch, target, status=settled_status((), target.independent_sources(facts)), interval=None,
                       cause=Cause("settled", effects=superseded), reason=None, actor=item.actor)
            results.append(ClaimId(target.claim_id))
            continue
        new_id = next_claim_id
        next_claim_id += 1
        ends_at = None
        if decision.links:
            ends_at = next((c for c in candidates for link in decision.links
                            if link.from_claim_id == c.claim_id and link.to_claim_id is None), None)
        created = create(batch, new_id, item, decision, facts,
                          ends_precision=ends_at.valid_from_precision if ends_at else None)
        ends = {resume.claim_id: by_id[resume.claim_id].valid_until_precision for resume in decision.resumes}
        _apply(batch, decision, new_id, item, by_id)  # closes the claims it interrupts
        group.append(created)
        by_id[new_id] = created
        for resume in decision.resumes:
            continuation = _continue(connection, batch, ids, resume, created, item, by_id[resume.claim_id],
                                     ends[resume.claim_id], facts)
            group.append(continuation)
            by_id[continuation.claim_id] = continuation
        results.append(ClaimId(new_id))
    flush(connection, batch, ids, now)
    return results


def _continue(
    connection: Connection, batch: Batch, ids: store.Ids, resume: Change, interruption: Live, item: Prepared,
    interrupted: Live, until_precision: str | None, facts: Mapping[int, Mapping[Any, Any]],
) -> Live:
    """A claim holding ``interrupted``'s statement again after ``interruption`` (a value for a
    while only) ends: a claim of its own, on the same evidence, linked to both ("continues" the
    one, "resumes" after the other) so that retracting either takes it back."""
    pending = dict(batch.claims)
    if interrupted.claim_id in pending:  # asserted earlier in this batch
        earlier = pending[interrupted.claim_id]
        statement: Mapping[str, Any] = {
            "subject_id": earlier.subject_id, "predicate": earlier.predicate, "object_id": earlier.object_id,
            "value": earlier.value_text, "datatype": earlier.datatype, "qualifiers": earlier.qualifiers}
        citations = earlier.citations
    else:
        statement = dict(connection.execute(CLAIM_KEY, {"id": interrupted.claim_id}).mappings().one())
        citations = tuple(
            Citation(source_id=row["source_id"], scope=interrupted.scope, relation=row["relation"],
                     excerpt=row["excerpt"], char_start=row["char_start"], char_end=row["char_end"],
                     locator=row["locator"], page=row["page"])
            for row in store.current_evidence(connection, interrupted.claim_id)
        )
    assert resume.valid_from is not None and interruption.valid_until_precision is not None
    until = None
    if resume.valid_until is not None:
        until = Instant(resume.valid_until, cast(Precision, until_precision or "second"))
    again = Prepared(
        scope=interrupted.scope, subject=statement["subject_id"], predicate=statement["predicate"],
        object=statement["object_id"], value_text=statement["value"], datatype=statement["datatype"],
        qualifiers=statement["qualifiers"],
        valid_from=Instant(resume.valid_from, cast(Precision, interruption.valid_until_precision)),
        valid_until=until, citations=citations, status=resume.status, confidence=interrupted.confidence,
        supersedes=frozenset(), actor=item.actor, subject_id=statement["subject_id"], object_id=statement["object_id"],
    )
    claim_id = ids.take(store.claims)
    cause = Cause("asserted", effects=(("resumes", ClaimId(interrupted.claim_id)),
                                       ("resumes-after", ClaimId(interruption.claim_id))))
    continuation = create(batch, claim_id, again, Decision(cause=cause), facts, ends_precision=None)
    batch.links.append(link_row("continues", claim_id, interrupted.claim_id, interrupted.scope, item.actor))
    batch.links.append(link_row("resumes", claim_id, interruption.claim_id, interrupted.scope, item.actor))
    return continuation


def _apply(batch: Batch, decision: Decision, claim_id: int, item: Prepared, by_id: Mapping[int, Live]) -> None:
    """Queue what ``decision`` does to other claims; ``claim_id`` is the claim that does it (the
    new one, or the one it corroborates), which links drafted with None stand for."""
    for planned in decision.changes:
        target = by_id[planned.claim_id]
        change(batch, target, status=planned.status, interval=change_interval(planned, target),
               cause=Cause(planned.cause, ClaimId(claim_id)), reason=None, actor=item.actor)
    for drafted in decision.links:
        batch.links.append(link_row(drafted.kind, drafted.from_claim_id or claim_id, drafted.to_claim_id or claim_id,
                                    item.scope, item.actor))


def _rivals(claim: Live, group: Sequence[Live]) -> bool:
    """Whether another value still disputes ``claim`` over some of its interval."""
    return any(
        other.status == "disputed" and other.object_key != claim.object_key
        and overlaps(other.valid_from, other.valid_until, claim.valid_from, claim.valid_until)
        for other in group
    )


def _check_same_datatype(item: Prepared, group: Sequence[Live]) -> None:
    """One subject, predicate and qualifiers hold one kind of value: "12000" next to 12000 would
    read as a different value and supersede or dispute a claim that says the same thing."""
    if item.datatype is None:
        return
    for claim in group:
        if claim.datatype and claim.datatype != item.datatype and not {claim.datatype, item.datatype} <= NUMBER_TYPES:
            raise InvalidInput(
                f"predicate {item.predicate!r} already holds {claim.datatype} values here (claim "
                f"{claim.claim_id}); pass the value as {claim.datatype}, not as {item.datatype}"
            )


def _at(instant: Instant | None) -> datetime | None:
    return instant.at if instant else None


def _check_predicate_kinds(
    prepared: Sequence[Prepared], definitions: Mapping[tuple[str, str], Mapping[Any, Any]]
) -> None:
    for item in prepared:
        definition = definitions.get((item.scope, item.predicate))
        if definition is None or definition["origin"] == "shipped":  # the shipped kinds advise, they do not refuse
            continue
        if definition["object_kind"] == "entity" and item.object_id is None:
            raise InvalidInput(f"predicate {item.predicate!r} takes an entity: pass object=, not value=")
        if definition["object_kind"] == "value" and item.object_id is not None:
            raise InvalidInput(f"predicate {item.predicate!r} takes a value: pass value=, not object=")
        wanted = definition["datatype"]
        if wanted and item.datatype and wanted != item.datatype and not (
            wanted == "number" and item.datatype == "integer"
        ):
            raise InvalidInput(
                f"predicate {item.predicate!r} takes {wanted} values; got a {item.datatype}"
            )
