"""Import a JSON Lines export into an empty scope, in the caller's one write transaction.

The rule (docs/interchange.md): an import restores history, it does not replay it. The target
scope must hold nothing yet; every row keeps the system times it was recorded with (all at or
before the file's ``known_at``, which must not be later than this ledger's clock: the clock never
runs backwards); ids are shifted past each table's largest id, so an import into an empty
database keeps them and one beside other scopes renumbers them in the same order. Lines are
checked one by one and rows written in chunks; any error raises and the caller's transaction
writes nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import Connection

from ledger.entities import normalize_name
from ledger.errors import ClockError, Conflict, InvalidImport, InvalidInput
from ledger.interchange import jsonl
from ledger.interchange.records import ImportReport, Progress
from ledger.policy.apply import Policies, screen_imported
from ledger.store import Ids, insert_rows
from ledger.store import interchange_rows as store

#: Rows (or characters of source text) buffered before they are written.
CHUNK_ROWS, CHUNK_CHARS = 1000, 8_000_000
#: Sections whose rows have ids of their own (shifted past the table's largest id).
_SHIFTED = ("entity", "alias", "source", "claim", "version", "evidence", "link")


class _Import:
    """The state of one import: target scope, id offsets, the chunk being filled."""

    def __init__(self, connection: Connection, ids: Ids, scope: str, known_at: datetime) -> None:
        self.connection, self.ids, self.scope, self.known_at = connection, ids, scope, known_at
        self.offset = {kind: store.max_id(connection, store.TABLES[kind])
                       for kind in (*_SHIFTED, "passage", "retrieval")}
        self.counts = {section: 0 for section in jsonl.SECTIONS}
        self.section_index, self.last_id = -1, 0
        self.pending: list[tuple[int, dict[str, Any]]] = []
        self.pending_chars = 0
        self.parts = {"passage": 0, "retrieval": 0}  # rows written so far: their ids follow on
        self.policies = Policies(connection, [scope])

    def add(self, number: int, section: str, row: dict[str, Any], size: int) -> None:
        """Take one checked row (from line ``number``)."""
        index = jsonl.SECTIONS.index(section)
        if index < self.section_index:
            raise InvalidImport(f"line {number}: a {section} row after the {jsonl.SECTIONS[self.section_index]} "
                                f"rows; sections come in the order {', '.join(jsonl.SECTIONS)}")
        if index > self.section_index:
            self.flush()
            self.section_index, self.last_id = index, 0
        if "id" in row and section != "merge":
            if row["id"] <= self.last_id:
                raise InvalidImport(f"line {number}: {section} ids must increase; {row['id']} follows {self.last_id}")
            self.last_id = row["id"]
        self.pending.append((number, row))
        self.counts[section] += 1
        self.pending_chars += size
        if len(self.pending) >= CHUNK_ROWS or self.pending_chars >= CHUNK_CHARS:
            self.flush()

    def flush(self) -> None:
        """Check the buffered rows' references and write them."""
        if not self.pending:
            return
        section = jsonl.SECTIONS[self.section_index]
        chunk, self.pending, self.pending_chars = self.pending, [], 0
        for _number, row in chunk:
            self._shift(section, row)
        self._check_references(section, chunk)
        screen_imported(chunk, section, scope=self.scope, policies=self.policies)  # the write policy of the target
        _WRITERS[section](self, [row for _number, row in chunk], chunk)

    def _shift(self, section: str, row: dict[str, Any]) -> None:
        if section in _SHIFTED:
            row["id"] += self.offset[section]
        for name, kind in jsonl.REFERENCES.get(section, ()):
            if row.get(name) is not None:
                row[name] += self.offset[kind]
        if section == "version" and isinstance(detail := row["cause_detail"], dict) and detail.get("effects"):
            detail["effects"] = [[kind, None if claim is None else claim + self.offset["claim"]]
                                 for kind, claim in detail["effects"]]

    def _check_references(self, section: str, chunk: list[tuple[int, dict[str, Any]]]) -> None:
        for name, kind in jsonl.REFERENCES.get(section, ()):
            wanted = {row[name] for _n, row in chunk if row.get(name) is not None}
            if kind == section:  # a row may refer to an earlier row of its own chunk
                wanted -= {row["id"] for _n, row in chunk}
            self._require(section, name, kind, chunk, wanted, _field(name))
        if section == "version":
            wanted = {c for _n, row in chunk for c in _effect_claims(row)}
            self._require(section, "cause_detail", "claim", chunk, wanted, _effect_claims)

    def _require(self, section: str, name: str, kind: str, chunk: list[tuple[int, dict[str, Any]]],
                 wanted: set[int], named: Callable[[dict[str, Any]], set[Any]]) -> None:
        """Refuse the first row naming a row of ``kind`` this scope does not hold."""
        if wanted:
            found = store.ids_in_scope(self.connection, kind, wanted, self.scope)
            for number, row in chunk:
                for value in named(row) & (wanted - found):
                    shown = value - self.offset[kind]
                    raise InvalidImport(f"line {number}: {section}.{name} refers to {kind} {shown}, which no "
                                        f"earlier line of the file holds")

    def finish(self, number: int, end: Mapping[str, Any]) -> None:
        """Check the end line's counts against the rows read."""
        self.flush()
        counts = end.get("counts")
        if counts != self.counts:
            raise InvalidImport(f"line {number}: the end line counts {counts} rows but the file holds {self.counts}; "
                                "the file is damaged")


