"""RDF 1.2 with PROV-O: a scope as held at a moment, as Turtle or N-Quads, through pyoxigraph.

Each claim is a reifier of its statement's triple term (``claim rdf:reifies <<( s p o )>>``)
annotated with its status, confidence and valid interval as held at ``known_at``; the statement
itself is asserted only when that status is reported, confirmed or superseded (a superseded
claim stays true for its own closed interval), never when disputed or retracted. Every version
is a node with ``prov:generatedAtTime`` (recorded) and ``prov:invalidatedAtTime``; every piece of
evidence an entity with ``prov:value`` (its excerpt) and ``prov:wasQuotedFrom`` its source.
pyoxigraph is imported here only (the ``[rdf]`` extra).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from datetime import datetime
from itertools import groupby
from typing import Any, TextIO
from urllib.parse import quote

from sqlalchemy import Connection

from ledger.claims.values import decode_value
from ledger.errors import InvalidInput
from ledger.interchange.export import Ticker, totals
from ledger.interchange.jsonl import iso
from ledger.interchange.records import Progress
from ledger.store import interchange_rows as rows

LEDGER = "urn:ledger:ns#"
PROV = "http://www.w3.org/ns/prov#"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
XSD = "http://www.w3.org/2001/XMLSchema#"
SKOS = "http://www.w3.org/2004/02/skos/core#"
DCTERMS = "http://purl.org/dc/terms/"
PREDICATE = "urn:ledger:predicate:"
#: Statuses whose statement is asserted, not only reified.
ASSERTED = frozenset({"reported", "confirmed", "superseded"})
_DATATYPES = {"string": XSD + "string", "integer": XSD + "integer", "number": XSD + "double",
              "decimal": XSD + "decimal", "boolean": XSD + "boolean", "date": XSD + "date",
              "datetime": XSD + "dateTime", "json": RDF + "JSON"}
_SECTIONS = {"entity": rows.SECTIONS["entity"], "merge": rows.SECTIONS["merge"], "alias": rows.SECTIONS["alias"],
             "source": rows.SECTIONS["source"], "version": rows.CLAIM_VERSIONS, "evidence": rows.SECTIONS["evidence"],
             "link": rows.SECTIONS["link"]}


def scope_iri(scope: str) -> str:
    """The IRI every node of ``scope`` starts with (also the N-Quads graph name)."""
    return f"urn:ledger:{quote(scope, safe='')}"


def write_rdf(connection: Connection, out: TextIO, *, scope: str, known_at: datetime, progress: Progress | None,
              quads: bool) -> dict[str, int]:
    """Stream the scope as Turtle (or N-Quads with ``quads``); rows read per section."""
    try:
        import pyoxigraph as ox
    except ImportError as error:
        raise InvalidInput("RDF export needs pyoxigraph: pip install 'ledger[rdf]'") from error
    counts = totals(connection, _SECTIONS, scope=scope, known_at=known_at)
    ticker = Ticker(progress, sum(counts.values()))
    terms = _Terms(ox, scope_iri(scope))
    triples = _triples(connection, terms, scope=scope, known_at=known_at, ticker=ticker)
    out.flush()
    if quads:
        graph = ox.NamedNode(terms.base)
        ox.serialize((ox.Quad(t.subject, t.predicate, t.object, graph) for t in triples), out.buffer,
                     ox.RdfFormat.N_QUADS)
    else:
        ox.serialize(triples, out.buffer, ox.RdfFormat.TURTLE, prefixes=terms.prefixes)
    ticker.finish()
    return counts


class _Terms:
    """Builds pyoxigraph terms for one scope's nodes."""

    def __init__(self, ox: Any, base: str) -> None:
        self.ox, self.base = ox, base
        self.prefixes = {"ledger": LEDGER, "prov": PROV, "rdf": RDF, "rdfs": RDFS, "xsd": XSD, "skos": SKOS,
                         "dcterms": DCTERMS, "p": PREDICATE}
        for kind in ("entity", "source", "claim", "version", "evidence"):
            self.prefixes[kind] = f"{base}/{kind}/"
        self._vocab: dict[str, Any] = {}

    def node(self, kind: str, row_id: int) -> Any:
        return self.ox.NamedNode(f"{self.base}/{kind}/{row_id}")

    def __getattr__(self, name: str) -> Any:  # ledger:status, prov:value … as t.ledger_status, t.prov_value
        term = self._vocab.get(name)
        if term is None:
            prefix, local = name.split("_", 1)
            term = self._vocab[name] = self.ox.NamedNode(self.prefixes[prefix] + local)
        return term

    def predicate(self, name: str) -> Any:
        return self.ox.NamedNode(PREDICATE + quote(name, safe=""))

    def text(self, value: str) -> Any:
        return self.ox.Literal(value)

    def time(self, value: datetime) -> Any:
        return self.ox.Literal(iso(value), datatype=self.xsd_dateTime)

    def number(self, value: float | int) -> Any:
        datatype = self.xsd_integer if isinstance(value, int) else self.xsd_double
        return self.ox.Literal(str(value) if isinstance(value, int) else repr(float(value)), datatype=datatype)

    def json(self, value: Any) -> Any:
        return self.ox.Literal(json.dumps(value, ensure_ascii=False, sort_keys=True), datatype=self.rdf_JSON)

    def value(self, stored: str, datatype: str | None) -> Any:
        decoded = decode_value(stored, datatype)
        if datatype == "json":
            lexical = json.dumps(decoded, ensure_ascii=False, sort_keys=True)
        elif isinstance(decoded, bool):
            lexical = "true" if decoded else "false"
        elif hasattr(decoded, "isoformat"):
            lexical = decoded.isoformat()
        else:
            lexical = str(decoded)
        return self.ox.Literal(lexical, datatype=self.ox.NamedNode(_DATATYPES.get(datatype or "string",
                                                                                   XSD + "string")))


