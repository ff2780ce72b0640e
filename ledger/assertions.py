"""The write path for claims: validate drafts, resolve entities, check evidence, apply the
lifecycle rules of ``claims.decide`` and write every row of a batch in one transaction.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from operator import attrgetter
from typing import Any, NamedTuple, cast

from sqlalchemy import Connection, bindparam, or_, select

from ledger import store
from ledger.claims import (
    DEFAULT_CONFIDENCE,
    NUMBER_TYPES,
    Change,
    Decision,
    Incoming,
    Standing,
    canonical_json,
    check_confidence,
    combine_confidence,
    decide,
    encode_value,
    object_key,
)
from ledger.entities import canonical_label, check_name, check_text, check_utf8_size, normalize_name
from ledger.errors import (
    Conflict,
    InvalidInput,
    MissingEvidence,
    NotFound,
    ScopeMismatch,
)
from ledger.records import Citation, Claim, ClaimId, Entity, EntityId
from ledger.timeline import Instant, Precision, TimeInput, check_interval, optional_time, overlaps

EntityRef = Entity | EntityId | int | str
ClaimRef = Claim | ClaimId | int
ASSERTABLE_STATUSES = ("reported", "confirmed", "disputed")
MAX_PREDICATE_LENGTH = 200
MAX_LABEL_LENGTH = 200
#: A scope as stored ("quarantine:" included) is also at most this many bytes of UTF-8: it leads
#: the indexes PostgreSQL limits to 2,704 bytes a row, beside a folded name (entities.MAX_NAME_BYTES)
#: or a source's uri (sources.MAX_URI_BYTES). 200 ASCII characters are 200 bytes; a Chinese one is 3.
MAX_SCOPE_BYTES = 400
MAX_REASON_LENGTH = 10_000
#: The widths of the columns an entity's kind and an alias's language are stored in (a BCP 47
#: language tag needs at most 35 characters).
MAX_KIND_LENGTH = 64
MAX_LANGUAGE_LENGTH = 35
#: Ids are positive and fit a signed 64-bit column on every backend.
MAX_ID = 2**63 - 1


class ClaimDraft(NamedTuple):
    """One assertion for ``Ledger.assert_claims``: the same fields as ``assert_claim``.

    An immutable record (a named tuple: bulk loads build a million of them).
    """

    subject: EntityRef
    predicate: str
    object: EntityRef | None = None
    value: Any = None
    valid_from: TimeInput | None = None
    valid_until: TimeInput | None = None
    evidence: Sequence[Citation] | Citation = ()
    status: str = "reported"
    confidence: float | None = None
    qualifiers: Mapping[str, Any] | None = None
    supersedes: Sequence[ClaimRef] | ClaimRef | None = None
    actor: str | None = None
    scope: str = "default"


@dataclass(slots=True)
class _Prepared:
    scope: str
    subject: EntityRef
    predicate: str
    object: EntityRef | None
    value_text: str | None
    datatype: str | None
    qualifiers: str
    valid_from: Instant | None
    valid_until: Instant | None
    citations: tuple[Citation, ...]
    status: str
    confidence: float | None
    supersedes: frozenset[int]
    actor: str | None
    subject_id: int = 0
    object_id: int | None = None

    @property
    def object_key(self) -> str:
        return object_key(self.object_id, self.value_text, self.datatype)


@dataclass(slots=True)
class _Live:
    """A claim's state while a batch is being decided."""

    claim_id: int
    object_key: str
    status: str
    confidence: float
    valid_from: datetime | None
    valid_until: datetime | None
    valid_from_precision: str | None
    valid_until_precision: str | None
    #: Ids of the sources of its supporting evidence (repeats allowed).
    sources: list[int]
    version_id: int | None
    scope: str = ""
    datatype: str | None = None
    reason: str | None = None
    actor: str | None = None
    cause: str | None = None

    def standing(self, facts: Mapping[int, Mapping[Any, Any]]) -> Standing:
        return Standing(self.claim_id, self.object_key, self.status, self.valid_from, self.valid_until,
                        frozenset(store.document_keys(facts, s) for s in self.sources))

    def independent_sources(self, facts: Mapping[int, Mapping[Any, Any]]) -> int:
        return _independent(self.sources, facts)


def _independent(sources: Iterable[int], facts: Mapping[int, Mapping[Any, Any]]) -> int:
    """How many of these sources are independent of each other."""
    distinct = set(sources)
    if len(distinct) < 2:
        return len(distinct)
    if len(distinct) == 2:
        first, second = (store.independence_keys(facts, s) for s in distinct)
        return 2 if first.isdisjoint(second) else 1
    return store.count_independent([store.independence_keys(facts, s) for s in distinct])


@dataclass(slots=True)
class _Batch:
    """What a batch will insert, collected while deciding and written column-wise by ``_flush``."""

    #: (new claim id, its draft)
    claims: list[tuple[int, _Prepared]] = field(default_factory=list)
    #: Claims that get a new version: their state when the batch is decided is that version.
    versions: dict[int, _Live] = field(default_factory=dict)
    invalidate: list[int] = field(default_factory=list)
    #: (claim id, citation, actor) of new evidence rows
    evidence: list[tuple[int, Citation, str | None]] = field(default_factory=list)
    #: new claim links, without ids (like every row of a batch, they get them when flushed)
    links: list[dict[str, Any]] = field(default_factory=list)


