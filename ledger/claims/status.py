"""Explicit lifecycle calls (confirm, dispute, retract, supersede) and what a retraction takes
back; the checks that keep one undisputed value per functional predicate at a time."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Connection, bindparam, or_, select

from ledger import store, validate
from ledger.claims.batch import Batch, Live, change, emptied, flush
from ledger.claims.batch import link as link_row
from ledger.claims.intervals import Interval
from ledger.claims.load import CLAIM_KEY, check_citations, entity_scopes
from ledger.claims.provenance import independent_sources
from ledger.claims.restore import Competitor, Linked, State, restore
from ledger.claims.rules import Held, first_clash, functional
from ledger.claims.values import object_key
from ledger.claims.vocabulary import definitions as predicate_definitions
from ledger.errors import Conflict, InvalidInput, ScopeMismatch
from ledger.records import Cause, CauseKind, Citation, ClaimId


@dataclass(frozen=True, slots=True)
class StatusChange:
    """An explicit lifecycle call, checked: a claim's new status, why, by whom, on what evidence."""

    claim_id: int
    status: str
    reason: str | None = None
    citations: tuple[Citation, ...] = ()
    actor: str | None = None
    superseded_by: int | None = None


def confirmation(claim: object, *, evidence: object, reason: object, actor: object) -> StatusChange:
    """confirm(): optionally with more supporting evidence."""
    citations = validate.citations(evidence, relation="supports", use="confirm()")
    return _checked(claim, "confirmed", reason=reason, citations=citations, actor=actor)


def dispute(claim: object, *, evidence: object, reason: object, actor: object) -> StatusChange:
    """dispute(): with contradicting evidence or a reason."""
    citations = validate.citations(evidence, relation="contradicts", use="dispute()")
    if not citations and not reason:
        raise InvalidInput("dispute() needs contradicting evidence or a reason")
    return _checked(claim, "disputed", reason=reason, citations=citations, actor=actor)


def retraction(claim: object, *, reason: object, actor: object) -> StatusChange:
    """retract(): with a reason."""
    if not isinstance(reason, str) or not reason.strip():
        raise InvalidInput("retract() needs a reason saying why the claim is withdrawn")
    return _checked(claim, "retracted", reason=reason, citations=(), actor=actor)


def supersession(old: object, new: object, *, reason: object, actor: object) -> StatusChange:
    """supersede(): ``new`` replaces ``old`` as a whole."""
    old_id, new_id = validate.claim_id(old), validate.claim_id(new)
    if old_id == new_id:
        raise InvalidInput(f"claim {old_id} cannot supersede itself")
    return _checked(old_id, "superseded", reason=reason, citations=(), actor=actor, superseded_by=new_id)


def _checked(claim: object, status: str, *, reason: object, citations: tuple[Citation, ...], actor: object,
             superseded_by: int | None = None) -> StatusChange:
    return StatusChange(validate.claim_id(claim), status, validate.check_reason(reason), citations,
                        validate.check_actor(actor), superseded_by)


def apply(connection: Connection, change: StatusChange, *, now: datetime, ids: store.Ids) -> int:
    """Carry out an explicit lifecycle call as new versions; the claim's id."""
    if change.superseded_by is not None:
        check_supersession(connection, change.claim_id, change.superseded_by)
    change_status(connection, change.claim_id, status=change.status, now=now, ids=ids, reason=change.reason,
                  citations=change.citations, actor=change.actor, superseded_by=change.superseded_by)
    return change.claim_id


def change_status(
    connection: Connection, claim: int, *, status: str, now: datetime, ids: store.Ids,
    reason: str | None = None, citations: Sequence[Citation] = (), actor: str | None = None,
    superseded_by: int | None = None,
) -> None:
    """Give one claim a new status (confirm, dispute, retract, supersede) as a new version."""
    row = store.current_version(connection, claim)
    scope = row["scope"]
    if row["status"] == "retracted":
        raise Conflict(f"claim {claim} is retracted; assert the claim again instead of changing it")
    if row["status"] == "superseded" and _never_valid(row) and status in ("confirmed", "disputed"):
        doing = "confirming" if status == "confirmed" else "disputing"
        raise Conflict(f"claim {claim} is superseded as a whole and holds at no time; {doing} it would change "
                       "nothing anyone reads: assert the value again if it holds after all")
    for citation in citations:
        if citation.scope != scope:
            raise ScopeMismatch(f"evidence from scope {citation.scope!r} cannot back a claim in {scope!r}")
    target = _versioned(claim, row)
    batch = Batch()
    interval: Interval | None = None
    cause = Cause(cast(CauseKind, status))
    if status == "confirmed" and row["status"] == "superseded":
        status = "superseded"  # it held until a newer value began: the confirmation is recorded, it stays closed
    if superseded_by is not None:
        interval = emptied(target, target.valid_from if target.valid_from is not None else now)
        cause = Cause("superseded-by", ClaimId(superseded_by))
        batch.links.append(link_row("supersedes", superseded_by, claim, scope, actor, reason))
    change(batch, target, status=status, interval=interval, cause=cause, reason=reason, actor=actor)
    if status == "retracted":
        _undo_effects(connection, batch, claim, actor)
    check_citations(connection, [(scope, citations)])
    batch.evidence.extend((claim, citation, actor) for citation in citations)
    flush(connection, batch, ids, now)
    if status == "confirmed":  # confirming one side of a live conflict would leave two undisputed values
        subject = connection.execute(select(store.claims.c.subject_id).where(store.claims.c.id == claim)).scalar_one()
        root = entity_scopes(connection, {subject})[subject][1]
        refuse_functional_overlaps(connection, scope=scope, subjects=store.merged_ids(connection, root),
                                   because=f"confirming claim {claim}")


