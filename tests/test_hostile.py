"""Hostile input: a data-driven corpus of malformed, out-of-range, oversized, mistyped and
adversarial arguments, run through the public API and (where a command line can carry them)
through the CLI.

Every case must end in a ``LedgerError`` of the expected class whose message names the problem
(never a raw TypeError, ValueError, OverflowError, UnicodeEncodeError or driver error, never a
hang), and the database must be exactly as before: every table dumped row by row, and on
SQLite also the bytes of the database file and its WAL after a ``wal_checkpoint(TRUNCATE)``
from a separate connection.

What we decided about look-alike names (tested at the end of this file):

* Homoglyphs are different names. Cyrillic "Аnna" and Latin "Anna" do not fold to the same
  normalized form (NFKC keeps scripts apart), so they are two entities; an alias that is one of
  them cannot silently be attached to the other (AliasConflict, showing the alias as given).
* Compatibility forms that NFKC makes equal (full-width "Ａｌｉｃｅ", ligatures) and invisible
  format characters (zero-width space, joiners, BOM) are the same name: "Ali\u200bce" resolves
  to "Alice" and never creates a second, identical-looking entity. An alias differing only by
  invisible characters is the same alias (no new row, no conflict); on another entity it is an
  AliasConflict whose message shows the invisible character escaped.
* SQL-looking names are just names: stored verbatim, bound as parameters, nothing executed.
"""

from __future__ import annotations

import dataclasses
import signal
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ledger import (
    AliasConflict,
    Citation,
    Claim,
    Conflict,
    Entity,
    IngestError,
    InvalidInput,
    InvalidTime,
    Ledger,
    LedgerError,
    MissingEvidence,
    NotFound,
    QuoteNotFound,
    ScopeMismatch,
    Source,
)
from ledger.cli import app

from .conftest import BACKEND, FIXTURES, TestClock, table_dump

TEXT = (
    "Alice lives in Oslo. Bob works at Acme. The rate is 5 percent.\n\n"
    "Carol moved to Łódź in 2026. Robert'); DROP TABLE claims;-- is a name."
)
OTHER_TEXT = "In the other scope Alice lives in Bergen."
CASE_SECONDS = 60


# ---------------------------------------------------------------- the world every case starts from

@dataclass
class World:
    """A seeded ledger: sources in two scopes, two entities, claims to change, and files."""

    ledger: Ledger
    clock: TestClock
    url: str
    files: Path
    source: Source
    other: Source
    cite: Citation
    other_cite: Citation
    contra: Citation
    alice: Entity
    bob: Entity
    stranger: Entity
    claim: Claim
    claims: list[Claim] = field(default_factory=list)

    def assert_(self, **kw: Any) -> Claim:
        """assert_claim with valid defaults; ``kw`` overrides one hostile argument."""
        args: dict[str, Any] = {"subject": "Alice", "predicate": "lives in", "value": "Oslo",
                                "evidence": [self.cite]}
        args.update(kw)
        return self.ledger.assert_claim(**args)

    def new_claim(self, value: str) -> Claim:
        """A fresh functional claim, its own subject, for cases that change claims."""
        self.clock.tick()
        claim = self.ledger.assert_claim(f"subject {len(self.claims)}", "rate", value=value,
                                         evidence=[self.cite])
        self.claims.append(claim)
        return claim


def seed(ledger: Ledger, clock: TestClock, url: str, files: Path) -> World:
    source = ledger.add_source(text=TEXT, uri="test:notes", title="Notes")
    other = ledger.add_source(text=OTHER_TEXT, uri="test:other", scope="other")
    cite = ledger.cite(source, "Alice lives in Oslo")
    alice = ledger.entity("Alice", kind="person")
    bob = ledger.entity("Bob", kind="person")
    stranger = ledger.entity("Stranger", scope="other")
    claim = ledger.assert_claim("Alice", "lives in", value="Oslo", evidence=[cite], valid_from="2026-01")
    files.mkdir(exist_ok=True)
    (files / "zero.pdf").write_bytes(b"")
    (files / "zero.html").write_bytes(b"")
    (files / "zero.txt").write_bytes(b"")
    (files / "a-directory.pdf").mkdir(exist_ok=True)
    (files / "empty-folder").mkdir(exist_ok=True)
    (files / "latin1.txt").write_bytes("Caf\xe9 in Z\xfcrich".encode("latin-1") + b"\xff\xfe")
    (files / "nul.txt").write_bytes(b"Alice lives\x00 in Oslo.")
    (files / "bomb.html").write_text(BOMB_ONLY, encoding="utf-8")
    (files / "nested.html").write_text(NESTED, encoding="utf-8")
    (files / "huge.txt").write_text("x" * 1000, encoding="utf-8")
    return World(
        ledger=ledger, clock=clock, url=url, files=files, source=source, other=other, cite=cite,
        other_cite=ledger.cite(other, "Alice lives in Bergen"),
        contra=ledger.cite(source, "Bob works at Acme", relation="contradicts"),
        alice=alice, bob=bob, stranger=stranger, claim=claim,
    )


def _entity_bomb(levels: int = 10) -> str:
    entities = ['<!ENTITY lol0 "lol">'] + [f'<!ENTITY lol{i} "{f"&lol{i - 1};" * 10}">' for i in range(1, levels)]
    return "<!DOCTYPE html [\n" + "\n".join(entities) + "\n]>\n"


BOMB_ONLY = _entity_bomb() + "<html><head><title>lol</title></head><body><p>&lol9;</p></body></html>"
NESTED = ("<html><body>" + "<div><span>" * 100_000 + "The barrier will be inspected every spring."
          + "</span></div>" * 100_000 + "</body></html>")


def _deep(levels: int) -> dict[str, Any]:
    nested: dict[str, Any] = {"leaf": 1}
    for _ in range(levels):
        nested = {"k": nested}
    return nested


def _cyclic() -> dict[str, Any]:
    loop: dict[str, Any] = {}
    loop["self"] = loop
    return loop


# ---------------------------------------------------------------- snapshots: "exactly as before"

def file_bytes(url: str) -> tuple[bytes, bytes]:
    """The SQLite file and its WAL after a full checkpoint from a separate connection."""
    path = Path(url)
    connection = sqlite3.connect(path)
    try:
        busy, _, _ = connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        assert busy == 0, "the checkpoint could not run: another connection still reads or writes"
    finally:
        connection.close()
    wal = Path(f"{path}-wal")
    return path.read_bytes(), wal.read_bytes() if wal.exists() else b""


