"""Wikidata import on real data: the mayors and countries of Bielefeld (Q2112), read in place from
/work/shared/realworld/wikidata/. Runs on SQLite and PostgreSQL (LEDGER_TEST_BACKEND=postgres).

Expected answers were read from the file by hand; each names where it is (``claims.P6[i]`` is the
i-th statement of property P6 in the file):

- ``claims.P6[0]``: Q2097128 from 2009 (year precision), rank preferred, no end;
- ``claims.P6[1]``: Q1278930 1999 – 2009, normal; ``claims.P6[4]``: Q1278930 1989 – 1994, normal
  (one person, two separate terms);
- ``claims.P6[2]``: Q534246 1994 – 1999, normal; ``claims.P6[3]``: Q1460066 1975 – 1989, normal;
- ``claims.P17[1]``: Q1206012 1871-01-18 – 1949-05-23; ``claims.P17[2]``: Q713750 (West
  Germany) 1949-05-23 – 1990-10-02; ``claims.P17[0]``: Q183 from 1990-10-03, preferred;
- ``claims.P2046[1]``: area 258.82 (unit Q712226), preferred, point in time 2016 (year), with a
  reference URL (P854) https://www.destatis.de/…/05Staedte.html;
- ``claims.P31``: one deprecated statement (Q1964689) with reason for deprecated rank (P2241) Q128758;
- top level: ``lastrevid`` 1867923350, ``modified`` 2023-04-04T05:21:49Z.
"""

from __future__ import annotations

import bz2
import copy
import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from ledger import InvalidInput, Ledger

from .conftest import TestClock

BIELEFELD = Path("/work/shared/realworld/wikidata/wikidata-Q2112-bielefeld.json")
pytestmark = pytest.mark.skipif(not BIELEFELD.exists(), reason="the shared Wikidata fixture is not on this machine")


def holders(ledger: Ledger, predicate: str, when: str, **kw: Any) -> list[tuple[str, bool]]:
    """(object, flagged imprecise) of what holds at ``when`` for Bielefeld."""
    return sorted((c.object_label, c.imprecise) for c in ledger.claims("Bielefeld", predicate, valid_at=when, **kw))


