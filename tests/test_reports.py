"""Reports: exactly the expected facts from a hand-built ledger, in Markdown, JSON and HTML alike;
nothing from another scope or from quarantine; untrusted text rendered inert; known_at reads."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from ledger import InvalidInput, Ledger, NotFound

from .conftest import TestClock

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SCRIPT = "<script>alert('x')</script>"
NOTICES = f"March: the rent is PLN 2800 {SCRIPT}. July: the rent is now PLN 3100."


def build(ledger: Ledger, clock: TestClock) -> dict[str, Any]:
    """flat/rent changed and disputed, flat/owner unchanged, a PDF-backed fact; decoys elsewhere."""
    clock.set("2026-03-05")
    notices = ledger.add_source(text=NOTICES, uri="https://landlord.example/notices",
                                title='Rent notices <img src=x onerror="alert(1)">', publisher="Landlord & Co")
    first = ledger.assert_claim("flat", "rent", value="PLN 2800", valid_from="2026-03",
                                evidence=ledger.cite(notices, f"the rent is PLN 2800 {SCRIPT}"))
    owner = ledger.assert_claim("flat", "owner", value="Anna", valid_from="1994", valid_until="2001",
                                evidence=ledger.cite(notices, "March"))
    paper = ledger.ingest_pdf(FIXTURES / "pdf" / "typography.pdf")
    signed = ledger.assert_claim("committee", "signed", value="records", evidence=ledger.cite(
        paper, "signed them", page=1))
    clock.set("2026-07-02")
    update = ledger.assert_claim("flat", "rent", value="PLN 3100", valid_from="2026-07-01",
                                 evidence=ledger.cite(notices, "the rent is now PLN 3100"))
    clock.set("2026-07-03")
    tenant = ledger.add_source(text="Tenant: the rent is PLN 2900 since March.", uri="javascript:alert(1)",
                               title="Tenant")
    rival = ledger.assert_claim("flat", "rent", value="PLN 2900", valid_from="2026-03",
                                evidence=ledger.cite(tenant, "the rent is PLN 2900"))
    # decoys: another scope, and quarantine (an untrusted source of the default scope)
    other = ledger.add_source(text="The rent is PLN 9999.", scope="elsewhere")
    ledger.assert_claim("flat", "rent", value="PLN 9999", evidence=ledger.cite(other, "PLN 9999"), scope="elsewhere")
    rumour = ledger.add_source(text="Rumour: the rent is PLN 1.", trust="untrusted")
    ledger.assert_claim("flat", "rent", value="PLN 1", evidence=ledger.cite(rumour, "PLN 1"),
                        scope=rumour.scope)
    clock.set("2026-07-04")
    return {"first": first.id, "owner": owner.id, "signed": signed.id, "update": update.id, "rival": rival.id,
            "paper": paper}


def facts(document: dict[str, Any]) -> set[tuple[str, str, tuple[tuple[int, str, str], ...]]]:
    """(entity, predicate, ((claim, value, status), ...)) of every fact in a JSON report."""
    return {(entity["name"], fact["predicate"], tuple((c["id"], c["label"], c["status"]) for c in fact["claims"]))
            for entity in document["entities"] for fact in entity["facts"]}


def test_the_audit_report_holds_exactly_the_expected_facts(ledger: Ledger, clock: TestClock) -> None:
    ids = build(ledger, clock)
    document = json.loads(ledger.report("audit", format="json"))
    assert document["report"] == "audit" and document["version"] == 1 and document["scope"] == "default"
    assert facts(document) == {
        ("committee", "signed", ((ids["signed"], "records", "reported"),)),
        ("flat", "owner", ((ids["owner"], "Anna", "reported"),)),
        ("flat", "rent", ((ids["first"], "PLN 2800", "disputed"), (ids["update"], "PLN 3100", "reported"),
                          (ids["rival"], "PLN 2900", "disputed"))),
    }
    assert [e["name"] for e in document["entities"]] == ["committee", "flat"]
    assert document["summary"] == {"entities": 2, "facts": 3, "disputed": 1, "changed": 1}
    rent = next(f for e in document["entities"] for f in e["facts"] if f["predicate"] == "rent")
    first = rent["claims"][0]
    assert [v["status"] for v in first["versions"]] == ["reported", "superseded", "disputed"]
    assert [v["cause"]["kind"] for v in first["versions"]] == ["asserted", "closed-by", "contradicted-by"]
    assert first["versions"][0]["valid_until"] is None and first["valid_until"] == "2026-07-01T00:00:00+00:00"
    assert {(link["kind"], link["from"], link["to"]) for link in rent["links"]} >= {
        ("supersedes", ids["update"], ids["first"]), ("contradicts", ids["rival"], ids["first"])}
    excerpts = {e["claim_id"]: (e["excerpt"], e["link"]) for e in rent["evidence"]}
    assert excerpts[ids["first"]] == (f"the rent is PLN 2800 {SCRIPT}", "https://landlord.example/notices")
    assert excerpts[ids["rival"]] == ("the rent is PLN 2900", None)  # a javascript: URI is never a link
    owner = next(f for e in document["entities"] for f in e["facts"] if f["predicate"] == "owner")
    assert (owner["claims"][0]["valid_from_precision"], owner["disputed"], owner["changed"]) == ("year", False, False)


def test_markdown_and_html_carry_the_same_facts(ledger: Ledger, clock: TestClock) -> None:
    ids = build(ledger, clock)
    markdown, page = ledger.report("audit"), ledger.report("audit", format="html")
    for text in (markdown, page):
        for value in ("PLN 2800", "PLN 3100", "PLN 2900", "Anna", "records", "the rent is now PLN 3100"):
            assert value in text
        for anchor in (f"fact-{ids['first']}", f"fact-{ids['owner']}", f"fact-{ids['signed']}", "entity-"):
            assert f'id="{anchor}' in text and f"#{anchor}" in text  # the table of contents links to each
        assert "PLN 9999" not in text and "PLN 1" not in text.replace("PLN 1 ", "")
    assert "Landlord &amp; Co" in page and "Landlord &amp; Co" in markdown
    # the PDF excerpt links to its page
    assert f"{ids['paper'].uri}#page=1" in page and f"{ids['paper'].uri}#page=1" in markdown


def test_no_report_reads_another_scope_or_quarantine(ledger: Ledger, clock: TestClock) -> None:
    build(ledger, clock)
    for kind, entity in (("audit", None), ("timeline", "flat"), ("contradictions", None)):
        for form in ("markdown", "json", "html"):
            text = ledger.report(kind, entity, format=form)  # type: ignore[arg-type]
            assert "PLN 9999" not in text and "Rumour" not in text and "PLN 1<" not in text
            assert "PLN 1\n" not in text and '"PLN 1"' not in text
    elsewhere = json.loads(ledger.report("audit", format="json", scope="elsewhere"))
    assert facts(elsewhere) == {("flat", "rent", ((facts_id(elsewhere), "PLN 9999", "reported"),))}
    quarantined = json.loads(ledger.report("timeline", "flat", format="json", scope="quarantine:default"))
    assert [c["label"] for e in quarantined["entities"] for f in e["facts"] for c in f["claims"]] == ["PLN 1"]


def facts_id(document: dict[str, Any]) -> int:
    return int(document["entities"][0]["facts"][0]["claims"][0]["id"])


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def test_untrusted_text_is_rendered_inert(ledger: Ledger, clock: TestClock) -> None:
    build(ledger, clock)
    page = ledger.report("audit", format="html")
    parser = _Tags()
    parser.feed(page)
    names = {tag for tag, _ in parser.tags}
    assert "script" not in names and "img" not in names and "link" not in names and "iframe" not in names
    assert not any(name.startswith("on") for _, attrs in parser.tags for name in attrs)
    hrefs = [attrs["href"] or "" for tag, attrs in parser.tags if tag == "a"]
    assert hrefs and all(h.startswith(("#", "https://", "file://")) for h in hrefs)
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in page
    assert 'content="default-src \'none\'; style-src \'unsafe-inline\'; img-src data:"' in page
    assert "src=" not in page.replace("&lt;img src=x", "") and "@import" not in page and "url(" not in page
    markdown = ledger.report("audit")
    assert "<script" not in markdown and "<img" not in markdown and "javascript:" not in markdown.replace(
        "Tenant", "")
    assert "&lt;script&gt;" in markdown and "(javascript" not in markdown


def test_known_at_shows_the_ledger_as_it_was(ledger: Ledger, clock: TestClock) -> None:
    ids = build(ledger, clock)
    before = json.loads(ledger.report("timeline", "flat", "rent", format="json", known_at="2026-03-06"))
    [rent] = [f for e in before["entities"] for f in e["facts"]]
    assert [(c["id"], c["status"], c["valid_until"]) for c in rent["claims"]] == [(ids["first"], "reported", None)]
    assert [v["invalidated_at"] for v in rent["claims"][0]["versions"]] == [None]
    assert before["known_at"] == "2026-03-06T00:00:00+00:00" and not rent["links"]
    later = json.loads(ledger.report("timeline", "flat", "rent", format="json"))
    assert [c["id"] for e in later["entities"] for f in e["facts"] for c in f["claims"]] == [
        ids["first"], ids["update"], ids["rival"]]


def test_the_contradictions_report_shows_each_open_contradiction(ledger: Ledger, clock: TestClock) -> None:
    ids = build(ledger, clock)
    document = json.loads(ledger.report("contradictions", format="json"))
    [fact] = [f for e in document["entities"] for f in e["facts"]]
    open_ = ledger.contradictions()
    assert [c.claim_ids for c in open_] == [(ids["first"], ids["rival"])]
    assert [c["id"] for c in fact["claims"]] == [ids["first"], ids["rival"]]
    assert open_[0].id in fact["why"] and "overlap" in fact["why"]
    assert {e["claim_id"] for e in fact["evidence"]} == {ids["first"], ids["rival"]}
    clock.set("2026-08-01")
    ledger.resolve_contradiction(open_[0], keep=ids["first"], reason="the lease says 2800")
    assert json.loads(ledger.report("contradictions", format="json"))["entities"] == []
    then = json.loads(ledger.report("contradictions", format="json", known_at="2026-07-31"))
    assert [c["id"] for e in then["entities"] for f in e["facts"] for c in f["claims"]] == [ids["first"], ids["rival"]]
    assert "Nothing to report." in ledger.report("contradictions")


def test_a_timeline_report_is_of_one_entity(ledger: Ledger, clock: TestClock) -> None:
    ids = build(ledger, clock)
    document = json.loads(ledger.report("timeline", "flat", "owner", format="json"))
    assert facts(document) == {("flat", "owner", ((ids["owner"], "Anna", "reported"),))}
    page = ledger.report("timeline", "flat", format="html")
    assert page.count('<svg xmlns="http://www.w3.org/2000/svg" class="timeline"') == 2  # every fact is pictured
    assert page.count('class="value-bar"') == 4 and page.count('class="imprecise"') == 2  # owner: ~1994, ~2001
    audit = ledger.report("audit", format="html")
    assert audit.count('class="timeline"') == 1  # an audit pictures only disputed or changed facts


def test_report_arguments_are_checked(ledger: Ledger, clock: TestClock) -> None:
    build(ledger, clock)
    with pytest.raises(NotFound):
        ledger.report("timeline", "Atlantis")
    with pytest.raises(InvalidInput):
        ledger.report("timeline")
    with pytest.raises(InvalidInput):
        ledger.report("gossip")  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        ledger.report("audit", format="pdf")  # type: ignore[arg-type]
    with pytest.raises(NotFound):
        ledger.report("timeline", "flat", scope="nowhere")


def test_the_json_shape_is_the_documented_one(ledger: Ledger, clock: TestClock) -> None:
    build(ledger, clock)
    document = json.loads(ledger.report("audit", format="json"))
    assert list(document) == ["report", "version", "title", "scope", "known_at", "entity", "predicate", "summary",
                              "entities"]
    entity = document["entities"][1]
    assert list(entity) == ["id", "name", "anchor", "facts"]
    fact = next(f for f in entity["facts"] if f["predicate"] == "rent")
    assert list(fact) == ["anchor", "subject_id", "subject", "predicate", "qualifiers", "disputed", "changed", "why",
                          "claims", "links", "evidence"]
    assert list(fact["claims"][0]) == [
        "id", "label", "object", "object_id", "value", "datatype", "status", "confidence", "valid_from", "valid_until",
        "valid_from_precision", "valid_until_precision", "never_valid", "versions"]
    assert list(fact["claims"][0]["versions"][0]) == [
        "version_id", "status", "confidence", "valid_from", "valid_until", "valid_from_precision",
        "valid_until_precision", "never_valid", "recorded_at", "invalidated_at", "cause", "reason", "actor"]
    assert list(fact["claims"][0]["versions"][0]["cause"]) == ["kind", "claim", "effects", "sources", "text"]
    assert list(fact["links"][0]) == ["kind", "from", "to", "recorded_at", "reason"]
    assert list(fact["evidence"][0]) == ["id", "claim_id", "relation", "excerpt", "page", "locator", "recorded_at",
                                         "stale_at", "link", "source"]
    assert list(fact["evidence"][0]["source"]) == ["id", "kind", "title", "uri", "publisher", "author",
                                                   "published_at", "trust"]
    documented = (Path(__file__).resolve().parents[1] / "docs" / "reports.md").read_text(encoding="utf-8")
    for key in ("never_valid", "invalidated_at", "stale_at", "published_at", "valid_until_precision", '"why"'):
        assert key in documented
