"""Claims, their versions, evidence, links and predicate declarations; a version's cause codec."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, cast

from sqlalchemy import (
    Connection,
    bindparam,
    insert,
    select,
    update,
)

from ledger.errors import NotFound
from ledger.records import Cause, CauseKind, ClaimId, EffectKind
from ledger.store.driver import (
    Ids,
    claims,
    evidence,
    one_of,
    predicates,
    versions,
)


def cause_columns(causes: Sequence[Cause | None]) -> dict[str, list[Any]]:
    """The version columns that hold these causes (kind, related claim, detail)."""
    return {
        "cause": [None if c is None else c.kind for c in causes],
        "cause_claim_id": [None if c is None else c.claim for c in causes],
        "cause_detail": [None if c is None else _cause_detail(c) for c in causes],
    }


def _cause_detail(cause: Cause) -> dict[str, Any] | None:
    detail: dict[str, Any] = {}
    if cause.effects:
        detail["effects"] = [list(effect) for effect in cause.effects]
    if cause.sources is not None:
        detail["sources"] = cause.sources
    return detail or None


def decode_cause(kind: str | None, claim: int | None, detail: Any) -> Cause | None:
    """A version's cause from its stored columns."""
    if kind is None:
        return None
    if isinstance(detail, str):  # read past SQLAlchemy's JSON processing
        detail = json.loads(detail)
    detail = detail or {}
    return Cause(
        cast(CauseKind, kind), None if claim is None else ClaimId(claim),
        tuple((cast(EffectKind, k), None if c is None else ClaimId(c)) for k, c in detail.get("effects", ())),
        detail.get("sources"),
    )




_STANDING_COLUMNS = (
    claims.c.id.label("claim_id"), claims.c.scope, claims.c.subject_id, claims.c.predicate, claims.c.object_id,
    claims.c.value, claims.c.datatype, claims.c.qualifiers,
    versions.c.id.label("version_id"), versions.c.status, versions.c.confidence, versions.c.valid_from,
    versions.c.valid_until, versions.c.valid_from_precision, versions.c.valid_until_precision,
    versions.c.reason, versions.c.actor,
)


_STANDING = select(*_STANDING_COLUMNS).join(versions, versions.c.claim_id == claims.c.id).where(
    versions.c.invalidated_at.is_(None), versions.c.status != "retracted"
)
# subject IN (...) AND predicate IN (...) is a superset of the keys; standing_claims filters it.
_STANDING_BY_KEYS = _STANDING.where(
    claims.c.scope == bindparam("scope"), one_of(claims.c.subject_id, "subjects"),
    one_of(claims.c.predicate, "predicates"),
)
_STANDING_BY_IDS = _STANDING.where(one_of(claims.c.id, "ids"))


def standing_claims(
    connection: Connection, keys: Iterable[tuple[str, int, str]], claim_ids: Iterable[int] = ()
) -> list[Mapping[Any, Any]]:
    """Current, non-retracted versions of claims with these (scope, subject, predicate) keys
    or these ids."""
    rows: list[Mapping[Any, Any]] = []
    wanted = set(keys)
    for scope in sorted({k[0] for k in wanted}):
        found = connection.execute(_STANDING_BY_KEYS, {
            "scope": scope, "subjects": sorted({k[1] for k in wanted if k[0] == scope}),
            "predicates": sorted({k[2] for k in wanted if k[0] == scope}),
        }).mappings()
        rows.extend(r for r in found if (scope, r["subject_id"], r["predicate"]) in wanted)
    seen = {row["claim_id"] for row in rows}
    missing = sorted(set(claim_ids) - seen)
    if missing:
        rows.extend(connection.execute(_STANDING_BY_IDS, {"ids": missing}).mappings())
    return rows


_SUPPORT_SOURCES = (
    select(evidence.c.claim_id, evidence.c.source_id)
    .where(one_of(evidence.c.claim_id, "ids"), evidence.c.relation == "supports")
    .distinct()
)


def supporting_sources(connection: Connection, claim_ids: Iterable[int]) -> dict[int, set[int]]:
    """claim id → ids of the sources of its supporting evidence."""
    found: dict[int, set[int]] = {}
    wanted = sorted(set(claim_ids))
    if wanted:
        for claim_id, source_id in connection.execute(_SUPPORT_SOURCES, {"ids": wanted}).all():
            found.setdefault(claim_id, set()).add(source_id)
    return found


_INVALIDATE = (
    update(versions)
    .where(versions.c.id == bindparam("version_id"), versions.c.invalidated_at.is_(None))
    .values(invalidated_at=bindparam("now"))
)