def prepare(draft: ClaimDraft) -> _Prepared:
    """Validate one draft without touching the database."""
    scope = check_scope(draft.scope)
    predicate = check_predicate(draft.predicate)
    if (draft.object is None) == (draft.value is None):
        raise InvalidInput(
            f"claim {predicate!r} needs exactly one of object= (an entity) or value= (a literal); "
            f"got {'both' if draft.object is not None else 'neither'}"
        )
    value_text, datatype = (None, None) if draft.value is None else encode_value(draft.value)
    qualifiers = "{}" if draft.qualifiers is None else canonical_json(draft.qualifiers, what="qualifiers")
    valid_from = optional_time(draft.valid_from, what="valid_from")
    valid_until = optional_time(draft.valid_until, what="valid_until")
    check_interval(valid_from.at if valid_from else None, valid_until.at if valid_until else None)
    if draft.status not in ASSERTABLE_STATUSES:
        hint = " (use retract() or supersede() for that)" if draft.status in ("retracted", "superseded") else ""
        raise InvalidInput(f"status {draft.status!r} cannot be asserted{hint}; use one of {ASSERTABLE_STATUSES}")
    confidence = None if draft.confidence is None else check_confidence(draft.confidence)
    citations = citation_tuple(draft.evidence)
    supported = False
    for citation in citations:
        if not isinstance(citation, Citation):
            raise InvalidInput(
                f"evidence must be citations made by cite(); got {type(citation).__name__}"
            )
        supported = supported or citation.relation == "supports"
    if not supported:
        raise MissingEvidence(
            f"claim {predicate!r} has no supporting evidence; pass evidence=[ledger.cite(source, quote)] "
            f"with a quote from a stored source"
        )
    for citation in citations:
        if citation.scope != scope:
            raise ScopeMismatch(
                f"evidence from source {citation.source_id} belongs to scope {citation.scope!r}, "
                f"but the claim is asserted in scope {scope!r}; cite a source of the same scope"
            )
    return _Prepared(
        scope=scope, subject=draft.subject, predicate=predicate, object=draft.object,
        value_text=value_text, datatype=datatype, qualifiers=qualifiers, valid_from=valid_from,
        valid_until=valid_until, citations=citations, status=draft.status, confidence=confidence,
        supersedes=_NO_CLAIMS if draft.supersedes is None else frozenset(claim_ids(draft.supersedes)),
        actor=None if draft.actor is None else check_actor(draft.actor),
    )


_NO_CLAIMS: frozenset[int] = frozenset()


def citation_tuple(evidence: object) -> tuple[Any, ...]:
    """One citation or an iterable of them as a tuple (items unchecked); InvalidInput for anything else."""
    if type(evidence) is list or type(evidence) is tuple:  # the common cases, before the ABC checks
        return tuple(evidence)
    if isinstance(evidence, Citation):
        return (evidence,)
    if evidence is None:
        return ()
    if isinstance(evidence, (str, bytes, Mapping)) or not isinstance(evidence, Iterable):
        raise InvalidInput(f"evidence must be a citation made by cite() or a list of them; "
                           f"got {type(evidence).__name__}")
    return tuple(evidence)


def check_scope(scope: object) -> str:
    """A scope name, or InvalidInput."""
    if isinstance(scope, str) and scope in _GOOD_SCOPES:
        return scope
    if not isinstance(scope, str) or not scope.strip() or len(scope) > MAX_LABEL_LENGTH:
        raise InvalidInput(f"scope must be a non-empty name of at most {MAX_LABEL_LENGTH} characters "
                           f"({MAX_SCOPE_BYTES} bytes of UTF-8); got {scope!r:.60}")
    check_text(scope, what="scope")
    check_utf8_size(scope, what="scope", limit=MAX_SCOPE_BYTES)
    if len(_GOOD_SCOPES) < 10_000:
        _GOOD_SCOPES.add(scope)
    return scope


_GOOD_SCOPES: set[str] = set()


def check_predicate(predicate: object, *, what: str = "predicate") -> str:
    """A predicate name in its stored form (``canonical_label``: "rent\\u200b" is "rent"), or InvalidInput."""
    if isinstance(predicate, str) and predicate in _GOOD_PREDICATES:
        return predicate
    if not isinstance(predicate, str) or not predicate.strip():
        raise InvalidInput(f"{what} must be a non-empty string; got {predicate!r:.60}")
    if len(predicate) > MAX_PREDICATE_LENGTH or any(c in predicate for c in "\r\n\t"):
        raise InvalidInput(
            f"{what} {predicate[:40]!r} must be one line of at most {MAX_PREDICATE_LENGTH} characters"
        )
    check_text(predicate, what=what)
    canonical = canonical_label(predicate)
    if not canonical:
        raise InvalidInput(f"{what} {predicate!r:.60} has no visible characters; name the relation")
    if len(canonical) > MAX_PREDICATE_LENGTH:  # NFC lengthens some characters: "\u0958" is "\u0915\u093c"
        raise InvalidInput(f"{what} {predicate[:40]!r}… is {len(canonical)} characters long in NFC, the form it is "
                           f"stored in; the limit is {MAX_PREDICATE_LENGTH}")
    if canonical == predicate and len(_GOOD_PREDICATES) < 100_000:
        _GOOD_PREDICATES.add(predicate)
    return canonical


