"""The JSON Lines export format: one header line, one line per row, one end line (pure; no database).

Line 1 is the header ``{"format": "ledger-jsonl", "version": 1, "scope": …, "known_at": …}``.
Then one object per row with ``"type"`` naming its section, sections in the order of
``SECTIONS``, rows by id within a section. Times are ISO 8601 in UTC with microseconds. The last
line is ``{"type": "end", "counts": {section: rows}}``: a file cut short is refused.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any, get_args

from ledger.errors import InvalidImport
from ledger.records import CAUSE_KINDS, STATUSES, EffectKind
from ledger.timeline import Precision

FORMAT = "ledger-jsonl"
VERSION = 1
#: Sections in file order: a row refers only to rows of earlier sections or earlier in its own.
SECTIONS = ("predicate", "entity", "merge", "alias", "source", "claim", "version", "evidence", "link")

_INT, _STR, _FLOAT, _TIME, _JSON, _LIST = "integer", "string", "number", "time", "JSON object", "list"
_T = tuple[str, bool]  # (type, nullable)

#: Each section's fields: type and whether it may be null. Unknown fields are refused.
FIELDS: dict[str, dict[str, _T]] = {
    "predicate": {"name": (_STR, False), "cardinality": (_STR, False), "object_kind": (_STR, False),
                  "datatype": (_STR, True), "inverse": (_STR, True), "description": (_STR, True),
                  "recorded_at": (_TIME, False)},
    "entity": {"id": (_INT, False), "kind": (_STR, True), "name": (_STR, False), "properties": (_JSON, True),
               "created_at": (_TIME, False)},
    "merge": {"id": (_INT, False), "merged_into": (_INT, False), "merged_at": (_TIME, False)},
    "alias": {"id": (_INT, False), "entity_id": (_INT, False), "alias": (_STR, False), "normalized": (_STR, False),
              "language": (_STR, True), "recorded_at": (_TIME, False)},
    "source": {"id": (_INT, False), "kind": (_STR, False), "uri": (_STR, True), "title": (_STR, True),
               "author": (_STR, True), "publisher": (_STR, True), "published_at": (_TIME, True),
               "retrieved_at": (_TIME, True), "content_hash": (_STR, False), "text_hash": (_STR, False),
               "text": (_STR, False), "trust": (_STR, False), "revision_of": (_INT, True), "meta": (_JSON, True),
               "recorded_at": (_TIME, False), "passages": (_LIST, False), "retrievals": (_LIST, False)},
    "claim": {"id": (_INT, False), "subject_id": (_INT, False), "predicate": (_STR, False),
              "object_id": (_INT, True), "value": (_STR, True), "datatype": (_STR, True),
              "qualifiers": (_STR, False), "recorded_at": (_TIME, False), "actor": (_STR, True)},
    "version": {"id": (_INT, False), "claim_id": (_INT, False), "status": (_STR, False),
                "confidence": (_FLOAT, False), "valid_from": (_TIME, True), "valid_until": (_TIME, True),
                "valid_from_precision": (_STR, True), "valid_until_precision": (_STR, True),
                "recorded_at": (_TIME, False), "invalidated_at": (_TIME, True), "reason": (_STR, True),
                "actor": (_STR, True), "cause": (_STR, True), "cause_claim_id": (_INT, True),
                "cause_detail": (_JSON, True)},
    "evidence": {"id": (_INT, False), "claim_id": (_INT, False), "source_id": (_INT, False),
                 "relation": (_STR, False), "excerpt": (_STR, False), "char_start": (_INT, False),
                 "char_end": (_INT, False), "page": (_INT, True), "locator": (_JSON, False),
                 "anchor_method": (_STR, False), "anchor_score": (_FLOAT, False), "reanchored_from": (_INT, True),
                 "stale_at": (_TIME, True), "recorded_at": (_TIME, False), "actor": (_STR, True)},
    "link": {"id": (_INT, False), "kind": (_STR, False), "from_claim_id": (_INT, False),
             "to_claim_id": (_INT, False), "recorded_at": (_TIME, False), "reason": (_STR, True),
             "actor": (_STR, True)},
}
#: Fields holding ids of rows of another (or the same) section: (field, section referred to).
REFERENCES: dict[str, tuple[tuple[str, str], ...]] = {
    "merge": (("id", "entity"), ("merged_into", "entity")),
    "alias": (("entity_id", "entity"),),
    "source": (("revision_of", "source"),),
    "claim": (("subject_id", "entity"), ("object_id", "entity")),
    "version": (("claim_id", "claim"), ("cause_claim_id", "claim")),
    "evidence": (("claim_id", "claim"), ("source_id", "source"), ("reanchored_from", "evidence")),
    "link": (("from_claim_id", "claim"), ("to_claim_id", "claim")),
}
#: Fields limited to a vocabulary.
CHOICES: dict[tuple[str, str], frozenset[str]] = {
    ("predicate", "cardinality"): frozenset({"one", "many"}),
    ("predicate", "object_kind"): frozenset({"entity", "value"}),
    ("source", "trust"): frozenset({"trusted", "untrusted"}),
    ("version", "status"): frozenset(STATUSES),
    ("evidence", "relation"): frozenset({"supports", "contradicts"}),
    ("version", "cause"): frozenset(CAUSE_KINDS),
    ("version", "valid_from_precision"): frozenset(get_args(Precision)),
    ("version", "valid_until_precision"): frozenset(get_args(Precision)),
}
_EFFECTS = frozenset(get_args(EffectKind))
#: The ledger's own times (the others, such as valid_from or published_at, are the world's).
SYSTEM_TIMES = frozenset({"recorded_at", "created_at", "merged_at", "invalidated_at", "stale_at"})
#: System times a row may carry that close an interval opened by ``recorded_at``.
CLOSING = ("invalidated_at", "stale_at")


def iso(value: datetime | None) -> str | None:
    """A stored time as the file writes it."""
    if value is None:
        return None
    if value.tzinfo is not UTC:
        value = value.astimezone(UTC)
    return value.isoformat(timespec="microseconds")


def header(scope: str, known_at: datetime) -> dict[str, Any]:
    """The first line of a file exported from ``scope`` as held at ``known_at``."""
    return {"format": FORMAT, "version": VERSION, "scope": scope, "known_at": iso(known_at)}


def encode_row(section: str, row: Mapping[str, Any], known_at: datetime) -> dict[str, Any]:
    """A stored row as a line: only the section's fields; intervals closed after ``known_at`` open."""
    names, times, closing, texts = _ENCODING[section]
    line: dict[str, Any] = {"type": section}
    for name in names:
        line[name] = row[name]
    for name in closing:
        if (value := line[name]) is not None and value > known_at:
            line[name] = None  # closed after the moment exported: still open then
    for name in times:
        if (value := line[name]) is not None:
            line[name] = iso(value)
    for name in texts:
        if isinstance(value := line[name], str):
            line[name] = json.loads(value)
    return line


