"""The facade's contract: entities, sources, refusals that leave nothing behind, scopes."""

from __future__ import annotations

import math
import subprocess
import sys
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path

import pytest

import ledger as ledger_package
from ledger import (
    AliasConflict,
    ClaimDraft,
    ClockError,
    Conflict,
    InvalidInput,
    InvalidTime,
    Ledger,
    LedgerError,
    MissingEvidence,
    NotFound,
    QuoteNotFound,
    ScopeMismatch,
)

from .conftest import table_dump


def test_entity_is_get_or_create_by_normalized_alias(ledger: Ledger) -> None:
    lodz = ledger.entity("Łódź", kind="place", aliases=["Lodz", "Litzmannstadt"])
    assert ledger.entity("  ŁÓDŹ ") == lodz
    assert ledger.resolve("lodz") == lodz
    assert ledger.resolve("LITZMANNSTADT").id == lodz.id  # type: ignore[union-attr]
    assert ledger.resolve("Łódź Kaliska") is None
    assert set(lodz.aliases) == {"Łódź", "Litzmannstadt"}  # "Lodz" folds to the same form as "Łódź"


def test_alias_conflicts_and_kind_conflicts_are_refused(ledger: Ledger) -> None:
    ledger.entity("Paris", kind="place")
    ledger.entity("Paris Hilton", kind="person")
    with pytest.raises(AliasConflict, match="merge_entities"):
        ledger.add_alias("Paris Hilton", "Paris")
    with pytest.raises(Conflict, match="a place, not a person"):
        ledger.entity("Paris", kind="person")


def test_entities_of_different_kinds_do_not_merge(ledger: Ledger) -> None:
    from ledger import Conflict

    person, place = ledger.entity("Paris Hilton", kind="person"), ledger.entity("Paris", kind="place")
    with pytest.raises(Conflict, match="is a place and entity .* a person; entities of different kinds do not merge"):
        ledger.merge_entities(place, person)
    assert ledger.get_entity(person.id).merged_into is None
    untyped = ledger.entity("Paname")
    assert ledger.merge_entities(place, untyped).id == place.id  # an entity without a kind merges with any


def test_merging_entities_whose_claims_give_one_number_in_two_spellings_is_no_conflict(ledger: Ledger) -> None:
    """30 and 30.0 are one value (as corroboration already said); only a different number clashes."""
    doc = ledger.add_source(text="Acme has 30 staff. Acme Inc. has 30.0 staff. Acme Corp has 31 staff.")
    acme, inc, corp = (ledger.entity(name) for name in ("Acme", "Acme Inc.", "Acme Corp"))
    ledger.assert_claim(acme, "staff", value=30, evidence=ledger.cite(doc, "30 staff"))
    ledger.assert_claim(inc, "staff", value=30.0, evidence=ledger.cite(doc, "30.0 staff"))
    ledger.assert_claim(corp, "staff", value=31, evidence=ledger.cite(doc, "31 staff"))
    ledger.merge_entities(acme, inc)
    assert sorted(float(c.value) for c in ledger.claims(acme, "staff")) == [30.0, 30.0]
    with pytest.raises(Conflict, match="two undisputed values"):
        ledger.merge_entities(acme, corp)


def test_merge_keeps_history_and_reads_follow_the_merge(ledger: Ledger, clock) -> None:
    doc = ledger.add_source(text="IBM was founded in 1911. International Business Machines is based in Armonk.")
    ibm = ledger.entity("IBM", kind="organization")
    long_name = ledger.entity("International Business Machines", kind="organization")
    founded = ledger.assert_claim(ibm, "founded", value=1911, evidence=[ledger.cite(doc, "founded in 1911")])
    based = ledger.assert_claim(long_name, "headquarters", "Armonk", evidence=[ledger.cite(doc, "based in Armonk")])
    clock.tick()
    before = ledger.now()
    assert [c.id for c in ledger.claims("IBM", known_at=before)] == [founded.id]
    clock.tick()
    merged = ledger.merge_entities(ibm, long_name)
    assert merged.id == ibm.id
    assert ledger.resolve("International Business Machines").id == ibm.id  # type: ignore[union-attr]
    assert {c.id for c in ledger.claims(ibm)} == {founded.id, based.id}
    assert [c.subject for c in ledger.claims("IBM", "headquarters")] == ["International Business Machines"]
    assert ledger.get_entity(long_name.id).merged_into == ibm.id
    # what the ledger said before the merge stays what it said
    for name, claim in (("IBM", founded), ("International Business Machines", based)):
        assert [c.id for c in ledger.claims(name, known_at=before)] == [claim.id]
    # an id or record from before the merge reads as its name does: as the merged entity
    for stale in (long_name, long_name.id):
        assert {c.id for c in ledger.claims(stale)} == {founded.id, based.id}
        assert [v.id for v in ledger.history(stale, "founded")] == [founded.id]