_GOOD_PREDICATES: set[str] = set()


def check_actor(actor: object) -> str | None:
    """An actor label, or InvalidInput."""
    if actor is None:
        return None
    if not isinstance(actor, str) or len(actor) > MAX_LABEL_LENGTH:
        raise InvalidInput(f"actor must be a string of at most {MAX_LABEL_LENGTH} characters; got {actor!r:.60}")
    return check_text(actor, what="actor")


def check_label(value: object, *, what: str, limit: int = MAX_LABEL_LENGTH) -> str | None:
    """An optional short one-line label (entity kind, alias language), or InvalidInput."""
    if value is None:
        return None
    label = check_text(value, what=what, limit=limit)
    if not label.strip():
        raise InvalidInput(f"{what} must be a non-empty label or None; got {label!r}")
    return label


def check_reason(reason: object) -> str | None:
    """An optional free-text reason for a status change, or InvalidInput."""
    if reason is None:
        return None
    return check_text(reason, what="reason", limit=MAX_REASON_LENGTH, one_line=False)


def check_id(value: object, *, what: str) -> int:
    """A row id given as an int, or InvalidInput (bools, other types, out of range)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput(f"expected {what}, got {type(value).__name__}")
    if not 1 <= value <= MAX_ID:
        shown = str(value) if abs(value) < 10**30 else f"a {value.bit_length()}-bit number"
        raise InvalidInput(f"{what} {shown} is out of range; ids are positive integers below 2**63")
    return value


def claim_ids(refs: object) -> list[int]:
    """Claim ids from a claim record, an id, or a sequence of them."""
    if refs is None:
        return []
    if isinstance(refs, (list, tuple, set, frozenset)):
        return [claim_id(r) for r in refs]
    return [claim_id(refs)]


def claim_id(ref: object) -> int:
    """The id of a claim record or id."""
    if isinstance(ref, bool):
        raise InvalidInput(f"expected a claim or claim id, got {ref!r}")
    if isinstance(ref, int):
        return check_id(ref, what="claim id")
    identifier = getattr(ref, "id", None)
    if isinstance(identifier, int) and hasattr(ref, "predicate"):
        return identifier
    raise InvalidInput(f"expected a claim or claim id, got {type(ref).__name__}")


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
    prepared = [prepare(d) for d in drafts]
    _resolve_entities(connection, prepared, ids, now)
    facts = _check_citations(connection, [(p.scope, p.citations) for p in prepared])
    definitions = store.predicate_rows(connection, {p.predicate for p in prepared})
    _check_predicate_kinds(prepared, definitions)
    live = _load_standing(connection, prepared, facts)
    by_id = {claim.claim_id: claim for group in live.values() for claim in group}
    batch = _Batch()
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
            families = frozenset().union(
                *(store.document_keys(facts, c.source_id) for c in item.citations if c.relation == "supports"))
            incoming = Incoming(item.object_key, _at(item.valid_from), _at(item.valid_until), families,
                                item.supersedes)
            decision = decide(incoming, [c.standing(facts) for c in candidates],
                              functional=_functional(definitions.get(item.predicate), item.object_id), now=now)
        else:
            decision = _UNCONTESTED  # nothing standing to compare with: the common case in bulk loads
        if decision.corroborates is not None:
            target = next(c for c in candidates if c.claim_id == decision.corroborates)
            _corroborate(batch, target, item, facts)
            disputed_by_rivals = target.status == "disputed" and _rivals(target, group)
            _apply(batch, decision, target.claim_id, item, by_id)  # claims it names in supersedes=
            if disputed_by_rivals and not _rivals(target, group):  # the named claims were its rivals
                named = ", ".join(str(change.claim_id) for change in decision.changes)
                _change(batch, target, status="confirmed" if target.independent_sources(facts) >= 2 else "reported",
                        interval=None, cause=f"dispute settled: claim {named} superseded", reason=None,
                        actor=item.actor)
            results.append(ClaimId(target.claim_id))
            continue
        new_id = next_claim_id
        next_claim_id += 1
        ends_at = None
        if decision.links:
            ends_at = next((c for c in candidates for link in decision.links
                            if link.from_claim_id == c.claim_id and link.to_claim_id is None), None)
        created = _create(batch, new_id, item, decision, facts,
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
    _flush(connection, batch, ids, now)
    return results


def _continue(
    connection: Connection, batch: _Batch, ids: store.Ids, resume: Change, interruption: _Live, item: _Prepared,
    interrupted: _Live, until_precision: str | None, facts: Mapping[int, Mapping[Any, Any]],
) -> _Live:
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
        statement = dict(connection.execute(_CLAIM_KEY, {"id": interrupted.claim_id}).mappings().one())
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
    again = _Prepared(
        scope=interrupted.scope, subject=statement["subject_id"], predicate=statement["predicate"],
        object=statement["object_id"], value_text=statement["value"], datatype=statement["datatype"],
        qualifiers=statement["qualifiers"],
        valid_from=Instant(resume.valid_from, cast(Precision, interruption.valid_until_precision)),
        valid_until=until, citations=citations, status=resume.status, confidence=interrupted.confidence,
        supersedes=frozenset(), actor=item.actor, subject_id=statement["subject_id"], object_id=statement["object_id"],
    )
    claim_id = ids.take(store.claims)
    cause = f"asserted; resumes claim {interrupted.claim_id} after claim {interruption.claim_id} ends"
    continuation = _create(batch, claim_id, again, Decision(cause=cause), facts, ends_precision=None)
    batch.links.append(_link("continues", claim_id, interrupted.claim_id, interrupted.scope, item.actor))
    batch.links.append(_link("resumes", claim_id, interruption.claim_id, interrupted.scope, item.actor))
    return continuation


_UNCONTESTED = Decision()


def _apply(batch: _Batch, decision: Decision, claim_id: int, item: _Prepared, by_id: Mapping[int, _Live]) -> None:
    """Queue what ``decision`` does to other claims; ``claim_id`` is the claim that does it (the
    new one, or the one it corroborates), which links drafted with None stand for."""
    for change in decision.changes:
        target = by_id[change.claim_id]
        _change(batch, target, status=change.status, interval=_change_interval(change, target, item),
                cause=f"{change.cause} (claim {claim_id})", reason=None, actor=item.actor)
    for link in decision.links:
        batch.links.append(_link(link.kind, link.from_claim_id or claim_id, link.to_claim_id or claim_id,
                                 item.scope, item.actor))


def _rivals(claim: _Live, group: Sequence[_Live]) -> bool:
    """Whether another value still disputes ``claim`` over some of its interval."""
    return any(
        other.status == "disputed" and other.object_key != claim.object_key
        and overlaps(other.valid_from, other.valid_until, claim.valid_from, claim.valid_until)
        for other in group
    )


def _check_same_datatype(item: _Prepared, group: Sequence[_Live]) -> None:
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


def _functional(definition: Mapping[Any, Any] | None, object_id: int | None) -> bool:
    if definition is not None:
        return bool(definition["cardinality"] == "one")
    return object_id is None  # undeclared: one for values, many for entities


def _check_predicate_kinds(prepared: Sequence[_Prepared], definitions: Mapping[str, Mapping[Any, Any]]) -> None:
    for item in prepared:
        definition = definitions.get(item.predicate)
        if definition is None:
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


Key = tuple[str, str] | int | None


def _resolve_entities(connection: Connection, prepared: Sequence[_Prepared], ids: store.Ids, now: datetime) -> None:
    names: dict[tuple[str, str], str] = {}
    given: set[int] = set()
    # Per item, how its subject and its object are found: a (scope, normalized name) key, or
    # an entity id the caller gave (None: no object).
    keys: list[tuple[Key, Key]] = []

    def key_of(ref: EntityRef, scope: str) -> Key:
        if isinstance(ref, str):
            name = check_name(ref)
            key = (scope, normalize_name(name))
            names.setdefault(key, name)
            return key
        entity_id = entity_id_of(ref)
        given.add(entity_id)
        return entity_id

    for item in prepared:
        keys.append((key_of(item.subject, item.scope), None if item.object is None else key_of(item.object, item.scope)))
    roots: dict[tuple[str, str], int] = {}
    for scope in {scope for scope, _ in names}:
        found = store.root_entity_ids(connection, [n for s, n in names if s == scope], scope)
        roots.update({(scope, n): i for n, i in found.items()})
    for scope in {scope for scope, _ in names}:
        missing = [(n, name) for (s, n), name in names.items() if s == scope and (s, n) not in roots]
        created = store.create_entities(connection, ids, scope=scope, names=[name for _, name in missing], now=now)
        roots.update({(scope, n): entity_id for (n, _), entity_id in zip(missing, created, strict=True)})
    known = _entity_scopes(connection, given)

    def resolve(key: Key, scope: str) -> int:
        if type(key) is tuple:
            return roots[key]
        assert isinstance(key, int)
        entity_id = key
        if entity_id not in known:
            raise NotFound(f"entity {entity_id} does not exist; create it with entity(name)")
        entity_scope, root = known[entity_id]
        if entity_scope != scope:
            raise ScopeMismatch(f"entity {entity_id} belongs to scope {entity_scope!r}, not {scope!r}")
        return root

    for item, (subject, target) in zip(prepared, keys, strict=True):
        item.subject_id = resolve(subject, item.scope)
        item.object_id = None if target is None else resolve(target, item.scope)


def entity_id_of(ref: EntityRef) -> int:
    """The id of an Entity record or id."""
    if isinstance(ref, Entity):
        return int(ref.id)
    if isinstance(ref, int) and not isinstance(ref, bool):
        return check_id(ref, what="entity id")
    raise InvalidInput(f"expected an entity, an entity id or a name; got {type(ref).__name__}")


_ENTITY_SCOPES = select(store.entities.c.id, store.entities.c.scope, store.entities.c.merged_into).where(
    store.one_of(store.entities.c.id, "ids"))


def _entity_scopes(connection: Connection, entity_ids: set[int]) -> dict[int, tuple[str, int]]:
    if not entity_ids:
        return {}
    rows = connection.execute(_ENTITY_SCOPES, {"ids": sorted(entity_ids)}).all()
    return {i: (scope, merged or i) for i, scope, merged in rows}


def _check_citations(
    connection: Connection, cited: Sequence[tuple[str, Sequence[Citation]]]
) -> dict[int, Mapping[Any, Any]]:
    """Check that each (scope, citations) pair cites existing sources of that scope, at the
    offsets where their excerpts really are; returns the sources' facts."""
    source_ids = {c.source_id for _, citations in cited for c in citations}
    facts = store.source_facts(connection, source_ids)
    texts = store.source_texts(connection, source_ids)
    for scope, citations in cited:
        for citation in citations:
            row = facts.get(citation.source_id)
            if row is None:
                raise NotFound(f"evidence cites source {citation.source_id}, which does not exist")
            if row["scope"] != scope:
                raise ScopeMismatch(
                    f"source {citation.source_id} belongs to scope {row['scope']!r}, not {scope!r}"
                )
            text = texts[citation.source_id]
            if text[citation.char_start:citation.char_end] != citation.excerpt:
                raise InvalidInput(
                    f"the excerpt {citation.excerpt[:60]!r} does not occur at {citation.char_start}–"
                    f"{citation.char_end} of source {citation.source_id}; make citations with cite()"
                )
    return facts


