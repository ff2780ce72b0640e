"""Wikidata entity JSON read into plans the import writes (pure: no database).

Reads a ``wbgetentities`` response, a single entity, a list of entities, JSON-lines dump entries
or a whole dump (a JSON array with one entity per line, also ``.json.gz`` and ``.bz2``), one
entity at a time so a dump streams in bounded memory. Each statement becomes a
``StatementPlan``: value, qualifiers, validity (from the time qualifiers, Wikidata's inclusive
ends made half-open), rank and references, plus the line of the entity revision's text that
stands for it (what its claim cites).
"""

from __future__ import annotations

import bz2
import gzip
import json
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from pathlib import Path
from typing import IO, Any

from ledger.errors import InvalidInput

ENTITY_URI = "https://www.wikidata.org/wiki/{}"
#: Constraints (P2302 values) that make a property functional: single value, single best value.
SINGLE_VALUE = frozenset({"Q19474404", "Q52060874"})
TIME_QUALIFIERS = frozenset({"P580", "P582", "P585"})
STATUS_OF_RANK = {"preferred": "confirmed", "normal": "reported", "deprecated": "reported"}
REFERENCE_NAMES = {"P854": "reference URL", "P248": "stated in", "P813": "retrieved", "P304": "page(s)"}
_ENTITY_PREFIX = "http://www.wikidata.org/entity/"


@dataclass(frozen=True, slots=True)
class Bound:
    """A validity bound: an ISO date of its precision ("1994", "2014-04", "2014-04-03")."""

    text: str
    precision: str


@dataclass(frozen=True, slots=True)
class StatementPlan:
    """One statement as a claim: its property, object (a QID) or value, qualifiers, validity."""

    statement_id: str
    property: str
    rank: str
    object: str | None
    value: Any
    qualifiers: Mapping[str, Any]
    valid_from: Bound | None
    valid_until: Bound | None
    deprecation: str | None
    line: str
    references: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class EntityPlan:
    """An entity revision: labels, aliases, statements, and the text its source stores."""

    id: str
    kind: str
    lastrevid: int | None
    modified: str | None
    label: str | None
    names: tuple[tuple[str, str], ...]
    statements: tuple[StatementPlan, ...]
    skipped: int
    datatype: str | None
    single_value: bool
    separators: tuple[str, ...]

    @property
    def uri(self) -> str:
        """The entity's page, the uri its revisions are stored under."""
        return ENTITY_URI.format(self.id)

    @property
    def title(self) -> str:
        """The title of its source: id, label and revision."""
        label = f" ({self.label})" if self.label else ""
        return f"Wikidata {self.id}{label}, revision {self.lastrevid}"

    def text(self) -> tuple[str, list[tuple[int, int]], list[list[tuple[int, int]]]]:
        """The revision as text, and where each statement's line and reference lines are in it."""
        header = f"{self.title}, modified {self.modified or 'unknown'}\n{self.uri}\n"
        parts, at = [header], len(header)
        lines: list[tuple[int, int]] = []
        references: list[list[tuple[int, int]]] = []
        for statement in self.statements:  # one paragraph: a passage a statement cost a row each
            lines.append((at, at + len(statement.line)))
            parts.append(statement.line + "\n")
            at += len(statement.line) + 1
            spans = []
            for reference in statement.references:
                spans.append((at, at + len(reference)))
                parts.append(reference + "\n")
                at += len(reference) + 1
            references.append(spans)
        if not self.statements:
            parts.append(f"{self.id}: no statements\n")
        return "".join(parts), lines, references


def read_entities(source: object) -> Iterator[Mapping[str, Any]]:
    """The entities in a parsed object, or in a file (JSON, JSON lines, a dump; .gz, .bz2)."""
    if isinstance(source, (str, os.PathLike)):
        yield from _read_file(Path(source))
    elif isinstance(source, Mapping):
        yield from _entities_of(source)
    elif isinstance(source, Sequence) and not isinstance(source, (bytes, bytearray)):
        for item in source:
            yield from _entities_of(item)
    else:
        raise InvalidInput(f"import_wikidata takes a file path or parsed entity JSON, not {type(source).__name__}")


