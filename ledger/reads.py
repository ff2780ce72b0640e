"""Read paths: as-of views of claims, history, audit and explain. Nothing here writes.

Claim reads run on Core statements built once per filter shape and cached, so a point
lookup costs one claims statement plus one evidence-id statement.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from typing import Any

from sqlalchemy import Connection, Dialect, Select, String, and_, bindparam, case, cast, func, or_, select
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.functions import FunctionElement

from ledger import queries, store
from ledger.claims.values import decode_value
from ledger.claims.vocabulary import EVERY_SCOPE
from ledger.interchange.vocabulary import shipped_name
from ledger.entities import normalize_name
from ledger.timeline import in_window
from ledger.model import UTCTime
from ledger.records import (
    STATUSES,
    VISIBLE_STATUSES,
    Claim,
    ClaimId,
    EntityId,
    Evidence,
    EvidenceId,
    Link,
    Passage,
    Retrieval,
    Source,
    SourceId,
)

_subject = store.entities.alias("subject")
_object = store.entities.alias("object")
_c, _v = store.claims, store.versions


@dataclass(frozen=True, slots=True)
class Filter:
    """What a claims() call asks for; None means 'any'."""

    scope: str
    subject: int | str | None = None
    predicate: str | None = None
    object: int | str | None = None
    statuses: tuple[str, ...] = VISIBLE_STATUSES
    valid_at: datetime | None = None
    during: tuple[datetime, datetime] | None = None
    known_at: datetime | None = None
    #: Every version ever recorded (history) instead of the versions current at known_at.
    all_versions: bool = False


def _merged_into(entity: Any, all_versions: bool) -> Any:
    """The entity's merged_into, as of :known_at unless every version is asked for: a read
    about an earlier known_at does not see a merge made after it."""
    if all_versions:
        return entity.c.merged_into
    return case((entity.c.merged_at <= bindparam("known_at", type_=UTCTime()), entity.c.merged_into), else_=None)


def _root_by_name(kind: str, all_versions: bool) -> Any:
    """The entity (after merges) that the alias :{kind}_name names in :scope."""
    alias_entity = store.entities.alias(f"{kind}_named")
    root_by_name = (
        select(func.coalesce(_merged_into(alias_entity, all_versions), alias_entity.c.id))
        .join(store.aliases, store.aliases.c.entity_id == alias_entity.c.id)
        .where(store.aliases.c.scope == bindparam("scope"),
               store.aliases.c.normalized == bindparam(f"{kind}_name"))
        .scalar_subquery()
    )
    return root_by_name


def _root_by_id(kind: str, all_versions: bool) -> Any:
    """The entity (after merges) that entity :{kind}_id is: an id from before a merge reads
    like its name does, as the entity it was merged into."""
    given = store.entities.alias(f"{kind}_given")
    return (
        select(func.coalesce(_merged_into(given, all_versions), given.c.id))
        .where(given.c.id == bindparam(f"{kind}_id"))
        .scalar_subquery()
    )


class _joined_ids(FunctionElement[str]):  # noqa: N801  (SQL function names are lower case)
    """Comma-joined text of an id column: group_concat on SQLite, string_agg on PostgreSQL."""

    type = String()
    inherit_cache = True


@compiles(_joined_ids, "sqlite")
def _joined_ids_sqlite(element: _joined_ids, compiler: Any, **kw: Any) -> str:
    return f"group_concat({compiler.process(element.clauses, **kw)}, ',')"


@compiles(_joined_ids, "postgresql")
def _joined_ids_postgresql(element: _joined_ids, compiler: Any, **kw: Any) -> str:
    return f"string_agg({compiler.process(element.clauses, **kw)}, ',')"


def _evidence_ids(all_versions: bool) -> Any:
    """Comma-joined ids of the claim's evidence known at :known_at (at each version, for history)."""
    e = store.evidence
    known = _v.c.recorded_at if all_versions else bindparam("known_at", type_=UTCTime())
    return (
        select(_joined_ids(cast(e.c.id, String)))
        .where(e.c.claim_id == _c.c.id, e.c.recorded_at <= known)
        .scalar_subquery()
        .label("evidence_ids")
    )


