"""RDF 1.2 / PROV-O and Web Annotation exports: read back by pyoxigraph and asked as-of questions
in SPARQL; annotations checked against the W3C Web Annotation model's required shape."""

from __future__ import annotations

import json
from pathlib import Path

import pyoxigraph as ox
import pytest

from ledger import Ledger

from .conftest import TestClock

PREFIXES = """PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX ledger: <urn:ledger:ns#>
PREFIX p: <urn:ledger:predicate:>
"""
#: Who was CEO of the company at valid time ?at, as the ledger held it at ?known.
CEO_AS_OF = PREFIXES + """SELECT ?name WHERE {
  ?company rdfs:label "Acme" .
  ?claim rdf:reifies <<( ?company p:boss ?person )>> .
  ?person rdfs:label ?name .
  ?version ledger:versionOf ?claim ; ledger:status ?status ; prov:generatedAtTime ?recorded .
  OPTIONAL { ?version prov:invalidatedAtTime ?invalidated }
  OPTIONAL { ?version ledger:validFrom ?from }
  OPTIONAL { ?version ledger:validUntil ?until }
  FILTER (?status != "retracted" && ?recorded <= ?known && (!BOUND(?invalidated) || ?invalidated > ?known))
  FILTER ((!BOUND(?from) || ?from <= ?at) && (!BOUND(?until) || ?until > ?at))
} ORDER BY ?name"""


def history(ledger: Ledger, clock: TestClock) -> dict[str, str]:
    """Alice CEO from 2020, Bob from 2024 (then disputed), Carol asserted then retracted; the times."""
    ledger.define_predicate("boss", cardinality="one", object_kind="entity")
    source = ledger.add_source(text="Alice ran Acme from 2020. Bob ran Acme from 2024. Carol ran Acme.",
                               uri="https://acme.test/report")
    clock.set("2026-02-01T00:00:00")
    ledger.assert_claim("Acme", "boss", "Alice", valid_from="2020-01-01", evidence=ledger.cite(source, "Alice ran Acme"))
    clock.set("2026-03-01T00:00:00")
    bob = ledger.assert_claim("Acme", "boss", "Bob", valid_from="2024-03-01", evidence=ledger.cite(source, "Bob ran Acme"))
    clock.set("2026-04-01T00:00:00")
    ledger.dispute(bob, reason="one source only")
    carol = ledger.assert_claim("Initech", "boss", "Carol", evidence=ledger.cite(source, "Carol ran Acme"))
    ledger.retract(carol, reason="misread")
    clock.set("2026-05-01T00:00:00")
    return {"before bob": "2026-02-15T00:00:00+00:00", "after bob": "2026-03-15T00:00:00+00:00"}


def answer(store: ox.Store, at: str, known: str) -> list[str]:
    query = CEO_AS_OF.replace("?at", f'"{at}"^^xsd:dateTime').replace("?known", f'"{known}"^^xsd:dateTime')
    return [solution["name"].value for solution in store.query(query)]  # type: ignore[index,union-attr]


@pytest.mark.parametrize("format", ["turtle", "nquads"])
def test_sparql_answers_as_of_questions_as_the_ledger_does(ledger: Ledger, clock: TestClock, tmp_path: Path,
                                                           format: str) -> None:
    knowns = history(ledger, clock)
    path = ledger.export(tmp_path / "acme.rdf", format=format).path  # type: ignore[arg-type]
    store = ox.Store()
    store.load(path=str(path), format=ox.RdfFormat.TURTLE if format == "turtle" else ox.RdfFormat.N_QUADS)
    if format == "nquads":
        assert {str(graph) for graph in store.named_graphs()} == {"<urn:ledger:default>"}
        store = _default_graph(store)
    for at in ("2024-05-01T00:00:00+00:00", "2021-06-01T00:00:00+00:00"):
        for known in (*knowns.values(), "2026-05-01T00:00:00+00:00"):
            expected = sorted(c.object or "" for c in ledger.claims("Acme", "boss", valid_at=at, known_at=known))
            assert answer(store, at, known) == expected, (at, known)
    # who was CEO on 2024-05-01 as known before Bob's claim: Alice; as known after: Bob
    assert answer(store, "2024-05-01T00:00:00+00:00", knowns["before bob"]) == ["Alice"]
    assert answer(store, "2024-05-01T00:00:00+00:00", knowns["after bob"]) == ["Bob"]