@pytest.fixture
def bielefeld() -> dict[str, Any]:
    return json.loads(BIELEFELD.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


@pytest.fixture
def imported(ledger: Ledger) -> Ledger:
    report = ledger.import_wikidata(BIELEFELD)
    assert report.entity_ids == ("Q2112",)
    return ledger


@pytest.mark.parametrize("predicate", ["P6", "head of government", "mayor", "Head of Government"])
def test_the_mayor_by_id_and_by_label(imported: Ledger, predicate: str) -> None:
    assert holders(imported, predicate, "1996-06-01") == [("Q534246", False)]  # claims.P6[2]
    assert holders(imported, predicate, "2005-06-01") == [("Q1278930", False)]  # claims.P6[1]
    assert holders(imported, predicate, "1980-06-01") == [("Q1460066", False)]  # claims.P6[3]
    assert holders(imported, predicate, "2026-01-01") == [("Q2097128", False)]  # claims.P6[0]


def test_one_person_two_separate_terms(imported: Ledger) -> None:
    terms = [c for c in imported.claims("Bielefeld", "P6", statuses=["reported", "confirmed"], during=("1900", "2100"))
             if c.object == "Q1278930"]
    assert sorted((c.valid_from.year, c.valid_until.year) for c in terms if c.valid_from and c.valid_until) == [
        (1989, 1995), (1999, 2010)]  # claims.P6[4] 1989–1994 and claims.P6[1] 1999–2009, inclusive ends
    assert {c.valid_from_precision for c in terms} == {"year"}


def test_the_country_on_1960_01_01(imported: Ledger) -> None:
    for predicate in ("P17", "country"):
        assert holders(imported, predicate, "1960-01-01") == [("Q713750", False)]  # claims.P17[2]
        assert holders(imported, predicate, "1900-01-01") == [("Q1206012", False)]  # claims.P17[1]
        assert holders(imported, predicate, "1990-10-02") == [("Q713750", False)]  # its inclusive last day
        assert holders(imported, predicate, "1990-10-03") == [("Q183", False)]  # claims.P17[0]
    # claims.P17[1] ends on 1949-05-23, the day claims.P17[2] starts: the day goes to the new value
    assert holders(imported, "country", "1949-05-23") == [("Q713750", False)]
    assert all(c.status != "disputed" for c in imported.claims("Bielefeld", "country", during=("1800", "2100")))


def test_year_precision_bounds_overlap_only_within_their_year(imported: Ledger) -> None:
    # claims.P6[4] ends "1994" and claims.P6[2] starts "1994": both may hold in 1994, no conflict
    assert holders(imported, "P6", "1994-06-01") == [("Q1278930", True), ("Q534246", True)]
    assert holders(imported, "P6", "1996-01-01") == [("Q534246", False)]
    assert holders(imported, "P6", "1989-03-01") == [("Q1278930", True), ("Q1460066", True)]
    statuses = {c.status for c in imported.claims("Bielefeld", "P6", during=("1900", "2100"))}
    assert statuses <= {"reported", "confirmed"}  # nothing disputed: not a contradiction
    assert imported.check().ok


def test_ranks_and_validity_decide_what_is_current(imported: Ledger) -> None:
    [mayor] = imported.claims("Bielefeld", "P6")
    assert (mayor.object, mayor.status) == ("Q2097128", "confirmed")  # preferred → confirmed
    # claims.P2046[1] is preferred but holds for its point in time (2016) only: not current
    assert imported.claims("Bielefeld", "P2046") == []
    [area] = imported.claims("Bielefeld", "P2046", valid_at="2016-06-01")
    assert (str(area.value), area.status, area.qualifiers) == ("258.82", "confirmed", {"unit": "Q712226"})
    # before the first recorded term nothing is recorded: no nearest holder
    assert holders(imported, "P6", "1970-01-01") == []
    [deprecated] = [a for a in imported.audit("Bielefeld", "P31", statuses=["retracted"])]
    assert deprecated.claim.object == "Q1964689"
    assert "Q128758" in (deprecated.claim.reason or "")


def test_explain_leads_back_to_the_entity_revision_and_the_reference_url(imported: Ledger) -> None:
    [mayor] = imported.claims("Bielefeld", "mayor", valid_at="2005-06-01")
    trail = imported.explain(mayor).evidence
    assert trail[0].evidence.excerpt.startswith("Q2112$b2262ba4-4caa-c41e-0a85-6d53a039e03b: P6 = Q1278930")
    source = trail[0].source
    assert source.uri == "https://www.wikidata.org/wiki/Q2112"
    assert "revision 1867923350" in (source.title or "")
    assert source.published_at is not None and source.published_at.isoformat() == "2023-04-04T05:21:49+00:00"
    [area] = imported.claims("Bielefeld", "P2046", valid_at="2016-06-01")
    excerpts = [t.evidence.excerpt for t in imported.explain(area).evidence]
    assert any("reference URL (P854) https://www.destatis.de/" in e and e.endswith("05Staedte.html")
               for e in excerpts), excerpts
    text = imported.source(source.id).text
    assert all(t.evidence.excerpt in text for t in imported.explain(area).evidence)


def test_labels_and_aliases_in_every_language_resolve(imported: Ledger) -> None:
    city = imported.get_entity("Bielefeld")
    for name in ("Q2112", "Билефельд", "Leineweberstadt", "Bilefeldia"):
        assert imported.resolve(name) == city


def test_reimporting_a_newer_revision_goes_through_the_lifecycle(
        ledger: Ledger, clock: TestClock, bielefeld: dict[str, Any], tmp_path: Path) -> None:
    ledger.import_wikidata(bielefeld)
    first_import = clock()
    clock.tick(days=30)
    newer = copy.deepcopy(bielefeld)
    newer["lastrevid"] += 1
    newer["modified"] = "2024-01-01T00:00:00Z"
    mayors = newer["claims"]["P6"]
    del mayors[2]  # claims.P6[2], Q534246 1994–1999, is removed: a gap between Q1278930's terms
    ended = copy.deepcopy(mayors[0]["qualifiers"]["P580"][0])
    ended["datavalue"]["value"]["time"] = "+2020-00-00T00:00:00Z"
    ended["property"] = "P582"
    mayors[0]["qualifiers"]["P582"] = [ended]  # claims.P6[0] (preferred) now ends in 2020
    unchanged_before = {c.id for c in ledger.claims("Bielefeld", "P6", during=("1900", "2100"))}
    report = ledger.import_wikidata(newer)
    assert report.removed == 1
    # removed statement → retracted with a reason; the gap between two terms answers nothing
    assert holders(ledger, "P6", "1996-06-01") == []
    # the changed statement is a new claim superseding the old one; preferred but ended → not current
    assert holders(ledger, "P6", "2026-01-01") == []
    assert holders(ledger, "P6", "2015-06-01") == [("Q2097128", False)]
    # unchanged statements corroborate: the same claims, nothing new
    after = {c.id for c in ledger.claims("Bielefeld", "P6", during=("1900", "2100"))}
    assert len(after - unchanged_before) == 1 and len(unchanged_before - after) == 2
    # known_at shows what Wikidata said at each import
    assert holders(ledger, "P6", "1996-06-01", known_at=first_import) == [("Q534246", False)]
    assert holders(ledger, "P6", "2026-01-01", known_at=first_import) == [("Q2097128", False)]
    history = ledger.history("Bielefeld", "head of government")
    assert {v.status for v in history} >= {"reported", "confirmed", "retracted", "superseded"}
    assert ledger.check().ok
    # the same revision again changes nothing
    clock.tick(days=1)
    again = ledger.import_wikidata(newer)
    assert again.removed == 0
    assert {c.id for c in ledger.claims("Bielefeld", "P6", during=("1900", "2100"))} == after


@pytest.mark.parametrize("shape", ["wbgetentities", "jsonl", "dump.json.gz", "dump.json.bz2", "list"])
def test_every_input_shape_reads_the_same_entity(
        ledger: Ledger, bielefeld: dict[str, Any], tmp_path: Path, shape: str) -> None:
    line = json.dumps(bielefeld)
    source: Any
    if shape == "wbgetentities":
        source = {"entities": {"Q2112": bielefeld}, "success": 1}
    elif shape == "list":
        source = [bielefeld]
    elif shape == "jsonl":
        source = tmp_path / "entities.jsonl"
        source.write_text(line + "\n", encoding="utf-8")
    else:
        source = tmp_path / shape
        opener = gzip.open if shape.endswith(".gz") else bz2.open
        with opener(source, "wt", encoding="utf-8") as stream:
            stream.write("[\n" + line + ",\n" + line + "\n]\n")  # a dump: one entity a line
    report = ledger.import_wikidata(source)
    assert report.entity_ids[0] == "Q2112"
    assert holders(ledger, "P6", "1996-06-01") == [("Q534246", False)]


def test_property_entities_define_their_predicates(ledger: Ledger) -> None:
    single = {"mainsnak": {"snaktype": "value", "property": "P2302",
                           "datavalue": {"type": "wikibase-entityid", "value": {"id": "Q19474404"}}},
              "rank": "normal", "type": "statement",
              "qualifiers": {"P4155": [{"snaktype": "value", "property": "P4155",
                                        "datavalue": {"type": "wikibase-entityid", "value": {"id": "P642"}}}]}}
    prop = {"id": "P99999", "type": "property", "datatype": "wikibase-item", "lastrevid": 7,
            "labels": {"en": {"language": "en", "value": "club captain"},
                       "de": {"language": "de", "value": "Mannschaftskapitän"}},
            "aliases": {"en": [{"language": "en", "value": "skipper"}]}, "claims": {"P2302": [single]}}
    ledger.import_wikidata(prop, scope="sport")
    info = ledger.predicate("skipper", scope="sport")
    assert info is not None
    assert (info.name, info.cardinality, info.object_kind, info.origin, info.wikidata, info.separators) == (
        "club captain", "one", "entity", "import", "P99999", ("P642",))
    assert ledger.predicate("P99999", scope="sport") == info
    assert ledger.predicate("skipper") is None  # another scope: not defined there


def test_what_is_not_entity_json_is_refused(ledger: Ledger, tmp_path: Path) -> None:
    with pytest.raises(InvalidInput):
        ledger.import_wikidata({"hello": "world"})
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    with pytest.raises(InvalidInput):
        ledger.import_wikidata(broken)


def test_the_command_line_imports_and_lists_predicates(tmp_path: Path) -> None:
    from .test_cli import run

    db = str(tmp_path / "cli.db")
    code, out, _ = run("import", "wikidata", str(BIELEFELD), "--json", "--db", db)
    assert code == 0
    [counts] = json.loads(out)
    assert (counts["entities"], counts["statements"], counts["retracted"]) == (1, 186, 2)
    code, out, _ = run("claims", "Bielefeld", "mayor", "--valid-at", "1996", "--json", "--db", db)
    assert [c["object"] for c in json.loads(out)] == ["Q534246"]
    code, out, _ = run("predicates", "--json", "--db", db)
    assert {"P6", "mayor"} <= set(next(p for p in json.loads(out) if p["name"] == "head of government")["aliases"])
    code, _, err = run("import", "rdf", str(BIELEFELD), "--json", "--db", db)
    assert code == 2 and json.loads(err)["error"] == "InvalidInput"


@pytest.mark.parametrize(("time", "precision", "start", "end"), [
    ("+1994-00-00T00:00:00Z", 9, "1994", "1995"),            # an end of 1994: valid until 1995-01-01
    ("+2014-04-02T00:00:00Z", 11, "2014-04-02", "2014-04-03"),  # day precision: until the next day
    ("+2014-12-00T00:00:00Z", 10, "2014-12", "2015-01"),      # month precision
    ("+1990-00-00T00:00:00Z", 8, "1990", "1991"),             # a decade counts as its year
])
def test_inclusive_ends_become_half_open(time: str, precision: int, start: str, end: str) -> None:
    from ledger.interchange.wikidata import _bound

    value = {"time": time, "precision": precision}
    assert (_bound(value, end=False).text, _bound(value, end=True).text) == (start, end)  # type: ignore[union-attr]


def test_bounds_outside_the_calendar_are_kept_as_qualifiers() -> None:
    from ledger.interchange.wikidata import plan_entity

    statement = {"id": "Q9$x", "rank": "normal", "mainsnak": {"snaktype": "value", "property": "P31",
                 "datavalue": {"type": "wikibase-entityid", "value": {"id": "Q5"}}},
                 "qualifiers": {"P580": [{"snaktype": "value", "property": "P580", "datavalue": {
                     "type": "time", "value": {"time": "-0044-03-15T00:00:00Z", "precision": 11}}}]}}
    [planned] = plan_entity({"id": "Q9", "claims": {"P31": [statement]}}).statements
    assert planned.valid_from is None and planned.qualifiers == {"P580": "-0044-03-15T00:00:00Z"}
