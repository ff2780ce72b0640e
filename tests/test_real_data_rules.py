"""Lifecycle rules that hold on real data (issue 23): the same fact over a longer interval extends
the claim, two values in one unchanged source are a conflict inside it, bounds known only to the
year are windows, and one fact is never read twice at one instant. Runs on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger import Ledger

from .conftest import TestClock, assert_consistent


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def holders(ledger: Ledger, subject: str, predicate: str, when: str) -> list[tuple[str, bool]]:
    """(value or object, flagged imprecise) of what holds at ``when``."""
    return sorted((c.object_label, c.imprecise) for c in ledger.claims(subject, predicate, valid_at=when))


def test_the_same_value_over_a_longer_interval_extends_the_claim(ledger: Ledger, clock: TestClock) -> None:
    first = ledger.add_source(text="Northwind Media owned the paper from August 1995.", publisher="Gazette")
    second = ledger.add_source(text="Northwind Media owned it until 2008.", publisher="Herald")
    owned = ledger.assert_claim("The Paper", "owner", value="Northwind Media", valid_from="1995-08-01",
                                valid_until="2002-09-01", evidence=[ledger.cite(first, "Northwind Media owned")])
    clock.tick()
    again = ledger.assert_claim("The Paper", "owner", value="Northwind Media", valid_from="2002-08-01",
                                valid_until="2008-01-01", evidence=[ledger.cite(second, "Northwind Media owned")])
    assert again.id == owned.id and (again.valid_from, again.valid_until) == (at("1995-08-01"), at("2008-01-01"))
    assert again.status == "confirmed" and again.cause is not None and again.cause.kind == "extended"
    assert holders(ledger, "The Paper", "owner", "2005-06-01") == [("Northwind Media", False)]
    assert len(ledger.explain(owned).evidence) == 2  # the evidence of both
    # what the ledger believed before the second assertion is kept
    assert ledger.claims("The Paper", "owner", valid_at="2005-06-01", known_at=owned.recorded_at) == []


def test_an_assertion_bridging_two_terms_coalesces_them(ledger: Ledger, clock: TestClock) -> None:
    note = ledger.add_source(text="Ann chaired the board 2001-2003 and 2005-2007; she chaired it 2002-2006.")
    quote = ledger.cite(note, "Ann chaired the board")
    early = ledger.assert_claim("board", "chair", value="Ann", valid_from="2001-01-01", valid_until="2003-01-01",
                                evidence=[quote])
    late = ledger.assert_claim("board", "chair", value="Ann", valid_from="2005-01-01", valid_until="2007-01-01",
                               evidence=[quote])
    assert late.id != early.id  # two terms are two claims
    clock.tick()
    bridged = ledger.assert_claim("board", "chair", value="Ann", valid_from="2002-01-01", valid_until="2006-01-01",
                                  evidence=[ledger.cite(note, "she chaired it")])
    assert bridged.id == early.id and (bridged.valid_from, bridged.valid_until) == (at("2001-01-01"), at("2007-01-01"))
    assert ledger.claim(late).never_valid and str(ledger.claim(late).cause) == f"coalesced into claim {early.id}"
    assert [c.id for c in ledger.claims("board", "chair", valid_at="2006-06-01")] == [early.id]


def test_two_values_in_one_unchanged_document_are_a_conflict_inside_it(ledger: Ledger) -> None:
    bio = ledger.add_source(text="From December 1999 to August 2002 she was Minister of Finance and Deputy "
                                 "Prime Minister.")
    finance = ledger.assert_claim("Anna Nowak", "position", value="Minister of Finance", valid_from="1999-12",
                                  valid_until="2002-09", evidence=[ledger.cite(bio, "Minister of Finance")])
    deputy = ledger.assert_claim("Anna Nowak", "position", value="Deputy Prime Minister", valid_from="1999-12",
                                 valid_until="2002-09", evidence=[ledger.cite(bio, "Deputy Prime Minister")])
    assert deputy.status == "disputed" and ledger.claim(finance).status == "disputed"
    assert not ledger.claim(finance).never_valid  # kept as it was asserted, not superseded as a whole
    assert str(deputy.cause) == f"asserted; conflicts with claim {finance.id} in the same source"
    assert holders(ledger, "Anna Nowak", "position", "2001-01-01") == [
        ("Deputy Prime Minister", False), ("Minister of Finance", False)]


def test_a_revision_of_the_source_still_corrects_it(ledger: Ledger, clock: TestClock) -> None:
    page = ledger.add_source(text="The bridge opens in May.", uri="https://city.example/bridge")
    may = ledger.assert_claim("bridge", "opens", value="May", evidence=[ledger.cite(page, "May")])
    clock.tick()
    revised = ledger.add_source(text="The bridge opens in June.", uri="https://city.example/bridge")
    june = ledger.assert_claim("bridge", "opens", value="June", evidence=[ledger.cite(revised, "June")])
    assert str(june.cause) == f"asserted; corrects claim {may.id}" and ledger.claim(may).never_valid


def test_an_older_version_cited_after_its_correction_is_corrected_already(ledger: Ledger, clock: TestClock) -> None:
    page = ledger.add_source(text="The bridge opens in May.", uri="https://city.example/bridge")
    clock.tick()
    revised = ledger.add_source(text="The bridge opens in June.", uri="https://city.example/bridge")
    june = ledger.assert_claim("bridge", "opens", value="June", evidence=[ledger.cite(revised, "June")])
    clock.tick()
    may = ledger.assert_claim("bridge", "opens", value="May", evidence=[ledger.cite(page, "May")])
    assert may.never_valid and may.status == "superseded" and str(may.cause) == f"corrected by its own source (claim {june.id})"
    assert ledger.claim(june).status == "reported" and [c.value for c in ledger.claims("bridge", "opens")] == ["June"]


def test_a_later_publication_of_the_same_publisher_corrects_it(ledger: Ledger, clock: TestClock) -> None:
    first = ledger.add_source(text="Turnout was 61 percent.", publisher="Electoral Office", published_at="2024-05-02")
    later = ledger.add_source(text="Corrected: turnout was 63 percent.", publisher="Electoral Office",
                              published_at="2024-05-09")
    sixty_one = ledger.assert_claim("2024 election", "turnout", value="61 percent",
                                    evidence=[ledger.cite(first, "61 percent")])
    clock.tick()
    corrected = ledger.assert_claim("2024 election", "turnout", value="63 percent",
                                    evidence=[ledger.cite(later, "63 percent")])
    assert str(corrected.cause) == f"asserted; corrects claim {sixty_one.id}"


def test_an_interruption_inside_an_imprecise_end_does_not_resume_the_term(ledger: Ledger, clock: TestClock) -> None:
    club = ledger.add_source(text="A coached from May 2010 to 2011. B coached from January to June 2011.")
    a = ledger.assert_claim("club", "head coach", value="A", valid_from="2010-05", valid_until="2012",
                            evidence=[ledger.cite(club, "A coached")])  # ended sometime in 2011
    clock.tick()
    b = ledger.assert_claim("club", "head coach", value="B", valid_from="2011-01", valid_until="2011-07",
                            evidence=[ledger.cite(club, "B coached")])
    assert {audit.claim.id for audit in ledger.audit("club", "head coach")} == {a.id, b.id}  # no "A resumes" claim
    assert holders(ledger, "club", "head coach", "2010-10-01") == [("A", False)]
    assert holders(ledger, "club", "head coach", "2011-03-01") == [("B", False)]
    assert holders(ledger, "club", "head coach", "2011-10-01") == []  # nothing is known of the rest of 2011


def test_bounds_that_meet_within_their_year_are_neither_an_overlap_nor_a_gap(ledger: Ledger) -> None:
    # "until 1994" (an end known to the year: sometime in 1994) and "from 1994"
    notes = ledger.add_source(text="X was mayor until 1994. Y became mayor in 1994.", publisher="Chronicle")
    other = ledger.add_source(text="Y became mayor in 1994.", publisher="Almanac")
    x = ledger.assert_claim("Bielefeld", "mayor", value="X", valid_from="1989", valid_until="1995",
                            evidence=[ledger.cite(notes, "X was mayor")])
    y = ledger.assert_claim("Bielefeld", "mayor", value="Y", valid_from="1994",
                            evidence=[ledger.cite(other, "Y became mayor")])
    assert (y.status, ledger.claim(x).status) == ("reported", "reported")  # no conflict, no cut
    assert ledger.claim(x).valid_until == at("1995-01-01")
    assert holders(ledger, "Bielefeld", "mayor", "1993-06-01") == [("X", False)]
    assert holders(ledger, "Bielefeld", "mayor", "1994-06-01") == [("X", True), ("Y", True)]
    assert holders(ledger, "Bielefeld", "mayor", "1996-01-01") == [("Y", False)]


def test_a_backfill_and_an_update_at_year_precision_meet_within_the_year(ledger: Ledger, clock: TestClock) -> None:
    chronicle = ledger.add_source(text="Z was mayor from 1980. W was mayor from 1994. V was mayor from 1999.")
    w = ledger.assert_claim("Town", "mayor", value="W", valid_from="1994",
                            evidence=[ledger.cite(chronicle, "W was mayor")])
    clock.tick()
    z = ledger.assert_claim("Town", "mayor", value="Z", valid_from="1980",  # a backfill: ends where W begins
                            evidence=[ledger.cite(chronicle, "Z was mayor")])
    clock.tick()
    ledger.assert_claim("Town", "mayor", value="V", valid_from="1999",  # an update: W ends where V begins
                        evidence=[ledger.cite(chronicle, "V was mayor")])
    assert ledger.claim(z).valid_until == at("1995-01-01") and ledger.claim(w).valid_until == at("2000-01-01")
    assert holders(ledger, "Town", "mayor", "1990-01-01") == [("Z", False)]
    assert holders(ledger, "Town", "mayor", "1994-06-01") == [("W", True), ("Z", True)]
    assert holders(ledger, "Town", "mayor", "1996-06-01") == [("W", False)]
    assert holders(ledger, "Town", "mayor", "1999-06-01") == [("V", True), ("W", True)]
    assert holders(ledger, "Town", "mayor", "2001-01-01") == [("V", False)]


def test_a_query_inside_the_year_of_a_start_is_flagged(ledger: Ledger) -> None:
    note = ledger.add_source(text="She has reigned since 1952.")
    ledger.assert_claim("the realm", "monarch", value="Elizabeth", valid_from="1952",
                        evidence=[ledger.cite(note, "She has reigned")])
    assert holders(ledger, "the realm", "monarch", "1952-05-31") == [("Elizabeth", True)]
    [reign] = ledger.claims("the realm", "monarch")
    assert ledger.explain(reign).claim.windows == (("valid_from", at("1952-01-01"), at("1953-01-01")),)
    assert holders(ledger, "the realm", "monarch", "1953-03-01") == [("Elizabeth", False)]


def test_the_same_pair_under_a_many_valued_predicate_is_one_claim(ledger: Ledger) -> None:
    cv = ledger.add_source(text="He was a member of the club from 2001 to 2005 and from 2003 to 2009.")
    quote = ledger.cite(cv, "a member of the club")
    first = ledger.assert_claim("Tom", "member of", "the club", valid_from="2001-01-01", valid_until="2005-01-01",
                                evidence=[quote])
    again = ledger.assert_claim("Tom", "member of", "the club", valid_from="2003-01-01", valid_until="2009-01-01",
                                evidence=[quote])
    assert again.id == first.id and (again.valid_from, again.valid_until) == (at("2001-01-01"), at("2009-01-01"))
    assert [c.object for c in ledger.claims("Tom", "member of", valid_at="2004-01-01")] == ["the club"]
    later = ledger.assert_claim("Tom", "member of", "the club", valid_from="2012-01-01", evidence=[quote])
    assert later.id != first.id  # a disjoint term stays a claim of its own


BOUNDS = st.sampled_from([None, "2001", "2002", "2003", "2004", "2003-06-01", "2005-01-01"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(BOUNDS, BOUNDS, st.booleans()), min_size=1, max_size=6))
def test_one_fact_is_read_once_and_covers_the_union_asserted(
    tmp_path_factory: object, intervals: list[tuple[str | None, str | None, bool]]
) -> None:
    path = tmp_path_factory.mktemp("facts") / "ledger.db"  # type: ignore[attr-defined]
    clock = TestClock()
    with Ledger.open(path, clock=clock) as ledger:
        note = ledger.add_source(text="Ann lived in Oslo.")
        ledger.define_predicate("visited", cardinality="many")
        asserted: list[tuple[datetime | None, datetime | None]] = []
        for start, end, functional in intervals:
            if start is not None and end is not None and at(_day(end)) <= at(_day(start)):
                continue
            predicate = "lives in" if functional else "visited"
            clock.tick()
            ledger.assert_claim("Ann", predicate, value="Oslo", valid_from=start, valid_until=end,
                                evidence=[ledger.cite(note, "lived in Oslo")])
            if functional:  # "lives in": its union is checked; "visited" (many): never read twice
                asserted.append((None if start is None else at(_day(start)), None if end is None else at(_day(end))))
        probes = [at(f"{year}-{month:02d}-15") for year in range(1999, 2008) for month in (1, 7)]
        for probe in probes:
            for predicate in ("lives in", "visited"):
                read = ledger.claims("Ann", predicate, valid_at=probe)
                assert len(read) <= 1, f"{predicate} read twice at {probe}"
            held = bool(ledger.claims("Ann", "lives in", valid_at=probe))
            inside = any((s is None or s <= probe) and (e is None or probe < e) for s, e in asserted)
            assert held == inside, probe
        assert_consistent(ledger)


def _day(text: str) -> str:
    return text if len(text) > 4 else f"{text}-01-01"


def test_a_year_start_that_ends_within_its_year_closes_the_older_value_at_its_start(ledger: Ledger) -> None:
    a_source = ledger.add_source(text="A has held the office since the 1990s.", publisher="P1")
    b_source = ledger.add_source(text="B held it early in 2000, until April.", publisher="P2")
    ledger.assert_claim("office", "holder", value="A", evidence=[ledger.cite(a_source, "A has held")])
    ledger.assert_claim("office", "holder", value="B", valid_from="2000", valid_until="2000-04",
                        evidence=[ledger.cite(b_source, "B held it")])
    assert holders(ledger, "office", "holder", "2000-06-01") == [("A", False)]  # A again after B, once
    assert holders(ledger, "office", "holder", "1999-06-01") == [("A", False)]


def test_a_backfill_that_coalesces_is_undone_with_the_value_it_ended_at(ledger: Ledger, clock: TestClock) -> None:
    s1 = ledger.add_source(text="A held it 2001-2002.", publisher="P1")
    s2 = ledger.add_source(text="B has held it since 2005.", publisher="P2")
    s3 = ledger.add_source(text="A has held it since 2000.", publisher="P3")
    ledger.assert_claim("X", "holder", value="A", valid_from="2001-01-01", valid_until="2002-01-01",
                        evidence=[ledger.cite(s1, "A held it")])
    b = ledger.assert_claim("X", "holder", value="B", valid_from="2005-01-01", evidence=[ledger.cite(s2, "B has held")])
    clock.tick()
    a = ledger.assert_claim("X", "holder", value="A", valid_from="2000-01-01", evidence=[ledger.cite(s3, "A has held")])
    assert a.valid_until == at("2005-01-01") and a.cause is not None and a.cause.did("backfilled-before", b.id)
    clock.tick()
    ledger.retract(b, reason="B never held it")
    assert holders(ledger, "X", "holder", "2010-01-01") == [("A", False)]


def test_a_citation_of_an_outdated_version_is_corrected_before_it_coalesces(ledger: Ledger, clock: TestClock) -> None:
    v1 = ledger.add_source(text="A has held the seat since 2000.", uri="https://city.example/seat")
    clock.tick()
    v2 = ledger.add_source(text="B has held the seat since 2000.", uri="https://city.example/seat")
    other = ledger.add_source(text="A held the seat 2006-2008.", publisher="Almanac")
    b = ledger.assert_claim("X", "holder", value="B", valid_from="2000-01-01", evidence=[ledger.cite(v2, "B has held")])
    ledger.assert_claim("X", "holder", value="A", valid_from="2006-01-01", valid_until="2008-01-01",
                        evidence=[ledger.cite(other, "A held the seat")])
    clock.tick()
    old = ledger.assert_claim("X", "holder", value="A", valid_from="2000-01-01", valid_until="2007-01-01",
                              evidence=[ledger.cite(v1, "A has held")])
    assert old.never_valid and old.cause is not None and old.cause.kind == "corrected-by" and old.cause.claim == b.id


def test_an_extension_past_a_closing_makes_the_claim_hold_again(ledger: Ledger, clock: TestClock) -> None:
    first = ledger.add_source(text="A from 2000.", publisher="P1")
    page = ledger.add_source(text="B from 2005.", uri="https://x.example/b")
    third = ledger.add_source(text="A until 2009.", publisher="P3")
    ledger.assert_claim("X", "holder", value="A", valid_from="2000-01-01", evidence=[ledger.cite(first, "A from")])
    ledger.assert_claim("X", "holder", value="B", valid_from="2005-01-01", evidence=[ledger.cite(page, "B from")])
    clock.tick()
    grown = ledger.assert_claim("X", "holder", value="A", valid_from="2004-01-01", valid_until="2009-01-01",
                                evidence=[ledger.cite(third, "A until")])
    # it holds again where B is said to hold too: a conflict over 2005-2009, not a closed claim
    assert grown.valid_until == at("2009-01-01") and grown.status == "disputed"


def test_a_revision_corrects_nothing_under_a_many_valued_predicate(ledger: Ledger, clock: TestClock) -> None:
    ledger.define_predicate("speaks", cardinality="many")
    page = ledger.add_source(text="She speaks Polish.", uri="https://cv.example/anna")
    clock.tick()
    revised = ledger.add_source(text="She speaks Polish and Czech.", uri="https://cv.example/anna")
    ledger.assert_claim("Anna", "speaks", value="Czech", evidence=[ledger.cite(revised, "Czech")])
    polish = ledger.assert_claim("Anna", "speaks", value="Polish", evidence=[ledger.cite(page, "Polish")])
    assert not polish.never_valid and sorted(c.value for c in ledger.claims("Anna", "speaks")) == ["Czech", "Polish"]