def _load_standing(
    connection: Connection, prepared: Sequence[_Prepared], facts: dict[int, Mapping[Any, Any]]
) -> dict[tuple[str, int, str, str], list[_Live]]:
    subjects = {item.subject_id for item in prepared}
    merged = _merged_children(connection, subjects)
    keys = {(item.scope, s, item.predicate) for item in prepared for s in [item.subject_id, *merged.get(item.subject_id, ())]}
    explicit = {i for item in prepared for i in item.supersedes}
    rows = store.standing_claims(connection, keys, explicit)
    supports = store.supporting_sources(connection, [r["claim_id"] for r in rows])
    facts.update(store.source_facts(connection, {s for ids in supports.values() for s in ids} - set(facts)))
    root_of = {child: root for root, children in merged.items() for child in children}
    live: dict[tuple[str, int, str, str], list[_Live]] = {}
    for row in rows:
        sources = supports.get(row["claim_id"], set())
        subject = root_of.get(row["subject_id"], row["subject_id"])
        live.setdefault((row["scope"], subject, row["predicate"], row["qualifiers"]), []).append(_Live(
            claim_id=row["claim_id"], object_key=object_key(row["object_id"], row["value"], row["datatype"]),
            status=row["status"],
            confidence=row["confidence"], valid_from=row["valid_from"], valid_until=row["valid_until"],
            valid_from_precision=row["valid_from_precision"], valid_until_precision=row["valid_until_precision"],
            sources=list(sources), version_id=row["version_id"], datatype=row["datatype"], scope=row["scope"], reason=row["reason"], actor=row["actor"], cause=row["cause"],
        ))
    return live