def _default_graph(store: ox.Store) -> ox.Store:
    merged = ox.Store()
    merged.extend(ox.Quad(q.subject, q.predicate, q.object, ox.DefaultGraph()) for q in store)
    return merged


def test_disputed_and_retracted_claims_are_reified_never_asserted(ledger: Ledger, clock: TestClock,
                                                                    tmp_path: Path) -> None:
    history(ledger, clock)
    store = ox.Store()
    store.load(path=str(ledger.export(tmp_path / "acme.ttl", format="turtle").path), format=ox.RdfFormat.TURTLE)
    asserted = PREFIXES + "SELECT ?name WHERE { ?c p:boss ?person . ?person rdfs:label ?name } ORDER BY ?name"
    reified = PREFIXES + """SELECT ?name ?status WHERE { ?claim rdf:reifies <<( ?c p:boss ?person )>> ;
        ledger:status ?status . ?person rdfs:label ?name } ORDER BY ?name"""
    assert [s["name"].value for s in store.query(asserted)] == ["Alice"]  # type: ignore[index,union-attr]
    assert [(s["name"].value, s["status"].value) for s in store.query(reified)] == [  # type: ignore[index,union-attr]
        ("Alice", "superseded"), ("Bob", "disputed"), ("Carol", "retracted")]
    quoted = PREFIXES + """SELECT ?excerpt ?uri WHERE { ?e prov:value ?excerpt ; prov:wasQuotedFrom ?s ;
        ledger:supports ?claim . ?s ledger:uri ?uri } ORDER BY ?excerpt"""
    assert [(s["excerpt"].value, s["uri"].value) for s in store.query(quoted)] == [  # type: ignore[index,union-attr]
        ("Alice ran Acme", "https://acme.test/report"), ("Bob ran Acme", "https://acme.test/report"),
        ("Carol ran Acme", "https://acme.test/report")]


def test_evidence_exports_as_w3c_web_annotations(ledger: Ledger, clock: TestClock, tmp_path: Path) -> None:
    history(ledger, clock)
    pdf = ledger.ingest_pdf(Path(__file__).parents[1] / "fixtures" / "pdf" / "metadata.pdf")
    page_text = ledger.passages(pdf)[0].text.split()[0]
    ledger.assert_claim("Doc", "mentions", value=page_text, evidence=ledger.cite(pdf, page_text))
    collection = json.loads(ledger.export(tmp_path / "anno.jsonld", format="annotations").path.read_text())
    assert collection["@context"] == "http://www.w3.org/ns/anno.jsonld"
    assert collection["type"] == "AnnotationCollection"
    items = collection["first"]["items"]
    assert collection["first"]["type"] == "AnnotationPage" and collection["total"] == len(items) == 4
    for item in items:  # the model's MUSTs: context, id, type Annotation, a target; a motivation
        assert item["@context"] == "http://www.w3.org/ns/anno.jsonld" and item["id"].startswith("urn:ledger:")
        assert item["type"] == "Annotation" and item["motivation"] in {"linking"}
        assert item["created"].endswith("+00:00")
        kinds = {s["type"] for s in item["target"]["selector"]}
        assert {"TextQuoteSelector", "TextPositionSelector"} <= kinds
        quote = next(s for s in item["target"]["selector"] if s["type"] == "TextQuoteSelector")
        position = next(s for s in item["target"]["selector"] if s["type"] == "TextPositionSelector")
        assert quote["exact"] and position["end"] - position["start"] >= len(quote["exact"].strip()) > 0
        link, words = item["body"]
        assert link["type"] == "SpecificResource" and link["source"].startswith("urn:ledger:default/claim/")
        assert words["type"] == "TextualBody" and words["value"].startswith(("supports: ", "contradicts: "))
    on_pdf = items[-1]
    assert on_pdf["target"]["format"] == "application/pdf"
    fragment = next(s for s in on_pdf["target"]["selector"] if s["type"] == "FragmentSelector")
    assert fragment["conformsTo"] == "http://tools.ietf.org/rfc/rfc3778" and fragment["value"].startswith("page=1")
