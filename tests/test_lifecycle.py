"""The ledger's time and lifecycle semantics (DESIGN.md §3–4), on a real database."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from ledger import Claim, Ledger, Source

BILL = "electricity bill"


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def values(ledger: Ledger, subject: str, predicate: str, **query: object) -> list[object]:
    return sorted(str(c.value) for c in ledger.claims(subject, predicate, **query))  # type: ignore[arg-type]


@pytest.fixture
def bills(ledger: Ledger) -> Source:
    return ledger.add_source(
        text="Invoice 03/2026: the electricity bill is PLN 280 per month.\n\n"
             "Invoice 07/2026: from July the electricity bill is PLN 245 per month.",
        uri="mailbox:invoices", title="Utility invoices",
    )


def test_the_three_questions(ledger: Ledger, clock, bills: Source) -> None:
    clock.set("2026-03-05")
    ledger.assert_claim("home", BILL, value="PLN 280", valid_from="2026-03-01", evidence=[ledger.cite(bills, "PLN 280")])
    clock.set("2026-07-02")
    newer = ledger.assert_claim("home", BILL, value="PLN 245", valid_from="2026-07-01",
                                evidence=[ledger.cite(bills, "PLN 245")])
    assert "updates claim" in str(newer.cause)

    assert values(ledger, "home", BILL) == ["PLN 245"]
    assert values(ledger, "home", BILL, valid_at="2026-04-15") == ["PLN 280"]
    assert values(ledger, "home", BILL, known_at="2026-05-01") == ["PLN 280"]
    # In May the ledger believed 280 open-ended: an in-place update of the old row gets this wrong.
    assert values(ledger, "home", BILL, valid_at="2026-08-15", known_at="2026-05-01") == ["PLN 280"]
    # Closed-open intervals: the boundary belongs to the newer value.
    assert values(ledger, "home", BILL, valid_at="2026-07-01") == ["PLN 245"]
    assert values(ledger, "home", BILL, valid_at=at("2026-06-30T23:59:59.999999")) == ["PLN 280"]


def test_history_shows_every_version_with_all_four_times(ledger: Ledger, clock, bills: Source) -> None:
    clock.set("2026-03-05")
    old = ledger.assert_claim("home", BILL, value="PLN 280", valid_from="2026-03-01", evidence=[ledger.cite(bills, "PLN 280")])
    clock.set("2026-07-02")
    new = ledger.assert_claim("home", BILL, value="PLN 245", valid_from="2026-07-01", evidence=[ledger.cite(bills, "PLN 245")])
    rows = [(c.id, c.value, c.status, c.valid_from, c.valid_until, c.recorded_at, c.invalidated_at)
            for c in ledger.history("home", BILL)]
    assert rows == [
        (old.id, "PLN 280", "reported", at("2026-03-01"), None, at("2026-03-05"), at("2026-07-02")),
        (new.id, "PLN 245", "reported", at("2026-07-01"), None, at("2026-07-02"), None),
        (old.id, "PLN 280", "superseded", at("2026-03-01"), at("2026-07-01"), at("2026-07-02"), None),
    ]
    assert [c.valid_from_precision for c in ledger.history("home", BILL)] == ["day", "day", "day"]


def world_timeline(ledger: Ledger, days: list[str]) -> list[list[object]]:
    return [values(ledger, "home", BILL, valid_at=day) for day in days]


DAYS = ["2026-02-15", "2026-03-01", "2026-05-10", "2026-06-30", "2026-07-01", "2026-12-01"]


def test_backfill_ends_with_the_same_world_timeline_as_forward_order(make_db_url, clock) -> None:
    def build(order: list[tuple[str, str]]) -> list[list[object]]:
        with Ledger.open(make_db_url(), clock=clock) as ledger:
            source = ledger.add_source(text="March: PLN 280. July: PLN 245.")
            for value, start in order:
                clock.tick(days=1)
                ledger.assert_claim("home", BILL, value=value, valid_from=start, evidence=[ledger.cite(source, value)])
            assert not [c for c in ledger.claims("home", BILL, during=("2026-01-01", "2027-01-01")) if c.disputed]
            return world_timeline(ledger, DAYS)

    forward = build([("PLN 280", "2026-03-01"), ("PLN 245", "2026-07-01")])
    backfilled = build([("PLN 245", "2026-07-01"), ("PLN 280", "2026-03-01")])
    assert forward == backfilled == [[], ["PLN 280"], ["PLN 280"], ["PLN 280"], ["PLN 245"], ["PLN 245"]]


def test_independent_sources_disagreeing_are_both_disputed(ledger: Ledger, clock) -> None:
    a = ledger.add_source(text="Acme's CEO is Alice Smith.", uri="https://a.example/1", publisher="A")
    b = ledger.add_source(text="Acme's CEO is Bob Jones.", uri="https://b.example/2", publisher="B")
    ledger.define_predicate("ceo", cardinality="one", object_kind="entity")
    first = ledger.assert_claim("Acme", "ceo", "Alice Smith", valid_from="2026-01", evidence=[ledger.cite(a, "Alice Smith")])
    clock.tick()
    second = ledger.assert_claim("Acme", "ceo", "Bob Jones", valid_from="2026-01", evidence=[ledger.cite(b, "Bob Jones")])
    current = {c.object: c.status for c in ledger.claims("Acme", "ceo", valid_at="2026-02")}
    assert current == {"Alice Smith": "disputed", "Bob Jones": "disputed"}
    links = ledger.explain(second).links
    assert [(l.kind, l.from_claim_id, l.to_claim_id) for l in links] == [("contradicts", second.id, first.id)]


def test_the_same_source_correcting_itself_supersedes_the_old_claim(ledger: Ledger, clock) -> None:
    page = ledger.add_source(text="The bridge is 120 m long.", uri="https://city.example/bridge")
    old = ledger.assert_claim("bridge", "length", value="120 m", valid_from="2025", evidence=[ledger.cite(page, "120 m")])
    clock.tick(days=2)
    revised = ledger.add_source(text="Correction: the bridge is 210 m long.", uri="https://city.example/bridge")
    assert revised.revision_of == page.id
    new = ledger.assert_claim("bridge", "length", value="210 m", valid_from="2025", evidence=[ledger.cite(revised, "210 m")])
    assert values(ledger, "bridge", "length", valid_at="2025-06") == ["210 m"]
    superseded = ledger.claim(old)
    assert superseded.status == "superseded" and superseded.never_valid
    assert not any(c.disputed for c in ledger.claims("bridge", "length", valid_at="2025-06"))
    assert ("supersedes", new.id, old.id) in [(l.kind, l.from_claim_id, l.to_claim_id) for l in ledger.explain(old).links]
    # What the ledger believed before the correction is still answerable.
    assert values(ledger, "bridge", "length", valid_at="2025-06", known_at=old.recorded_at) == ["120 m"]


def test_explicit_supersedes_wins_over_a_conflict(ledger: Ledger, clock) -> None:
    a = ledger.add_source(text="Population: 331,000.", publisher="Census A")
    b = ledger.add_source(text="Population: 334,000 (revised).", publisher="Census B")
    old = ledger.assert_claim("Bielefeld", "population", value=331000, valid_from="2020", evidence=[ledger.cite(a, "331,000")])
    clock.tick()
    new = ledger.assert_claim("Bielefeld", "population", value=334000, valid_from="2020", supersedes=old,
                              evidence=[ledger.cite(b, "334,000")])
    assert new.status == "reported"
    assert ledger.claim(old).status == "superseded"
    assert [c.value for c in ledger.claims("Bielefeld", "population", valid_at="2021")] == [334000]


def test_supersedes_on_a_corroborating_assertion_still_supersedes_and_settles_the_dispute(ledger: Ledger, clock) -> None:
    a = ledger.add_source(text="Acme's CEO is Alice.", publisher="A")
    b = ledger.add_source(text="Acme's CEO is Bob.", publisher="B")
    c = ledger.add_source(text="Official: the CEO is Alice; Bob was a typo.", publisher="C")
    alice = ledger.assert_claim("Acme", "ceo", value="Alice", evidence=[ledger.cite(a, "Alice")])
    clock.tick()
    bob = ledger.assert_claim("Acme", "ceo", value="Bob", evidence=[ledger.cite(b, "Bob")])
    assert {ledger.claim(alice).status, bob.status} == {"disputed"}
    clock.tick()
    again = ledger.assert_claim("Acme", "ceo", value="Alice", evidence=[ledger.cite(c, "the CEO is Alice")],
                                supersedes=bob)
    assert again.id == alice.id and again.status == "confirmed" and "dispute settled" in str(again.cause)
    assert ledger.claim(bob).status == "superseded"
    assert ("supersedes", alice.id, bob.id) in [(l.kind, l.from_claim_id, l.to_claim_id) for l in ledger.explain(bob).links]
    assert [(c.value, c.status) for c in ledger.claims("Acme", "ceo")] == [("Alice", "confirmed")]


def test_a_claim_superseded_as_a_whole_cannot_be_confirmed_or_disputed(ledger: Ledger, clock) -> None:
    from ledger import Conflict

    a = ledger.add_source(text="Population: 331,000.", publisher="Census A")
    b = ledger.add_source(text="Population: 334,000 (revised).", publisher="Census B")
    old = ledger.assert_claim("Bielefeld", "population", value=331000, valid_from="2020", evidence=[ledger.cite(a, "331,000")])
    clock.tick()
    ledger.assert_claim("Bielefeld", "population", value=334000, valid_from="2020", supersedes=old,
                        evidence=[ledger.cite(b, "334,000")])
    for change in (ledger.confirm, ledger.dispute):
        with pytest.raises(Conflict, match="superseded as a whole"):
            change(old, reason="a second look")
    assert ledger.claim(old).status == "superseded"


def test_retracting_an_update_reopens_the_value_it_closed(ledger: Ledger, clock) -> None:
    bills = ledger.add_source(text="March: PLN 280. July: PLN 245.")
    march = ledger.assert_claim("home", "bill", value="PLN 280", valid_from="2026-03-01", evidence=[ledger.cite(bills, "PLN 280")])
    clock.tick()
    july = ledger.assert_claim("home", "bill", value="PLN 245", valid_from="2026-07-01", evidence=[ledger.cite(bills, "PLN 245")])
    assert values(ledger, "home", "bill", valid_at="2026-08") == ["PLN 245"]
    clock.tick()
    ledger.retract(july, reason="the July invoice was someone else's")
    assert values(ledger, "home", "bill", valid_at="2026-08") == ["PLN 280"]
    reopened = ledger.claim(march)
    assert (reopened.status, reopened.valid_until) == ("reported", None)
    assert str(reopened.cause) == f"restored: claim {july.id} was retracted"
    # what the ledger believed while the July value stood is still answerable
    assert values(ledger, "home", "bill", valid_at="2026-08", known_at=july.recorded_at) == ["PLN 245"]


def test_retracting_a_later_value_reopens_a_value_backfilled_against_it(ledger: Ledger, clock) -> None:
    bills = ledger.add_source(text="March: PLN 280. July: PLN 245.")
    july = ledger.assert_claim("home", "bill", value="PLN 245", valid_from="2026-07-01", evidence=[ledger.cite(bills, "PLN 245")])
    clock.tick()
    march = ledger.assert_claim("home", "bill", value="PLN 280", valid_from="2026-03-01", evidence=[ledger.cite(bills, "PLN 280")])
    assert march.valid_until == at("2026-07-01")  # backfilled: it ends where July begins
    clock.tick()
    ledger.retract(july, reason="the July invoice was someone else's")
    assert values(ledger, "home", "bill", valid_at="2026-08") == ["PLN 280"]
    assert ledger.claim(march).valid_until is None


def test_a_value_restored_by_a_retraction_ends_where_a_later_value_begins(ledger: Ledger, clock) -> None:
    bills = ledger.add_source(text="March: PLN 280. July: PLN 245. October: PLN 260.")
    march = ledger.assert_claim("home", "bill", value="PLN 280", valid_from="2026-03-01", evidence=[ledger.cite(bills, "PLN 280")])
    clock.tick()
    july = ledger.assert_claim("home", "bill", value="PLN 245", valid_from="2026-07-01", evidence=[ledger.cite(bills, "PLN 245")])
    clock.tick()
    ledger.assert_claim("home", "bill", value="PLN 260", valid_from="2026-10-01", evidence=[ledger.cite(bills, "PLN 260")])
    clock.tick()
    ledger.retract(july, reason="misread")
    assert [values(ledger, "home", "bill", valid_at=month) for month in ("2026-04", "2026-08", "2026-11")] == [
        ["PLN 280"], ["PLN 280"], ["PLN 260"]]
    assert ledger.claim(march).valid_until == at("2026-10-01")
    assert ledger.check().ok


def car_color(ledger: Ledger, clock, value: str, *, by: str, text: str | None = None, **claim: Any) -> Claim:
    """The claim that the car is ``value``, from a source of its own published by ``by``."""
    clock.tick()
    source = ledger.add_source(text=text or f"The car is {value}.", publisher=by)
    return ledger.assert_claim("car", "color", value=value, evidence=[ledger.cite(source, value)], **claim)


def test_retracting_one_side_of_a_conflict_settles_the_other_unless_another_disputes_it(ledger: Ledger, clock) -> None:
    car_color(ledger, clock, "red", by="A")
    blue = car_color(ledger, clock, "blue", by="B")
    green = car_color(ledger, clock, "green", by="C")
    clock.tick()
    ledger.retract(green, reason="spam source")
    assert {v.value: v.status for v in ledger.claims("car", "color")} == {"red": "disputed", "blue": "disputed"}
    clock.tick()
    ledger.retract(blue, reason="spam source")
    assert [(v.value, v.status) for v in ledger.claims("car", "color")] == [("red", "reported")]
    assert ledger.audit(statuses=["disputed"]) == []


@pytest.mark.parametrize("first", ["blue", "green"])
def test_the_last_rival_retracted_settles_a_conflict_in_any_order(ledger: Ledger, clock, first: str) -> None:
    red = car_color(ledger, clock, "red", by="A")
    rivals = {"blue": car_color(ledger, clock, "blue", by="B"), "green": car_color(ledger, clock, "green", by="C")}
    for name in (first, *(set(rivals) - {first})):
        clock.tick()
        ledger.retract(rivals[name], reason="spam source")
    assert [(v.id, v.status) for v in ledger.claims("car", "color")] == [(red.id, "reported")]


def test_an_explicit_dispute_outlives_the_retraction_of_a_rival(ledger: Ledger, clock) -> None:
    red = car_color(ledger, clock, "red", by="A")
    blue = car_color(ledger, clock, "blue", by="B")
    clock.tick()
    ledger.dispute(red, reason="the photo shows another shade")
    clock.tick()
    ledger.retract(blue, reason="spam source")
    assert ledger.claim(red).status == "disputed"


def test_retracting_an_update_reopens_what_it_closed_after_a_corroboration_or_confirmation(ledger: Ledger, clock) -> None:
    a = ledger.add_source(text="Acme has 150 employees in 2024.", publisher="A")
    b = ledger.add_source(text="Reuters: Acme has 130 employees. Also 150 staff.", publisher="Reuters")
    c = ledger.add_source(text="Acme: 140 people work here.", publisher="C")
    staff = ledger.assert_claim("Acme", "employees", value=150, valid_from="2024", evidence=[ledger.cite(a, "150")])
    clock.tick()
    update = ledger.assert_claim("Acme", "employees", value=130, valid_from="2024-06", evidence=[ledger.cite(b, "130")])
    clock.tick()
    again = ledger.assert_claim("Acme", "employees", value=150, valid_from="2024", evidence=[ledger.cite(b, "150 staff")])
    assert again.id == staff.id and again.status == "superseded"
    clock.tick()
    ledger.retract(update, reason="misread")
    restored = ledger.claim(staff)
    assert (restored.status, restored.valid_until) == ("confirmed", None)  # two independent sources
    # an explicit confirmation of a closed value is kept in its history and counts on restoring
    other = ledger.assert_claim("Acme", "sites", value=3, valid_from="2024", evidence=[ledger.cite(a, "Acme")])
    clock.tick()
    closer = ledger.assert_claim("Acme", "sites", value=4, valid_from="2025", evidence=[ledger.cite(c, "140")])
    clock.tick()
    assert ledger.confirm(other, reason="checked the register").status == "superseded"
    assert other.id in [entry.claim.id for entry in ledger.audit(statuses=["superseded"])]
    clock.tick()
    ledger.retract(closer, reason="wrong company")
    assert (ledger.claim(other).status, ledger.claim(other).valid_until) == ("confirmed", None)


def test_retracting_the_earlier_side_of_a_conflict_settles_the_later_one(ledger: Ledger, clock) -> None:
    red = car_color(ledger, clock, "red", by="A")
    car_color(ledger, clock, "blue", by="B")
    clock.tick()
    ledger.retract(red, reason="spam source")
    assert [(v.value, v.status) for v in ledger.claims("car", "color")] == [("blue", "reported")]


def test_retraction_takes_back_every_step_the_claim_made(ledger: Ledger, clock) -> None:
    """Blue first disputed red, then superseded it: retracting blue gives red back as it was."""
    red = car_color(ledger, clock, "red", by="A")
    blue = car_color(ledger, clock, "blue", by="B")
    car_color(ledger, clock, "blue", by="C", text="Registry: the car is blue.", supersedes=red)
    clock.tick()
    ledger.retract(blue, reason="both sources copied one typo")
    assert [(v.id, v.status) for v in ledger.claims("car", "color")] == [(red.id, "reported")]


def test_supersedes_settles_only_a_dispute_the_superseded_claim_made(ledger: Ledger, clock) -> None:
    a = ledger.add_source(text="Fee 2024: 10. Fee 2025: 12.", publisher="A")
    b = ledger.add_source(text="The fee from 2025 is 12.", publisher="B")
    audit = ledger.add_source(text="Audit: the 2025 fee of 12 is wrong.", publisher="Audit")
    old = ledger.assert_claim("club", "fee", value=10, valid_from="2024", valid_until="2025",
                              evidence=[ledger.cite(a, "Fee 2024: 10")])
    fee = ledger.assert_claim("club", "fee", value=12, valid_from="2025", evidence=[ledger.cite(a, "Fee 2025: 12")])
    clock.tick()
    ledger.dispute(fee, evidence=[ledger.cite(audit, "is wrong", relation="contradicts")])
    clock.tick()
    again = ledger.assert_claim("club", "fee", value=12, valid_from="2025", evidence=[ledger.cite(b, "is 12")],
                                supersedes=old)
    assert again.id == fee.id and again.status == "disputed"  # the auditor's dispute stands


def test_qualifiers_separate_contexts(ledger: Ledger, clock) -> None:
    note = ledger.add_source(text="I drink coffee in the morning but avoid caffeine at night.", kind="conversation")
    morning = ledger.assert_claim("user", "caffeine", value="drinks coffee", qualifiers={"time_of_day": "morning"},
                                  evidence=[ledger.cite(note, "I drink coffee in the morning")])
    clock.tick()
    night = ledger.assert_claim("user", "caffeine", value="avoids caffeine", qualifiers={"time_of_day": "night"},
                                evidence=[ledger.cite(note, "avoid caffeine at night")])
    current = {c.id: (c.status, c.qualifiers) for c in ledger.claims("user", "caffeine")}
    assert current == {morning.id: ("reported", {"time_of_day": "morning"}),
                       night.id: ("reported", {"time_of_day": "night"})}
    assert ledger.explain(night).links == ()


def test_same_value_corroborates_and_independent_sources_raise_confidence(ledger: Ledger, clock) -> None:
    a = ledger.add_source(text="Marie Curie won the Nobel Prize in Physics in 1903.", publisher="A")
    copy = ledger.add_source(text="Marie Curie won the Nobel Prize in Physics in 1903.", publisher="A",
                             uri="https://mirror.example")
    b = ledger.add_source(text="In 1903 Curie shared the Nobel Prize in Physics.", publisher="B")
    first = ledger.assert_claim("Marie Curie", "award", value="Nobel Prize in Physics 1903",
                                evidence=[ledger.cite(a, "Nobel Prize in Physics")])
    again = ledger.assert_claim("Marie Curie", "award", value="Nobel Prize in Physics 1903",
                                evidence=[ledger.cite(copy, "Nobel Prize in Physics")])
    assert again.id == first.id and again.confidence == first.confidence and again.status == "reported"
    third = ledger.assert_claim("Marie Curie", "award", value="Nobel Prize in Physics 1903",
                                evidence=[ledger.cite(b, "Nobel Prize in Physics")])
    assert third.id == first.id
    assert third.confidence > first.confidence and third.status == "confirmed"
    assert copy.id == a.id and len(third.evidence_ids) == 2  # the same bytes are one source, the same quote one row
    # Reading never changes confidence.
    assert ledger.claim(first).confidence == third.confidence
    # The same sources cited in one assertion give the same status and confidence.
    at_once = ledger.assert_claim("Pierre Curie", "award", value="Nobel Prize in Physics 1903",
                                  evidence=[ledger.cite(s, "Nobel Prize in Physics") for s in (a, copy, b)])
    assert (at_once.status, at_once.confidence) == (third.status, third.confidence)
    # ... and so do two new independent sources added to a claim at once
    c = ledger.add_source(text="The 1903 Nobel Prize in Physics went to the Curies.", publisher="C")
    d = ledger.add_source(text="Nobel Prize in Physics 1903: Becquerel and the Curies.", publisher="D")
    one = ledger.assert_claim("Henri Becquerel", "award", value="Nobel Prize in Physics 1903",
                              evidence=[ledger.cite(a, "Nobel Prize in Physics")])
    both = ledger.assert_claim("Henri Becquerel", "award", value="Nobel Prize in Physics 1903",
                               evidence=[ledger.cite(s, "Nobel Prize in Physics") for s in (c, d)])
    assert both.id == one.id and both.confidence == pytest.approx(1 - (1 - one.confidence) ** 3)


def test_cardinality_many_keeps_parallel_claims(ledger: Ledger, clock) -> None:
    cv = ledger.add_source(text="Ada worked at Acme from 2010 to 2012 and again from 2015 to 2018.")
    ledger.define_predicate("works_at", cardinality="many", object_kind="entity")
    one = ledger.assert_claim("Ada", "works_at", "Acme", valid_from="2010", valid_until="2012", evidence=[ledger.cite(cv, "from 2010 to 2012")])
    two = ledger.assert_claim("Ada", "works_at", "Acme", valid_from="2015", valid_until="2018", evidence=[ledger.cite(cv, "from 2015 to 2018")])
    same = ledger.assert_claim("Ada", "works_at", "Acme", valid_from="2010", valid_until="2012", evidence=[ledger.cite(cv, "Ada worked at Acme")])
    assert one.id != two.id and same.id == one.id
    assert [c.id for c in ledger.claims("Ada", "works_at", during=("2000", "2030"))] == [one.id, two.id]


def test_status_changes_are_versions(ledger: Ledger, clock) -> None:
    doc = ledger.add_source(text="The treaty was signed in Vienna.")
    claim = ledger.assert_claim("treaty", "signed in", "Vienna", evidence=[ledger.cite(doc, "signed in Vienna")])
    clock.tick()
    ledger.confirm(claim, reason="checked the archive")
    clock.tick()
    retracted = ledger.retract(claim, reason="wrong treaty")
    assert retracted.status == "retracted"
    assert ledger.claims("treaty", "signed in") == []
    assert [c.status for c in ledger.claims("treaty", "signed in", statuses=["retracted"])] == ["retracted"]
    audit = ledger.audit("treaty")
    assert [v.status for v in audit[0].versions] == ["reported", "confirmed", "retracted"]
    assert audit[0].versions[-1].reason == "wrong treaty"
    assert [c.status for c in ledger.claims("treaty", "signed in", known_at=claim.recorded_at)] == ["reported"]


def test_explain_reaches_the_excerpt_and_locator(ledger: Ledger) -> None:
    doc = ledger.add_source(text="Line one.\n\nThe capital of Australia is Canberra, not Sydney.", title="Atlas")
    claim = ledger.assert_claim("Australia", "capital", "Canberra", evidence=[ledger.cite(doc, "capital of Australia is Canberra")])
    trail = ledger.explain(claim).evidence[0]
    assert trail.source.title == "Atlas"
    assert trail.evidence.excerpt == "capital of Australia is Canberra"
    selectors = {s["type"]: s for s in trail.evidence.locator["selectors"]}
    start, end = selectors["TextPositionSelector"]["start"], selectors["TextPositionSelector"]["end"]
    assert trail.source.text[start:end] == trail.evidence.excerpt
    assert selectors["TextQuoteSelector"]["prefix"].endswith("The ")


def test_actor_is_kept_on_every_version(ledger: Ledger, clock) -> None:
    doc = ledger.add_source(text="Rome is in Italy.")
    claim = ledger.assert_claim("Rome", "country", "Italy", evidence=[ledger.cite(doc, "Rome is in Italy")],
                                actor="agent:extractor-v2")
    clock.tick()
    ledger.confirm(claim, actor="user:alice")
    assert [v.actor for v in ledger.history("Rome", "country")] == ["agent:extractor-v2", "user:alice"]


def test_confirming_one_side_of_a_conflict_needs_the_other_resolved(ledger: Ledger, clock) -> None:
    from ledger import Conflict

    a = ledger.add_source(text="The summit is 4,810 m high.", publisher="A")
    b = ledger.add_source(text="The summit is 4,808 m high.", publisher="B")
    high = ledger.assert_claim("Mont Blanc", "height", value="4810 m", evidence=[ledger.cite(a, "4,810 m")])
    clock.tick()
    low = ledger.assert_claim("Mont Blanc", "height", value="4808 m", evidence=[ledger.cite(b, "4,808 m")])
    assert {ledger.claim(high).status, low.status} == {"disputed"}
    ledger.confirm(low, reason="IGN survey 2023")  # resolving the dispute in favour of one side
    with pytest.raises(Conflict, match="retract or supersede"):
        ledger.confirm(high)
    clock.tick()
    ledger.retract(high, reason="older survey")
    assert [c.value for c in ledger.claims("Mont Blanc", "height")] == ["4808 m"]


def test_a_later_value_closes_disputed_claims_without_settling_their_dispute(ledger: Ledger, clock) -> None:
    a = ledger.add_source(text="Price list A: 10.", publisher="A")
    b = ledger.add_source(text="Price list B: 12.", publisher="B")
    c = ledger.add_source(text="Price list C from 2021: 11.", publisher="C")
    ten = ledger.assert_claim("shop", "price", value=10, evidence=[ledger.cite(a, "10")])
    clock.tick()
    twelve = ledger.assert_claim("shop", "price", value=12, evidence=[ledger.cite(b, "12")])
    clock.tick()
    ledger.assert_claim("shop", "price", value=11, valid_from="2021", evidence=[ledger.cite(c, "11")])
    before = {c.id: (c.status, c.valid_until) for c in ledger.claims("shop", "price", valid_at="2019")}
    # "from 2021" is known to the year: the older prices ended sometime in 2021 (issue 23)
    assert before == {ten.id: ("disputed", at("2022-01-01")), twelve.id: ("disputed", at("2022-01-01"))}
    assert [c.value for c in ledger.claims("shop", "price", valid_at="2022")] == [11]


def test_a_value_of_another_type_is_refused_not_read_as_a_new_value(ledger: Ledger) -> None:
    from ledger import InvalidInput

    census = ledger.add_source(text="Marrowby has 12,000 inhabitants.")
    ledger.assert_claim("Marrowby", "population", value=12000, evidence=[ledger.cite(census, "12,000 inhabitants")])
    with pytest.raises(InvalidInput, match="already holds integer values"):
        ledger.assert_claim("Marrowby", "population", value="12000", evidence=[ledger.cite(census, "12,000")])
    assert [c.value for c in ledger.claims("Marrowby", "population")] == [12000]


def test_a_source_correcting_itself_does_not_overrule_an_independent_source(ledger: Ledger, clock) -> None:
    a = ledger.add_source(text="Report A: the dam is 80 m high.", publisher="A")
    first_b = ledger.add_source(text="Report B v1: the dam is 80 m high.", uri="b-report", publisher="B")
    high = ledger.assert_claim("dam", "height", value="80 m", evidence=[ledger.cite(a, "80 m")])
    ledger.assert_claim("dam", "height", value="80 m", evidence=[ledger.cite(first_b, "80 m")])
    clock.tick()
    second_b = ledger.add_source(text="Report B v2: the dam is 85 m high.", uri="b-report", publisher="B")
    assert second_b.revision_of == first_b.id
    newer = ledger.assert_claim("dam", "height", value="85 m", evidence=[ledger.cite(second_b, "85 m")])
    # B's revision disagrees, but A still backs 80 m: a dispute, not a correction.
    assert newer.status == "disputed" and ledger.claim(high).status == "disputed"


def test_asserting_a_claim_again_from_the_same_quote_adds_no_evidence_row(ledger: Ledger, clock) -> None:
    note = ledger.add_source(text="The bill is PLN 280. Also: the bill is PLN 280.")
    quote = ledger.cite(note, "The bill is PLN 280")
    first = ledger.assert_claim("home", "bill", value="PLN 280", evidence=[quote, quote])
    clock.tick()
    again = ledger.assert_claim("home", "bill", value="PLN 280", evidence=[quote])
    assert again.id == first.id and len(ledger.explain(first).evidence) == 1
    clock.tick()
    other = ledger.assert_claim("home", "bill", value="PLN 280", evidence=[ledger.cite(note, "the bill is PLN 280")])
    assert other.id == first.id and len(ledger.explain(first).evidence) == 2  # another place in the source


def rent(ledger: Ledger, clock, value: int, source: Source, quote: str, **interval: str) -> Claim:
    """Assert (a tick after the last write) that the flat's rent is ``value``, quoting ``source``."""
    clock.tick()
    return ledger.assert_claim("flat", "rent", value=value, evidence=[ledger.cite(source, quote)], **interval)