@dataclass(frozen=True)
class Snapshot:
    tables: dict[str, list[tuple[Any, ...]]]
    files: tuple[bytes, bytes] | None


def snapshot(url: str) -> Snapshot:
    return Snapshot(table_dump(url), file_bytes(url) if BACKEND != "postgres" else None)


def assert_unchanged(before: Snapshot, after: Snapshot) -> None:
    for table in sorted(set(before.tables) | set(after.tables)):
        old, new = before.tables.get(table), after.tables.get(table)
        assert old == new, f"table {table} changed: {len(old or [])} rows before, {len(new or [])} after; " \
                           f"new rows {[r for r in new or [] if r not in (old or [])][:3]}"
    assert before.files == after.files, "the database file bytes changed although every table is equal"


@contextmanager
def time_limit(seconds: int) -> Iterator[None]:
    """Turn a hang into a failure (SIGALRM; the main thread on POSIX)."""
    def expire(signum: int, frame: object) -> None:
        raise TimeoutError(f"the call did not finish within {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


# ---------------------------------------------------------------- the API corpus

Call = Callable[[World], object]


@dataclass(frozen=True)
class Case:
    id: str
    call: Call
    error: type[LedgerError]
    fragment: str  # must occur in the message (case-insensitive)
    setup: Call | None = None


def _later(hours: int) -> timezone:
    return timezone(timedelta(hours=hours))


L = Ledger  # keeps the lambdas below short
HUGE_PDF = FIXTURES / "pdf" / "huge-page-count.pdf"

CASES: list[Case] = [
    # --- dates: malformed and out of range
    Case("date-year-0", lambda w: w.assert_(valid_from="0000-01-01"), InvalidTime, "year 0"),
    Case("date-year-0-partial", lambda w: w.assert_(valid_from="0000"), InvalidTime, "out of range"),
    Case("date-year-10000", lambda w: w.assert_(valid_from="10000-01-01"), InvalidTime, "10000-01-01"),
    Case("date-feb-30", lambda w: w.assert_(valid_from="2026-02-30"), InvalidTime, "day is out of range"),
    Case("date-month-13", lambda w: w.assert_(valid_from="2026-13"), InvalidTime, "month must be in 1..12"),
    Case("date-huge-digits", lambda w: w.assert_(valid_from="9" * 100_000), InvalidTime, "valid_from"),
    Case("date-nan", lambda w: w.assert_(valid_from="NaN"), InvalidTime, "'NaN' is not an ISO date"),
    Case("date-nul", lambda w: w.assert_(valid_from="2026-01-01\x00"), InvalidTime, "NUL"),
    Case("date-surrogate", lambda w: w.assert_(valid_from="2026-01-0\ud800"), InvalidTime, "valid_from"),
    Case("date-naive-datetime", lambda w: w.assert_(valid_from=datetime(2026, 1, 1)), InvalidTime, "no time zone"),
    Case("date-overflow-by-zone", lambda w: w.assert_(valid_from=datetime(9999, 12, 31, 23, tzinfo=_later(-5))),
         InvalidTime, "out of range"),
    Case("date-overflow-string", lambda w: w.assert_(valid_until="9999-12-31T23:00:00-05:00"), InvalidTime,
         "out of range"),
    Case("date-underflow-string", lambda w: w.assert_(valid_from="0001-01-01T00:30:00+01:00"), InvalidTime,
         "out of range"),
    Case("date-int", lambda w: w.assert_(valid_from=2026), InvalidTime, "not int"),
    Case("date-float-nan", lambda w: w.assert_(valid_from=float("nan")), InvalidTime, "not float"),
    Case("date-list", lambda w: w.assert_(valid_from=["2026"]), InvalidTime, "not list"),
    Case("date-reversed", lambda w: w.assert_(valid_from="2026-05", valid_until="2026-04"), InvalidTime,
         "must be later than"),
    Case("date-empty-interval", lambda w: w.assert_(valid_from="2026-05", valid_until="2026-05"), InvalidTime,
         "must be later than"),
    Case("date-read-feb-30", lambda w: w.ledger.claims("Alice", valid_at="2026-02-30"), InvalidTime, "valid_at"),
    Case("date-read-known-at-year-0", lambda w: w.ledger.claims(known_at="0000"), InvalidTime, "known_at"),
    Case("date-read-during-reversed", lambda w: w.ledger.claims(during=("2026-05", "2026-04")), InvalidInput,
         "end later than start"),
    Case("date-read-during-scalar", lambda w: w.ledger.claims(during="2026"), InvalidInput, "pair"),
    Case("date-published-month-13", lambda w: w.ledger.add_source(text="New text.", published_at="2026-13-01"),
         InvalidTime, "published_at"),
    Case("date-html-retrieved-nan", lambda w: w.ledger.ingest_html("<p>x</p>", url="https://x.example/",
                                                                    retrieved_at="NaN"), InvalidTime, "retrieved_at"),
    # --- entity names and aliases
    Case("name-empty", lambda w: w.ledger.entity(""), InvalidInput, "empty"),
    Case("name-blank", lambda w: w.ledger.entity(" \u3000 \u00a0 "), InvalidInput, "empty"),
    Case("name-tab", lambda w: w.ledger.entity("Alice\tSmith"), InvalidInput, "control character"),
    Case("name-punctuation-only", lambda w: w.ledger.entity("...!?"), InvalidInput, "empty"),
    Case("name-zero-width-only", lambda w: w.ledger.entity("\u200b\u200d\ufeff"), InvalidInput, "empty"),
    Case("name-combining-only", lambda w: w.ledger.entity("\u0301\u0308"), InvalidInput, "empty"),
    Case("name-huge", lambda w: w.ledger.entity("x" * 1001), InvalidInput, "limit is 1000"),
    Case("name-nul", lambda w: w.ledger.entity("Al\x00ice"), InvalidInput, "NUL"),
    Case("name-lone-surrogate", lambda w: w.ledger.entity("Al\ud800ice"), InvalidInput, "surrogate"),
    Case("name-bytes", lambda w: w.ledger.entity(b"Alice"), InvalidInput, "must be a string, not bytes"),
    Case("name-invalid-utf8-bytes", lambda w: w.ledger.entity(b"\xff\xfe"), InvalidInput, "not bytes"),
    Case("name-none", lambda w: w.ledger.entity(None), InvalidInput, "not NoneType"),
    Case("name-int", lambda w: w.ledger.entity(42), InvalidInput, "not int"),
    Case("name-list", lambda w: w.ledger.entity(["Alice"]), InvalidInput, "not list"),
    Case("name-ansi-escape", lambda w: w.ledger.entity("\x1b[31mRed"), InvalidInput, "control character"),
    Case("name-crlf", lambda w: w.ledger.entity("Alice\r\nBob"), InvalidInput, "control character"),
    Case("name-subject-surrogate", lambda w: w.assert_(subject="\udcff"), InvalidInput, "surrogate"),
    Case("name-object-escape", lambda w: w.assert_(value=None, object="\x1b]0;pwned\x07"), InvalidInput,
         "control character"),
    Case("alias-surrogate", lambda w: w.ledger.add_alias(w.alice, "\udcffAli"), InvalidInput, "surrogate"),
    Case("alias-taken", lambda w: w.ledger.add_alias(w.bob, "ALICE"), AliasConflict, "already names entity"),
    Case("alias-taken-zero-width", lambda w: w.ledger.add_alias(w.bob, "Ali\u200bce"), AliasConflict,
         "\\u200b"),
    Case("alias-taken-in-batch", lambda w: w.ledger.entity("Carol", aliases=["Caz", "Bob"]), AliasConflict,
         "'Bob' already names"),
    Case("aliases-as-string", lambda w: w.ledger.entity("Carol", aliases="Caz"), InvalidInput,
         "aliases must be a list"),
    Case("alias-unknown-entity", lambda w: w.ledger.add_alias(999, "Ally"), NotFound, "entity 999"),
    Case("alias-language-int", lambda w: w.ledger.add_alias(w.alice, "Ally", language=7), InvalidInput,
         "language"),
    Case("kind-int", lambda w: w.ledger.entity("Carol", kind=5), InvalidInput, "kind"),
    Case("kind-escape", lambda w: w.ledger.entity("Carol", kind="\x1b[0m"), InvalidInput, "control character"),
    Case("kind-clash", lambda w: w.ledger.entity("alice", kind="place"), Conflict, "not a place"),
    Case("merge-self", lambda w: w.ledger.merge_entities(w.alice, "ALICE"), Conflict, "into itself"),
    Case("merge-cycle", lambda w: w.ledger.merge_entities("Bob", "Alice"), Conflict, "already resolve to the same entity",
         setup=lambda w: w.ledger.merge_entities(w.alice, w.bob)),
    Case("merge-conflicting-values", lambda w: w.ledger.merge_entities(w.alice, w.bob), Conflict,
         "two undisputed values", setup=lambda w: w.ledger.assert_claim(
             "Bob", "lives in", value="Acme", evidence=[w.ledger.cite(w.source, "Bob works at Acme")])),
    Case("define-functional-over-two-values",
         lambda w: w.ledger.define_predicate("knows", cardinality="one", object_kind="entity"), Conflict,
         "two undisputed values", setup=lambda w: [w.ledger.assert_claim(
             "Alice", "knows", friend, evidence=[w.cite]) for friend in ("Bob", "Carol")]),
    Case("merge-unknown", lambda w: w.ledger.merge_entities(w.alice, 999), NotFound, "entity 999"),
    Case("merge-other-scope", lambda w: w.ledger.merge_entities(w.alice, w.stranger.id), ScopeMismatch,
         "scope"),
    Case("entity-id-huge", lambda w: w.ledger.get_entity(2**70), InvalidInput, "entity id"),
    Case("entity-id-bool", lambda w: w.ledger.get_entity(True), InvalidInput, "bool"),
    Case("resolve-bytes", lambda w: w.ledger.resolve(b"Alice"), InvalidInput, "not bytes"),
    Case("resolve-surrogate", lambda w: w.ledger.resolve("\ud800"), InvalidInput, "surrogate"),
    # --- predicates
    Case("predicate-empty", lambda w: w.assert_(predicate=""), InvalidInput, "predicate"),
    Case("predicate-huge", lambda w: w.assert_(predicate="p" * 201), InvalidInput, "at most 200"),
    Case("predicate-newline", lambda w: w.assert_(predicate="lives\nin"), InvalidInput, "one line"),
    Case("predicate-escape", lambda w: w.assert_(predicate="\x1b[2Jlives in"), InvalidInput, "control character"),
    Case("predicate-surrogate", lambda w: w.assert_(predicate="lives\ud800in"), InvalidInput, "surrogate"),
    Case("predicate-int", lambda w: w.assert_(predicate=5), InvalidInput, "predicate"),
    Case("predicate-bytes", lambda w: w.assert_(predicate=b"lives in"), InvalidInput, "predicate"),
    Case("define-cardinality", lambda w: w.ledger.define_predicate("owns", cardinality="two"), InvalidInput,
         "cardinality"),
    Case("define-datatype", lambda w: w.ledger.define_predicate("height", datatype="banana"), InvalidInput,
         "datatype"),
    Case("define-inverse-int", lambda w: w.ledger.define_predicate("owns", object_kind="entity", inverse=3),
         InvalidInput, "inverse"),
    Case("define-description-surrogate",
         lambda w: w.ledger.define_predicate("height", description="tall\ud800"), InvalidInput, "surrogate"),
    Case("read-predicate-int", lambda w: w.ledger.claims("Alice", 5), InvalidInput, "predicate"),
    Case("read-statuses-int", lambda w: w.ledger.claims(statuses=5), InvalidInput, "status"),
    Case("read-subject-surrogate", lambda w: w.ledger.claims("\ud800"), InvalidInput, "surrogate"),
    Case("read-history-none", lambda w: w.ledger.history(None, "lives in"), InvalidInput, "subject"),
    # --- values, confidence and qualifiers
    Case("value-nan", lambda w: w.assert_(value=float("nan")), InvalidInput, "not a finite number"),
    Case("value-inf", lambda w: w.assert_(value=float("inf")), InvalidInput, "not a finite number"),
    Case("value-minus-inf", lambda w: w.assert_(value=float("-inf")), InvalidInput, "not a finite number"),
    Case("value-decimal-nan", lambda w: w.assert_(value=Decimal("sNaN")), InvalidInput, "finite"),
    Case("value-huge-int", lambda w: w.assert_(value=10**5000), InvalidInput, "digits"),
    Case("value-huge-string", lambda w: w.assert_(value="v" * 100_001), InvalidInput, "limit is 100000"),
    Case("value-nul", lambda w: w.assert_(value="Os\x00lo"), InvalidInput, "NUL"),
    Case("value-surrogate", lambda w: w.assert_(value="Oslo\udc80"), InvalidInput, "surrogate"),
    Case("value-bytes", lambda w: w.assert_(value=b"\xff\xfe"), InvalidInput, "bytes"),
    Case("value-list", lambda w: w.assert_(value=[1, 2]), InvalidInput, "list"),
    Case("value-complex", lambda w: w.assert_(value=1j), InvalidInput, "complex"),
    Case("value-json-nan", lambda w: w.assert_(value={"x": float("nan")}), InvalidInput, "finite"),
    Case("value-and-object", lambda w: w.assert_(object="Bob"), InvalidInput, "exactly one"),
    Case("value-and-object-neither", lambda w: w.assert_(value=None), InvalidInput, "neither"),
    Case("confidence-nan", lambda w: w.assert_(confidence=float("nan")), InvalidInput, "confidence"),
    Case("confidence-inf", lambda w: w.assert_(confidence=float("inf")), InvalidInput, "confidence"),
    Case("confidence-above-one", lambda w: w.assert_(confidence=1.5), InvalidInput, "[0, 1]"),
    Case("confidence-string", lambda w: w.assert_(confidence="0.5"), InvalidInput, "not str"),
    Case("confidence-bool", lambda w: w.assert_(confidence=True), InvalidInput, "not bool"),
    Case("qualifiers-deep-9", lambda w: w.assert_(qualifiers=_deep(9)), InvalidInput, "nest deeper"),
    Case("qualifiers-deep-100000", lambda w: w.assert_(qualifiers=_deep(100_000)), InvalidInput, "nest deeper"),
    Case("qualifiers-cyclic", lambda w: w.assert_(qualifiers=_cyclic()), InvalidInput, "nest deeper"),
    Case("qualifiers-nan", lambda w: w.assert_(qualifiers={"at": float("nan")}), InvalidInput, "finite"),
    Case("qualifiers-inf-in-list", lambda w: w.assert_(qualifiers={"xs": [1, float("inf")]}), InvalidInput,
         "finite"),
    Case("qualifiers-int-key", lambda w: w.assert_(qualifiers={1: "x"}), InvalidInput, "keys must be strings"),
    Case("qualifiers-list", lambda w: w.assert_(qualifiers=[("unit", "kg")]), InvalidInput, "mapping"),
    Case("qualifiers-set", lambda w: w.assert_(qualifiers={"tags": {"a"}}), InvalidInput, "set"),
    Case("qualifiers-surrogate-key", lambda w: w.assert_(qualifiers={"\ud800": 1}), InvalidInput, "surrogate"),
    Case("qualifiers-surrogate-value", lambda w: w.assert_(qualifiers={"k": "\ud800"}), InvalidInput, "surrogate"),
    Case("qualifiers-huge-int", lambda w: w.assert_(qualifiers={"n": 10**5000}), InvalidInput, "digits"),
    Case("qualifiers-huge", lambda w: w.assert_(qualifiers={"xs": list(range(200_000))}), InvalidInput,
         "characters"),
    Case("status-retracted", lambda w: w.assert_(status="retracted"), InvalidInput, "retract()"),
    Case("status-none", lambda w: w.assert_(status=None), InvalidInput, "status"),
    Case("actor-int", lambda w: w.assert_(actor=7), InvalidInput, "actor"),
    Case("actor-surrogate", lambda w: w.assert_(actor="agent\ud800"), InvalidInput, "surrogate"),
    Case("actor-escape", lambda w: w.assert_(actor="agent\x1b[31m"), InvalidInput, "control character"),
    Case("scope-empty", lambda w: w.assert_(scope=""), InvalidInput, "scope"),
    Case("scope-none", lambda w: w.assert_(scope=None), InvalidInput, "scope"),
    Case("scope-huge", lambda w: w.assert_(scope="s" * 201), InvalidInput, "scope"),
    Case("scope-surrogate", lambda w: w.ledger.add_source(text="Fresh text.", scope="s\ud800"), InvalidInput,
         "surrogate"),
    Case("scope-escape", lambda w: w.ledger.entity("Carol", scope="\x1b[31m"), InvalidInput, "control character"),
    # --- evidence
    Case("evidence-other-scope", lambda w: w.assert_(evidence=[w.other_cite]), ScopeMismatch, "scope 'other'"),
    Case("evidence-none", lambda w: w.assert_(evidence=None), MissingEvidence, "no supporting evidence"),
    Case("evidence-int", lambda w: w.assert_(evidence=5), InvalidInput, "cite()"),
    Case("evidence-list-of-none", lambda w: w.assert_(evidence=[None]), InvalidInput, "NoneType"),
    Case("batch-evidence-int", lambda w: w.ledger.assert_claims([{"subject": "Alice", "predicate": "rate",
                                                                  "value": "5", "evidence": 5}]), InvalidInput, "cite()"),
    Case("batch-one-bad-draft", lambda w: w.ledger.assert_claims([
        {"subject": "Dora", "predicate": "rate", "value": "5", "evidence": [w.cite]},
        {"subject": "Dora", "predicate": "rate", "value": float("nan"), "evidence": [w.cite]}]), InvalidInput, "finite"),
    Case("batch-unknown-field", lambda w: w.ledger.assert_claims([{"subject": "Alice", "predicate": "rate",
                                                                   "value": 1, "evidence": [w.cite], "colour": 1}]),
         InvalidInput, "colour"),
    Case("batch-not-a-dict", lambda w: w.ledger.assert_claims(["Alice rate 5"]), InvalidInput, "ClaimDraft or a dict"),
    Case("batch-int", lambda w: w.ledger.assert_claims(5), InvalidInput, "a list of"),  # type: ignore[arg-type]
    Case("batch-one-dict", lambda w: w.ledger.assert_claims({"subject": "Alice", "predicate": "rate"}), InvalidInput,
         "pass [draft]"),
    Case("evidence-empty", lambda w: w.assert_(evidence=[]), MissingEvidence, "no supporting evidence"),
    Case("evidence-contradicting-only", lambda w: w.assert_(evidence=[w.contra]), MissingEvidence,
         "no supporting evidence"),
    Case("evidence-string", lambda w: w.assert_(evidence="Alice lives in Oslo"), InvalidInput, "cite()"),
    Case("evidence-forged-excerpt", lambda w: w.assert_(evidence=[dataclasses.replace(w.cite, excerpt="Alice lives in Paris")]),
         InvalidInput, "does not occur"),
    Case("evidence-forged-source", lambda w: w.assert_(evidence=[dataclasses.replace(w.cite, source_id=999)]),
         NotFound, "source 999"),
    Case("evidence-forged-offsets",
         lambda w: w.assert_(evidence=[dataclasses.replace(w.cite, char_start=10**12, char_end=10**12 + 19)]),
         InvalidInput, "does not occur"),
    Case("evidence-forged-scope", lambda w: w.assert_(evidence=[dataclasses.replace(w.other_cite, scope="default")]),
         ScopeMismatch, "scope 'other'"),
    Case("cite-missing-quote", lambda w: w.ledger.cite(w.source, "Alice lives in Paris"), QuoteNotFound, "Paris"),
    Case("cite-empty-quote", lambda w: w.ledger.cite(w.source, ""), InvalidInput, "empty"),
    Case("cite-huge-quote", lambda w: w.ledger.cite(w.source, "Alice " * 2_000_000), QuoteNotFound, "longer"),
    Case("cite-surrogate-quote", lambda w: w.ledger.cite(w.source, "Oslo\ud800"), InvalidInput, "surrogate"),
    Case("cite-nul-quote", lambda w: w.ledger.cite(w.source, "Oslo\x00"), InvalidInput, "NUL"),
    Case("cite-bytes-quote", lambda w: w.ledger.cite(w.source, b"Oslo"), InvalidInput, "not bytes"),
    Case("cite-source-string", lambda w: w.ledger.cite("1", "Oslo"), InvalidInput, "source id"),
    Case("cite-source-missing", lambda w: w.ledger.cite(999, "Oslo"), NotFound, "source 999"),
    Case("cite-source-huge", lambda w: w.ledger.cite(2**70, "Oslo"), InvalidInput, "source id"),
    Case("cite-source-negative", lambda w: w.ledger.cite(-1, "Oslo"), InvalidInput, "source id"),
    Case("cite-relation", lambda w: w.ledger.cite(w.source, "Oslo", relation="refutes"), InvalidInput, "relation"),
    Case("cite-page-zero", lambda w: w.ledger.cite(w.source, "Oslo", page=0), InvalidInput, "page"),
    Case("cite-page-string", lambda w: w.ledger.cite(w.source, "Oslo", page="1"), InvalidInput, "page"),
    Case("cite-prefix-int", lambda w: w.ledger.cite(w.source, "Oslo", prefix=5), InvalidInput, "prefix"),
    # --- lifecycle: supersession cycles, wrong ids, reasons
    Case("supersede-cycle", lambda w: w.ledger.supersede(w.claims[1], w.claims[0]), Conflict, "cycle",
         setup=lambda w: (w.new_claim("1%"), w.new_claim("2%"), w.ledger.supersede(w.claims[0], w.claims[1]))),
    Case("supersede-cycle-transitive", lambda w: w.ledger.supersede(w.claims[2], w.claims[0]), Conflict, "cycle",
         setup=lambda w: (w.new_claim("1%"), w.new_claim("2%"), w.new_claim("3%"),
                          w.ledger.supersede(w.claims[0], w.claims[1]),
                          w.ledger.supersede(w.claims[1], w.claims[2]))),
    Case("supersede-self", lambda w: w.ledger.supersede(w.claim, w.claim.id), InvalidInput, "itself"),
    Case("supersede-missing", lambda w: w.ledger.supersede(w.claim, 999), NotFound, "claim 999"),
    Case("supersede-other-scope", lambda w: w.ledger.supersede(w.claim, w.claims[0]), ScopeMismatch, "scope",
         setup=lambda w: w.claims.append(w.ledger.assert_claim("Stranger", "lives in", value="Bergen",
                                                                 evidence=[w.other_cite], scope="other"))),
    Case("assert-supersedes-missing", lambda w: w.assert_(value="Bergen", supersedes=999), NotFound, "999"),
    Case("assert-supersedes-string", lambda w: w.assert_(value="Bergen", supersedes="1"), InvalidInput,
         "claim id"),
    Case("claim-id-huge", lambda w: w.ledger.claim(2**70), InvalidInput, "claim id"),
    Case("claim-id-float", lambda w: w.ledger.explain(1.0), InvalidInput, "float"),
    Case("retract-empty-reason", lambda w: w.ledger.retract(w.claim, reason=" "), InvalidInput, "reason"),
    Case("retract-reason-surrogate", lambda w: w.ledger.retract(w.claim, reason="wrong\ud800"), InvalidInput,
         "surrogate"),
    Case("retract-reason-huge", lambda w: w.ledger.retract(w.claim, reason="r" * 100_001), InvalidInput,
         "reason"),
    Case("retract-twice", lambda w: w.ledger.retract(w.claims[0], reason="again"), Conflict, "retracted",
         setup=lambda w: w.ledger.retract(w.new_claim("9%"), reason="wrong")),
    Case("retract-missing", lambda w: w.ledger.retract(12345, reason="gone"), NotFound, "claim 12345"),
    Case("confirm-contradicting", lambda w: w.ledger.confirm(w.claim, evidence=[w.contra]), InvalidInput,
         "supporting"),
    Case("confirm-other-scope-evidence", lambda w: w.ledger.confirm(w.claim, evidence=[w.other_cite]),
         ScopeMismatch, "scope"),
    Case("confirm-evidence-int", lambda w: w.ledger.confirm(w.claim, evidence=5), InvalidInput, "cite()"),
    Case("confirm-reason-nul", lambda w: w.ledger.confirm(w.claim, reason="ok\x00"), InvalidInput, "NUL"),
    Case("dispute-nothing", lambda w: w.ledger.dispute(w.claim), InvalidInput, "reason"),
    Case("dispute-reason-int", lambda w: w.ledger.dispute(w.claim, reason=5), InvalidInput, "reason"),
    # --- sources
    Case("source-empty", lambda w: w.ledger.add_source(text=""), InvalidInput, "empty"),
    Case("source-nul", lambda w: w.ledger.add_source(text="a\x00b"), InvalidInput, "NUL"),
    Case("source-surrogate", lambda w: w.ledger.add_source(text="Alice \ud800 Oslo"), InvalidInput, "surrogate"),
    Case("source-bytes", lambda w: w.ledger.add_source(text=b"Alice lives in Oslo"), InvalidInput, "not bytes"),
    Case("source-invalid-utf8", lambda w: w.ledger.add_source(text=b"\xff\xfe\xfa"), InvalidInput, "not bytes"),
    Case("source-over-limit", lambda w: w.ledger.add_source(text="a" * (100 * 2**20 + 1)), InvalidInput,
         "the limit is"),
    Case("source-kind", lambda w: w.ledger.add_source(text="Fresh text.", kind="tweet"), InvalidInput, "kind"),
    Case("source-trust", lambda w: w.ledger.add_source(text="Fresh text.", trust="maybe"), InvalidInput, "trust"),
    Case("source-uri-int", lambda w: w.ledger.add_source(text="Fresh text.", uri=5), InvalidInput, "uri"),
    Case("source-title-nul", lambda w: w.ledger.add_source(text="Fresh text.", title="T\x00"), InvalidInput, "NUL"),
    Case("source-title-surrogate", lambda w: w.ledger.add_source(text="Fresh text.", title="\udcff"), InvalidInput,
         "surrogate"),
    Case("source-author-huge", lambda w: w.ledger.add_source(text="Fresh text.", author="a" * 100_001),
         InvalidInput, "author"),
    Case("source-id-missing", lambda w: w.ledger.source(999), NotFound, "source 999"),
    # --- documents
    Case("pdf-huge-page-count", lambda w: w.ledger.ingest_pdf(HUGE_PDF), IngestError, "larger max_pages"),
    Case("pdf-max-pages-zero", lambda w: w.ledger.ingest_pdf(HUGE_PDF, max_pages=0), InvalidInput, "max_pages"),
    Case("pdf-zero-byte-file", lambda w: w.ledger.ingest_pdf(w.files / "zero.pdf"), IngestError, "empty"),
    Case("pdf-zero-bytes", lambda w: w.ledger.ingest_pdf(b""), IngestError, "empty"),
    Case("pdf-directory", lambda w: w.ledger.ingest_pdf(w.files / "a-directory.pdf"), IngestError,
         "is a directory"),
    Case("pdf-missing", lambda w: w.ledger.ingest_pdf(w.files / "missing.pdf"), IngestError, "no such file"),
    Case("pdf-nul-path", lambda w: w.ledger.ingest_pdf(str(w.files / "a\x00.pdf")), IngestError, "NUL"),
    Case("pdf-int", lambda w: w.ledger.ingest_pdf(123), IngestError, "int"),
    Case("pdf-text-file", lambda w: w.ledger.ingest_pdf(w.files / "huge.txt"), IngestError, "not a PDF"),
    Case("pdf-uri-surrogate", lambda w: w.ledger.ingest_pdf(FIXTURES / "pdf" / "typography.pdf", uri="\ud800"),
         InvalidInput, "surrogate"),
    Case("html-billion-laughs", lambda w: w.ledger.ingest_html(BOMB_ONLY, url="https://bomb.example/"),
         IngestError, "main text"),
    Case("html-nested-100000", lambda w: w.ledger.ingest_html(NESTED, url="https://deep.example/"), IngestError,
         "deeper than"),
    Case("html-zero-bytes", lambda w: w.ledger.ingest_html(b"", url="https://empty.example/"), IngestError, "empty"),
    Case("html-none", lambda w: w.ledger.ingest_html(None, url="https://none.example/"), IngestError, "NoneType"),
    Case("html-path-zero-bytes", lambda w: w.ledger.ingest_html(w.files / "zero.html", url="https://x.example/"),
         IngestError, "empty"),
    Case("html-path-missing", lambda w: w.ledger.ingest_html(w.files / "missing.html"), IngestError, "cannot read"),
    Case("html-path-directory", lambda w: w.ledger.ingest_html(w.files / "empty-folder"), IngestError,
         "is a directory"),
    Case("html-path-nul", lambda w: w.ledger.ingest_html(Path(str(w.files / "a\x00.html"))), IngestError, "NUL"),
    Case("html-text-without-url", lambda w: w.ledger.ingest_html("<p>Hello there, a page.</p>"), InvalidInput,
         "url is required"),
    Case("file-text-file", lambda w: w.ledger.ingest_file(w.files / "huge.txt"), IngestError, "neither a PDF"),
    Case("file-int", lambda w: w.ledger.ingest_file(5), IngestError, "int"),  # type: ignore[arg-type]
    Case("html-url-int", lambda w: w.ledger.ingest_html("<p>Hello there, a page.</p>", url=5), InvalidInput, "url"),
    Case("html-encoding-int", lambda w: w.ledger.ingest_html(b"<p>x</p>", url="https://x.example/", encoding=5),
         InvalidInput, "encoding"),
    Case("html-url-surrogate", lambda w: w.ledger.ingest_html("<p>x</p>", url="https://x.example/\udcff"),
         InvalidInput, "surrogate"),
    Case("url-scheme", lambda w: w.ledger.ingest_url("file:///etc/passwd"), IngestError, "http"),
    Case("url-int", lambda w: w.ledger.ingest_url(5), InvalidInput, "url must be a string"),  # type: ignore[arg-type]
    Case("url-timeout-negative", lambda w: w.ledger.ingest_url("http://127.0.0.1:9/", timeout=-1), InvalidInput,
         "timeout"),
    Case("url-timeout-text", lambda w: w.ledger.ingest_url("http://127.0.0.1:9/", timeout="x"),  # type: ignore[arg-type]
         InvalidInput, "timeout"),
    Case("url-max-bytes-nan", lambda w: w.ledger.ingest_url("http://127.0.0.1:9/", max_bytes=float("nan")),  # type: ignore[arg-type]
         InvalidInput, "max_bytes"),
]


def _case_ids(cases: list[Case]) -> list[str]:
    ids = [c.id for c in cases]
    assert len(ids) == len(set(ids)), "case ids must be unique"
    return ids


@pytest.fixture
def world(make_db_url: Callable[[], str], tmp_path: Path) -> Iterator[World]:
    url = make_db_url()
    clock = TestClock(datetime(2025, 1, 1, tzinfo=UTC))
    with Ledger.open(url, clock=clock) as ledger:
        yield seed(ledger, clock, url, tmp_path / "files")
        report = ledger.check()
        assert report.ok, report.findings


def run_refused(world: World, case: Case) -> LedgerError:
    """Run a case's call, expecting a LedgerError and no change at all; returns the error."""
    if case.setup is not None:
        case.setup(world)
    world.clock.tick()
    before = snapshot(world.url)
    try:
        with time_limit(CASE_SECONDS):
            result = case.call(world)
    except LedgerError as error:
        caught = error
    except BaseException as error:  # noqa: BLE001 - the point is to report anything else
        pytest.fail(f"{case.id}: raised {type(error).__name__} instead of {case.error.__name__}: {error!s:.300}")
    else:
        pytest.fail(f"{case.id}: accepted (returned {result!r:.200}) instead of raising {case.error.__name__}")
    assert isinstance(caught, case.error), \
        f"{case.id}: raised {type(caught).__name__} ({caught!s:.200}), expected {case.error.__name__}"
    assert case.fragment.lower() in str(caught).lower(), \
        f"{case.id}: the message does not mention {case.fragment!r}: {caught!s:.300}"
    assert_unchanged(before, snapshot(world.url))
    return caught


def test_the_corpus_is_big_enough() -> None:
    assert len(_case_ids(CASES)) >= 40
    assert len(_case_ids(CLI_CASES)) >= 10


@pytest.mark.parametrize("case", CASES, ids=_case_ids(CASES))
def test_hostile_api_call_is_refused_and_changes_nothing(world: World, case: Case) -> None:
    error = run_refused(world, case)
    message = str(error)
    assert message and len(message) < 2000, "a message says what is wrong in a few lines"
    assert "\x00" not in message and "\x1b" not in message, "messages never echo raw control characters"


# ---------------------------------------------------------------- the CLI corpus

runner = CliRunner()


@dataclass(frozen=True)
class CliCase:
    id: str
    args: Callable[[World], list[str]]
    exit_code: int
    fragment: str


def _assert(w: World, *extra: str, subject: str = "Alice", predicate: str = "lives in") -> list[str]:
    base = ["assert", subject, predicate, "--value", "Oslo", "--source", str(w.source.id),
            "--quote", "Alice lives in Oslo"]
    return base + list(extra)


CLI_CASES: list[CliCase] = [
    CliCase("cli-valid-at-year-0", lambda w: ["claims", "Alice", "--valid-at", "0000-01-01"], 2, "year 0"),
    CliCase("cli-valid-at-nan", lambda w: ["claims", "--valid-at", "NaN"], 2, "not an ISO date"),
    CliCase("cli-known-at-feb-30", lambda w: ["claims", "--known-at", "2026-02-30"], 2, "day is out of range"),
    CliCase("cli-valid-at-digits", lambda w: ["claims", "--valid-at", "9" * 5000], 2, "valid_at"),
    CliCase("cli-valid-from-month-13", lambda w: _assert(w, "--valid-from", "2026-13"), 2, "month must be"),
    CliCase("cli-valid-until-year-10000", lambda w: _assert(w, "--valid-until", "10000-01-01"), 2, "10000"),
    CliCase("cli-empty-subject", lambda w: _assert(w, subject=""), 2, "empty"),
    CliCase("cli-escape-subject", lambda w: _assert(w, subject="\x1b[31mRed"), 2, "control character"),
    CliCase("cli-surrogate-subject", lambda w: _assert(w, subject="Al\udcffice"), 2, "surrogate"),
    CliCase("cli-crlf-predicate", lambda w: _assert(w, predicate="lives\r\nin"), 2, "one line"),
    CliCase("cli-huge-value", lambda w: ["assert", "Alice", "note", "--value", "v" * 100_001, "--source",
                                         str(w.source.id), "--quote", "Alice lives in Oslo"], 2, "limit"),
    CliCase("cli-empty-scope", lambda w: _assert(w, "--scope", ""), 2, "scope"),
    CliCase("cli-nul-actor", lambda w: _assert(w, "--actor", "me\x00"), 2, "actor"),
    CliCase("cli-missing-source", lambda w: ["assert", "Alice", "lives in", "--value", "Oslo", "--source", "999",
                                             "--quote", "Oslo"], 3, "source 999"),
    CliCase("cli-huge-source-id", lambda w: ["assert", "Alice", "lives in", "--value", "Oslo", "--source",
                                             "9" * 30, "--quote", "Oslo"], 2, "source id"),
    CliCase("cli-quote-not-found", lambda w: _assert(w)[:-1] + ["Alice lives in Paris"], 3, "Paris"),
    CliCase("cli-other-scope", lambda w: ["assert", "Alice", "lives in", "--value", "Bergen", "--source",
                                          str(w.other.id), "--quote", "Alice lives in Bergen"], 2, "scope"),
    CliCase("cli-explain-huge-id", lambda w: ["explain", "9" * 30], 2, "claim id"),
    CliCase("cli-explain-missing", lambda w: ["explain", "4242"], 3, "claim 4242"),
    CliCase("cli-audit-status", lambda w: ["audit", "--status", "bogus"], 2, "unknown status"),
    CliCase("cli-history-surrogate", lambda w: ["history", "\ud800", "lives in"], 2, "surrogate"),
    CliCase("cli-add-source-zero-byte", lambda w: ["add-source", str(w.files / "zero.txt")], 2, "empty"),
    CliCase("cli-add-source-invalid-utf8", lambda w: ["add-source", str(w.files / "latin1.txt")], 2, "UTF-8"),
    CliCase("cli-add-source-nul", lambda w: ["add-source", str(w.files / "nul.txt")], 2, "NUL"),
    CliCase("cli-add-source-directory", lambda w: ["add-source", str(w.files / "empty-folder")], 2, "directory"),
    CliCase("cli-add-source-missing", lambda w: ["add-source", str(w.files / "missing.txt")], 2, "does not exist"),
    CliCase("cli-ingest-huge-page-count", lambda w: ["ingest", str(HUGE_PDF)], 2, "pages"),
    CliCase("cli-ingest-billion-laughs", lambda w: ["ingest", str(w.files / "bomb.html")], 2, "main text"),
    CliCase("cli-ingest-nested", lambda w: ["ingest", str(w.files / "nested.html")], 2, "deeper than"),
    CliCase("cli-ingest-zero-byte", lambda w: ["ingest", str(w.files / "zero.pdf")], 2, "empty"),
    CliCase("cli-ingest-directory-as-pdf", lambda w: ["ingest", str(w.files / "a-directory.pdf")], 2,
            "holds no PDF or HTML file"),
    CliCase("cli-markup-in-error", lambda w: ["claims", "--valid-at", "[/red]2026"], 2, "'[/red]2026'"),
    CliCase("cli-markup-in-file-name", lambda w: ["ingest", str(w.files / "nope[/x].pdf")], 2, "nope[/x].pdf"),
    CliCase("cli-ingest-empty-folder", lambda w: ["ingest", str(w.files / "empty-folder")], 2,
            "holds no PDF or HTML file"),
]


@pytest.mark.parametrize("case", CLI_CASES, ids=_case_ids(CLI_CASES))
def test_hostile_command_line_is_refused_and_changes_nothing(world: World, case: CliCase) -> None:
    args = case.args(world) + ["--db", world.url]
    before = snapshot(world.url)
    with time_limit(CASE_SECONDS):
        result = runner.invoke(app, args)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        pytest.fail(f"{case.id}: crashed with {type(result.exception).__name__}: {result.exception!s:.300}")
    output = result.output
    assert result.exit_code == case.exit_code, f"{case.id}: exit {result.exit_code}, expected {case.exit_code}: {output[-600:]}"
    assert case.fragment.lower() in " ".join(output.split()).lower(), f"{case.id}: {output[-600:]}"
    assert "Traceback" not in output
    assert_unchanged(before, snapshot(world.url))


# ---------------------------------------------------------------- hostile but valid: stored verbatim

SQL_NAME = "Robert'); DROP TABLE claims;--"


def test_sql_looking_names_are_just_names(world: World) -> None:
    ledger = world.ledger
    robert = ledger.entity(SQL_NAME, aliases=["x' OR '1'='1"])
    claim = ledger.assert_claim(SQL_NAME, "'; DELETE FROM sources; --", value="1); DROP TABLE evidence;--",
                                evidence=[ledger.cite(world.source, "Robert'); DROP TABLE claims;--")],
                                qualifiers={"'); --": "\" OR 1=1"})
    assert ledger.get_entity(SQL_NAME).id == robert.id
    assert ledger.resolve("x' OR '1'='1") == ledger.get_entity(robert.id)
    [found] = ledger.claims(SQL_NAME, "'; DELETE FROM sources; --")
    assert (found.id, found.value, found.qualifiers) == (claim.id, "1); DROP TABLE evidence;--", {"'); --": "\" OR 1=1"})
    assert {"claims", "evidence", "sources"} <= set(table_dump(world.url))
    result = runner.invoke(app, ["claims", SQL_NAME, "--json", "--db", world.url])
    assert result.exit_code == 0 and "DROP TABLE evidence" in result.stdout


def test_homoglyphs_are_different_entities_and_never_merge_silently(world: World) -> None:
    ledger = world.ledger
    latin, cyrillic = ledger.entity("Anna"), ledger.entity("\u0410nna")  # Cyrillic capital A
    assert latin.id != cyrillic.id
    assert ledger.resolve("anna") == ledger.get_entity(latin.id)
    assert ledger.resolve("\u0430nna") == ledger.get_entity(cyrillic.id)  # Cyrillic small a
    before = snapshot(world.url)
    with pytest.raises(AliasConflict, match="already names entity"):
        ledger.add_alias(latin, "\u0410NNA")
    assert_unchanged(before, snapshot(world.url))
    # Greek omicron in "Bοb" is not Latin o: a new entity, not Bob.
    assert ledger.entity("B\u03bfb").id != world.bob.id


def test_invisible_and_compatibility_characters_name_the_same_entity(world: World) -> None:
    ledger = world.ledger
    for spelling in ("Ali\u200bce", "\ufeffAlice", "A\u200dlice\u200c", "\uff21\uff4c\uff49\uff43\uff45", "alice"):
        assert ledger.entity(spelling).id == world.alice.id, spelling
    before = snapshot(world.url)
    assert ledger.add_alias(world.alice, "Al\u2060ice").aliases == ledger.get_entity(world.alice.id).aliases
    world.clock.tick()
    assert ledger.entity("Alice", aliases=["A\u200blice"]).aliases == ("Alice",)
    assert before.tables["aliases"] == snapshot(world.url).tables["aliases"]
    # The stored name keeps what the caller wrote; matching ignores the invisible characters.
    zero = ledger.entity("Zo\u200be")
    assert zero.name == "Zo\u200be" and ledger.resolve("zoe") == zero


def test_invisible_characters_and_odd_spaces_name_the_same_predicate(world: World) -> None:
    """"rent\u200b" or "rent\u00a0due" must not escape the conflict rules of "rent" / "rent due"."""
    ledger = world.ledger
    lease = ledger.add_source(text="Lease: Bob pays PLN 900 a month.", publisher="Landlord")
    bank = ledger.add_source(text="Bank: Bob pays PLN 950 a month.", publisher="Bank")
    first = ledger.assert_claim("Bob", "monthly  rent", value="PLN 900", evidence=[ledger.cite(lease, "PLN 900")])
    world.clock.tick()
    second = ledger.assert_claim("Bob", "\u200bmonthly\u00a0rent\ufeff", value="PLN 950",
                                 evidence=[ledger.cite(bank, "PLN 950")])
    assert second.predicate == first.predicate == "monthly rent"
    assert {c.status for c in ledger.claims("Bob", "monthly\u2009rent")} == {"disputed"}  # one predicate, in conflict
    before = snapshot(world.url)
    with pytest.raises(InvalidInput, match="no visible characters"):
        ledger.assert_claim("Bob", "\u200b\u2060", value="x", evidence=[world.cite])
    assert snapshot(world.url) == before


def test_a_supersession_cycle_never_forms(world: World) -> None:
    first, second = world.new_claim("1%"), world.new_claim("2%")
    world.ledger.supersede(first, second)
    with pytest.raises(Conflict, match="cycle"):
        world.ledger.supersede(second, first)
    old = world.ledger.explain(first)
    assert [(l.from_claim_id, l.kind, l.to_claim_id) for l in old.links] == [(second.id, "supersedes", first.id)]


def test_markup_in_names_is_shown_literally_on_the_command_line(world: World) -> None:
    world.ledger.assert_claim("[b]M[/]", "note", value="[/red]", evidence=[world.cite])
    result = runner.invoke(app, ["claims", "[b]M[/]", "--db", world.url])
    assert result.exit_code == 0, result.output
    assert "[b]M[/]" in result.stdout and "[/red]" in result.stdout


def test_a_merge_that_keeps_claims_consistent_goes_through(world: World) -> None:
    ledger = world.ledger
    bobs = ledger.assert_claim("Bob", "lives in", value="Acme", evidence=[ledger.cite(world.source, "Bob works at Acme")])
    ledger.dispute(bobs, reason="Acme is an employer, not a place")
    merged = ledger.merge_entities(world.alice, world.bob)
    assert merged.id == world.alice.id and "Bob" in merged.aliases
    assert {c.value for c in ledger.claims("Bob", "lives in", valid_at="2026-06")} == {"Oslo", "Acme"}
