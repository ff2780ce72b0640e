"""The value codec: claim values and qualifiers as canonical JSON, and what makes two values the same."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from ledger.entities import check_text
from ledger.errors import InvalidInput

MAX_QUALIFIER_DEPTH = 8
MAX_VALUE_LENGTH = 100_000
#: The datatypes ``encode_value`` gives values, which ``define_predicate(datatype=)`` may require.
DATATYPES = ("string", "integer", "number", "decimal", "boolean", "date", "datetime", "json")


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