def rents(ledger: Ledger, *moments: str) -> list[list[object]]:
    """The rent values that hold at each of ``moments``."""
    return [values(ledger, "flat", "rent", valid_at=moment) for moment in moments]


def test_a_value_for_a_while_only_splits_the_value_it_interrupts(ledger: Ledger, clock) -> None:
    """Reference case "FOR PORTION OF": [2020, 2030) updated for [2024, 2026) only is three
    intervals, the old value before and after; total coverage is unchanged."""
    lease = ledger.add_source(text="Lease: rent is 1000 from 2020 until 2030. Addendum: rent is 900 in 2024 and 2025.")
    # whole years, so exact days: a bound given as a bare year means sometime that year
    old = rent(ledger, clock, 1000, lease, "rent is 1000", valid_from="2020-01-01", valid_until="2030-01-01")
    rent(ledger, clock, 900, lease, "rent is 900", valid_from="2024-01-01", valid_until="2026-01-01")
    assert rents(ledger, "2023", "2024", "2025", "2026", "2029", "2030") == [
        ["1000"], ["900"], ["900"], ["1000"], ["1000"], []]
    [after] = ledger.claims("flat", "rent", valid_at="2027")
    assert after.id != old.id and (after.valid_from, after.valid_until) == (at("2026-01-01"), at("2030-01-01"))
    assert after.evidence_ids and "resumes claim" in str(after.cause)
    assert ledger.check().ok


