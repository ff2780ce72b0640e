"""The audit questions (named queries in queries/): hand-built answers on a small ledger, the
same rows as the package's own reads, and nothing from another scope."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from ledger import Ledger
from ledger.errors import InvalidInput
from tests.conftest import TestClock

SCOPES = ("default", "other")


def build(ledger: Ledger, clock: TestClock) -> dict[str, dict[str, int]]:
    """The story, told alike in each scope: claims c1…c6, a value claim, sources A and B."""
    clock.set("2024-01-10T00:00:00")
    ledger.define_predicate("works_for", cardinality="many", object_kind="entity")
    ledger.define_predicate("lives_in", cardinality="many", object_kind="entity")
    ledger.define_predicate("age", cardinality="one", object_kind="value")
    told: dict[str, dict[str, int]] = {}
    for scope in SCOPES:
        a = ledger.add_source(text=f"Register A ({scope}): staff, homes and ages.", scope=scope)
        quote = ledger.cite(a, "staff, homes and ages")

        def claim(subject: str, predicate: str, obj: str | None = None, **fields: object) -> int:
            return int(ledger.assert_claim(subject, predicate, obj, evidence=quote, scope=scope,  # type: ignore[arg-type]
                                           **fields).id)

        told[scope] = {
            "c1": claim("Ann", "works_for", "Acme", valid_from="2019-01-01", valid_until="2024-03-01"),
            "c2": claim("Bob", "works_for", "Acme", valid_from="2024-03-01"),
            "c3": claim("Ann", "lives_in", "Paris", valid_from="2010"),
            "c4": claim("Cat", "works_for", "Initech", valid_from="2023-01-01", valid_until="2024-01-01"),
            "c5": claim("Dan", "works_for", "Acme", valid_from="2025-01-01"),
            "age": claim("Ann", "age", value=40),
        }
    clock.set("2024-05-01T00:00:00")
    for scope, ids in told.items():
        ids["B"] = int(ledger.add_source(text=f"Bulletin B ({scope}): Eve joined Acme in June.", scope=scope).id)
    clock.set("2024-05-15T00:00:00")
    for ids in told.values():
        ledger.retract(ids["c2"], reason="Bob never joined")
    clock.set("2024-06-20T00:00:00")
    for ids in told.values():
        ledger.dispute(ids["c3"], reason="moved?")
    clock.set("2024-07-01T00:00:00")
    for scope, ids in told.items():
        ids["c6"] = int(ledger.assert_claim("Eve", "works_for", "Acme", valid_from="2024-06-01", scope=scope,
                                            evidence=ledger.cite(ids["B"], "Eve joined Acme in June")).id)
    clock.set("2024-08-01T00:00:00")
    return told


@pytest.fixture
def story(ledger: Ledger, clock: TestClock) -> dict[str, dict[str, int]]:
    return build(ledger, clock)


def claims(rows: list[dict[str, object]]) -> set[object]:
    return {row["claim_id"] for row in rows}


def named(ids: dict[str, int], *names: str) -> set[int]:
    return {ids[name] for name in names}


def test_what_was_believed_as_of_june_first(ledger: Ledger, story: dict[str, dict[str, int]]) -> None:
    for scope, ids in story.items():
        rows = ledger.ask("believed_as_of", known_at="2024-06-01", scope=scope)
        assert claims(rows) == named(ids, "c1", "c3", "c4", "c5", "age")  # c2 retracted in May, c6 not yet said
        assert {row["status"] for row in rows if row["claim_id"] == ids["c3"]} == {"reported"}  # disputed only later
        assert all(row["invalidated_at"] is None or row["invalidated_at"] > datetime(2024, 6, 1, tzinfo=UTC)
                   for row in rows)


def test_which_claims_are_active_now(ledger: Ledger, story: dict[str, dict[str, int]]) -> None:
    for scope, ids in story.items():
        rows = ledger.ask("active_claims", scope=scope)  # now: 2024-08-01
        assert claims(rows) == named(ids, "c3", "c6", "age")  # c1 and c4 ended, c5 not begun, c2 retracted
        assert {row["claim_id"]: row["status"] for row in rows}[ids["c3"]] == "disputed"
        assert [r["value"] for r in rows if r["claim_id"] == ids["age"]] == [40]


def test_which_relationships_held_during_2024(ledger: Ledger, story: dict[str, dict[str, int]]) -> None:
    for scope, ids in story.items():
        rows = ledger.ask("relationships_during", start="2024", end="2025", scope=scope)
        # c4 ends where 2024 begins and c5 begins where it ends: closed-open, neither overlaps
        assert claims(rows) == named(ids, "c1", "c3", "c6")
        early = ledger.ask("relationships_during", start="2024", end="2025", known_at="2024-05-01", scope=scope)
        assert claims(early) == named(ids, "c1", "c2", "c3")  # before the retraction and before c6


def test_which_claims_changed_after_source_b(ledger: Ledger, story: dict[str, dict[str, int]]) -> None:
    for scope, ids in story.items():
        rows = ledger.ask("changed_after_source", source_id=ids["B"], scope=scope)
        assert [(row["claim_id"], row["change"], row["status"]) for row in rows] == [
            (ids["c2"], "changed", "retracted"), (ids["c3"], "changed", "disputed"), (ids["c6"], "added", "reported")]
    other_source = story["other"]["B"]
    assert ledger.ask("changed_after_source", source_id=other_source, scope="default") == []


def test_the_views_give_the_rows_the_package_reads(ledger: Ledger, story: dict[str, dict[str, int]],
                                                   clock: TestClock) -> None:
    for scope in SCOPES:
        for valid_at, known_at in (("2024-02-01", "2024-05-20"), ("2023-06-01", "2024-01-11"), ("2026", "2024-08-01")):
            got = {(r["claim_id"], r["version_id"])
                   for r in ledger.ask("claims_as_of", valid_at=valid_at, known_at=known_at, scope=scope)}
            assert got == {(c.id, c.version_id) for c in ledger.claims(valid_at=valid_at, known_at=known_at, scope=scope)}
        current = {(r["claim_id"], r["version_id"]) for r in ledger.ask("current_claims", scope=scope)}
        assert current == {(c.id, c.version_id) for c in ledger.claims(scope=scope)}
        audit = {(r["claim_id"], r["version_id"], r["status"]) for r in ledger.ask("audit_view", scope=scope)}
        assert audit == {(v.id, v.version_id, v.status) for a in ledger.audit(scope=scope) for v in a.versions}
        assert {c for c, _, _ in audit} == {i for name, i in story[scope].items() if name != "B"}


def test_no_question_answers_from_another_scope(ledger: Ledger, story: dict[str, dict[str, int]]) -> None:
    mine = {i for name, i in story["default"].items() if name != "B"}
    for question, params in (("current_claims", {}), ("claims_as_of", {"valid_at": "2024-02-01"}),
                             ("audit_view", {}), ("believed_as_of", {"known_at": "2024-06-01"}),
                             ("active_claims", {}), ("relationships_during", {"start": "2000", "end": "2030"}),
                             ("changed_after_source", {"source_id": story["default"]["B"]})):
        assert claims(ledger.ask(question, **params)) <= mine, question


@pytest.mark.parametrize("question, params", [
    ("no_such_question", {}), ("believed_as_of", {"valid_at": "2024"}), ("relationships_during", {"start": "2024"}),
    ("relationships_during", {"start": "2025", "end": "2024"}), ("changed_after_source", {"source_id": "B"}),
    ("active_claims", {"at": "not a time"}),
])
def test_bad_questions_are_refused(ledger: Ledger, question: str, params: dict[str, object]) -> None:
    with pytest.raises(InvalidInput):
        ledger.ask(question, **params)