@pytest.mark.parametrize(("first", "second"), [
    (12000, 12000.0),
    (Decimal("12000"), 12000),
    (Decimal("12000.0"), Decimal("12000")),
    (0, -0.0),
    (datetime(2026, 1, 1, 2, tzinfo=timezone(timedelta(hours=2))), datetime(2026, 1, 1, tzinfo=UTC)),
])
def test_equal_values_written_differently_corroborate(ledger: Ledger, first: object, second: object) -> None:
    one = ledger.add_source(text="The salary is 12000 a month.", uri="a")
    other = ledger.add_source(text="She earns 12000 monthly.", uri="b")
    claim = ledger.assert_claim("Ann", "salary", value=first, evidence=[ledger.cite(one, "12000")])
    again = ledger.assert_claim("Ann", "salary", value=second, evidence=[ledger.cite(other, "12000")])
    assert again.id == claim.id and again.status == "confirmed"
    assert [c.value for c in ledger.claims("Ann", "salary")] == [first]  # as first written


def test_numbers_differing_beyond_28_digits_still_conflict(ledger: Ledger) -> None:
    one = ledger.add_source(text="The count is huge.", uri="a")
    other = ledger.add_source(text="The count is huge indeed.", uri="b")
    claim = ledger.assert_claim("x", "count", value=10**30, evidence=[ledger.cite(one, "huge")])
    rival = ledger.assert_claim("x", "count", value=10**30 + 1, evidence=[ledger.cite(other, "huge")])
    assert rival.id != claim.id and rival.status == "disputed"
    big = ledger.assert_claim("y", "count", value=Decimal("1E+1000000"), evidence=[ledger.cite(one, "huge")])
    assert big.value == Decimal("1E+1000000")


def test_different_numbers_still_conflict(ledger: Ledger) -> None:
    one = ledger.add_source(text="The salary is 12000 a month.", uri="a")
    other = ledger.add_source(text="She earns 12000.5 monthly.", uri="b")
    claim = ledger.assert_claim("Ann", "salary", value=12000, evidence=[ledger.cite(one, "12000")])
    rival = ledger.assert_claim("Ann", "salary", value=Decimal("12000.5"), evidence=[ledger.cite(other, "12000.5")])
    assert rival.id != claim.id and rival.status == "disputed"


def test_add_source_is_idempotent_by_content_hash(ledger: Ledger) -> None:
    first = ledger.add_source(text="Same bytes.", uri="a")
    again = ledger.add_source(text="Same bytes.", uri="b")
    assert again.id == first.id and first.created and not again.created
    assert len(first.content_hash) == 64


def test_untrusted_sources_go_to_quarantine(ledger: Ledger) -> None:
    rumour = ledger.add_source(text="The moon is made of cheese.", trust="untrusted")
    assert rumour.scope == "quarantine:default"
    with pytest.raises(ScopeMismatch, match="quarantine:default"):
        ledger.assert_claim("moon", "made of", value="cheese", evidence=[ledger.cite(rumour, "cheese")])
    held = ledger.assert_claim("moon", "made of", value="cheese", evidence=[ledger.cite(rumour, "cheese")],
                               scope="quarantine:default")
    assert held.confidence == pytest.approx(0.2)
    assert ledger.claims("moon") == []


def test_cite_refuses_a_quote_that_is_not_in_the_source(ledger: Ledger) -> None:
    doc = ledger.add_source(text="The river is 300 km long.")
    with pytest.raises(QuoteNotFound):
        ledger.cite(doc, "The river is 400 km long")
    with pytest.raises(NotFound):
        ledger.cite(999, "anything")


