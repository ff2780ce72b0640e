"""Evidence as W3C Web Annotations (JSON-LD): one AnnotationCollection, streamed item by item.

Each evidence row is an ``Annotation`` whose target is its source with the stored selectors
(TextQuoteSelector, TextPositionSelector, and a FragmentSelector for PDF pages: equivalent ways
to find the excerpt) and whose body links the claim it supports or contradicts and says so in
words. https://www.w3.org/TR/annotation-model/
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any, TextIO

from sqlalchemy import Connection

from ledger.claims.values import decode_value
from ledger.interchange.export import Ticker, totals
from ledger.interchange.jsonl import iso
from ledger.interchange.records import Progress
from ledger.interchange.rdf import scope_iri
from ledger.store import interchange_rows as rows

CONTEXT = "http://www.w3.org/ns/anno.jsonld"
MOTIVATION = "linking"
RFC3778 = "http://tools.ietf.org/rfc/rfc3778"
_MEDIA_TYPES = {"pdf": "application/pdf", "web": "text/html", "html": "text/html", "text": "text/plain"}


def write_annotations(connection: Connection, out: TextIO, *, scope: str, known_at: datetime,
                      progress: Progress | None = None) -> dict[str, int]:
    """Stream the scope's evidence held at ``known_at`` as an AnnotationCollection."""
    counts = totals(connection, {"evidence": rows.ANNOTATED_EVIDENCE}, scope=scope, known_at=known_at)
    ticker = Ticker(progress, counts["evidence"])
    base = scope_iri(scope)
    head = {"@context": CONTEXT, "id": f"{base}/annotations", "type": "AnnotationCollection",
            "label": f"Evidence of scope {scope!r} as held at {iso(known_at)}", "total": counts["evidence"]}
    out.write(json.dumps(head, ensure_ascii=False, indent=1)[:-2])  # the object left open for "first"
    out.write(',\n "first": {"type": "AnnotationPage", "startIndex": 0, "items": [')
    for n, row in enumerate(rows.stream(connection, rows.ANNOTATED_EVIDENCE, scope=scope, known_at=known_at)):
        out.write(("," if n else "") + "\n  " + json.dumps(annotation(row, base, known_at), ensure_ascii=False))
        ticker.tick()
    out.write("\n ]}\n}\n")
    ticker.finish()
    return counts


def annotation(row: Mapping[Any, Any], base: str, known_at: datetime) -> dict[str, Any]:
    """One evidence row (joined with its claim and source) as a Web Annotation."""
    locator = row["locator"] if isinstance(row["locator"], dict) else json.loads(row["locator"])
    selectors = list(locator.get("selectors", ()))
    if row["page"] is not None and not any(s.get("type") == "FragmentSelector" for s in selectors):
        selectors.append({"type": "FragmentSelector", "conformsTo": RFC3778, "value": f"page={row['page']}"})
    target: dict[str, Any] = {"type": "SpecificResource",
                              "source": row["source_uri"] or f"{base}/source/{row['source_id']}",
                              "selector": selectors}
    if (media := _MEDIA_TYPES.get(row["source_kind"])) is not None:
        target["format"] = media
    claim = f"{base}/claim/{row['claim_id']}"
    found: dict[str, Any] = {
        "@context": CONTEXT, "id": f"{base}/evidence/{row['id']}", "type": "Annotation", "motivation": MOTIVATION,
        "created": iso(row["recorded_at"]),
        "body": [{"type": "SpecificResource", "source": claim, "purpose": "linking"},
                 {"type": "TextualBody", "format": "text/plain", "purpose": "describing",
                  "value": f"{row['relation']}: {_statement(row)}"}],
        "target": target,
    }
    if row["actor"]:
        found["creator"] = {"type": "Person", "name": row["actor"]}
    if row["stale_at"] is not None and row["stale_at"] <= known_at:
        found["modified"] = iso(row["stale_at"])  # flagged stale then: the quote left a newer revision
    return found


def _statement(row: Mapping[Any, Any]) -> str:
    if row["object_name"] is not None:
        shown = row["object_name"]
    else:
        shown = json.dumps(decode_value(row["value"], row["datatype"]), ensure_ascii=False, default=str)
    return f"{row['subject_name']} {row['predicate']} {shown}"