def invalidate_versions(connection: Connection, version_ids: Sequence[int], now: datetime) -> None:
    """Close the system-time interval of these versions at ``now``."""
    if version_ids:
        connection.execute(_INVALIDATE, [{"version_id": v, "now": now} for v in version_ids])


_CURRENT_VERSION = (
    select(versions, claims.c.scope)
    .join(claims, claims.c.id == versions.c.claim_id)
    .where(versions.c.claim_id == bindparam("id"), versions.c.invalidated_at.is_(None))
)


_HISTORY = select(versions).where(versions.c.claim_id == bindparam("id")).order_by(versions.c.id)


def version_history(connection: Connection, claim_id: int) -> Sequence[Mapping[Any, Any]]:
    """Every version row of a claim, oldest first."""
    return connection.execute(_HISTORY, {"id": claim_id}).mappings().all()


def current_version(connection: Connection, claim_id: int) -> Mapping[Any, Any]:
    """The current version row of a claim (with its scope), or NotFound."""
    row = connection.execute(_CURRENT_VERSION, {"id": claim_id}).mappings().first()
    if row is None:
        raise NotFound(f"claim {claim_id} does not exist")
    return row


_FIRST_VERSION = select(versions).where(versions.c.claim_id == bindparam("id")).order_by(versions.c.id).limit(1)


def first_version(connection: Connection, claim_id: int) -> Mapping[Any, Any]:
    """The version a claim was asserted with."""
    return connection.execute(_FIRST_VERSION, {"id": claim_id}).mappings().one()


_MARK_STALE = (
    update(evidence).where(evidence.c.id == bindparam("evidence_id"), evidence.c.stale_at.is_(None))
    .values(stale_at=bindparam("now"))
)


def _standing_evidence(rows: Iterable[Mapping[Any, Any]]) -> list[Mapping[Any, Any]]:
    """The rows neither flagged stale nor carried into a newer revision by another of ``rows``."""
    listed = list(rows)
    carried = {row["reanchored_from"] for row in listed}
    return [row for row in listed if row["stale_at"] is None and row["id"] not in carried]


_EVIDENCE_SPANS = select(
    evidence.c.claim_id, evidence.c.source_id, evidence.c.char_start, evidence.c.char_end, evidence.c.relation,
).where(one_of(evidence.c.claim_id, "ids"))


def evidence_spans(connection: Connection, claim_ids: Iterable[int]) -> set[tuple[int, int, int, int, str]]:
    """(claim, source, char_start, char_end, relation) of the claims' evidence, stale rows included:
    citing a span again does not undo its staleness, a newer revision that has the quote does."""
    ids = sorted(set(claim_ids))
    if not ids:
        return set()
    return {tuple(row) for row in connection.execute(_EVIDENCE_SPANS, {"ids": ids})}


_CLAIM_EVIDENCE = select(evidence).where(evidence.c.claim_id == bindparam("id")).order_by(evidence.c.id)


def current_evidence(connection: Connection, claim_id: int) -> list[Mapping[Any, Any]]:
    """A claim's evidence as it stands: rows neither flagged stale nor carried into a newer
    revision by another row."""
    return _standing_evidence(connection.execute(_CLAIM_EVIDENCE, {"id": claim_id}).mappings())


def mark_stale(connection: Connection, evidence_ids: Sequence[int], now: datetime) -> None:
    """Flag evidence whose quote vanished from the newest revision of its source."""
    if evidence_ids:
        connection.execute(_MARK_STALE, [{"evidence_id": e, "now": now} for e in evidence_ids])


_PREDICATES = select(predicates).where(one_of(predicates.c.name, "names"))


def put_predicate(connection: Connection, ids: Ids, now: datetime, row: Mapping[str, Any]) -> None:
    """Insert a predicate declaration, or replace the one of the same name."""
    if predicate_rows(connection, [row["name"]]).get(row["name"]) is None:
        connection.execute(insert(predicates), {**row, "id": ids.take(predicates), "recorded_at": now})
    else:
        connection.execute(update(predicates).where(predicates.c.name == row["name"]).values(**row))


_CLAIM_SCOPE = select(claims.c.scope).where(claims.c.id == bindparam("id"))


def claim_scope(connection: Connection, claim_id: int) -> str | None:
    """The scope of a claim, or None when there is no such claim."""
    return connection.execute(_CLAIM_SCOPE, {"id": claim_id}).scalar()


def predicate_rows(connection: Connection, names: Iterable[str]) -> dict[str, Mapping[Any, Any]]:
    """Declared predicates by name."""
    wanted = sorted(set(names))
    if not wanted:
        return {}
    return {row["name"]: row for row in connection.execute(_PREDICATES, {"names": wanted}).mappings()}