def test_cite_refuses_a_prefix_or_suffix_that_stands_beside_no_occurrence(ledger: Ledger) -> None:
    doc = ledger.add_source(text="In 2004 Chelsea appointed Mourinho. In 2010 Real Madrid hired Mourinho, who won the league.")
    with pytest.raises(QuoteNotFound, match=r'occurs 2 times .* none after the prefix "Manchester United appointed"') as info:
        ledger.cite(doc, "Mourinho", prefix="Manchester United appointed ")
    assert 'after "In 2004 Chelsea appointed"' in str(info.value)
    assert 'after "2010 Real Madrid hired"' in str(info.value)
    with pytest.raises(QuoteNotFound, match='none before the suffix "as coach"'):
        ledger.cite(doc, "Mourinho", suffix=" as coach")
    assert ledger.cite(doc, "Mourinho", prefix="Real Madrid hired ").char_start == 62


def test_a_quote_found_several_times_is_cited_at_the_first_and_says_how_many(ledger: Ledger) -> None:
    doc = ledger.add_source(text="Mourinho joined Chelsea. Later Mourinho joined Inter, and then Mourinho left.")
    first = ledger.cite(doc, "Mourinho")
    assert (first.char_start, first.occurrences) == (0, 3)
    assert ledger.cite(doc, "Chelsea").occurrences == 1
    chosen = ledger.cite(doc, "Mourinho", prefix="and then ")
    assert (chosen.char_start, chosen.occurrences) == (63, 3)


BAD_CLAIMS = [
    (dict(evidence=[]), MissingEvidence, "no supporting evidence"),
    (dict(valid_from="2026-05-01", valid_until="2026-05-01"), InvalidTime, "must be later than"),
    (dict(valid_from="2026-05-01", valid_until="2026-01-01"), InvalidTime, "must be later than"),
    (dict(confidence=1.5), InvalidInput, r"\[0, 1\]"),
    (dict(confidence=-0.1), InvalidInput, r"\[0, 1\]"),
    (dict(confidence=math.nan), InvalidInput, r"\[0, 1\]"),
    (dict(status="certain"), InvalidInput, "cannot be asserted"),
    (dict(status="retracted"), InvalidInput, "retract"),
    (dict(valid_from="last tuesday"), InvalidTime, "ISO"),
    (dict(valid_from="2026-13"), InvalidTime, "out of range"),
    (dict(value=math.inf), InvalidInput, "finite"),
    (dict(qualifiers={"a": math.nan}), InvalidInput, "finite"),
    (dict(subject="   "), InvalidInput, "empty"),
    (dict(subject=None), InvalidInput, "expected an entity"),
    (dict(predicate=""), InvalidInput, "predicate"),
    (dict(supersedes=12345), NotFound, "12345"),
]


@pytest.mark.parametrize(("change", "error", "message"), BAD_CLAIMS)
def test_bad_claims_are_refused_and_write_nothing(ledger: Ledger, change, error, message) -> None:
    doc = ledger.add_source(text="Water boils at 100 degrees Celsius at sea level.")
    ledger.assert_claim("water", "boiling point", value="100 °C", evidence=[ledger.cite(doc, "100 degrees Celsius")])
    before = table_dump(ledger.url)
    arguments = dict(subject="water", predicate="freezing point", value="0 °C",
                     evidence=[ledger.cite(doc, "Water boils")])
    arguments.update(change)
    with pytest.raises(error, match=message):
        ledger.assert_claim(**arguments)
    assert table_dump(ledger.url) == before


def test_evidence_from_another_scope_is_refused(ledger: Ledger) -> None:
    theirs = ledger.add_source(text="Project X ships in May.", scope="team-b")
    before = table_dump(ledger.url)
    with pytest.raises(ScopeMismatch, match="team-b"):
        ledger.assert_claim("Project X", "ships", value="May", evidence=[ledger.cite(theirs, "May")], scope="team-a")
    assert table_dump(ledger.url) == before