def _never_valid(version: Mapping[Any, Any]) -> bool:
    """Whether a version row holds at no time: superseded as a whole, its interval [t, t)."""
    return version["valid_from"] is not None and version["valid_from"] == version["valid_until"]


def _versioned(claim: int, version: Mapping[Any, Any]) -> Live:
    """A claim in its current ``version`` row, for a status change (its value is not compared)."""
    return Live(
        claim_id=claim, object_key="", status=version["status"], confidence=version["confidence"],
        valid_from=version["valid_from"], valid_until=version["valid_until"],
        valid_from_precision=version["valid_from_precision"], valid_until_precision=version["valid_until_precision"],
        sources=[], version_id=version["id"],
    )


def _undo_effects(connection: Connection, batch: Batch, retracted: int, actor: str | None) -> None:
    """Take back what a retracted claim did to others (``rules.restore``): load, decide, queue.
    (The links stay: they record what happened.)"""
    continuations = _continuations(connection, retracted)
    resumed = _resumed_after(connection, retracted)
    rivals = _linked(connection, retracted, kind="contradicts")
    others = sorted(_linked(connection, retracted) - continuations - set(resumed.values()))
    linked = [_load_linked(connection, other, retracted, rivals, resumed) for other in others]
    for step in restore(retracted, sorted(continuations), linked):
        current = store.current_version(connection, step.claim_id)
        change(batch, _versioned(step.claim_id, current), status=step.status, cause=step.cause,
               interval=step.interval, reason=None, actor=actor)


def _load_linked(
    connection: Connection, claim: int, retracted: int, rivals: set[int], resumed: Mapping[int, int]
) -> Linked:
    """What ``rules.restore`` needs to know of a claim linked to a retracted one."""
    history = tuple(
        State(v["status"], _interval(v), store.decode_cause(v["cause"], v["cause_claim_id"], v["cause_detail"]))
        for v in store.version_history(connection, claim))
    sources = store.supporting_sources(connection, [claim]).get(claim, set())
    resumes_at = None
    if claim in resumed:
        start = store.first_version(connection, resumed[claim])
        resumes_at = (start["valid_from"], start["valid_from_precision"])
    row = connection.execute(CLAIM_KEY, {"id": claim}).mappings().one()
    key = (row["scope"], row["predicate"])
    is_functional = functional(predicate_definitions(connection, [key]).get(key), row["object_id"])
    competitors: tuple[Competitor, ...] = ()
    if is_functional:
        root = entity_scopes(connection, {row["subject_id"]})[row["subject_id"]][1]
        keys = {(row["scope"], subject, row["predicate"]) for subject in store.merged_ids(connection, root)}
        competitors = tuple(
            Competitor(other["claim_id"], other["status"] == "disputed", other["qualifiers"] == row["qualifiers"],
                       (other["object_id"], other["value"]) == (row["object_id"], row["value"]),
                       other["valid_from"], other["valid_until"], other["valid_from_precision"])
            for other in store.standing_claims(connection, keys) if other["claim_id"] not in (claim, retracted))
    return Linked(
        claim_id=claim, history=history,
        independent=independent_sources(sources, store.source_facts(connection, sources)) if len(sources) > 1 else 0,
        rival=claim in rivals, disputed_by_others=_disputed_by_others(connection, claim, retracted),
        resumes_at=resumes_at, functional=is_functional, competitors=competitors,
        disputed_continuations=tuple(c for c in _continuations(connection, claim)
                                     if store.current_version(connection, c)["status"] == "disputed"),
    )


_CONTINUING = select(store.links.c.from_claim_id).where(
    store.links.c.to_claim_id == bindparam("id"), store.links.c.kind == "continues")
_RESUMING = (
    select(store.links.c.to_claim_id, store.links.c.from_claim_id)
    .where(store.links.c.kind == "continues",
           store.links.c.from_claim_id.in_(select(store.links.c.from_claim_id).where(
               store.links.c.kind == "resumes", store.links.c.to_claim_id == bindparam("id"))))
)


def _resumed_after(connection: Connection, claim: int) -> dict[int, int]:
    """claim it interrupted → its continuation after ``claim`` (a value for a while only).
    Retracting ``claim`` gives the interrupted claim its interval back up to that continuation,
    which stands on its own (later updates may have interrupted it in turn, sources corroborated
    it, or a retraction said the value did not hold after all)."""
    return {interrupted: continuation for interrupted, continuation in connection.execute(_RESUMING, {"id": claim})}