_aliases = store.predicate_aliases
#: The predicate a name is an alias of in the read's scope, else in every scope (""), else NULL;
#: one lookup in the read's own statement, so a read stays one statement.
_PREDICATE_ALIAS = (
    select(_aliases.c.predicate)
    .where(or_(_aliases.c.scope == bindparam("scope"), _aliases.c.scope == EVERY_SCOPE),
           _aliases.c.normalized == bindparam("predicate_normalized"))
    .order_by(_aliases.c.scope.desc()).limit(1).scalar_subquery()
)


@cache
def _claims_statement(shape: tuple[Any, ...], *, by_ids: bool = False) -> Select[Any]:
    """The claims statement of a filter shape; ``by_ids`` for one that adds an id filter, which
    then picks the rows (the scope only filters them)."""
    subject_kind, has_predicate, object_kind, time_mode, all_versions, statuses = shape
    # The (scope, subject, predicate) index serves a read by subject, or by scope alone; a read
    # by ids or by object (without a subject) must not search the scope's claims, as SQLite
    # without statistics would (it takes scope = ? for ten rows): the ids or the object index
    # find its rows.
    by_object = subject_kind is None and object_kind is not None
    scope = store.unindexed(_c.c.scope) if by_ids or by_object else _c.c.scope
    statement = (
        select(
            _c.c.id, _c.c.scope, _c.c.subject_id, _subject.c.name.label("subject_name"), _c.c.predicate,
            _c.c.object_id, _object.c.name.label("object_name"), _c.c.value, _c.c.datatype, _c.c.qualifiers,
            _v.c.id.label("version_id"), _v.c.status, _v.c.confidence, _v.c.valid_from, _v.c.valid_until,
            _v.c.valid_from_precision, _v.c.valid_until_precision, _v.c.recorded_at, _v.c.invalidated_at,
            _v.c.cause, _v.c.cause_claim_id, _v.c.cause_detail, _v.c.reason, _v.c.actor, _evidence_ids(all_versions),
        )
        .join(_v, _v.c.claim_id == _c.c.id)
        .join(_subject, _subject.c.id == _c.c.subject_id)
        .outerjoin(_object, _object.c.id == _c.c.object_id)
        .where(scope == bindparam("scope"))
    )
    for kind, column in (("subject", _c.c.subject_id), ("object", _c.c.object_id)):
        mode = subject_kind if kind == "subject" else object_kind
        if mode is None:
            continue
        root = _root_by_name(kind, all_versions) if mode == "name" else _root_by_id(kind, all_versions)
        merged = store.entities.c.merged_into == root  # an index lookup, however many entities
        if not all_versions:
            merged = and_(merged, store.entities.c.merged_at <= bindparam("known_at", type_=UTCTime()))
        members = select(store.entities.c.id).where(or_(store.entities.c.id == root, merged))
        statement = statement.where(column.in_(members))
    if has_predicate:  # any name of it: "P6", "mayor", "head of government" (claims.vocabulary)
        statement = statement.where(_c.c.predicate == func.coalesce(_PREDICATE_ALIAS, bindparam("predicate")))
    if not all_versions:
        known = bindparam("known_at", type_=UTCTime())
        statement = statement.where(
            _v.c.recorded_at <= known, or_(_v.c.invalidated_at.is_(None), _v.c.invalidated_at > known),
            # Statuses are a fixed vocabulary, part of the cached shape: no expanding IN per call.
            _v.c.status != "retracted" if set(statuses) == set(VISIBLE_STATUSES)
            else or_(*(_v.c.status == status for status in statuses)),
        )
    if time_mode == "at":
        at = bindparam("valid_at", type_=UTCTime())
        statement = statement.where(
            or_(_v.c.valid_from.is_(None), _v.c.valid_from <= at),
            or_(_v.c.valid_until.is_(None), _v.c.valid_until > at),
        )
    elif time_mode == "during":
        start, end = bindparam("during_start", type_=UTCTime()), bindparam("during_end", type_=UTCTime())
        statement = statement.where(
            or_(_v.c.valid_from.is_(None), _v.c.valid_from < end),
            or_(_v.c.valid_until.is_(None), _v.c.valid_until > start),
            or_(_v.c.valid_from.is_(None), _v.c.valid_until.is_(None), _v.c.valid_until > _v.c.valid_from),
        )
    # an open start sorts first on both databases (PostgreSQL puts NULLs last unless told)
    order = ((_v.c.recorded_at, _v.c.id) if all_versions
             else (_c.c.subject_id, _c.c.predicate, _v.c.valid_from.asc().nulls_first(), _c.c.id))
    return statement.order_by(*order)