def test_missing_support_is_reported_before_the_scope_of_other_evidence(ledger: Ledger) -> None:
    # The first thing to fix is the missing supporting evidence, whatever else is wrong.
    theirs = ledger.add_source(text="Project X ships in May.", scope="team-b")
    against = ledger.cite(theirs, "May", relation="contradicts")
    with pytest.raises(MissingEvidence, match="no supporting evidence"):
        ledger.assert_claim("Project X", "ships", value="June", evidence=[against], scope="team-a")
    with pytest.raises(InvalidInput, match="citations made by cite"):
        ledger.assert_claim("Project X", "ships", value="June", evidence=[against, "May"], scope="team-a")


def test_a_failing_batch_writes_nothing(ledger: Ledger) -> None:
    doc = ledger.add_source(text="Alpha is 1. Beta is 2.")
    before = table_dump(ledger.url)
    good = ClaimDraft("alpha", "number", value=1, evidence=[ledger.cite(doc, "Alpha is 1")])
    bad = ClaimDraft("beta", "number", value=2, evidence=[ledger.cite(doc, "Beta is 2")], confidence=7)
    with pytest.raises(InvalidInput):
        ledger.assert_claims([good, bad])
    assert table_dump(ledger.url) == before
    ids = ledger.assert_claims([good, {"subject": "beta", "predicate": "number", "value": 2,
                                       "evidence": [ledger.cite(doc, "Beta is 2")]}])
    assert len(ids) == 2 and [c.value for c in ledger.claims("beta")] == [2]


def test_scopes_never_mix_on_any_read(ledger: Ledger) -> None:
    for scope, city in (("alice", "Oslo"), ("bob", "Lima")):
        doc = ledger.add_source(text=f"I live in {city}.", scope=scope)
        ledger.entity("me", scope=scope)
        ledger.assert_claim("me", "lives in", city, evidence=[ledger.cite(doc, city)], scope=scope)
    assert [c.object for c in ledger.claims("me", scope="alice")] == ["Oslo"]
    assert [c.object for c in ledger.claims(scope="bob")] == ["Lima"]
    assert ledger.claims("me") == []  # the default scope holds nothing
    assert [c.object for c in ledger.claims(object="Oslo", scope="bob")] == []
    assert [len(h) for h in (ledger.history("me", "lives in", scope="alice"),)] == [1]
    assert ledger.history("me", "lives in", scope="carol") == []
    assert [a.claim.object for a in ledger.audit(scope="bob")] == ["Lima"]
    assert ledger.resolve("Oslo", scope="bob") is None
    alice_me = ledger.resolve("me", scope="alice")
    with pytest.raises(ScopeMismatch):
        doc = ledger.add_source(text="Bob likes tea.", scope="bob")
        ledger.assert_claim(alice_me, "likes", value="tea", evidence=[ledger.cite(doc, "tea")], scope="bob")  # type: ignore[arg-type]


def test_unknown_entities_and_predicates_give_empty_results(ledger: Ledger) -> None:
    doc = ledger.add_source(text="Anna Kowalska is a chemist.")
    ledger.assert_claim("Anna Kowalska", "occupation", value="chemist", evidence=[ledger.cite(doc, "chemist")])
    assert ledger.claims("Anna Kowalsk") == []
    assert ledger.claims("Anna Kowalska", "occupations") == []
    assert ledger.history("Anna", "occupation") == []
    assert ledger.claims(999_999) == []


def test_the_clock_never_runs_backwards(ledger: Ledger, clock) -> None:
    clock.set("2026-05-01")
    ledger.add_source(text="first")
    clock.set("2026-04-01")
    with pytest.raises(ClockError, match="never runs backwards"):
        ledger.add_source(text="second")
    # a read at a "now" before the last write would silently answer about the past
    with pytest.raises(ClockError, match="never runs backwards"):
        ledger.claims("Anna")
    with pytest.raises(ClockError, match="never runs backwards"):
        ledger.now()
    assert ledger.claims("Anna", valid_at="2026-05-01", known_at="2026-05-01") == []  # explicit times need no clock