def test_an_open_value_interrupted_for_a_while_holds_again_after_and_retractions_undo_it(
    ledger: Ledger, clock
) -> None:
    note = ledger.add_source(text="Rent is 1000 from January. In July and August it is 900 during the works.")
    first = rent(ledger, clock, 1000, note, "Rent is 1000 from January", valid_from="2026-01")
    works = rent(ledger, clock, 900, note, "it is 900", valid_from="2026-07", valid_until="2026-09")
    assert rents(ledger, "2026-06", "2026-08", "2026-10") == [["1000"], ["900"], ["1000"]]
    [continuation] = ledger.claims("flat", "rent", valid_at="2026-10")
    clock.tick()
    ledger.retract(works, reason="the works were cancelled")
    # the old value holds again up to its continuation, which stands on its own (later updates
    # may have interrupted it, other sources corroborated it)
    assert [c.id for c in ledger.claims("flat", "rent", valid_at="2026-08")] == [first.id]
    assert ledger.claim(first).valid_until == continuation.valid_from == at("2026-09-01")
    assert [c.id for c in ledger.claims("flat", "rent", valid_at="2026-10")] == [continuation.id]
    assert ledger.check().ok
    # retracting the interrupted value takes its continuation with it
    rent(ledger, clock, 950, note, "Rent is 1000 from January", valid_from="2026-03", valid_until="2026-04")
    clock.tick()
    ledger.retract(first, reason="wrong flat")
    assert rents(ledger, "2026-10") == [[]]
    assert ledger.check().ok


