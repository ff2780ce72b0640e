"""Claim lifecycle rules (DESIGN.md §4) as pure decisions; the store carries them out.

``decide`` compares a new assertion with the standing claims of the same scope, subject,
predicate and qualifiers and returns what should happen: corroborate an existing claim, or
add a new one and close, supersede or dispute others. Nothing here touches a database.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from ledger.entities import check_text
from ledger.errors import InvalidInput
from ledger.timeline import overlaps

#: Confidence given to an assertion that names none, by the trust of its best source.
DEFAULT_CONFIDENCE = {"trusted": 0.6, "untrusted": 0.2}
MAX_QUALIFIER_DEPTH = 8
MAX_VALUE_LENGTH = 100_000
#: The datatypes ``encode_value`` gives values, which ``define_predicate(datatype=)`` may require.
DATATYPES = ("string", "integer", "number", "decimal", "boolean", "date", "datetime", "json")


@dataclass(frozen=True, slots=True)
class Standing:
    """An existing claim's current version, as the rules see it."""

    claim_id: int
    object_key: str
    status: str
    valid_from: datetime | None
    valid_until: datetime | None
    #: For each source of its supporting evidence, the keys of the document it is
    #: (``store.document_keys``: its revision family, its bytes).
    families: frozenset[frozenset[str]]

    @property
    def empty(self) -> bool:
        """A claim superseded as a whole holds at no time."""
        return self.valid_from is not None and self.valid_until is not None and self.valid_until <= self.valid_from


@dataclass(frozen=True, slots=True)
class Incoming:
    """A new assertion, as the rules see it."""

    object_key: str
    valid_from: datetime | None
    valid_until: datetime | None
    #: The document keys of all the sources of its supporting evidence.
    families: frozenset[str]
    supersedes: frozenset[int] = frozenset()


@dataclass(frozen=True, slots=True)
class Change:
    """A new version for a standing claim: a status and possibly a new valid interval."""

    claim_id: int
    status: str
    valid_from: datetime | None
    valid_until: datetime | None
    cause: str
    #: True when only the status changes and the interval stays as it was.
    keeps_interval: bool = False


@dataclass(frozen=True, slots=True)
class LinkDraft:
    """A link to write; ``from_claim_id`` None stands for the new claim."""

    kind: str
    from_claim_id: int | None
    to_claim_id: int | None


@dataclass(frozen=True, slots=True)
class Decision:
    """What asserting ``Incoming`` does to the ledger."""

    corroborates: int | None = None
    disputed: bool = False
    valid_until: datetime | None = None
    changes: tuple[Change, ...] = ()
    links: tuple[LinkDraft, ...] = ()
    cause: str = "asserted"
    #: Claims an update with an end interrupts: each holds again after it, as a continuation
    #: (``Change.valid_from``/``valid_until`` give the continuation's interval).
    resumes: tuple[Change, ...] = ()