def _triples(connection: Connection, t: _Terms, *, scope: str, known_at: datetime, ticker: Ticker) -> Iterator[Any]:
    ox = t.ox
    triple = ox.Triple

    def each(section: str) -> Iterator[Mapping[Any, Any]]:
        for row in rows.stream(connection, _SECTIONS[section], scope=scope, known_at=known_at):
            ticker.tick()
            yield row

    for row in each("entity"):
        node = t.node("entity", row["id"])
        yield triple(node, t.rdf_type, t.ledger_Entity)
        yield triple(node, t.rdfs_label, t.text(row["name"]))
        if row["kind"]:
            yield triple(node, t.ledger_kind, t.text(row["kind"]))
        yield triple(node, t.prov_generatedAtTime, t.time(row["created_at"]))
    for row in each("merge"):
        yield triple(t.node("entity", row["id"]), t.ledger_mergedInto, t.node("entity", row["merged_into"]))
    for row in each("alias"):
        yield triple(t.node("entity", row["entity_id"]), t.skos_altLabel, t.text(row["alias"]))
    for row in each("source"):
        yield from _source(t, row)
    for _claim, versions in groupby(each("version"), key=lambda row: row["claim_id"]):
        yield from _claim_triples(t, list(versions), known_at)
    for row in each("evidence"):
        node = t.node("evidence", row["id"])
        yield triple(node, t.rdf_type, t.ledger_Evidence)
        yield triple(node, t.rdf_type, t.prov_Entity)
        yield triple(node, t.prov_value, t.text(row["excerpt"]))
        yield triple(node, t.prov_wasQuotedFrom, t.node("source", row["source_id"]))
        yield triple(node, getattr(t, f"ledger_{row['relation']}"), t.node("claim", row["claim_id"]))
        yield triple(node, t.prov_generatedAtTime, t.time(row["recorded_at"]))
        yield triple(node, t.ledger_charStart, t.number(row["char_start"]))
        yield triple(node, t.ledger_charEnd, t.number(row["char_end"]))
        if row["page"] is not None:
            yield triple(node, t.ledger_page, t.number(row["page"]))
        yield triple(node, t.ledger_locator, t.json(_json(row["locator"])))
        if row["stale_at"] is not None and row["stale_at"] <= known_at:
            yield triple(node, t.ledger_staleAt, t.time(row["stale_at"]))
    for row in each("link"):
        yield triple(t.node("claim", row["from_claim_id"]), getattr(t, f"ledger_{row['kind']}"),
                     t.node("claim", row["to_claim_id"]))


