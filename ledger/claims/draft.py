"""Claim drafts: what a caller asserts, validated into the form the write path works on (pure)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from ledger.claims.values import canonical_json, check_confidence, encode_value, object_key
from ledger.errors import InvalidInput, MissingEvidence, ScopeMismatch
from ledger.records import Citation
from ledger.timeline import Instant, TimeInput, check_interval, optional_time
from ledger.validate import (
    ASSERTABLE_STATUSES,
    ClaimRef,
    EntityRef,
    check_actor,
    check_predicate,
    check_scope,
    citation_tuple,
    claim_ids,
)


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
    #: False: an unknown subject or object name is refused (UnknownName, with suggestions)
    #: instead of creating a new entity that may be a misspelt known one.
    create_entities: bool = True


@dataclass(slots=True)
class Prepared:
    """A validated draft; the write path fills in its entity ids."""

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
    create_entities: bool = True

    @property
    def object_key(self) -> str:
        return object_key(self.object_id, self.value_text, self.datatype)


def prepare(draft: ClaimDraft) -> Prepared:
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
            if citation.scope == f"quarantine:{scope}":
                raise ScopeMismatch(
                    f"source {citation.source_id} is untrusted and lives in {citation.scope}; assert the claim in "
                    f"{citation.scope} and promote it (Ledger.promote), or cite a trusted source")
            raise ScopeMismatch(
                f"evidence from source {citation.source_id} belongs to scope {citation.scope!r}, "
                f"but the claim is asserted in scope {scope!r}; cite a source of the same scope"
            )
    return Prepared(
        scope=scope, subject=draft.subject, predicate=predicate, object=draft.object,
        value_text=value_text, datatype=datatype, qualifiers=qualifiers, valid_from=valid_from,
        valid_until=valid_until, citations=citations, status=draft.status, confidence=confidence,
        supersedes=_NO_CLAIMS if draft.supersedes is None else frozenset(claim_ids(draft.supersedes)),
        actor=None if draft.actor is None else check_actor(draft.actor),
        create_entities=_flag(draft.create_entities, "create_entities"),
    )


def _flag(value: object, name: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidInput(f"{name} must be True or False, not {value!r}")
    return value


_NO_CLAIMS: frozenset[int] = frozenset()


_DRAFT_FIELDS = frozenset(ClaimDraft._fields)


def drafts(items: object) -> list[ClaimDraft]:
    """ClaimDrafts from a list of drafts or dicts with the same keys, or InvalidInput."""
    if isinstance(items, (str, bytes, Mapping, ClaimDraft)) or not isinstance(items, Iterable):
        raise InvalidInput(f"assert_claims takes a list of ClaimDrafts or dicts, not {type(items).__name__}; "
                           "for one claim, use assert_claim or pass [draft]")
    return [item if isinstance(item, ClaimDraft) else _from_mapping(item) for item in items]


def _from_mapping(data: object) -> ClaimDraft:
    if not isinstance(data, Mapping):
        raise InvalidInput(f"each claim must be a ClaimDraft or a dict; got {type(data).__name__}")
    if not _DRAFT_FIELDS.issuperset(data):
        unknown = set(data) - _DRAFT_FIELDS
        raise InvalidInput(f"unknown claim field(s) {sorted(unknown, key=str)}; known: {sorted(_DRAFT_FIELDS)}")
    if "subject" not in data or "predicate" not in data:
        raise InvalidInput("each claim needs 'subject' and 'predicate'")
    return ClaimDraft(**data)