def decide(
    new: Incoming, standing: Sequence[Standing], *, functional: bool, now: datetime
) -> Decision:
    """Apply the lifecycle rules, in DESIGN.md §4's precedence, to one new assertion.

    ``standing`` holds the current versions of the claims with the same scope, subject,
    predicate and qualifiers that are not retracted; explicitly superseded claims are
    included by the caller even when their key differs.
    """
    live = [s for s in standing if not s.empty]
    changes: list[Change] = []
    links: list[LinkDraft] = []
    causes: list[str] = []
    for claim in live:
        if claim.claim_id in new.supersedes:
            changes.append(_whole(claim, now, "superseded explicitly"))
            links.append(LinkDraft("supersedes", None, claim.claim_id))
    for claim in live:
        if claim.object_key != new.object_key or claim.claim_id in new.supersedes:
            continue
        if (functional and overlaps(new.valid_from, new.valid_until, claim.valid_from, claim.valid_until)) or (
            not functional and (claim.valid_from, claim.valid_until) == (new.valid_from, new.valid_until)
        ):
            # the claims it names are superseded all the same, by the claim it corroborates
            return Decision(corroborates=claim.claim_id, changes=tuple(changes), links=tuple(links),
                            cause="corroborated")
    if "superseded explicitly" in (c.cause for c in changes):
        causes.append("supersedes explicitly")
    if not functional:
        return Decision(valid_until=new.valid_until, changes=tuple(changes), links=tuple(links),
                        cause=_cause(causes))

    others = [s for s in live if s.claim_id not in new.supersedes and s.object_key != new.object_key]
    valid_until = new.valid_until
    if valid_until is None and new.valid_from is not None:
        later = [s for s in others if s.valid_from is not None and new.valid_from < s.valid_from]
        if later:
            nearest = min(later, key=lambda s: (s.valid_from, s.claim_id))
            valid_until = nearest.valid_from
            links.append(LinkDraft("supersedes", nearest.claim_id, None))
            causes.append(f"backfilled: ends where claim {nearest.claim_id} starts")

    disputed = False
    resumes: list[Change] = []
    for claim in others:
        if not overlaps(new.valid_from, valid_until, claim.valid_from, claim.valid_until):
            continue
        if new.valid_from is not None and (claim.valid_from is None or new.valid_from > claim.valid_from):
            # A disputed claim stays disputed over the interval it keeps: closing it at the
            # new start does not settle what it contradicted before then.
            status = "disputed" if claim.status == "disputed" else "superseded"
            changes.append(Change(claim.claim_id, status, claim.valid_from, new.valid_from,
                                  "closed by a later value"))
            links.append(LinkDraft("supersedes", None, claim.claim_id))
            causes.append(f"updates claim {claim.claim_id}")
            if valid_until is not None and (claim.valid_until is None or valid_until < claim.valid_until):
                # a value for a while only ("900 in July and August"): the old one holds again after it
                resumes.append(Change(claim.claim_id, claim.status, valid_until, claim.valid_until,
                                      f"resumes claim {claim.claim_id}"))
        elif claim.families and all(keys & new.families for keys in claim.families):
            # Corrected by its own source: every source behind the old claim is (a revision of, or
            # the same bytes as) a source behind the new one. An independent source still backing
            # it makes a conflict.
            changes.append(_whole(claim, now, "corrected by its own source"))
            links.append(LinkDraft("supersedes", None, claim.claim_id))
            causes.append(f"corrects claim {claim.claim_id}")
        else:
            disputed = True
            if claim.status != "disputed":
                changes.append(Change(claim.claim_id, "disputed", claim.valid_from, claim.valid_until,
                                      "contradicted by an independent source", keeps_interval=True))
            links.append(LinkDraft("contradicts", None, claim.claim_id))
            causes.append(f"conflicts with claim {claim.claim_id}")
    return Decision(disputed=disputed, valid_until=valid_until, changes=tuple(changes),
                    links=tuple(links), cause=_cause(causes), resumes=tuple(resumes))


def _whole(claim: Standing, now: datetime, cause: str) -> Change:
    # Superseded as a whole: the empty interval [t, t) holds at no time.
    at = claim.valid_from if claim.valid_from is not None else now
    return Change(claim.claim_id, "superseded", at, at, cause)


def _cause(causes: list[str]) -> str:
    return "asserted; " + "; ".join(causes) if causes else "asserted"


def combine_confidence(current: float, added: float) -> float:
    """Noisy-or: two independent sources raise confidence, never past 1."""
    return 1.0 - (1.0 - current) * (1.0 - added)


def check_confidence(confidence: object) -> float:
    """Return a confidence in [0, 1] or raise InvalidInput."""
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)):
        raise InvalidInput(f"confidence must be a number in [0, 1], not {type(confidence).__name__}")
    value = float(confidence)
    if math.isnan(value) or not 0.0 <= value <= 1.0:
        raise InvalidInput(f"confidence must be in [0, 1]; got {confidence!r}")
    return value


def encode_value(value: object) -> tuple[str, str]:
    """Canonical JSON text and datatype for a claim value; equal values encode equally."""
    if isinstance(value, str):  # the common case first
        check_text(value, what="value", limit=MAX_VALUE_LENGTH, one_line=False)
        return _TEXT_JSON.encode(value), "string"
    if isinstance(value, bool):
        return json.dumps(value), "boolean"
    if isinstance(value, int):
        return _dumps(value, what="value"), "integer"
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise InvalidInput(f"value {value!r} is not a finite number; store a real number or a string")
        return json.dumps(value), "number"
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise InvalidInput(f"value {value!r} is not a finite decimal")
        return json.dumps(str(value)), "decimal"
    if isinstance(value, datetime):
        return json.dumps(value.isoformat()), "datetime"
    if isinstance(value, date):
        return json.dumps(value.isoformat()), "date"
    if isinstance(value, Mapping):
        return canonical_json(value, what="value"), "json"
    raise InvalidInput(
        f"value of type {type(value).__name__} cannot be stored; use str, int, float, bool, Decimal, "
        f"date, datetime or a JSON object"
    )