_MERGED_CHILDREN = select(store.entities.c.merged_into, store.entities.c.id).where(
    store.one_of(store.entities.c.merged_into, "ids"))


def _merged_children(connection: Connection, roots: set[int]) -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    if roots:
        for root, child in connection.execute(_MERGED_CHILDREN, {"ids": sorted(roots)}).all():
            children.setdefault(root, []).append(child)
    return children


def _create(
    batch: _Batch, claim_id: int, item: _Prepared, decision: Decision, facts: Mapping[int, Mapping[Any, Any]],
    *, ends_precision: str | None,
) -> _Live:
    batch.claims.append((claim_id, item))
    supporting = [c for c in item.citations if c.relation == "supports"]
    confidence = item.confidence
    if confidence is None:
        confidence = _default_confidence(facts, supporting)
    status = item.status
    valid_until = decision.valid_until if item.valid_until is None else item.valid_until.at
    until_precision = item.valid_until.precision if item.valid_until is not None else ends_precision
    claim = _Live(
        claim_id=claim_id, object_key=item.object_key, status=status, confidence=confidence,
        valid_from=_at(item.valid_from), valid_until=valid_until,
        valid_from_precision=item.valid_from.precision if item.valid_from else None,
        valid_until_precision=until_precision,
        sources=[c.source_id for c in supporting], version_id=None, scope=item.scope, datatype=item.datatype,
        actor=item.actor,
        cause=decision.cause,
    )
    independent = claim.independent_sources(facts) if len(claim.sources) >= 2 else len(claim.sources)
    if item.confidence is None and independent >= 2:
        # as if each independent source had been cited in turn: 1 - (1 - c)^n
        claim.confidence = 1.0 - (1.0 - confidence) ** independent
    if decision.disputed or len(supporting) < len(item.citations):  # contradicting evidence came along
        claim.status = "disputed"
    elif claim.status == "reported" and independent >= 2:
        claim.status = "confirmed"
    batch.versions[claim_id] = claim
    batch.evidence.extend((claim_id, citation, item.actor) for citation in item.citations)
    return claim


def _default_confidence(facts: Mapping[int, Mapping[Any, Any]], citations: Sequence[Citation]) -> float:
    for citation in citations:
        if facts[citation.source_id]["trust"] == "trusted":
            return DEFAULT_CONFIDENCE["trusted"]
    return DEFAULT_CONFIDENCE["untrusted"]