def _field(name: str) -> Callable[[dict[str, Any]], set[Any]]:
    """The ids a reference field of a row names (one, or none when null)."""
    return lambda row: {row.get(name)}


def _effect_claims(row: dict[str, Any]) -> set[Any]:
    """The claims a version's cause says its assertion affected."""
    return {claim for _kind, claim in (row["cause_detail"] or {}).get("effects", ()) if claim is not None}


def _predicates(state: _Import, _found: list[dict[str, Any]], chunk: list[tuple[int, dict[str, Any]]]) -> None:
    declared = ("cardinality", "object_kind", "datatype", "inverse")
    for number, row in chunk:
        existing = store.predicate_row(state.connection, row["name"])
        if existing is None:
            insert_rows(state.connection, store.TABLES["predicate"],
                        [{**row, "id": state.ids.take(store.TABLES["predicate"])}])
        elif any(existing[key] != row[key] for key in declared):
            raise Conflict(f"line {number}: predicate {row['name']!r} is declared here as "
                           f"{ {k: existing[k] for k in declared} }, the file declares "
                           f"{ {k: row[k] for k in declared} }; redeclare it or edit the file")


def _scoped(table: str) -> Any:
    def write(state: _Import, found: list[dict[str, Any]], _chunk: Any) -> None:
        insert_rows(state.connection, store.TABLES[table], [{**row, "scope": state.scope} for row in found])
    return write


def _plain(table: str) -> Any:
    def write(state: _Import, found: list[dict[str, Any]], _chunk: Any) -> None:
        insert_rows(state.connection, store.TABLES[table], found)
    return write


def _merges(state: _Import, found: list[dict[str, Any]], _chunk: Any) -> None:
    store.set_merges(state.connection, [{"entity": r["id"], "into": r["merged_into"], "at": r["merged_at"]}
                                        for r in found])


def _aliases(state: _Import, found: list[dict[str, Any]], _chunk: Any) -> None:
    insert_rows(state.connection, store.TABLES["alias"],
                [{**row, "scope": state.scope, "normalized": normalize_name(row["alias"])} for row in found])


def _sources(state: _Import, found: list[dict[str, Any]], chunk: list[tuple[int, dict[str, Any]]]) -> None:
    passages: list[dict[str, Any]] = []
    retrievals: list[dict[str, Any]] = []
    for number, row in chunk:
        for ordinal, part in enumerate(row.pop("passages")):
            passages.append(_passage(number, row, ordinal, part, state))
        for seen in row.pop("retrievals"):
            retrievals.append(_retrieval(number, row, seen, state))
        if hashlib.sha256(row["text"].encode("utf-8", "surrogatepass")).hexdigest() != row["text_hash"]:
            raise InvalidImport(f"line {number}: source.text_hash is not the SHA-256 of its text; the text was changed")
        if row["revision_of"] is not None and row["revision_of"] >= row["id"]:
            raise InvalidImport(f"line {number}: source.revision_of must name an earlier source")
    insert_rows(state.connection, store.TABLES["source"], [{**row, "scope": state.scope} for row in found])
    for kind, parts in (("passage", passages), ("retrieval", retrievals)):
        first = state.offset[kind] + state.parts[kind] + 1
        insert_rows(state.connection, store.TABLES[kind], [{**part, "id": first + n} for n, part in enumerate(parts)])
        state.parts[kind] += len(parts)