_ENCODING = {section: (
    tuple(name for name in fields if fields[name][0] != _LIST),
    tuple(name for name, (kind, _n) in fields.items() if kind == _TIME),
    tuple(name for name in fields if name in CLOSING),
    tuple(name for name, (kind, _n) in fields.items() if kind == _JSON),
) for section, fields in FIELDS.items()}
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def dumps(line: Mapping[str, Any]) -> str:
    """One line of the file (no newline)."""
    return _ENCODER.encode(line)


def parse_header(text: str) -> tuple[str, datetime]:
    """(scope, known_at) of a header line, or InvalidImport."""
    line = _object(text, 1)
    if line.get("format") != FORMAT:
        raise InvalidImport(f"line 1: not a ledger export (expected a header with \"format\": {FORMAT!r})")
    if line.get("version") != VERSION:
        raise InvalidImport(f"line 1: format version {line.get('version')!r} is not supported; this ledger "
                            f"reads version {VERSION}")
    scope = line.get("scope")
    if not isinstance(scope, str) or not scope:
        raise InvalidImport("line 1: the header names no scope")
    known_at = _time(line.get("known_at"), 1, "known_at")
    return scope, known_at


def parse_row(text: str, number: int, known_at: datetime) -> tuple[str, dict[str, Any]]:
    """(section, checked fields) of a row line, or InvalidImport naming line ``number``."""
    line = _object(text, number)
    section = line.pop("type", None)
    if section == "end":
        return "end", line
    if section not in FIELDS:
        raise InvalidImport(f"line {number}: unknown \"type\" {section!r}; expected one of {', '.join(SECTIONS)}")
    fields = FIELDS[section]
    extra = sorted(set(line) - set(fields))
    if extra:
        raise InvalidImport(f"line {number}: {section} has unknown field(s) {', '.join(extra)}")
    for name, (kind, nullable) in fields.items():
        if name not in line:
            raise InvalidImport(f"line {number}: {section} lacks the field {name!r}")
        value = line[name]
        if value is None:
            if not nullable:
                raise InvalidImport(f"line {number}: {section}.{name} must not be null")
            continue
        line[name] = _CHECKS[kind](value, number, f"{section}.{name}")
        if name in SYSTEM_TIMES and line[name] > known_at:
            raise InvalidImport(f"line {number}: {section}.{name} {value} is after the export's known_at "
                                f"{iso(known_at)}")
        choices = CHOICES.get((section, name))
        if choices is not None and value not in choices:
            raise InvalidImport(f"line {number}: {section}.{name} must be one of {', '.join(sorted(choices))}; "
                                f"got {value!r:.60}")
    if section == "version":
        _check_cause(line, number)
    if section == "version" and not 0.0 <= line["confidence"] <= 1.0:
        raise InvalidImport(f"line {number}: version.confidence must be in [0, 1]")
    for closing in CLOSING:
        if line.get(closing) is not None and line[closing] < line["recorded_at"]:
            raise InvalidImport(f"line {number}: {section}.{closing} is before its recorded_at")
    return section, line