def _corroborate(batch: _Batch, target: _Live, item: _Prepared, facts: Mapping[int, Mapping[Any, Any]]) -> None:
    batch.evidence.extend((target.claim_id, citation, item.actor) for citation in item.citations)
    supporting = [c for c in item.citations if c.relation == "supports"]
    before = target.independent_sources(facts)
    target.sources.extend(c.source_id for c in supporting)
    after = target.independent_sources(facts)
    contradicted = any(c.relation == "contradicts" for c in item.citations)
    if after <= before and not contradicted:
        return  # the same source again: more rows, not more evidence
    confidence = target.confidence
    if after > before:
        added = item.confidence if item.confidence is not None else _default_confidence(facts, supporting)
        for _ in range(after - before):  # each new independent source, as if cited in turn
            confidence = combine_confidence(confidence, added)
    status = target.status
    if contradicted:
        status = "disputed"
    elif status == "reported" and after >= 2:
        status = "confirmed"
    _change(batch, target, status=status, interval=None,
            cause=f"corroborated by {after} independent source(s)", reason=None, actor=item.actor,
            confidence=confidence)


Interval = tuple[datetime | None, datetime | None, str | None, str | None]


def _change(
    batch: _Batch, target: _Live, *, status: str, interval: Interval | None, cause: str,
    reason: str | None, actor: str | None, confidence: float | None = None,
) -> None:
    """Give ``target`` a new current version (or amend the one this batch already made).

    Every change to a claim's versioned state goes through here: the batch writes the state a
    queued claim has when it is flushed as its new version.

    ``interval`` is (valid_from, valid_until, their precisions), or None to keep it.
    """
    if interval is not None:
        (target.valid_from, target.valid_until,
         target.valid_from_precision, target.valid_until_precision) = interval
    target.status = status
    target.cause, target.reason, target.actor = cause, reason, actor
    if confidence is not None:
        target.confidence = confidence
    if target.version_id is not None:
        batch.invalidate.append(target.version_id)
        target.version_id = None
    batch.versions[target.claim_id] = target


def _change_interval(change: Change, target: _Live, item: _Prepared) -> Interval | None:
    if change.keeps_interval:
        return None
    if change.valid_from == change.valid_until:  # superseded as a whole: [t, t)
        precision = target.valid_from_precision if target.valid_from is not None else "second"
        return change.valid_from, change.valid_until, precision, precision
    until_precision = item.valid_from.precision if item.valid_from else None
    return change.valid_from, change.valid_until, target.valid_from_precision, until_precision


_LOCATORS: dict[int, tuple[Citation, store.JsonText]] = {}


def _locator_json(citation: Citation) -> store.JsonText:
    """The citation's locator as JSON, serialized once however many claims reuse the citation."""
    cached = _LOCATORS.get(id(citation))
    if cached is None or cached[0] is not citation:
        if len(_LOCATORS) > 100_000:
            _LOCATORS.clear()
        cached = _LOCATORS[id(citation)] = (citation, store.json_text(citation.locator))
    return cached[1]


def _link(kind: str, source: int, target: int, scope: str, actor: str | None,
          reason: str | None = None) -> dict[str, Any]:
    return {"scope": scope, "kind": kind, "from_claim_id": source, "to_claim_id": target, "reason": reason,
            "actor": actor}


def _flush(connection: Connection, batch: _Batch, ids: store.Ids, now: datetime) -> None:
    recorded = {"recorded_at": now}
    if batch.claims:
        claim_ids, items = zip(*batch.claims)
        columns = _columns(items, _CLAIM_FIELDS)
        columns["value"] = columns.pop("value_text")
        store.insert_columns(connection, store.claims, {"id": claim_ids, **columns}, same=recorded)
    store.invalidate_versions(connection, batch.invalidate, now)
    if batch.versions:
        first = ids.take(store.versions, len(batch.versions))
        store.insert_columns(connection, store.versions, {
            "id": range(first, first + len(batch.versions)), **_columns(batch.versions.values(), _VERSION_FIELDS),
        }, same=recorded)
    cited = _unrepeated(connection, batch)
    if cited:
        claim_ids, citations, actors = zip(*cited)
        first = ids.take(store.evidence, len(citations))
        store.insert_columns(connection, store.evidence, {
            "id": range(first, first + len(citations)), "claim_id": claim_ids, **_columns(citations, _CITATION_FIELDS),
            "locator": list(map(_locator_json, citations)), "actor": actors,
        }, same={**recorded, **_CITED})
    if batch.links:
        first = ids.take(store.links, len(batch.links))
        store.insert_rows(connection, store.links, [{"id": first + n, **link} for n, link in enumerate(batch.links)],
                          same=recorded)


def _unrepeated(connection: Connection, batch: _Batch) -> list[tuple[int, Citation, str | None]]:
    """The batch's evidence minus what its claims already have (the same source, span and
    relation): asserting a claim again from the same quote adds no row."""
    created = {claim_id for claim_id, _ in batch.claims}
    seen = store.evidence_spans(connection, {claim_id for claim_id, _, _ in batch.evidence} - created)
    kept = []
    for claim_id, citation, actor in batch.evidence:
        span = (claim_id, citation.source_id, citation.char_start, citation.char_end, citation.relation)
        if span not in seen:
            seen.add(span)
            kept.append((claim_id, citation, actor))
    return kept