def _passage(number: int, source: Mapping[str, Any], ordinal: int, part: object, state: _Import) -> dict[str, Any]:
    if not (isinstance(part, list) and len(part) == 5 and all(_is_int(part[i]) for i in (2, 3))
            and 0 <= part[2] <= part[3] <= len(source["text"]) and all(part[i] is None or _is_int(part[i]) for i in (0, 4))
            and (part[1] is None or (isinstance(part[1], list) and len(part[1]) == 4 and all(
                isinstance(x, (int, float)) and not isinstance(x, bool) for x in part[1])))):
        raise InvalidImport(f"line {number}: passage {ordinal} must be [page, bbox, char_start, char_end, "
                            f"paragraph] with offsets inside the source text; got {part!r:.80}")
    page, bbox, start, end, paragraph = part
    return {"source_id": source["id"], "ordinal": ordinal, "page": page, "bbox": bbox, "char_start": start,
            "char_end": end, "paragraph": paragraph}


def _retrieval(number: int, source: Mapping[str, Any], seen: object, state: _Import) -> dict[str, Any]:
    if not (isinstance(seen, list) and len(seen) == 4 and all(x is None or isinstance(x, str) for x in seen[1:3])):
        raise InvalidImport(f"line {number}: a retrieval must be [retrieved_at, uri, actor, recorded_at]; "
                            f"got {seen!r:.80}")
    retrieved_at, recorded_at = (jsonl.parse_time(seen[i], number, "retrieval time", state.known_at) for i in (0, 3))
    return {"source_id": source["id"], "retrieved_at": retrieved_at, "uri": seen[1], "actor": seen[2],
            "recorded_at": recorded_at}


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _evidence(state: _Import, found: list[dict[str, Any]], chunk: list[tuple[int, dict[str, Any]]]) -> None:
    for number, row in chunk:
        if row["reanchored_from"] is not None and row["reanchored_from"] >= row["id"]:
            raise InvalidImport(f"line {number}: evidence.reanchored_from must name earlier evidence")
        if not 0 <= row["char_start"] < row["char_end"]:
            raise InvalidImport(f"line {number}: evidence needs 0 <= char_start < char_end")
    insert_rows(state.connection, store.TABLES["evidence"], found)
    wrong = store.misquoted(state.connection, [row["id"] for row in found])
    for number, row in chunk:
        if row["id"] in wrong:
            raise InvalidImport(f"line {number}: evidence.excerpt is not the text of source "
                                f"{row['source_id'] - state.offset['source']} at [{row['char_start']}, "
                                f"{row['char_end']}); the quote cannot be re-checked")


_WRITERS = {
    "predicate": _predicates, "entity": _scoped("entity"), "merge": _merges, "alias": _aliases,
    "source": _sources, "claim": _scoped("claim"), "version": _plain("version"), "evidence": _evidence,
    "link": _scoped("link"),
}


def import_jsonl(connection: Connection, ids: Ids, lines: Iterable[str], *, scope: str | None, now: datetime,
                 progress: Progress | None = None, total: int = 0) -> ImportReport:
    """Import the lines of an export into ``scope`` (None: the scope it was exported from)."""
    numbered = enumerate(lines, start=1)
    first = next(numbered, None)
    if first is None:
        raise InvalidImport("line 1: the file is empty; expected a ledger export header")
    file_scope, known_at = jsonl.parse_header(first[1])
    target = file_scope if scope is None else scope
    if target.startswith("quarantine:"):
        raise InvalidInput(f"scope {target!r} is a quarantine; import into a trusted scope")
    if known_at > now:
        raise ClockError(f"the file was exported as of {jsonl.iso(known_at)}, after this ledger's clock "
                         f"({jsonl.iso(now)}); the clock never runs backwards, so its history cannot be restored")
    if not store.scope_is_empty(connection, target):
        raise Conflict(f"scope {target!r} already holds data; import restores history only into an empty "
                       "scope (pass another: scope= in Python, --scope on the command line)")
    state = _Import(connection, ids, target, known_at)
    done, ended = 0, False
    for number, text in numbered:
        if not text.strip():
            continue
        if ended:
            raise InvalidImport(f"line {number}: nothing may follow the end line")
        section, row = jsonl.parse_row(text, number, known_at)
        if section == "end":
            state.finish(number, row)
            ended = True
            continue
        state.add(number, section, row, len(text))
        done += 1
        if progress is not None and done % CHUNK_ROWS == 0:
            progress(done, total)
    if not ended:
        raise InvalidImport("the file ends without its end line; it was cut short")
    if progress is not None:
        progress(done, total)
    counts = {section: state.counts[section] for section in jsonl.SECTIONS}
    return ImportReport(scope=target, known_at=known_at, counts=counts,
                        renumbered=any(state.offset[kind] for kind in _SHIFTED))