def _entities_of(item: object) -> Iterator[Mapping[str, Any]]:
    if not isinstance(item, Mapping):
        raise InvalidInput(f"expected a Wikidata entity (a JSON object); got {type(item).__name__}")
    if isinstance(item.get("entities"), Mapping):  # a wbgetentities response
        for entity in item["entities"].values():
            if "missing" not in entity:
                yield from _entities_of(entity)
    elif isinstance(item.get("id"), str) and ("claims" in item or "labels" in item):
        yield item
    else:
        raise InvalidInput("not Wikidata entity JSON: expected an object with 'id' and 'claims' or 'entities'")


def _open(path: Path) -> IO[str]:
    try:
        with path.open("rb") as raw:
            head = raw.read(3)
        if path.suffix == ".gz" or head[:2] == b"\x1f\x8b":
            return gzip.open(path, "rt", encoding="utf-8")
        if path.suffix == ".bz2" or head == b"BZh":
            return bz2.open(path, "rt", encoding="utf-8")
        return path.open(encoding="utf-8")
    except OSError as error:
        raise InvalidInput(f"cannot read {path}: {error.strerror or error}") from error


def _read_file(path: Path) -> Iterator[Mapping[str, Any]]:
    """One entity per line (a dump, JSON lines) in bounded memory; else the file as one JSON value."""
    with _open(path) as stream:
        lines = 0
        for raw in stream:
            line = raw.strip().rstrip(",")
            if line in ("", "[", "]"):
                continue
            lines += 1
            try:
                item = json.loads(line)
            except json.JSONDecodeError:
                if lines > 1:
                    raise InvalidInput(f"{path}: line {lines} is not JSON; a dump holds one entity per line") from None
                break  # pretty-printed JSON: read it whole below
            yield from _entities_of(item)
        else:
            return
    with _open(path) as stream:
        try:
            whole = json.load(stream)
        except json.JSONDecodeError as error:
            raise InvalidInput(f"{path} is not JSON: {error}") from error
    yield from read_entities(whole)


def plan_entity(entity: Mapping[str, Any]) -> EntityPlan:
    """An entity as the import writes it."""
    qid = entity["id"]
    labels = {lang: v["value"] for lang, v in (entity.get("labels") or {}).items() if v.get("value")}
    names = [(lang, value) for lang, value in labels.items()]
    for lang, values in (entity.get("aliases") or {}).items():
        names.extend((lang, v["value"]) for v in values if v.get("value"))
    label = labels.get("en") or labels.get("mul") or next(iter(labels.values()), None)
    claims = entity.get("claims") or {}
    starts = {pid: {_day(q) for s in group for q in (s.get("qualifiers") or {}).get("P580", ())} - {None}
              for pid, group in claims.items()}
    statements: list[StatementPlan] = []
    skipped = 0
    for pid, group in claims.items():
        for statement in group:
            planned = _statement(qid, pid, statement, starts.get(pid, set()))
            if planned is None:
                skipped += 1
            else:
                statements.append(planned)
    single, separators = _constraints(claims.get("P2302", ()))
    return EntityPlan(
        id=qid, kind=entity.get("type", "item"), lastrevid=entity.get("lastrevid"), modified=entity.get("modified"),
        label=label, names=tuple(names), statements=tuple(statements), skipped=skipped,
        datatype=entity.get("datatype"), single_value=single, separators=separators)


def _constraints(statements: Sequence[Mapping[str, Any]]) -> tuple[bool, tuple[str, ...]]:
    """Whether a property's P2302 statements make it functional, and the separator qualifiers."""
    single, separators = False, list[str]()
    for statement in statements:
        if statement.get("rank") == "deprecated" or _object(statement.get("mainsnak", {})) not in SINGLE_VALUE:
            continue
        single = True
        separators.extend(_object(q) or "" for q in (statement.get("qualifiers") or {}).get("P4155", ()))
    return single, tuple(dict.fromkeys(s for s in separators if s))


def _object(snak: Mapping[str, Any]) -> str | None:
    value = (snak.get("datavalue") or {}).get("value")
    return value.get("id") if isinstance(value, Mapping) and "id" in value else None