_CLAIM_FIELDS = ("scope", "subject_id", "predicate", "object_id", "value_text", "datatype", "qualifiers", "actor")
_VERSION_FIELDS = ("claim_id", "status", "confidence", "valid_from", "valid_until", "valid_from_precision",
                   "valid_until_precision", "reason", "actor", "cause")
_CITATION_FIELDS = ("source_id", "relation", "excerpt", "char_start", "char_end", "page")


def _columns(objects: Iterable[Any], names: Sequence[str]) -> dict[str, list[Any]]:
    """The named attributes of ``objects`` as columns (attrgetter and map keep it in C)."""
    listed = list(objects)
    return {name: list(map(attrgetter(name), listed)) for name in names}


_CITED = {"anchor_method": "cited", "anchor_score": 1.0}


# ---------------------------------------------------------------- explicit lifecycle calls

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
    batch = _Batch()
    interval: Interval | None = None
    cause = status
    if status == "confirmed" and row["status"] == "superseded":
        status = "superseded"  # it held until a newer value began: the confirmation is recorded, it stays closed
    if superseded_by is not None:
        at = target.valid_from if target.valid_from is not None else now
        precision = target.valid_from_precision if target.valid_from is not None else "second"
        interval = (at, at, precision, precision)
        cause = f"superseded explicitly (claim {superseded_by})"
        batch.links.append(_link("supersedes", superseded_by, claim, scope, actor, reason))
    _change(batch, target, status=status, interval=interval, cause=cause, reason=reason, actor=actor)
    if status == "retracted":
        _undo_effects(connection, batch, claim, actor)
    _check_citations(connection, [(scope, citations)])
    batch.evidence.extend((claim, citation, actor) for citation in citations)
    _flush(connection, batch, ids, now)
    if status == "confirmed":  # confirming one side of a live conflict would leave two undisputed values
        subject = connection.execute(select(store.claims.c.subject_id).where(store.claims.c.id == claim)).scalar_one()
        root = _entity_scopes(connection, {subject})[subject][1]
        refuse_functional_overlaps(connection, scope=scope, subjects=store.merged_ids(connection, root),
                                   because=f"confirming claim {claim}")


def _never_valid(version: Mapping[Any, Any]) -> bool:
    """Whether a version row holds at no time: superseded as a whole, its interval [t, t)."""
    return version["valid_from"] is not None and version["valid_from"] == version["valid_until"]


def _versioned(claim: int, version: Mapping[Any, Any]) -> _Live:
    """A claim in its current ``version`` row, for a status change (its value is not compared)."""
    return _Live(
        claim_id=claim, object_key="", status=version["status"], confidence=version["confidence"],
        valid_from=version["valid_from"], valid_until=version["valid_until"],
        valid_from_precision=version["valid_from_precision"], valid_until_precision=version["valid_until_precision"],
        sources=[], version_id=version["id"],
    )


def _undo_effects(connection: Connection, batch: _Batch, retracted: int, actor: str | None) -> None:
    """Take back what a claim did to others when it is retracted: a retracted claim was never to
    be believed. (The links stay: they record what happened.)

    A claim it closed or superseded gets back the interval it had before, if it still has the
    one the retracted claim gave it, whatever versions came since (a corroboration, a
    confirmation); a claim asserted open-ended but backfilled against it is reopened. A claim
    it disputed, or that was asserted in conflict with it, is settled unless another claim
    still disputes it or someone disputed it explicitly. A settled claim is "confirmed" if it
    was confirmed explicitly or by independent sources, else "reported".
    """
    marker = f"(claim {retracted})"
    rivals = _linked(connection, retracted, kind="contradicts")
    continuations = _continuations(connection, retracted)
    for continuation in sorted(continuations):  # they stand on the retracted claim's evidence
        _change(batch, _versioned(continuation, store.current_version(connection, continuation)),
                status="retracted", cause=f"retracted: claim {retracted} was retracted", interval=None,
                reason=None, actor=actor)
    resumed = _resumed_after(connection, retracted)
    for other in sorted(_linked(connection, retracted) - continuations - set(resumed.values())):
        current = store.current_version(connection, other)
        history = connection.execute(
            select(store.versions).where(store.versions.c.claim_id == other).order_by(store.versions.c.id)
        ).mappings().all()
        made = [n for n, version in enumerate(history) if (version["cause"] or "").endswith(marker)]
        interval = _interval(current)
        if made and made[0] > 0 and interval == _interval(history[made[-1]]):
            interval = _interval(history[made[0] - 1])  # closed or superseded by it: as before
            if other in resumed:  # ... up to where its continuation after the retracted claim begins
                start = store.first_version(connection, resumed[other])
                interval = (interval[0], start["valid_from"], interval[2], start["valid_from_precision"])
        elif f"backfilled: ends where claim {retracted} starts" in (history[0]["cause"] or "") and (
            current["valid_until"] == history[0]["valid_until"]
        ):
            interval = (interval[0], None, interval[2], None)  # asserted open-ended
        settled = _undisputed_status(connection, other, history)
        status = current["status"]
        if status == "superseded" and interval != _interval(current):
            status = settled
        elif status == "disputed" and other in rivals:
            explicitly = [v["cause"] for v in history if v["cause"] in ("confirmed", "disputed")]
            if not (explicitly[-1:] == ["disputed"] or _disputed_by_others(connection, other, retracted)):
                status = settled
        if (status, interval) == (current["status"], _interval(current)):
            continue  # nothing it did is left, or what it did was changed since
        restored = {"status": status, "valid_from": interval[0], "valid_until": interval[1],
                    "valid_from_precision": interval[2], "valid_until_precision": interval[3]}
        until = _restorable_until(connection, other, restored, retracted)
        if until is None:
            continue
        if status != "disputed" and until[0] is not None and until[0] != interval[1]:
            status = "superseded"  # a value asserted since closes it, as an update would have
        _change(batch, _versioned(other, current), status=status, cause=f"restored: claim {retracted} was retracted",
                interval=(interval[0], until[0], interval[2], until[1]), reason=None, actor=actor)
        if current["status"] == "disputed" and status != "disputed":  # its continuations are settled alike
            for continuation in _continuations(connection, other):
                version = store.current_version(connection, continuation)
                if version["status"] == "disputed":
                    _change(batch, _versioned(continuation, version), status=status,
                            cause=f"restored: claim {retracted} was retracted", interval=None, reason=None, actor=actor)


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


