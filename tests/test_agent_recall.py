"""Recall: the claims that answer a question, with validity, warnings and citations, under a budget."""

from __future__ import annotations

import json

import pytest

from ledger import InvalidInput, Ledger, RecallWeights
from tests.agent_scenario import record_bills


@pytest.fixture
def billed(ledger: Ledger, clock) -> Ledger:  # type: ignore[no-untyped-def]
    clock.set("2026-08-10T09:00:00")
    record_bills(ledger, between=clock.tick)
    clock.tick()
    return ledger


def test_the_current_amount_comes_with_the_previous_one(billed: Ledger) -> None:
    packet = billed.recall("how much do I pay for electricity?")
    assert packet.found and packet.nothing is None
    top = packet.items[0]
    assert top.value == "PLN 245"
    assert top.validity == "PLN 245 since 2026-07-01; previously PLN 280 from 2026-03-01"
    assert [c.title for c in top.citations] == ["Energa bill, July 2026"]
    assert top.citations[0].excerpt == "you pay PLN 245 per month"
    assert all(item.value != "PLN 280" for item in packet.items)  # the old amount only as "previously"
    prompt = packet.to_prompt()
    assert "previously PLN 280" in prompt and "the conversation wins" in prompt
    assert json.loads(json.dumps(packet.to_dict()))["items"][0]["value"] == "PLN 245"


def test_a_month_in_the_question_is_the_time_asked_about(billed: Ledger) -> None:
    packet = billed.recall("how much did I pay in April?")
    assert [item.value for item in packet.items] == ["PLN 280"]
    assert packet.items[0].validity.startswith("PLN 280 from 2026-03-01 until 2026-07-01")
    assert packet.period is not None and packet.period[0].isoformat().startswith("2026-04-01")


def test_valid_at_overrides_the_words_of_the_question(billed: Ledger) -> None:
    assert [i.value for i in billed.recall("how much do I pay for electricity?", valid_at="2026-05-15").items] \
        == ["PLN 280"]


def test_nothing_recorded_is_said_explicitly(billed: Ledger) -> None:
    packet = billed.recall("what is my shoe size?")
    assert not packet.found and packet.items == ()
    assert packet.nothing is not None and packet.nothing.startswith("nothing recorded about 'shoe size'")
    assert "nothing recorded about 'shoe size'" in packet.to_prompt()


def test_a_time_before_anything_was_valid_says_so(billed: Ledger) -> None:
    packet = billed.recall("how much did I pay for electricity in January 2026?")
    assert packet.items == ()
    assert packet.nothing is not None and "recorded for other times" in packet.nothing


def test_known_at_reads_the_ledger_as_it_was(billed: Ledger, clock) -> None:  # type: ignore[no-untyped-def]
    first_known = billed.history("electricity bill", "monthly amount")[0].recorded_at  # before the July bill
    packet = billed.recall("how much do I pay for electricity?", known_at=first_known, valid_at="2026-08-01")
    assert [i.validity for i in packet.items] == ["PLN 280 since 2026-03-01"]


def test_the_budget_is_kept(ledger: Ledger, clock) -> None:  # type: ignore[no-untyped-def]
    doc = ledger.add_source(text="\n\n".join(f"Station {n} sells coffee for {n} złoty." for n in range(40)))
    ledger.assert_claims([{"subject": f"station {n}", "predicate": "coffee price", "value": n,
                           "evidence": [ledger.cite(doc, f"Station {n} sells coffee for {n} złoty")]}
                          for n in range(40)])
    small = ledger.recall("coffee price", budget_tokens=200)
    large = ledger.recall("coffee price", budget_tokens=5000)
    assert small.tokens <= 200 and 0 < len(small.items) < len(large.items) == 40
    assert small.omitted == 40 - len(small.items)
    words = ledger.recall("coffee price", budget_tokens=200, count_tokens=lambda text: len(text.split()))
    assert words.tokens <= 200


def test_disputed_claims_show_the_other_side(ledger: Ledger) -> None:
    one = ledger.add_source(text="The ferry to Hel leaves at 9:00.", title="Timetable A")
    two = ledger.add_source(text="The ferry to Hel leaves at 9:30.", title="Timetable B")
    ledger.assert_claim("ferry to Hel", "departure", value="9:00", evidence=ledger.cite(one, "leaves at 9:00"))
    ledger.assert_claim("ferry to Hel", "departure", value="9:30", evidence=ledger.cite(two, "leaves at 9:30"))
    packet = ledger.recall("when does the ferry to Hel leave?")
    assert {i.value for i in packet.items} == {"9:00", "9:30"}
    for item in packet.items:
        other = "9:30" if item.value == "9:00" else "9:00"
        assert any(w.startswith("disputed: claim") and other in w for w in item.warnings), item.warnings


def test_low_confidence_is_warned(ledger: Ledger) -> None:
    rumour = ledger.add_source(text="Rumour: the bakery closes on Mondays.", trust="untrusted")
    ledger.assert_claim("bakery", "closed on", value="Monday", evidence=ledger.cite(rumour, "closes on Mondays"),
                        scope="quarantine:default")
    packet = ledger.recall("when is the bakery closed?", scope="quarantine:default")
    assert any(w.startswith("low confidence") for w in packet.items[0].warnings)


def test_weights_can_be_set_and_are_checked(billed: Ledger) -> None:
    only_text = billed.recall("electricity", weights=RecallWeights(text=1, confidence=0, recency=0, importance=0))
    assert only_text.items[0].score == 1.0
    with pytest.raises(InvalidInput):
        billed.recall("electricity", weights={"text": 1})  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        billed.recall("electricity", budget_tokens=5)
    with pytest.raises(InvalidInput):
        billed.recall("   ")


def test_recall_never_crosses_scopes(ledger: Ledger, clock) -> None:  # type: ignore[no-untyped-def]
    clock.set("2026-08-10T09:00:00")
    record_bills(ledger, scope="home")
    assert not ledger.recall("how much do I pay for electricity?").found
    assert ledger.recall("how much do I pay for electricity?", scope="home").items[0].value == "PLN 245"
    assert not ledger.recall("how much do I pay for electricity?", scope="office").found