def _statement(qid: str, pid: str, statement: Mapping[str, Any], starts: set[date | None]) -> StatementPlan | None:
    snak = statement.get("mainsnak") or {}
    if snak.get("snaktype") != "value" or "datavalue" not in snak:
        return None  # "unknown value" and "no value" say nothing a claim can hold
    object_id = _object(snak)
    value, extra = (None, {}) if object_id else _literal(snak["datavalue"])
    if object_id is None and value is None:
        return None
    qualifiers: dict[str, Any] = dict(extra)
    raw_qualifiers = statement.get("qualifiers") or {}
    for key, snaks in raw_qualifiers.items():
        if key in TIME_QUALIFIERS:
            continue
        values = [_qualifier_value(s) for s in snaks if s.get("snaktype") == "value"]
        if values:
            qualifiers[key] = values[0] if len(values) == 1 else values
    valid_from = _first_bound(raw_qualifiers.get("P580"), end=False, starts=set(), qualifiers=qualifiers, key="P580")
    valid_until = _first_bound(raw_qualifiers.get("P582"), end=True, starts=starts, qualifiers=qualifiers, key="P582")
    if valid_from is None and valid_until is None and raw_qualifiers.get("P585"):
        valid_from = _first_bound(raw_qualifiers["P585"], end=False, starts=set(), qualifiers=qualifiers, key="P585")
        valid_until = _first_bound(raw_qualifiers["P585"], end=True, starts=set(), qualifiers={}, key="P585")
    rank = statement.get("rank", "normal")
    deprecation = None
    if rank == "deprecated":
        reasons = [_qualifier_value(s) for s in raw_qualifiers.get("P2241", ()) if s.get("snaktype") == "value"]
        deprecation = f"deprecated rank in Wikidata (reason for deprecated rank, P2241: {', '.join(map(str, reasons)) or 'none given'})"
    shown = object_id if object_id else json.dumps(value, default=str, ensure_ascii=False)
    times = "; ".join(f"{k} {_bound_text(raw_qualifiers[k][0])}" for k in ("P580", "P582", "P585")
                      if raw_qualifiers.get(k) and raw_qualifiers[k][0].get("snaktype") == "value")
    rest = "; ".join(f"{k} {json.dumps(v, ensure_ascii=False, default=str)}" for k, v in sorted(qualifiers.items()))
    line = f"{statement.get('id', qid)}: {pid} = {shown}" + (f"; {times}" if times else "") + \
        (f"; {rest}" if rest else "") + f"; rank {rank}"
    return StatementPlan(
        statement_id=statement.get("id", f"{qid}${pid}"), property=pid, rank=rank, object=object_id, value=value,
        qualifiers=qualifiers, valid_from=valid_from, valid_until=valid_until, deprecation=deprecation,
        line=" ".join(line.split()), references=tuple(_references(statement)))


def _references(statement: Mapping[str, Any]) -> Iterator[str]:
    for reference in statement.get("references") or ():
        parts = []
        for pid, snaks in (reference.get("snaks") or {}).items():
            for snak in snaks:
                if snak.get("snaktype") == "value":
                    name = REFERENCE_NAMES.get(pid, pid)
                    parts.append(f"{name} ({pid}) {_qualifier_value(snak)}" if name != pid else f"{pid} {_qualifier_value(snak)}")
        if parts:
            yield " ".join(f"  reference of {statement.get('id')}: {'; '.join(parts)}".split())


def _qualifier_value(snak: Mapping[str, Any]) -> Any:
    if (found := _object(snak)) is not None:
        return found
    datavalue = snak.get("datavalue") or {}
    if datavalue.get("type") == "time":
        return _bound_text(snak)
    value, extra = _literal(datavalue)
    return value if not extra else {"value": value, **extra}