def _source(t: _Terms, row: Mapping[Any, Any]) -> Iterator[Any]:
    triple, node = t.ox.Triple, t.node("source", row["id"])
    yield triple(node, t.rdf_type, t.ledger_Source)
    yield triple(node, t.rdf_type, t.prov_Entity)
    for field, predicate in (("title", t.dcterms_title), ("author", t.dcterms_creator),
                             ("publisher", t.dcterms_publisher), ("uri", t.ledger_uri), ("kind", t.ledger_kind),
                             ("content_hash", t.ledger_contentHash), ("trust", t.ledger_trust),
                             ("text", t.ledger_text)):
        if row[field] is not None:
            yield triple(node, predicate, t.text(row[field]))
    for field, predicate in (("published_at", t.dcterms_issued), ("retrieved_at", t.ledger_retrievedAt),
                             ("recorded_at", t.prov_generatedAtTime)):
        if row[field] is not None:
            yield triple(node, predicate, t.time(row[field]))
    if row["revision_of"] is not None:
        yield triple(node, t.prov_wasRevisionOf, t.node("source", row["revision_of"]))


def _claim_triples(t: _Terms, versions: list[Mapping[Any, Any]], known_at: datetime) -> Iterator[Any]:
    triple, first = t.ox.Triple, versions[0]
    claim = t.node("claim", first["claim_id"])
    subject = t.node("entity", first["subject_id"])
    obj = (t.node("entity", first["object_id"]) if first["object_id"] is not None
           else t.value(first["value"], first["datatype"]))
    statement = triple(subject, t.predicate(first["predicate"]), obj)
    held = [v for v in versions if v["invalidated_at"] is None or v["invalidated_at"] > known_at]
    current = held[-1] if held else versions[-1]
    if current["status"] in ASSERTED and held:
        yield statement
    yield triple(claim, t.rdf_reifies, statement)
    yield triple(claim, t.rdf_type, t.ledger_Claim)
    yield triple(claim, t.rdf_type, t.prov_Entity)
    yield triple(claim, t.prov_generatedAtTime, t.time(first["recorded_at"]))
    if first["qualifiers"] not in (None, "{}"):
        yield triple(claim, t.ledger_qualifiers, t.json(json.loads(first["qualifiers"])))
    yield from _state(t, claim, current)
    for version in versions:
        node = t.node("version", version["version_id"])
        yield triple(node, t.rdf_type, t.ledger_ClaimVersion)
        yield triple(node, t.ledger_versionOf, claim)
        yield from _state(t, node, version)
        yield triple(node, t.prov_generatedAtTime, t.time(version["recorded_at"]))
        if version["invalidated_at"] is not None and version["invalidated_at"] <= known_at:
            yield triple(node, t.prov_invalidatedAtTime, t.time(version["invalidated_at"]))
        if version["cause"]:
            yield triple(node, t.ledger_cause, t.text(version["cause"]))
        if version["cause_claim_id"] is not None:
            yield triple(node, t.ledger_causeClaim, t.node("claim", version["cause_claim_id"]))
        if version["reason"]:
            yield triple(node, t.ledger_reason, t.text(version["reason"]))


def _state(t: _Terms, node: Any, version: Mapping[Any, Any]) -> Iterator[Any]:
    triple = t.ox.Triple
    yield triple(node, t.ledger_status, t.text(version["status"]))
    yield triple(node, t.ledger_confidence, t.number(float(version["confidence"])))
    for bound in ("from", "until"):
        if version[f"valid_{bound}"] is not None:
            yield triple(node, getattr(t, f"ledger_valid{bound.title()}"), t.time(version[f"valid_{bound}"]))
        if version[f"valid_{bound}_precision"] is not None:
            yield triple(node, getattr(t, f"ledger_valid{bound.title()}Precision"),
                         t.text(version[f"valid_{bound}_precision"]))


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value