_TEXT_JSON = json.JSONEncoder(ensure_ascii=False)  # json.dumps(..., ensure_ascii=False) builds one per call

NUMBER_TYPES = frozenset({"integer", "number", "decimal"})


def object_key(object_id: int | None, value_text: str | None, datatype: str | None) -> str:
    """What a claim says, for telling same from different: its entity, or its value's key."""
    if object_id is not None:
        return f"e:{object_id}"
    return value_key(value_text, datatype) if value_text is not None else "v:None"


def value_key(text: str, datatype: str | None) -> str:
    """What makes two stored values the same value: 12000, 12000.0 and Decimal("12000.00")
    are one number, and two aware datetimes one instant, whatever their written form."""
    if datatype in NUMBER_TYPES:
        # Exact, without rounding to a context's precision or writing out a huge exponent:
        # the digits without trailing zeros and the exponent that goes with them.
        sign, digits, exponent = Decimal(str(json.loads(text))).as_tuple()
        significant = "".join(map(str, digits)).rstrip("0")
        if not significant:
            return "n:0"
        return f"n:{'-' if sign else ''}{significant}e{int(exponent) + len(digits) - len(significant)}"
    if datatype == "datetime":
        moment = datetime.fromisoformat(json.loads(text))
        if moment.utcoffset() is not None:
            return f"t:{moment.astimezone(UTC).isoformat()}"
    return f"v:{text}"


def decode_value(text: str | None, datatype: str | None) -> Any:
    """The Python value for stored canonical JSON."""
    if text is None:
        return None
    loaded = json.loads(text)
    if datatype == "decimal":
        return Decimal(loaded)
    if datatype == "date":
        return date.fromisoformat(loaded)
    if datatype == "datetime":
        return datetime.fromisoformat(loaded)
    return loaded


def canonical_json(data: Mapping[str, Any], *, what: str = "qualifiers") -> str:
    """Sorted, compact JSON of a mapping with string keys and JSON-safe, bounded values."""
    if not isinstance(data, Mapping):
        raise InvalidInput(f"{what} must be a mapping of names to values, not {type(data).__name__}")
    if not data:
        return "{}"
    _check_json(data, what=what, depth=0)
    text = _dumps(data, what=what)
    if len(text) > MAX_VALUE_LENGTH:
        raise InvalidInput(f"{what} are {len(text)} characters as JSON; the limit is {MAX_VALUE_LENGTH}")
    return text


def _dumps(data: object, *, what: str) -> str:
    try:
        return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except ValueError as exc:  # an int too long to print (sys.get_int_max_str_digits)
        raise InvalidInput(f"{what} cannot be stored: {exc.args[0].split(';')[0]}; store such numbers "
                           f"as strings or Decimals") from exc


def _check_json(data: object, *, what: str, depth: int) -> None:
    if depth > MAX_QUALIFIER_DEPTH:
        raise InvalidInput(f"{what} nest deeper than {MAX_QUALIFIER_DEPTH} levels; flatten them")
    if isinstance(data, Mapping):
        for key, item in data.items():
            if not isinstance(key, str):
                raise InvalidInput(f"{what} keys must be strings; got {key!r}")
            check_text(key, what=f"{what} key", one_line=False)
            _check_json(item, what=what, depth=depth + 1)
    elif isinstance(data, (list, tuple)):
        for item in data:
            _check_json(item, what=what, depth=depth + 1)
    elif isinstance(data, float):
        if math.isnan(data) or math.isinf(data):
            raise InvalidInput(f"{what} contain {data!r}; only finite numbers can be stored")
    elif isinstance(data, str):
        check_text(data, what=f"{what} value", one_line=False)
    elif not (data is None or isinstance(data, (bool, int))):
        raise InvalidInput(f"{what} contain a {type(data).__name__}; use strings, numbers, booleans, lists or objects")