def _literal(datavalue: Mapping[str, Any]) -> tuple[Any, dict[str, Any]]:
    """A literal value and the pseudo-qualifiers it brings (a quantity's unit, a text's language)."""
    kind, value = datavalue.get("type"), datavalue.get("value")
    if not isinstance(value, Mapping):
        return (value if kind == "string" else None), {}
    if kind == "string":
        return value, {}
    if kind == "monolingualtext":
        return value.get("text"), {"language": value.get("language")}
    if kind == "quantity":
        amount = _number(value.get("amount", ""))
        unit = str(value.get("unit", "1"))
        return amount, ({} if unit == "1" else {"unit": unit.removeprefix(_ENTITY_PREFIX)})
    if kind == "time":
        bound = _bound(value, end=False)
        return (bound.text if bound else value.get("time")), {}
    if kind == "globecoordinate":
        globe = str(value.get("globe", "")).removeprefix(_ENTITY_PREFIX)
        return {"latitude": value.get("latitude"), "longitude": value.get("longitude"), "globe": globe}, {}
    return value, {}


def _number(amount: str) -> int | Decimal | None:
    try:
        number = Decimal(amount)
    except InvalidOperation:
        return None
    return int(number) if number == number.to_integral_value() and "." not in amount else number


def _bound_text(snak: Mapping[str, Any]) -> str:
    value = (snak.get("datavalue") or {}).get("value") or {}
    bound = _bound(value, end=False)
    return bound.text if bound else str(value.get("time"))


def _first_bound(snaks: Sequence[Mapping[str, Any]] | None, *, end: bool, starts: set[date | None],
                 qualifiers: dict[str, Any], key: str) -> Bound | None:
    for snak in snaks or ():
        if snak.get("snaktype") != "value":
            continue
        value = (snak.get("datavalue") or {}).get("value") or {}
        bound = _bound(value, end=end, starts=starts)
        if bound is None:  # before year 1 or after 9999: kept as written, as a qualifier
            qualifiers[key] = value.get("time")
        return bound
    return None


def _parts(value: Mapping[str, Any]) -> tuple[int, int, int, int] | None:
    text = str(value.get("time", ""))
    try:
        sign = -1 if text.startswith("-") else 1
        year_text, month, rest = text.lstrip("+-").split("-", 2)
        year = sign * int(year_text)
        return year, int(month), int(rest[:2]), int(value.get("precision", 11))
    except (ValueError, TypeError):
        return None


def _day(snak: Mapping[str, Any]) -> date | None:
    parts = _parts((snak.get("datavalue") or {}).get("value") or {})
    if parts is None or parts[3] < 11 or not 1 <= parts[0] <= 9999:
        return None
    return date(parts[0], parts[1], parts[2])


def _bound(value: Mapping[str, Any], *, end: bool, starts: set[date | None] = frozenset()) -> Bound | None:  # type: ignore[assignment]
    """A Wikidata time as a bound at its precision; see :func:`_bound_of`."""
    time, precision = value.get("time"), value.get("precision", 11)
    if not isinstance(time, str) or not isinstance(precision, int):
        return None
    bound = _bound_of(time, precision, end)
    if end and bound is not None and bound.precision == "day" and starts:
        day = date.fromisoformat(bound.text) - timedelta(days=1)
        if day in starts:
            return Bound(day.isoformat(), "day")
    return bound


@lru_cache(maxsize=65536)
def _bound_of(time: str, precision: int, end: bool) -> Bound | None:
    """A Wikidata time as a bound at its precision (year, month, day; coarser ones as a year).
    An end is inclusive in Wikidata, so it becomes the start of the next unit: an end of 1994
    is valid until 1995, of 2014-04-02 (day precision) until 2014-04-03. (``_bound`` keeps an
    end on a day another statement of the property starts: the transition day goes to the new
    value.)"""
    parts = _parts({"time": time, "precision": precision})
    if parts is None:
        return None
    year, month, day, precision = parts
    if not 1 <= year <= 9999:
        return None
    if precision <= 9 or month == 0:
        if end:
            year += 1
        return Bound(f"{year:04d}", "year") if year <= 9999 else None
    if precision == 10 or day == 0:
        if end:
            year, month = (year + 1, 1) if month == 12 else (year, month + 1)
        return Bound(f"{year:04d}-{month:02d}", "month") if year <= 9999 else None
    try:
        moment = date(year, month, day)
    except ValueError:  # "1994-02-30"
        return None
    if end:
        if moment == date.max:
            return None
        moment += timedelta(days=1)
    return Bound(moment.isoformat(), "day")
