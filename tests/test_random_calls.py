"""Random sequences of public API calls, valid and hostile mixed: every call either succeeds or
raises a ``LedgerError``; a call that fails changes no row of any table; and the consistency
checker finds nothing after every step.

A hypothesis rule-based state machine drives one fresh ledger per example. Arguments come from
small pools that mix good values with the hostile ones of ``test_hostile.py`` (bad dates, NaN,
NUL bytes, lone surrogates, control characters, wrong types, other scopes, unknown ids), so
most sequences interleave successful writes with refused ones.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)
from sqlalchemy import Engine, create_engine, inspect, text
from sqlalchemy.pool import NullPool

from ledger import Citation, Claim, Entity, Ledger, LedgerError, Source
from ledger.db import resolve_url

from .conftest import TestClock


class Huge(int):
    """10**5000, too long to print: hypothesis shows it by this repr."""

    def __repr__(self) -> str:
        return "Huge(10**5000)"


HUGE = Huge(10**5000)
GOOD_TEXTS = [
    "Alice lives in Oslo. Bob knows Carol. The rate is 5 percent.",
    "Alice lives in Bergen now. The rate is 7 percent.",
    "Revised: Alice lives in Oslo. The rate is 6 percent. Bob knows Carol.",
]
BAD_TEXTS: list[Any] = ["", "   ", "a\x00b", "x\ud800y", b"Alice lives in Oslo", None]
GOOD_QUOTES = ["Alice lives in Oslo", "The rate is 5 percent", "Alice lives in Bergen", "rate is 7", "The rate is 6",
               "Bob knows Carol"]
BAD_QUOTES: list[Any] = ["Paris", "", "\ud800", b"Oslo", None, "Oslo\x00"]
GOOD_NAMES = ["Alice", "alice", "Ali\u200bce", "\u0410lice", "Bob", "Carol", "Robert'); DROP TABLE claims;--"]
BAD_NAMES: list[Any] = ["", "  ", "...", "x" * 1001, "\x1b[31mRed", "Al\ud800", "a\r\nb", b"Bob", None, 5, ["Alice"]]
GOOD_PREDICATES = ["lives in", "rate", "knows", "'; DROP TABLE evidence;--"]
BAD_PREDICATES: list[Any] = ["", "p" * 201, "a\nb", "\x1b[2J", 5, None]
GOOD_VALUES: list[Any] = ["Oslo", "Bergen", "5 percent", 5, 5.5, True, Decimal("1.5"), {"a": 1}]
BAD_VALUES: list[Any] = [float("nan"), float("inf"), Decimal("NaN"), HUGE, "v" * 100_001, "\udcff", b"x", [1],
                         {"a": float("nan")}, 1j]
GOOD_DATES: list[Any] = [None, None, "2025", "2026-03", "2026-07-01", "2027",
                         datetime(9999, 12, 31, 23, 59, tzinfo=UTC)]
BAD_DATES: list[Any] = ["0000-01-01", "2026-02-30", "2026-13", "NaN", "9" * 30, "2026-01-01\x00", datetime(2026, 5, 1),
                        2026, "9999-12-31T23:00:00-05:00"]
GOOD_CONFIDENCES: list[Any] = [None, None, 0.0, 0.5, 1.0]
BAD_CONFIDENCES: list[Any] = [float("nan"), float("inf"), 1.5, -0.1, "0.5", True]
GOOD_QUALIFIERS: list[Any] = [None, {}, {"unit": "kg"}, {"unit": "g"}]
BAD_QUALIFIERS: list[Any] = [{"x": float("nan")}, {1: 2}, [("a", 1)], {"k": "\ud800"}, {"n": HUGE}, {"xs": [[[[[[[[[[1]]]]]]]]]]}]
GOOD_SCOPES = ["default", "default", "default", "other"]
BAD_SCOPES: list[Any] = ["", None, "\x1b", "s" * 201, "s\ud800"]
GOOD_URIS: list[Any] = [None, "doc:a", "doc:b"]
BAD_URIS: list[Any] = [5, "\udcff", "doc:\x00", "doc:\n"]
GOOD_STATUSES = ["reported", "reported", "confirmed", "disputed"]
BAD_STATUSES: list[Any] = ["retracted", "superseded", None, 1]
GOOD_REASONS: list[Any] = [None, "wrong", "newer data"]
BAD_REASONS: list[Any] = ["", "  ", "r\ud800", 5, "x" * 10_001, "a\x00"]
GOOD_ACTORS: list[Any] = [None, None, "agent:a"]
BAD_ACTORS: list[Any] = ["\x1b[0m", 7, "a\x00", "a" * 201]
GOOD_KINDS: list[Any] = [None, None, "person", "place"]
BAD_KINDS: list[Any] = ["", 5, "\x07"]
BAD_REFS: list[Any] = [999, -1, 0, 2**70, "1", None, True, 1.0]
TICKS = [timedelta(seconds=1), timedelta(seconds=1), timedelta(hours=1), timedelta(days=1), timedelta(days=40),
         timedelta(hours=-2)]


def spoiler(**bad: list[Any]) -> st.SearchStrategy[tuple[str, Any] | None]:
    """None (all arguments good) about two times in three, else one argument and a hostile value for it."""
    pairs = [(name, value) for name, values in bad.items() for value in values]
    return st.one_of(st.none(), st.none(), st.sampled_from(pairs))


class TableDump:
    """Every row of every table, through an engine of its own."""

    def __init__(self, url: str) -> None:
        self.engine: Engine = create_engine(resolve_url(url), poolclass=NullPool)
        with self.engine.connect() as connection:
            self.tables = sorted(inspect(connection).get_table_names())

    def __call__(self) -> dict[str, list[tuple[Any, ...]]]:
        with self.engine.connect() as connection:
            return {name: [tuple(r) for r in connection.execute(text(f'SELECT * FROM "{name}" ORDER BY 1'))]
                    for name in self.tables}


def pick(pool: list[Any]) -> st.SearchStrategy[Any]:
    return st.sampled_from(pool)


class RandomCalls(RuleBasedStateMachine):
    """Public calls with random (often hostile) arguments against one ledger."""

    make_url: Callable[[], str]

    def __init__(self) -> None:
        super().__init__()
        self.clock = TestClock()
        self.url = self.make_url()
        self.ledger = Ledger.open(self.url, clock=self.clock)
        self.dump = TableDump(self.url)
        self.sources: list[Source] = []
        self.citations: list[Citation] = []
        self.claims: list[Claim] = []
        self.entities: list[Entity] = []
        self.failures = 0

    def teardown(self) -> None:
        self.ledger.close()
        self.dump.engine.dispose()

    # ------------------------------------------------------------ the one place calls are made

    def call(self, work: Callable[[], Any]) -> Any:
        """Run one public call: success, or a LedgerError that changed nothing."""
        before = self.dump()
        try:
            return work()
        except LedgerError as error:
            assert str(error).strip(), f"{type(error).__name__} without a message"
            after = self.dump()
            changed = [t for t in self.dump.tables if before[t] != after[t]]
            assert not changed, f"{type(error).__name__} ({error}) left changes in {changed}"
            self.failures += 1
            return None

    def _ref(self, items: list[Any], index: int, bad: Any) -> Any:
        if items and index >= 0:
            return items[index % len(items)]
        return bad

    # ------------------------------------------------------------ setup and invariant

    @initialize()
    def seed(self) -> None:
        first = self.ledger.add_source(text=GOOD_TEXTS[0], uri="doc:a", publisher="A")
        second = self.ledger.add_source(text=GOOD_TEXTS[1], uri="doc:b", publisher="B")
        other = self.ledger.add_source(text=GOOD_TEXTS[1], uri="doc:other", scope="other")
        self.sources += [first, second, other]
        self.citations += [self.ledger.cite(first, "Alice lives in Oslo"), self.ledger.cite(first, "The rate is 5"),
                           self.ledger.cite(second, "Alice lives in Bergen"), self.ledger.cite(second, "rate is 7"),
                           self.ledger.cite(other, "rate is 7")]
        self.entities += [self.ledger.entity("Alice", kind="person"), self.ledger.entity("Bob")]
        self.claims.append(self.ledger.assert_claim("Alice", "lives in", value="Oslo", valid_from="2026-01",
                                                    evidence=[self.citations[0]]))

    @invariant()
    def consistent(self) -> None:
        report = self.ledger.check()
        assert report.ok, "\n".join(f"{f.check}: {f.detail}" for f in report.findings)

    # ------------------------------------------------------------ rules

    @rule(delta=pick(TICKS))
    def tick(self, delta: timedelta) -> None:
        self.clock.tick(seconds=delta.total_seconds())

    @rule(name=pick(GOOD_NAMES), kind=pick(GOOD_KINDS), aliases=st.lists(pick(GOOD_NAMES), max_size=2),
          scope=pick(GOOD_SCOPES),
          spoil=spoiler(name=BAD_NAMES, kind=BAD_KINDS, aliases=[["Al", ""], "Al", None, 5, [b"x"]], scope=BAD_SCOPES))
    def entity(self, spoil: tuple[str, Any] | None, **args: Any) -> None:
        args = spoiled(args, spoil)
        found = self.call(lambda: self.ledger.entity(args.pop("name"), **args))
        if found is not None:
            self.entities.append(found)

    @rule(which=st.integers(-1, 9), alias=pick(GOOD_NAMES + ["Ally", "Lissy"]), language=pick([None, "en", "pl"]),
          spoil=spoiler(alias=BAD_NAMES, language=["", 7, "e\nn"], entity=BAD_REFS))
    def add_alias(self, which: int, spoil: tuple[str, Any] | None, **args: Any) -> None:
        args = spoiled({"entity": self._ref(self.entities, which, "Alice"), **args}, spoil)
        self.call(lambda: self.ledger.add_alias(args.pop("entity"), args.pop("alias"), **args))

    @rule(keep=st.integers(-1, 9), other=st.integers(-1, 9), spoil=spoiler(keep=BAD_REFS, other=BAD_REFS))
    def merge(self, keep: int, other: int, spoil: tuple[str, Any] | None) -> None:
        args = spoiled({"keep": self._ref(self.entities, keep, "Bob"),
                        "other": self._ref(self.entities, other, "Alice")}, spoil)
        self.call(lambda: self.ledger.merge_entities(args["keep"], args["other"]))

    @rule(text=pick(GOOD_TEXTS), uri=pick(GOOD_URIS), trust=pick(["trusted", "trusted", "untrusted"]),
          scope=pick(GOOD_SCOPES), published_at=pick(GOOD_DATES),
          spoil=spoiler(text=BAD_TEXTS, uri=BAD_URIS, trust=["maybe", None], scope=BAD_SCOPES,
                        published_at=BAD_DATES, title=["\ud800", 5, "t\x00"]))
    def add_source(self, spoil: tuple[str, Any] | None, **args: Any) -> None:
        args = spoiled(args, spoil)
        source = self.call(lambda: self.ledger.add_source(**args))
        if source is not None:
            self.sources.append(source)

    @rule(which=st.integers(0, 9), quote=pick(GOOD_QUOTES), relation=pick(["supports", "supports", "contradicts"]),
          spoil=spoiler(source=BAD_REFS, quote=BAD_QUOTES, relation=["refutes", None], page=[0, "1", 2]))
    def cite(self, which: int, spoil: tuple[str, Any] | None, **args: Any) -> None:
        args = spoiled({"source": self._ref(self.sources, which, 999), **args}, spoil)
        citation = self.call(lambda: self.ledger.cite(args.pop("source"), args.pop("quote"), **args))
        if citation is not None:
            self.citations.append(citation)

    @rule(subject=pick(GOOD_NAMES), predicate=pick(GOOD_PREDICATES), value=pick(GOOD_VALUES),
          object_=pick([None, None, None, "Bob", "Carol"]), valid_from=pick(GOOD_DATES), valid_until=pick(GOOD_DATES),
          evidence=st.lists(st.integers(0, 9), min_size=1, max_size=2), confidence=pick(GOOD_CONFIDENCES),
          qualifiers=pick(GOOD_QUALIFIERS), supersedes=st.integers(-1, 9), status=pick(GOOD_STATUSES),
          actor=pick(GOOD_ACTORS), scope=pick(GOOD_SCOPES),
          spoil=spoiler(subject=BAD_NAMES, predicate=BAD_PREDICATES, value=BAD_VALUES, valid_from=BAD_DATES,
                        valid_until=BAD_DATES, confidence=BAD_CONFIDENCES, qualifiers=BAD_QUALIFIERS,
                        supersedes=BAD_REFS, status=BAD_STATUSES, actor=BAD_ACTORS, scope=BAD_SCOPES,
                        evidence=[[], None, "quote", [None]]))
    def assert_claim(self, object_: Any, evidence: list[int], supersedes: int, spoil: tuple[str, Any] | None,
                     **args: Any) -> None:
        if object_ is not None:
            args["value"] = None
        in_scope = [c for c in self.citations if c.scope == args["scope"]] or self.citations
        args["evidence"] = [in_scope[i % len(in_scope)] for i in evidence]
        args["supersedes"] = None if supersedes < 0 else self._ref(self.claims, supersedes, None)
        args = spoiled(args, spoil)
        claim = self.call(lambda: self.ledger.assert_claim(args.pop("subject"), args.pop("predicate"), object_,
                                                           **args))
        if claim is not None:
            self.claims.append(claim)

    @rule(subject=pick(["Alice", "Bob"]), predicate=pick(["lives in", "rate", "tags"]),
          value=pick(["Oslo", "Bergen", "5", "7"]), valid_from=pick(GOOD_DATES[:6]), cited=st.integers(0, 3),
          supersedes=st.integers(-3, 9))
    def assert_plain(self, subject: str, predicate: str, value: str, valid_from: Any, cited: int,
                     supersedes: int) -> None:
        """A valid assertion (default scope), so the lifecycle rules have claims to work on."""
        replaced = None if supersedes < 0 else self._ref(self.claims, supersedes, None)
        claim = self.call(lambda: self.ledger.assert_claim(subject, predicate, value=value, valid_from=valid_from,
                                                           evidence=[self.citations[cited]], supersedes=replaced))
        if claim is not None:
            self.claims.append(claim)

    @rule(size=st.integers(1, 3), values=st.lists(pick(GOOD_VALUES[:6]), min_size=3, max_size=3),
          starts=st.lists(pick(GOOD_DATES[:6]), min_size=3, max_size=3),
          spoil=spoiler(value=BAD_VALUES[:3], valid_from=BAD_DATES[:3], subject=BAD_NAMES[:3]))
    def assert_claims(self, size: int, values: list[Any], starts: list[Any], spoil: tuple[str, Any] | None) -> None:
        drafts = [{"subject": "Alice", "predicate": "rate", "value": values[n], "valid_from": starts[n],
                   "evidence": [self.citations[n % len(self.citations)]]} for n in range(size)]
        drafts[-1] = spoiled(drafts[-1], spoil)  # one bad draft spoils the whole batch
        self.call(lambda: self.ledger.assert_claims(drafts))

    @rule(op=pick(["confirm", "dispute", "retract", "supersede"]), which=st.integers(0, 9),
          other=st.integers(0, 9), reason=pick(GOOD_REASONS), evidence=st.integers(-1, 9), actor=pick(GOOD_ACTORS),
          spoil=spoiler(claim=BAD_REFS, newer=BAD_REFS, reason=BAD_REASONS, actor=BAD_ACTORS,
                        evidence=["quote", [None], 5]))
    def change_status(self, op: str, which: int, other: int, evidence: int, spoil: tuple[str, Any] | None,
                      **args: Any) -> None:
        args["claim"] = self._ref(self.claims, which, 999)
        args["newer"] = self._ref(self.claims, other, 999)
        args["evidence"] = None if evidence < 0 else self.citations[evidence % len(self.citations)]
        args = spoiled(args, spoil)
        claim, newer, evidence_ = args.pop("claim"), args.pop("newer"), args.pop("evidence")
        if op == "retract" and args["reason"] is None:
            args["reason"] = "withdrawn"
        if op == "confirm":
            self.call(lambda: self.ledger.confirm(claim, evidence=evidence_, **args))
        elif op == "dispute":
            self.call(lambda: self.ledger.dispute(claim, evidence=evidence_, **args))
        elif op == "retract":
            self.call(lambda: self.ledger.retract(claim, **args))
        else:
            self.call(lambda: self.ledger.supersede(claim, newer, **args))

    @rule(name=pick(GOOD_PREDICATES), cardinality=pick(["one", "many"]), object_kind=pick(["value", "entity"]),
          datatype=pick([None, None, "string", "number"]),
          spoil=spoiler(name=BAD_PREDICATES, cardinality=["two", None], object_kind=["thing"],
                        datatype=["banana", 5], inverse=[5, "\ud800"], description=["\ud800", 5]))
    def define_predicate(self, spoil: tuple[str, Any] | None, **args: Any) -> None:
        args = spoiled(args, spoil)
        if args["object_kind"] == "entity" and args["datatype"] in ("string", "number"):
            args["datatype"] = None
        self.call(lambda: self.ledger.define_predicate(args.pop("name"), **args))

    @rule(subject=pick(GOOD_NAMES[:6] + [None]), predicate=pick(GOOD_PREDICATES[:3] + [None]),
          valid_at=pick(GOOD_DATES), known_at=pick(GOOD_DATES), statuses=pick([None, ["retracted", "reported"]]),
          spoil=spoiler(subject=[999, "\ud800", b"x", 2**70], predicate=[5, "\ud800"], valid_at=BAD_DATES,
                        known_at=BAD_DATES, statuses=["bogus", 5, []]))
    def read(self, spoil: tuple[str, Any] | None, **args: Any) -> None:
        args = spoiled(args, spoil)
        self.call(lambda: self.ledger.claims(args.pop("subject"), args.pop("predicate"), **args))


def spoiled(args: dict[str, Any], spoil: tuple[str, Any] | None) -> dict[str, Any]:
    """``args`` with the hostile value, if any, in place of one argument."""
    if spoil is None:
        return dict(args)
    name, value = spoil
    return {**args, name: value}


def test_random_call_sequences_fail_cleanly_and_stay_consistent(make_db_url: Callable[[], str]) -> None:
    machine = type("Machine", (RandomCalls,), {"make_url": staticmethod(make_db_url)})
    run_state_machine_as_test(machine, settings=settings(
        max_examples=60, stateful_step_count=30, deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                               HealthCheck.filter_too_much, HealthCheck.data_too_large],
    ))