def test_a_ledger_opened_with_a_clock_behind_the_last_write_refuses_to_read_at_its_now(tmp_path: Path) -> None:
    """The trial's finding: another process wrote later; reading "now" at an earlier clock
    silently answered about the past (nothing) instead of raising ClockError."""
    path = tmp_path / "ledger.db"
    with Ledger.open(path, clock=lambda: datetime(2026, 5, 1, tzinfo=UTC)) as writer:
        note = writer.add_source(text="Anna works at Acme.")
        writer.assert_claim("Anna", "employer", value="Acme", evidence=[writer.cite(note, "Acme")])
    with Ledger.open(path, clock=lambda: datetime(2026, 4, 1, tzinfo=UTC)) as behind:
        with pytest.raises(ClockError, match="never runs backwards"):
            behind.claims("Anna")
        assert [c.value for c in behind.claims("Anna", valid_at="2026-05-01", known_at="2026-05-01")] == ["Acme"]


def test_a_bad_clock_is_refused_and_a_failing_one_is_a_clock_error(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="clock must be a zero-argument callable"):
        Ledger.open(tmp_path / "bad.db", clock=datetime(2026, 1, 1, tzinfo=UTC))  # type: ignore[arg-type]
    assert not (tmp_path / "bad.db").exists()

    def broken() -> datetime:
        raise RuntimeError("time server unreachable")

    with Ledger.open(tmp_path / "broken.db", clock=broken) as ledger:
        with pytest.raises(ClockError, match="the clock failed: RuntimeError: time server unreachable"):
            ledger.add_source(text="first")
        with pytest.raises(ClockError):
            ledger.claims("Ann")  # reads ask the clock for "now" too


def test_naive_datetimes_are_refused(ledger: Ledger) -> None:
    from datetime import datetime

    with pytest.raises(InvalidTime, match="no time zone"):
        ledger.claims("x", valid_at=datetime(2026, 1, 1))


def test_supersession_cycles_are_refused(ledger: Ledger, clock) -> None:
    doc = ledger.add_source(text="A says 1. B says 2.")
    ledger.define_predicate("n", cardinality="many", object_kind="value")
    one = ledger.assert_claim("x", "n", value=1, evidence=[ledger.cite(doc, "A says 1")])
    two = ledger.assert_claim("x", "n", value=2, evidence=[ledger.cite(doc, "B says 2")])
    ledger.supersede(one, two)
    with pytest.raises(Conflict, match="cycle"):
        ledger.supersede(two, one)


def test_every_error_is_a_ledger_error() -> None:
    errors = [getattr(ledger_package, name) for name in ledger_package.__all__]
    for error in errors:
        if isinstance(error, type) and issubclass(error, Exception):
            assert issubclass(error, LedgerError)


def test_public_names_are_sorted_and_importable() -> None:
    assert ledger_package.__all__ == sorted(ledger_package.__all__)
    for name in ledger_package.__all__:
        assert getattr(ledger_package, name) is not None


def test_import_ledger_stays_light() -> None:
    heavy = ["PIL", "alembic", "detect_secrets", "fitz", "mcp", "networkx", "pymupdf", "pyoxigraph", "trafilatura"]
    code = f"import sys, ledger; print(sorted(set({heavy!r}) & set(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            cwd=Path(__file__).resolve().parents[1])
    assert result.stdout.strip() == "[]"


def test_ascii_fast_path_folds_like_the_unicode_path() -> None:
    from ledger.entities import fold_unicode, normalize_name

    for code in range(128):
        name = f"Ab{chr(code)}cD"
        assert normalize_name(name) == fold_unicode(name), repr(name)


def test_every_exported_error_is_raised_by_the_package_and_by_a_test() -> None:
    """An exported error nothing raises is a promise nobody keeps (PolicyViolation was one)."""
    package = Path(ledger_package.__file__).parent
    source = "\n".join(p.read_text(encoding="utf-8") for p in package.rglob("*.py"))
    tests = "\n".join(p.read_text(encoding="utf-8") for p in Path(__file__).parent.rglob("test_*.py"))
    for name in ledger_package.__all__:
        error = getattr(ledger_package, name)
        if not (isinstance(error, type) and issubclass(error, LedgerError)) or error is LedgerError:
            continue
        assert f"raise {name}(" in source or f"{name}(" in source.replace(f"class {name}(", ""), name
        assert name in tests, f"no test names {name}"
