"""Argument checks and limits shared by the facade, the write path and the CLI (pure)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from ledger.entities import canonical_label, check_text, check_utf8_size
from ledger.errors import InvalidInput
from ledger.records import (
    STATUSES,
    VISIBLE_STATUSES,
    Citation,
    Claim,
    ClaimId,
    Entity,
    EntityId,
    Source,
    SourceId,
)
from ledger.timeline import TimeInput, parse_time

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


def entity_id_of(ref: EntityRef) -> int:
    """The id of an Entity record or id."""
    return _id_of(ref, Entity, what="entity id", expected="expected an entity, an entity id or a name;")


SourceRef = Source | SourceId | int


def source_id(source: object) -> int:
    """The id of a source record or id."""
    return _id_of(source, Source, what="source id", expected="expected a source or source id,")


def _id_of(ref: object, record: type[Entity] | type[Source], *, what: str, expected: str) -> int:
    if isinstance(ref, record):
        return int(ref.id)
    if isinstance(ref, int) and not isinstance(ref, bool):
        return check_id(ref, what=what)
    raise InvalidInput(f"{expected} got {type(ref).__name__}")


def entity_ref(entity: EntityRef | None) -> int | str | None:
    """An entity named by text (checked) or by record or id (its id); None stays None."""
    if entity is None:
        return None
    if isinstance(entity, str):
        return check_text(entity, what="entity name", one_line=False)
    return entity_id_of(entity)


def entity_label(entity: EntityRef) -> str:
    """How an error message names an entity the caller gave."""
    return repr(entity) if isinstance(entity, str) else f"entity {entity_id_of(entity)}"


def optional_predicate(predicate: str | None) -> str | None:
    """A predicate filter: None, or a predicate in its stored form."""
    return None if predicate is None else check_predicate(predicate)


def limit(value: int | None, name: str, default: int) -> int:
    """A size limit given to an ingester: ``default`` for None, else a whole number >= 1."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidInput(f"{name} must be a whole number >= 1, not {value!r:.40}")
    return value


def moment(value: TimeInput | None, what: str) -> datetime | None:
    """A time argument as an aware datetime (the start of a partial date), or None."""
    return None if value is None else parse_time(value, what=what).at


def during(value: tuple[TimeInput, TimeInput] | None) -> tuple[datetime, datetime] | None:
    """A closed-open (start, end) pair of times, or None."""
    if value is None:
        return None
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise InvalidInput("during must be a pair (start, end)")
    start, end = parse_time(value[0], what="during start").at, parse_time(value[1], what="during end").at
    if end <= start:
        raise InvalidInput("during=(start, end) needs end later than start")
    return start, end


def statuses(chosen: Iterable[str] | None) -> tuple[str, ...]:
    """Statuses to read: the visible ones for None, else known statuses only."""
    if chosen is None:
        return VISIBLE_STATUSES
    if isinstance(chosen, str):
        chosen = [chosen]
    if not isinstance(chosen, Iterable):
        raise InvalidInput(f"statuses must be a list of statuses, not {type(chosen).__name__}; "
                           f"use some of {STATUSES}")
    picked = tuple(chosen)
    unknown = [s for s in picked if s not in STATUSES]
    if unknown or not picked:
        raise InvalidInput(f"unknown status {unknown or picked!r}; use some of {STATUSES}")
    return picked


def citations(evidence: object, *, relation: str | None = None,
              use: str = "") -> tuple[Citation, ...]:
    """Citations made by cite() (all of ``relation`` if given), or InvalidInput naming ``use``."""
    if evidence is None:
        return ()
    items = citation_tuple(evidence)
    for item in items:
        if not isinstance(item, Citation):
            raise InvalidInput(f"evidence must be citations made by cite(); got {type(item).__name__}")
        if relation is not None and item.relation != relation:
            raise InvalidInput(f"{use} takes {'supporting' if relation == 'supports' else 'contradicting'} "
                               f"evidence; cite it with relation={relation!r}")
    return items