def test_retracting_one_of_two_updates_for_a_while_keeps_the_other_and_the_value_around_them(
    ledger: Ledger, clock
) -> None:
    note = ledger.add_source(text="Rent is 1000 from January. 900 in July and August. 800 in October.")
    rent(ledger, clock, 1000, note, "Rent is 1000", valid_from="2026-01")
    july = rent(ledger, clock, 900, note, "900 in July", valid_from="2026-07", valid_until="2026-09")
    rent(ledger, clock, 800, note, "800 in October", valid_from="2026-10", valid_until="2026-11")
    months = ("2026-06", "2026-08", "2026-09", "2026-10", "2026-12")
    assert rents(ledger, *months) == [["1000"], ["900"], ["1000"], ["800"], ["1000"]]
    clock.tick()
    ledger.retract(july, reason="misread")
    assert rents(ledger, *months) == [["1000"], ["1000"], ["1000"], ["800"], ["1000"]]
    assert ledger.check().ok


def test_a_continuation_keeps_the_end_precision_and_is_settled_with_its_claim(ledger: Ledger, clock) -> None:
    # (an end known to the year, 2028: the rent ends sometime in 2027, after the interruption)
    a = ledger.add_source(text="Rent is 1000 until 2028.", publisher="Landlord")
    b = ledger.add_source(text="Rent is 1100.", publisher="Tenant")
    c = ledger.add_source(text="In July and August it is 900.", publisher="Notice")
    first = rent(ledger, clock, 1000, a, "Rent is 1000", valid_from="2026-01", valid_until="2028")
    rival = rent(ledger, clock, 1100, b, "Rent is 1100", valid_from="2026-01", valid_until="2028")
    rent(ledger, clock, 900, c, "it is 900", valid_from="2026-07", valid_until="2026-09")
    after = {v.value: v for v in ledger.claims("flat", "rent", valid_at="2026-10")}
    assert {v: (x.status, x.valid_until_precision) for v, x in after.items()} == {
        1000: ("disputed", "year"), 1100: ("disputed", "year")}
    clock.tick()
    ledger.retract(rival, reason="the tenant misremembered")
    assert [(v.value, v.status) for v in ledger.claims("flat", "rent", valid_at="2026-10")] == [(1000, "reported")]
    assert ledger.claim(first).status == "reported"
    assert ledger.check().ok


def test_a_batch_may_interrupt_a_value_asserted_earlier_in_it(ledger: Ledger) -> None:
    note = ledger.add_source(text="Rent is 1000 from January. In July and August it is 900.")
    ledger.assert_claims([
        {"subject": "flat", "predicate": "rent", "value": 1000, "valid_from": "2026-01",
         "evidence": [ledger.cite(note, "Rent is 1000")]},
        {"subject": "flat", "predicate": "rent", "value": 900, "valid_from": "2026-07", "valid_until": "2026-09",
         "evidence": [ledger.cite(note, "it is 900")]},
    ])
    assert rents(ledger, "2026-06", "2026-08", "2026-10") == [["1000"], ["900"], ["1000"]]
    assert ledger.check().ok