def _mode(ref: int | str | None) -> str | None:
    if ref is None:
        return None
    return "name" if isinstance(ref, str) else "id"


def find_claims(connection: Connection, query: Filter, *, now: datetime) -> list[Claim]:
    """Claims matching ``query``: each in the version the ledger held at ``known_at``."""
    if query.during is not None:
        time_mode = "during"
    elif query.all_versions and query.valid_at is None:
        time_mode = None
    else:
        time_mode = "at"
    shape = (_mode(query.subject), query.predicate is not None, _mode(query.object), time_mode, query.all_versions,
             tuple(sorted(set(query.statuses))))
    known_at = query.known_at or now
    params: dict[str, Any] = {"scope": query.scope, "known_at": known_at}
    for kind, ref in (("subject", query.subject), ("object", query.object)):
        if isinstance(ref, str):
            params[f"{kind}_name"] = normalize_name(ref)
        elif ref is not None:
            params[f"{kind}_id"] = ref
    if query.predicate is not None:
        params["predicate"] = shipped_name(query.predicate) or query.predicate
        params["predicate_normalized"] = normalize_name(query.predicate)
    if time_mode == "at":
        params["valid_at"] = query.valid_at or now
    elif time_mode == "during" and query.during is not None:
        params["during_start"], params["during_end"] = query.during
    rows = store.rows(connection, _claims_statement(shape), params)
    if time_mode != "at":
        return [claim_record(row) for row in rows]
    at = params["valid_at"]
    return [claim_record(row, imprecise=in_window(at, row["valid_from"], row["valid_until"],
                                                   row["valid_from_precision"], row["valid_until_precision"]))
            for row in rows]


def claim_record(row: Mapping[Any, Any], *, imprecise: bool = False) -> Claim:
    """A Claim record from a joined claims + versions row (with its evidence_ids column)."""
    joined = row["evidence_ids"]
    evidence = sorted(int(i) for i in joined.split(",")) if joined else []
    return Claim(
        id=ClaimId(row["id"]), scope=row["scope"], subject_id=EntityId(row["subject_id"]),
        subject=row["subject_name"], predicate=row["predicate"],
        object_id=None if row["object_id"] is None else EntityId(row["object_id"]), object=row["object_name"],
        value=decode_value(row["value"], row["datatype"]), datatype=row["datatype"],
        qualifiers=json.loads(row["qualifiers"]) if row["qualifiers"] != "{}" else {}, status=row["status"], confidence=row["confidence"],
        valid_from=row["valid_from"], valid_until=row["valid_until"],
        valid_from_precision=row["valid_from_precision"], valid_until_precision=row["valid_until_precision"],
        recorded_at=row["recorded_at"], invalidated_at=row["invalidated_at"], version_id=row["version_id"],
        cause=store.decode_cause(row["cause"], row["cause_claim_id"], row["cause_detail"]), reason=row["reason"], actor=row["actor"],
        evidence_ids=tuple(EvidenceId(i) for i in evidence), imprecise=imprecise,
    )


@cache
def _versions_statement() -> Select[Any]:
    base = _claims_statement((None, False, None, None, True, ()), by_ids=True)
    return base.where(store.one_of(_c.c.id, "ids"))


def claim_versions(connection: Connection, claim_ids: Sequence[int], scope: str) -> list[Claim]:
    """Every version of these claims, oldest first, with the evidence known at each version."""
    rows = connection.execute(_versions_statement(), {"scope": scope, "ids": list(claim_ids)}).mappings()
    return [claim_record(row) for row in rows]  # audit-paced: the ORM-free Core path is enough here