def _undisputed_status(connection: Connection, claim: int, history: Sequence[Mapping[Any, Any]] = ()) -> str:
    """"confirmed" if independent sources support the claim, or its ``history`` shows it was
    confirmed explicitly (and not disputed explicitly since), else "reported"."""
    explicitly = [v["cause"] for v in history if v["cause"] in ("confirmed", "disputed")]
    if explicitly[-1:] == ["confirmed"]:
        return "confirmed"
    sources = store.supporting_sources(connection, [claim]).get(claim, set())
    if len(sources) < 2:
        return "reported"
    return "confirmed" if _independent(sources, store.source_facts(connection, sources)) >= 2 else "reported"


def _restorable_until(
    connection: Connection, claim: int, previous: Mapping[Any, Any], retracted: int
) -> tuple[datetime | None, str | None] | None:
    """The end (and its precision) ``claim`` can get back with its ``previous`` version, keeping
    one undisputed value per functional predicate at a time: its old end, or the start of a
    value asserted since that begins later (as an update would have closed it); None if a
    value asserted since holds from its start already."""
    kept = (previous["valid_until"], previous["valid_until_precision"])
    if previous["status"] == "disputed" or _never_valid(previous):
        return kept
    row = connection.execute(_CLAIM_KEY, {"id": claim}).mappings().one()
    if not _functional(store.predicate_rows(connection, {row["predicate"]}).get(row["predicate"]), row["object_id"]):
        return kept
    root = _entity_scopes(connection, {row["subject_id"]})[row["subject_id"]][1]
    keys = {(row["scope"], subject, row["predicate"]) for subject in store.merged_ids(connection, root)}
    start, (until, precision) = previous["valid_from"], kept
    for other in store.standing_claims(connection, keys):
        if (
            other["claim_id"] in (claim, retracted) or other["status"] == "disputed"
            or other["qualifiers"] != row["qualifiers"]
            or (other["object_id"], other["value"]) == (row["object_id"], row["value"])
            or _never_valid(other)
            or not overlaps(start, until, other["valid_from"], other["valid_until"])
        ):
            continue
        if start is None or other["valid_from"] is None or other["valid_from"] <= start:
            return None
        until, precision = other["valid_from"], other["valid_from_precision"]
    return until, precision


_CLAIM_KEY = select(
    store.claims.c.scope, store.claims.c.subject_id, store.claims.c.predicate, store.claims.c.qualifiers,
    store.claims.c.object_id, store.claims.c.value, store.claims.c.datatype,
).where(store.claims.c.id == bindparam("id"))


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
    roots = _entity_scopes(connection, {r["subject_id"] for r in rows})
    definitions = store.predicate_rows(connection, {r["predicate"] for r in rows})
    groups: dict[tuple[Any, ...], list[Mapping[Any, Any]]] = {}
    for row in rows:
        definition = definitions.get(row["predicate"])
        if _functional(definition, row["object_id"]):
            key = (row["scope"], roots[row["subject_id"]][1], row["predicate"], row["qualifiers"])
            groups.setdefault(key, []).append(row)
    for group in groups.values():
        group.sort(key=lambda r: (r["valid_from"] is not None, r["valid_from"] or datetime.min, r["claim_id"]))
        active: list[Mapping[Any, Any]] = []
        for row in group:
            active = [a for a in active if overlaps(a["valid_from"], a["valid_until"], row["valid_from"], row["valid_until"])]
            clash = next((a for a in active if (a["object_id"], a["value"]) != (row["object_id"], row["value"])), None)
            if clash is not None:
                raise Conflict(
                    f"{because} would give {row['predicate']!r} two undisputed values at the same time (claims "
                    f"{clash['claim_id']} and {row['claim_id']}); dispute, retract or supersede one of them first"
                )
            active.append(row)


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