def _check_cause(line: dict[str, Any], number: int) -> None:
    """A version's cause detail: {"effects": [[effect, claim id], ...], "sources": n}, nothing else."""
    detail = line["cause_detail"]
    if detail is None:
        return
    effects, sources = detail.get("effects", []), detail.get("sources")
    good = (set(detail) <= {"effects", "sources"} and isinstance(effects, list)
            and all(isinstance(e, list) and len(e) == 2 and e[0] in _EFFECTS
                    and (e[1] is None or (isinstance(e[1], int) and not isinstance(e[1], bool))) for e in effects)
            and (sources is None or (isinstance(sources, int) and not isinstance(sources, bool))))
    if not good:
        raise InvalidImport(f"line {number}: version.cause_detail must be {{\"effects\": [[effect, claim id], ...], "
                            f"\"sources\": n}}; got {detail!r:.80}")


def _object(text: str, number: int) -> dict[str, Any]:
    try:
        line = json.loads(text)
    except ValueError as error:
        raise InvalidImport(f"line {number}: not valid JSON ({error})") from error
    if not isinstance(line, dict):
        raise InvalidImport(f"line {number}: expected a JSON object, got {type(line).__name__}")
    return line


def parse_time(value: object, number: int, what: str, known_at: datetime) -> datetime:
    """A time of line ``number``, at or before the export's ``known_at``, or InvalidImport."""
    parsed = _time(value, number, what)
    if parsed > known_at:
        raise InvalidImport(f"line {number}: {what} {value} is after the export's known_at {iso(known_at)}")
    return parsed


def _time(value: object, number: int, what: str) -> datetime:
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            parsed = None
        if parsed is not None and parsed.tzinfo is not None:
            return parsed.astimezone(UTC)
    raise InvalidImport(f"line {number}: {what} must be an ISO 8601 time with a UTC offset; got {value!r:.60}")


def _integer(value: object, number: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidImport(f"line {number}: {what} must be an integer; got {value!r:.60}")
    return value


def _number(value: object, number: int, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InvalidImport(f"line {number}: {what} must be a finite number; got {value!r:.60}")
    return float(value)


def _string(value: object, number: int, what: str) -> str:
    if not isinstance(value, str):
        raise InvalidImport(f"line {number}: {what} must be a string; got {value!r:.60}")
    return value


def _list(value: object, number: int, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise InvalidImport(f"line {number}: {what} must be a list; got {value!r:.60}")
    return value


def _not_object(value: object, number: int, what: str) -> Any:
    raise InvalidImport(f"line {number}: {what} must be a JSON object; got {value!r:.60}")


_CHECKS: dict[str, Callable[[Any, int, str], Any]] = {
    _INT: _integer, _STR: _string, _FLOAT: _number, _TIME: lambda v, n, w: _time(v, n, w), _LIST: _list,
    _JSON: lambda value, number, what: value if isinstance(value, dict) else _not_object(value, number, what),
}