@cache
def _at_statement() -> Select[Any]:
    base = _claims_statement((None, False, None, None, False, tuple(sorted(STATUSES))), by_ids=True)
    return base.where(store.one_of(_c.c.id, "ids"))


def claims_at(connection: Connection, claim_ids: Sequence[int], scope: str, known_at: datetime) -> list[Claim]:
    """These claims of ``scope`` in the version held at ``known_at`` (any status), if recorded by then."""
    rows = connection.execute(_at_statement(), {"scope": scope, "ids": list(claim_ids), "known_at": known_at})
    return [claim_record(row) for row in rows.mappings()]


def evidence_rows(connection: Connection, claim_ids: Sequence[int], *, known_at: datetime | None) -> list[Evidence]:
    """Evidence of these claims known at ``known_at`` (all when None)."""
    if not claim_ids:
        return []
    rows = queries.run(connection, "evidence_for_claims", ids=list(claim_ids),
                       known_at=known_at or _END_OF_TIME).mappings()
    return [Evidence(
        id=EvidenceId(r["id"]), claim_id=ClaimId(r["claim_id"]), source_id=SourceId(r["source_id"]),
        relation=r["relation"], excerpt=r["excerpt"], locator=r["locator"], page=r["page"],
        recorded_at=r["recorded_at"], anchor_method=r["anchor_method"], anchor_score=r["anchor_score"],
        stale_at=r["stale_at"],
    ) for r in rows]


def claim_links(connection: Connection, claim_ids: Sequence[int], *, known_at: datetime | None = None) -> list[Link]:
    """Links touching these claims."""
    if not claim_ids:
        return []
    rows = queries.run(connection, "links_for_claims", ids=list(claim_ids), known_at=known_at or _END_OF_TIME)
    return [Link(kind=r.kind, from_claim_id=ClaimId(r.from_claim_id), to_claim_id=ClaimId(r.to_claim_id),
                 recorded_at=r.recorded_at, reason=r.reason) for r in rows]


def source_record(
    connection: Connection, row: Mapping[Any, Any], *, created: bool = False, passage_count: int | None = None,
    retrievals: Sequence[Retrieval] | None = None,
) -> Source:
    """A Source record from a sources row; its passages are counted and its retrievals read
    unless given."""
    if retrievals is None:
        retrievals = [Retrieval(**r) for r in store.source_retrievals(connection, row["id"])]
    meta = row["meta"] or {}
    return Source(
        id=SourceId(row["id"]), scope=row["scope"], kind=row["kind"], uri=row["uri"], title=row["title"],
        content_hash=row["content_hash"], trust=row["trust"], recorded_at=row["recorded_at"],
        author=row["author"], publisher=row["publisher"], published_at=row["published_at"],
        retrieved_at=row["retrieved_at"],
        revision_of=None if row["revision_of"] is None else SourceId(row["revision_of"]),
        passage_count=store.passage_count(connection, row["id"]) if passage_count is None else passage_count,
        page_count=meta.get("page_count"), pages_without_text=tuple(meta.get("pages_without_text", ())),
        pages_partly_unreadable=tuple(meta.get("pages_partly_unreadable", ())),
        created=created, text=row["text"],
        modified_at=datetime.fromisoformat(meta["modified_at"]) if meta.get("modified_at") else None,
        metadata={key: value for key, value in meta.items() if key not in _SOURCE_FIELDS_IN_META},
        retrievals=tuple(retrievals),
    )


_SOURCE_FIELDS_IN_META = frozenset({"page_count", "pages_without_text", "pages_partly_unreadable", "modified_at"})


def passages(connection: Connection, source_id: int, text: str, page: int | None = None) -> list[Passage]:
    """A source's passages in order (of one page if ``page`` is given), with their text."""
    return [
        Passage(
            source_id=SourceId(source_id), ordinal=row["ordinal"], char_start=row["char_start"],
            char_end=row["char_end"], text=text[row["char_start"]:row["char_end"]], page=row["page"],
            bbox=(box[0], box[1], box[2], box[3]) if (box := row["bbox"]) else None, paragraph=row["paragraph"],
        )
        for row in store.source_passages(connection, source_id, page)
    ]


_END_OF_TIME = datetime(9999, 12, 31, tzinfo=UTC)
