"""Contradictions (issue 20): why claims disagree, each side's evidence, and resolving them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger import Claim, Conflict, Contradiction, InvalidInput, Ledger, NotFound, Source
from ledger.contradictions import Held, contradiction_id, group, parse_id
from tests.conftest import table_dump


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def said(ledger: Ledger, clock: Any, subject: str, predicate: str, value: Any, *, by: str, scope: str = "default",
         trust: str = "trusted", **claim: Any) -> Claim:
    """``subject predicate value``, from a source of its own published by ``by``."""
    clock.tick()
    text = f"{by} reports: {subject} {predicate} {value}."
    source = ledger.add_source(text=text, publisher=by, scope=scope, trust=trust)  # type: ignore[arg-type]
    return ledger.assert_claim(subject, predicate, value=value, evidence=[ledger.cite(source, str(value))],
                               scope=source.scope, **claim)


def kinds(found: list[Contradiction]) -> dict[str, str]:
    return {c.id: c.kind for c in found}


# ---------------------------------------------------------------- the audit question

def test_contradicted_and_unresolved_has_a_hand_built_answer(ledger: Ledger, clock) -> None:
    """A ledger with one of everything; the expected answer is written out by hand."""
    red = said(ledger, clock, "car", "color", "red", by="A")
    blue = said(ledger, clock, "car", "color", "blue", by="B")  # conflicts with red: both disputed
    said(ledger, clock, "rent", "amount", 900, by="L", valid_from="2025-01", valid_until="2025-07")
    said(ledger, clock, "rent", "amount", 950, by="M", valid_from="2025-07")  # adjacent: an update, no conflict
    said(ledger, clock, "tea", "drinks", "yes", by="P", qualifiers={"time_of_day": "morning"})
    said(ledger, clock, "tea", "drinks", "no", by="Q", qualifiers={"time_of_day": "night"})  # other context
    fee = said(ledger, clock, "Acme", "fee", 12, by="R")
    clock.tick()
    audit = ledger.add_source(text="Audit: the fee of 12 is wrong.", publisher="Auditor", title="Audit 2026")
    ledger.dispute(fee, evidence=[ledger.cite(audit, "is wrong", relation="contradicts")])
    height = said(ledger, clock, "Mont Blanc", "height", "4810 m", by="S")
    clock.tick()
    ledger.dispute(height, reason="the survey is from 1986")
    low = said(ledger, clock, "K2", "height", "8611 m", by="T")
    high = said(ledger, clock, "K2", "height", "8614 m", by="U")
    said(ledger, clock, "car", "color", "green", by="V", scope="other")
    said(ledger, clock, "car", "color", "pink", by="W", scope="other")  # a conflict in another scope
    clock.tick()
    resolved = ledger.contradictions(subject="K2")[0]
    ledger.resolve_contradiction(resolved, keep=high, reason="2014 GPS survey")

    expected = {
        f"overlap:{red.id}+{blue.id}": "functional-overlap",
        f"evidence:{fee.id}": "contradicting-evidence",
        f"dispute:{height.id}": "open-dispute",
    }
    assert kinds(ledger.contradictions()) == expected
    # the named query alone answers which claims are contradicted and not resolved
    from ledger import queries

    engine = ledger._db.engine
    with engine.connect() as connection:
        rows = queries.run(connection, "contradicted_unresolved", scope="default", known_at=ledger.now()).all()
    assert sorted(r.claim_id for r in rows) == sorted([red.id, blue.id, fee.id, height.id])
    assert low.id not in {r.claim_id for r in rows}
    with_resolved = ledger.contradictions(include_resolved=True)
    assert kinds(with_resolved) == {**expected, f"overlap:{low.id}+{high.id}": "functional-overlap"}
    assert [c.open for c in with_resolved if c.predicate == "height" and c.subject == "K2"] == [False]


def test_the_named_query_runs_as_it_is_in_sqlite3(tmp_path, clock) -> None:
    """queries/contradicted_unresolved.sql needs nothing but its parameters (sqlite3 here)."""
    import sqlite3

    from ledger.queries import queries_dir
    from ledger.timeline import to_micros

    path = tmp_path / "plain.db"
    with Ledger.open(path, clock=clock) as ledger:
        red = said(ledger, clock, "car", "color", "red", by="A")
        blue = said(ledger, clock, "car", "color", "blue", by="B")
        now = ledger.now()
    sql = "\n".join(line for line in (queries_dir() / "contradicted_unresolved.sql").read_text().splitlines()
                    if not line.startswith("--"))
    with sqlite3.connect(path) as connection:
        rows = connection.execute(sql, {"scope": "default", "known_at": to_micros(now)}).fetchall()
    assert sorted(row[0] for row in rows) == [red.id, blue.id]


# ---------------------------------------------------------------- each reason

def test_a_functional_overlap_names_both_sides_with_evidence_and_sources(ledger: Ledger, clock) -> None:
    a = ledger.add_source(text="Acme's CEO is Alice Smith.", uri="https://a.example/1", publisher="A Times",
                          title="Acme names CEO", published_at="2026-01-02")
    b = ledger.add_source(text="Acme's CEO is Bob Jones.", uri="https://b.example/2", publisher="B Post",
                          title="New boss at Acme", published_at="2026-01-03")
    ledger.define_predicate("ceo", cardinality="one", object_kind="entity")
    alice = ledger.assert_claim("Acme", "ceo", "Alice Smith", valid_from="2026-01",
                                evidence=[ledger.cite(a, "Alice Smith")])
    clock.tick()
    bob = ledger.assert_claim("Acme", "ceo", "Bob Jones", valid_from="2026-02", valid_until="2026-03",
                              evidence=[ledger.cite(b, "Bob Jones")], supersedes=None)
    found = ledger.contradictions()
    # a later start is an update, not a conflict: Bob closes Alice's term at February
    assert found == [] and ledger.claim(alice).valid_until == at("2026-02-01")
    clock.tick()
    carol_source = ledger.add_source(text="Acme's CEO since January is Carol White.", publisher="C Wire",
                                     uri="https://c.example/3", title="Carol at the helm",
                                     published_at="2026-01-05")
    carol = ledger.assert_claim("Acme", "ceo", "Carol White", valid_from="2026-01",
                                evidence=[ledger.cite(carol_source, "Carol White")])
    [conflict] = ledger.contradictions()
    assert conflict.kind == "functional-overlap" and conflict.id == f"overlap:{alice.id}+{carol.id}"
    assert (conflict.subject, conflict.predicate, conflict.scope) == ("Acme", "chief executive officer", "default")  # "ceo" is the shipped vocabulary's alias
    assert conflict.claim_ids == (alice.id, carol.id) and conflict.open
    assert (conflict.valid_from, conflict.valid_until) == (at("2026-01-01"), at("2026-02-01"))
    first, second = conflict.sides
    assert (first.claim.object, first.claim.status, second.claim.object) == ("Alice Smith", "disputed", "Carol White")
    [evidence] = first.evidence
    assert (evidence.excerpt, evidence.relation, evidence.title, evidence.uri, evidence.publisher) == (
        "Alice Smith", "supports", "Acme names CEO", "https://a.example/1", "A Times")
    assert evidence.published_at == at("2026-01-02") and evidence.source_id == a.id
    assert {"type": "TextQuoteSelector", "exact": "Alice Smith"}.items() <= evidence.locator["selectors"][0].items()
    assert second.supporting[0].title == "Carol at the helm" and second.contradicting == ()
    assert conflict.since == ledger.claim(carol).recorded_at
    assert bob.id not in conflict.claim_ids


def test_contradicting_evidence_is_a_contradiction_with_the_excerpt_cited_against(ledger: Ledger, clock) -> None:
    fee = said(ledger, clock, "Acme", "fee", 12, by="R")
    clock.tick()
    audit = ledger.add_source(text="Audit: the fee of 12 is wrong.", publisher="Auditor", title="Audit 2026",
                              uri="file:audit.txt")
    ledger.dispute(fee, evidence=[ledger.cite(audit, "is wrong", relation="contradicts")], reason="audit finding")
    [found] = ledger.contradictions()
    assert (found.id, found.kind, found.reasons) == (f"evidence:{fee.id}", "contradicting-evidence", ("audit finding",))
    [side] = found.sides
    assert [e.excerpt for e in side.supporting] == ["12"]
    assert [(e.excerpt, e.title, e.uri) for e in side.contradicting] == [("is wrong", "Audit 2026", "file:audit.txt")]


def test_an_open_dispute_with_a_reason_only(ledger: Ledger, clock) -> None:
    height = said(ledger, clock, "Mont Blanc", "height", "4810 m", by="S")
    clock.tick()
    ledger.dispute(height, reason="the survey is from 1986", actor="ann")
    [found] = ledger.contradictions()
    assert (found.kind, found.claim_ids, found.reasons) == ("open-dispute", (height.id,), ("the survey is from 1986",))
    assert found.sides[0].claim.actor == "ann" and found.since == ledger.claim(height).recorded_at


def test_a_predicate_declared_functional_later_makes_rivals_without_a_link(ledger: Ledger, clock) -> None:
    """Two values of a many-valued predicate, both disputed; declared functional, they overlap."""
    ledger.define_predicate("employer", cardinality="many", object_kind="value")
    one = said(ledger, clock, "Ola", "employer", "Statoil", by="A")
    two = said(ledger, clock, "Ola", "employer", "Equinor", by="B")
    assert ledger.claim(one).status == ledger.claim(two).status == "reported"
    clock.tick()
    for claim in (one, two):
        ledger.dispute(claim, reason="unclear which year")
    assert kinds(ledger.contradictions()) == {f"dispute:{one.id}": "open-dispute", f"dispute:{two.id}": "open-dispute"}
    ledger.define_predicate("employer", cardinality="one", object_kind="value")
    assert [l.kind for l in ledger.explain(one).links] == []  # no contradicts link was ever written
    assert kinds(ledger.contradictions()) == {f"overlap:{one.id}+{two.id}": "functional-overlap"}


def test_three_values_at_once_are_one_contradiction_with_three_sides(ledger: Ledger, clock) -> None:
    claims = [said(ledger, clock, "car", "color", color, by=color.upper()) for color in ("red", "blue", "green")]
    [found] = ledger.contradictions()
    assert found.claim_ids == tuple(c.id for c in claims) and len(found.sides) == 3


# ---------------------------------------------------------------- never conflicts

def test_adjacent_intervals_and_different_qualifiers_never_conflict(ledger: Ledger, clock) -> None:
    said(ledger, clock, "rent", "amount", 900, by="L", valid_from="2025-01", valid_until="2025-07")
    said(ledger, clock, "rent", "amount", 950, by="M", valid_from="2025-07", valid_until="2026-01")
    said(ledger, clock, "tea", "drinks", "yes", by="P", qualifiers={"time_of_day": "morning"})
    said(ledger, clock, "tea", "drinks", "no", by="Q", qualifiers={"time_of_day": "night"})
    assert ledger.contradictions() == []
    # many-valued, disputed, then declared functional: still no conflict between them
    ledger.define_predicate("amount", cardinality="many")
    ledger.define_predicate("drinks", cardinality="many")
    said(ledger, clock, "rent", "amount", 990, by="N", valid_from="2026-01")
    clock.tick()
    for claim in ledger.claims(during=("2000", "2100")):
        ledger.dispute(claim, reason="check")
    ledger.define_predicate("amount", cardinality="one")
    ledger.define_predicate("drinks", cardinality="one")
    assert {c.kind for c in ledger.contradictions()} == {"open-dispute"}


def _held(claim_id: int, start: int, end: int, value: str, qualifiers: str = "{}") -> Held:
    base = datetime(2000, 1, 1, tzinfo=UTC)
    return Held(claim_id, (1, "p", qualifiers), (None, value), "disputed",
                (base + timedelta(days=start), base + timedelta(days=end), "day", "day"))


@given(st.integers(0, 1000), st.integers(1, 500), st.integers(1, 500))
def test_adjacent_intervals_never_group(start: int, first: int, second: int) -> None:
    a = _held(1, start, start + first, "x")
    b = _held(2, start + first, start + first + second, "y")
    found = group([a, b], [], lambda _: True)
    assert {g.kind for g in found} == {"open-dispute"}


@given(st.integers(0, 1000), st.integers(1, 500), st.integers(0, 499))
def test_overlapping_intervals_group_unless_their_qualifiers_differ(start: int, length: int, shift: int) -> None:
    shift = min(shift, length - 1)
    a = _held(1, start, start + length, "x")
    b = _held(2, start + shift, start + shift + length, "y")
    assert [g.id for g in group([a, b], [], lambda _: True)] == ["overlap:1+2"]
    other = _held(2, start + shift, start + shift + length, "y", qualifiers='{"k":"v"}')
    assert [g.kind for g in group([a, other], [], lambda _: True)] == ["open-dispute", "open-dispute"]


def test_ids_round_trip_and_bad_ids_are_refused() -> None:
    assert parse_id(contradiction_id("functional-overlap", [15, 12])) == ("functional-overlap", (12, 15))
    for bad in ("overlap:15+12", "overlap:12+12", "conflict:3", "dispute:", "dispute:0", 7, "evidence:1;drop"):
        with pytest.raises(InvalidInput):
            parse_id(bad)


# ---------------------------------------------------------------- resolving

def test_resolving_keeps_history_and_known_at_before_still_shows_it_open(ledger: Ledger, clock) -> None:
    red = said(ledger, clock, "car", "color", "red", by="A")
    blue = said(ledger, clock, "car", "color", "blue", by="B")
    [open_one] = ledger.contradictions()
    clock.tick()
    before = ledger.now()
    clock.tick()
    result = ledger.resolve_contradiction(open_one.id, keep=red, reason="the registration says red", actor="ann")
    assert result.resolution is not None and result.id == open_one.id
    assert (result.resolution.kept, result.resolution.superseded, result.resolution.retracted) == (red.id, (blue.id,), ())
    assert (result.resolution.actor, result.resolution.reason) == ("ann", "the registration says red")
    assert ledger.contradictions() == []
    assert [c.id for c in ledger.contradictions(known_at=before)] == [open_one.id]  # as known a moment before
    assert ledger.contradictions(known_at=before)[0].open
    assert ledger.contradictions(known_at=result.resolution.resolved_at - timedelta(microseconds=1))[0].open
    [audited] = ledger.contradictions(include_resolved=True)
    assert audited.resolution == result.resolution and not audited.open
    assert [s.claim.status for s in audited.sides] == ["disputed", "disputed"]  # as it stood
    # the audit view keeps every version and the resolves link, with who and why
    kept = ledger.claim(red)
    assert (kept.status, kept.actor, kept.reason) == ("confirmed", "ann", "the registration says red")
    assert ledger.claim(blue).status == "superseded" and ledger.claim(blue, known_at=before).status == "disputed"
    links = [(l.kind, l.from_claim_id, l.to_claim_id, l.reason) for a in ledger.audit("car") for l in a.links]
    assert ("resolves", red.id, blue.id, "the registration says red") in links
    assert [c.value for c in ledger.claims("car", "color")] == ["red"]


def test_resolving_by_retracting_the_others(ledger: Ledger, clock) -> None:
    claims = [said(ledger, clock, "car", "color", color, by=color.upper()) for color in ("red", "blue", "green")]
    [found] = ledger.contradictions()
    clock.tick()
    done = ledger.resolve_contradiction(found, keep=claims[1], reason="photo", others="retracted")
    assert done.resolution is not None and done.resolution.retracted == (claims[0].id, claims[2].id)
    assert [(c.value, c.status) for c in ledger.claims("car", "color")] == [("blue", "confirmed")]
    assert [a.claim.status for a in ledger.audit("car")] == ["retracted", "confirmed", "retracted"]


def test_resolving_a_single_sided_dispute_confirms_the_claim(ledger: Ledger, clock) -> None:
    height = said(ledger, clock, "Mont Blanc", "height", "4810 m", by="S")
    clock.tick()
    ledger.dispute(height, reason="the survey is from 1986")
    [found] = ledger.contradictions()
    clock.tick()
    done = ledger.resolve_contradiction(found, keep=height, reason="the 2021 survey agrees")
    assert done.resolution is not None and done.resolution.kept == height.id and ledger.claim(height).status == "confirmed"
    assert ledger.contradictions() == [] and [c.id for c in ledger.contradictions(include_resolved=True)] == [found.id]


def test_bad_resolutions_are_refused_and_write_nothing(ledger: Ledger, clock) -> None:
    red = said(ledger, clock, "car", "color", "red", by="A")
    blue = said(ledger, clock, "car", "color", "blue", by="B")
    other = said(ledger, clock, "bike", "color", "black", by="C")
    [found] = ledger.contradictions()
    before = table_dump(ledger.url)
    clock.tick()
    with pytest.raises(InvalidInput, match="one of the sides"):
        ledger.resolve_contradiction(found, keep=other, reason="no")
    with pytest.raises(InvalidInput, match="not a contradiction id"):
        ledger.resolve_contradiction("conflict:1+2", keep=red, reason="no")
    with pytest.raises(InvalidInput, match="others"):
        ledger.resolve_contradiction(found, keep=red, reason="no", others="deleted")  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="reason"):
        ledger.resolve_contradiction(found, keep=red, reason=" ")
    with pytest.raises(NotFound):
        ledger.resolve_contradiction("overlap:900001+900002", keep=900001, reason="no")
    with pytest.raises(Conflict, match="not open"):
        ledger.resolve_contradiction(f"overlap:{red.id}+{other.id}", keep=red, reason="no")
    assert table_dump(ledger.url) == before
    ledger.resolve_contradiction(found, keep=blue, reason="photo")
    clock.tick()
    with pytest.raises(Conflict, match="resolved already"):  # a stale id
        ledger.resolve_contradiction(found, keep=blue, reason="again")


# ---------------------------------------------------------------- scopes and filters

def test_nothing_from_another_scope_quarantine_included(ledger: Ledger, clock) -> None:
    said(ledger, clock, "car", "color", "red", by="A", scope="other")
    said(ledger, clock, "car", "color", "blue", by="B", scope="other")
    said(ledger, clock, "car", "color", "grey", by="X", trust="untrusted")
    said(ledger, clock, "car", "color", "white", by="Y", trust="untrusted")
    mine = said(ledger, clock, "car", "color", "black", by="C")
    assert ledger.contradictions() == []
    [quarantined] = ledger.contradictions(scope="quarantine:default")
    [other] = ledger.contradictions(scope="other")
    assert {s.claim.scope for s in quarantined.sides} == {"quarantine:default"}
    assert {s.claim.scope for s in other.sides} == {"other"} and mine.id not in other.claim_ids
    clock.tick()
    ledger.resolve_contradiction(other, keep=other.sides[0].claim, reason="photo")
    assert ledger.contradictions(include_resolved=True) == []
    assert [c.open for c in ledger.contradictions(scope="other", include_resolved=True)] == [False]
    assert len(ledger.contradictions(scope="quarantine:default")) == 1


def test_filters_by_subject_predicate_and_valid_time(ledger: Ledger, clock) -> None:
    said(ledger, clock, "car", "color", "red", by="A", valid_from="2020-01", valid_until="2022-01")
    said(ledger, clock, "car", "color", "blue", by="B", valid_from="2019-06", valid_until="2021-01")
    said(ledger, clock, "bike", "color", "black", by="C")
    said(ledger, clock, "bike", "color", "white", by="D")
    assert len(ledger.contradictions()) == 2
    assert [c.subject for c in ledger.contradictions(subject="car")] == ["car"]
    assert ledger.contradictions(subject="nobody") == [] and ledger.contradictions(predicate="size") == []
    [car_conflict] = ledger.contradictions(subject="car")
    assert (car_conflict.valid_from, car_conflict.valid_until) == (at("2020-01-01"), at("2021-01-01"))
    assert {c.subject for c in ledger.contradictions(valid_at="2020-08")} == {"car", "bike"}
    assert [c.subject for c in ledger.contradictions(valid_at="2019-08")] == ["bike"]  # blue alone then
    assert [c.subject for c in ledger.contradictions(valid_at="2021-01")] == ["bike"]  # red alone from then
    car = ledger.resolve("car")
    assert car is not None and [c.subject for c in ledger.contradictions(subject=car)] == ["car"]


def test_the_open_list_starts_from_the_versions_not_from_the_scopes_claims(tmp_path, clock) -> None:
    """SQLite: the disputed versions lead (their partial index holds only them), then each claim by
    its id; the rivals of a claim are found through its subject (the scope, subject, predicate index)."""
    import sqlite3

    from ledger.queries import queries_dir

    path = tmp_path / "plan.db"
    with Ledger.open(path, clock=clock) as ledger:
        said(ledger, clock, "car", "color", "red", by="A")
    plans = {}
    with sqlite3.connect(path) as connection:
        for name, params in (("contradicted_unresolved", {"scope": "default", "known_at": 0}),
                             ("claims_held_by_subjects", {"scope": "default", "known_at": 0})):
            sql = "\n".join(line for line in (queries_dir() / f"{name}.sql").read_text().splitlines()
                            if not line.startswith("--"))
            sql = sql.replace(":roots", "(1)").replace(":predicates", "('color')")
            plans[name] = [row[3] for row in connection.execute("EXPLAIN QUERY PLAN " + sql, params)]
    assert plans["contradicted_unresolved"][:3] == ["SCAN v USING INDEX ix_claim_versions_disputed",
                                                    "SEARCH c USING INTEGER PRIMARY KEY (rowid=?)",
                                                    "SEARCH s USING INTEGER PRIMARY KEY (rowid=?)"]
    assert not any(step.startswith("SCAN c") for step in plans["claims_held_by_subjects"]), plans