def _continuations(connection: Connection, claim: int) -> set[int]:
    """The claims made to continue ``claim`` (after values for a while only), and theirs in
    turn, that are not retracted."""
    found: set[int] = set()
    pending = [claim]
    while pending:
        for (other,) in connection.execute(_CONTINUING, {"id": pending.pop()}).all():
            if other not in found and store.current_version(connection, other)["status"] != "retracted":
                found.add(other)
                pending.append(other)
    return found


def _interval(version: Mapping[Any, Any]) -> Interval:
    return (version["valid_from"], version["valid_until"], version["valid_from_precision"],
            version["valid_until_precision"])


def _disputed_by_others(connection: Connection, claim: int, besides: int) -> bool:
    """Whether a claim other than ``besides`` that is not retracted contradicts ``claim``."""
    rivals = _linked(connection, claim, kind="contradicts") - {besides}
    return any(store.current_version(connection, rival)["status"] == "disputed" for rival in rivals)


def _linked(connection: Connection, claim: int, *, kind: str | None = None) -> set[int]:
    """The claims at the other end of ``claim``'s links (of one kind, if given), either way."""
    link = store.links
    query = select(link.c.from_claim_id, link.c.to_claim_id).where(
        or_(link.c.from_claim_id == claim, link.c.to_claim_id == claim))
    if kind is not None:
        query = query.where(link.c.kind == kind)
    return {a if b == claim else b for a, b in connection.execute(query).all()} - {claim}


_KEYS = select(store.claims.c.scope, store.claims.c.subject_id, store.claims.c.predicate).distinct()
# By scope and subjects: the (scope, subject, predicate) index finds them; by subjects alone
# it was read whole, every claim of every scope.
_SUBJECT_KEYS = _KEYS.where(store.claims.c.scope == bindparam("scope"), store.one_of(store.claims.c.subject_id, "ids"))
_PREDICATE_KEYS = _KEYS.where(store.claims.c.predicate == bindparam("predicate"))


def refuse_functional_overlaps(
    connection: Connection, *, scope: str | None = None, subjects: Sequence[int] = (), predicate: str | None = None,
    because: str,
) -> None:
    """Raise Conflict when claims about ``subjects`` of ``scope`` (or with ``predicate``, in any
    scope) now give a functional predicate two undisputed values at the same time, as a merge or
    a redeclaration can.

    Runs inside the write transaction after the change, so refusing undoes it.
    """
    if predicate is not None:
        keys = {tuple(r) for r in connection.execute(_PREDICATE_KEYS, {"predicate": predicate})}
    else:
        if scope is None:
            raise TypeError("refuse_functional_overlaps needs the scope of the subjects")
        keys = {tuple(r) for r in connection.execute(_SUBJECT_KEYS, {"scope": scope, "ids": sorted(set(subjects))})}
    rows = [r for r in store.standing_claims(connection, keys) if r["status"] != "disputed"
            and not _never_valid(r)]
    roots = entity_scopes(connection, {r["subject_id"] for r in rows})
    definitions = predicate_definitions(connection, {(r["scope"], r["predicate"]) for r in rows})
    clash = first_clash(
        Held(r["claim_id"], (r["scope"], roots[r["subject_id"]][1], r["predicate"], r["qualifiers"]),
             (object_key(r["object_id"], r["value"], r["datatype"]),),  # 30 and 30.0 are one value
             r["valid_from"], r["valid_until"], r["valid_from_precision"],
             r["valid_until_precision"])
        for r in rows if functional(definitions.get((r["scope"], r["predicate"])), r["object_id"])
    )
    if clash is not None:
        earlier, later, key = clash
        raise Conflict(
            f"{because} would give {key[2]!r} two undisputed values at the same time (claims "
            f"{earlier} and {later}); dispute, retract or supersede one of them first"
        )


def supersession_reaches(connection: Connection, start: int, goal: int) -> bool:
    """Whether ``start`` already (transitively) supersedes ``goal``."""
    frontier, seen = {start}, {start}
    while frontier:
        rows = connection.execute(
            select(store.links.c.to_claim_id).where(
                store.links.c.kind == "supersedes", store.one_of(store.links.c.from_claim_id, "ids")
            ), {"ids": sorted(frontier)}
        ).scalars()
        frontier = set(rows) - seen
        if goal in frontier:
            return True
        seen |= frontier
    return False

def check_supersession(connection: Connection, old: int, new: int) -> None:
    """Refuse ``new`` superseding ``old`` across scopes, by a retracted claim, or in a cycle."""
    newer, older = store.current_version(connection, new), store.current_version(connection, old)
    if newer["scope"] != older["scope"]:
        raise ScopeMismatch(f"claims {old} (scope {older['scope']!r}) and {new} (scope "
                            f"{newer['scope']!r}) belong to different scopes; nothing crosses scopes")
    if newer["status"] == "retracted":
        raise Conflict(f"claim {new} is retracted and cannot supersede anything")
    if supersession_reaches(connection, old, new):
        raise Conflict(f"claim {old} already supersedes claim {new}; a cycle is not allowed")
