"""The lifecycle rules as pure decisions, without a database."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.claims.provenance import Document
from ledger.claims.rules import Incoming, Standing, combine_confidence, decide
from ledger.claims.values import canonical_json, encode_value
from ledger.errors import InvalidInput

NOW = datetime(2026, 12, 1, tzinfo=UTC)


def d(month: int) -> datetime:
    return datetime(2026, month, 1, tzinfo=UTC)


def doc(family: int, revision: int = 0) -> Document:
    """Revision ``revision`` of document ``family`` (each revision its own bytes)."""
    return Document(source_id=family * 10 + revision, family=family, content_hash=f"h{family}.{revision}")


def standing(claim_id: int, value: str, start: datetime | None, end: datetime | None = None, family: int = 1,
             status: str = "reported") -> Standing:
    return Standing(claim_id, value, status, start, end, frozenset({doc(family)}))


def new(value: str, start: datetime | None, end: datetime | None = None, family: int = 2,
        supersedes: frozenset[int] = frozenset(), revision: int = 0) -> Incoming:
    return Incoming(value, start, end, frozenset({doc(family, revision)}), supersedes)


def test_same_value_overlapping_corroborates() -> None:
    assert decide(new("a", d(4)), [standing(1, "a", d(3))], functional=True, now=NOW).corroborates == 1


def test_same_value_after_a_closed_interval_is_a_new_claim() -> None:
    decision = decide(new("a", d(9)), [standing(1, "a", d(3), d(6))], functional=True, now=NOW)
    assert decision.corroborates is None and decision.changes == ()


def test_later_start_closes_the_active_claim() -> None:
    decision = decide(new("b", d(7)), [standing(1, "a", d(3))], functional=True, now=NOW)
    [change] = decision.changes
    assert (change.claim_id, change.status, change.valid_from, change.valid_until) == (1, "superseded", d(3), d(7))
    assert not decision.disputed


def test_earlier_open_claim_is_backfilled_up_to_the_later_one() -> None:
    decision = decide(new("a", d(3)), [standing(1, "b", d(7))], functional=True, now=NOW)
    assert decision.valid_until == d(7) and decision.changes == () and not decision.disputed


def test_same_start_from_a_revision_of_the_source_is_a_correction() -> None:
    decision = decide(new("b", d(3), family=1, revision=1), [standing(1, "a", d(3), family=1)], functional=True,
                      now=NOW)
    [change] = decision.changes
    assert change.status == "superseded" and change.valid_from == change.valid_until == d(3)


def test_two_values_from_one_unchanged_source_are_a_conflict_inside_it() -> None:
    decision = decide(new("b", d(3), family=1), [standing(1, "a", d(3), family=1)], functional=True, now=NOW)
    assert decision.disputed and [(c.status, c.cause) for c in decision.changes] == [
        ("disputed", "contradicted-in-source")]
    assert decision.cause.effects == (("conflicts-in-source", 1),)


def test_same_start_from_an_independent_source_is_a_conflict() -> None:
    decision = decide(new("b", d(3)), [standing(1, "a", d(3))], functional=True, now=NOW)
    assert decision.disputed and [c.status for c in decision.changes] == ["disputed"]
    assert [(l.kind, l.to_claim_id) for l in decision.links] == [("contradicts", 1)]


def test_explicit_supersedes_beats_conflict() -> None:
    decision = decide(new("b", d(3), supersedes=frozenset({1})), [standing(1, "a", d(3))], functional=True, now=NOW)
    assert not decision.disputed and [c.status for c in decision.changes] == ["superseded"]


def test_adjacent_intervals_never_conflict() -> None:
    decision = decide(new("b", d(7), d(9)), [standing(1, "a", d(3), d(7))], functional=True, now=NOW)
    assert decision.changes == () and not decision.disputed


def test_cardinality_many_coalesces_meeting_intervals_and_keeps_disjoint_ones_apart() -> None:
    one = standing(1, "a", d(1), d(3))
    assert decide(new("a", d(1), d(3)), [one], functional=False, now=NOW).corroborates == 1
    assert decide(new("a", d(5), d(8)), [one], functional=False, now=NOW).corroborates is None
    grown = decide(new("a", d(3), d(8)), [one], functional=False, now=NOW)
    assert grown.corroborates == 1 and grown.extends == (d(1), d(8), None, None)


def test_the_same_value_over_a_longer_interval_extends_the_claim() -> None:
    decision = decide(new("a", d(5), d(9)), [standing(1, "a", d(1), d(6))], functional=True, now=NOW)
    assert decision.corroborates == 1 and decision.extends == (d(1), d(9), None, None)
    bridging = decide(new("a", d(3), d(8)), [standing(1, "a", d(1), d(4)), standing(2, "a", d(7), d(10))],
                      functional=True, now=NOW)
    assert bridging.corroborates == 1 and bridging.extends == (d(1), d(10), None, None)
    assert [(c.claim_id, c.cause) for c in bridging.changes] == [(2, "coalesced-into")]


def test_empty_claims_are_ignored() -> None:
    assert decide(new("a", d(3)), [standing(1, "a", d(3), d(3))], functional=True, now=NOW).corroborates is None


@given(st.floats(0, 1), st.floats(0, 1))
def test_confidence_combination_stays_in_range_and_never_drops(a: float, b: float) -> None:
    combined = combine_confidence(a, b)
    assert max(a, b) - 1e-12 <= combined <= 1.0


def test_values_encode_canonically() -> None:
    assert encode_value("PLN 280") == ('"PLN 280"', "string")
    assert encode_value(Decimal("1.50")) == ('"1.50"', "decimal")
    assert encode_value({"b": 1, "a": [1, 2]}) == ('{"a":[1,2],"b":1}', "json")
    assert canonical_json({"z": 1, "a": "ü"}) == '{"a":"ü","z":1}'
    with pytest.raises(InvalidInput, match="nest deeper"):
        nested: dict[str, object] = {}
        cursor = nested
        for _ in range(20):
            cursor["x"] = {}
            cursor = cursor["x"]  # type: ignore[assignment]
        canonical_json(nested)
    with pytest.raises(InvalidInput):
        encode_value(object())
