"""A report as JSON: the same content as the Markdown and HTML forms, in a stable, documented
shape (docs/reports.md § JSON); ``"version"`` changes when a field's meaning does."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from ledger.records import Audit, Cause, Claim, Link
from ledger.report.model import Fact, Report, ReportEvidence

#: The version of the JSON shape; a field's meaning changes only with it.
JSON_VERSION = 1


def _time(at: datetime | None) -> str | None:
    return None if at is None else at.isoformat()


def _plain(value: Any) -> Any:
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _cause(cause: Cause | None) -> dict[str, Any] | None:
    if cause is None:
        return None
    return {"kind": cause.kind, "claim": cause.claim, "effects": [list(e) for e in cause.effects],
            "sources": cause.sources, "text": str(cause)}


def _interval(claim: Claim) -> dict[str, Any]:
    return {"valid_from": _time(claim.valid_from), "valid_until": _time(claim.valid_until),
            "valid_from_precision": claim.valid_from_precision, "valid_until_precision": claim.valid_until_precision,
            "never_valid": claim.never_valid}


def _version(version: Claim) -> dict[str, Any]:
    return {"version_id": version.version_id, "status": version.status, "confidence": version.confidence,
            **_interval(version), "recorded_at": _time(version.recorded_at),
            "invalidated_at": _time(version.invalidated_at), "cause": _cause(version.cause),
            "reason": version.reason, "actor": version.actor}


def _claim(audit: Audit) -> dict[str, Any]:
    claim = audit.claim
    return {"id": claim.id, "label": claim.object_label, "object": claim.object, "object_id": claim.object_id,
            "value": _plain(claim.value) if claim.object_id is None else None, "datatype": claim.datatype,
            "status": claim.status, "confidence": claim.confidence, **_interval(claim),
            "versions": [_version(v) for v in audit.versions]}


def _link(link: Link) -> dict[str, Any]:
    return {"kind": link.kind, "from": link.from_claim_id, "to": link.to_claim_id,
            "recorded_at": _time(link.recorded_at), "reason": link.reason}


def _evidence(item: ReportEvidence) -> dict[str, Any]:
    evidence, source = item.evidence, item.source
    return {"id": evidence.id, "claim_id": evidence.claim_id, "relation": evidence.relation,
            "excerpt": evidence.excerpt, "page": evidence.page, "locator": _plain(evidence.locator),
            "recorded_at": _time(evidence.recorded_at), "stale_at": _time(evidence.stale_at), "link": item.link,
            "source": {"id": source.id, "kind": source.kind, "title": source.title, "uri": source.uri,
                       "publisher": source.publisher, "author": source.author,
                       "published_at": _time(source.published_at), "trust": source.trust}}


def _fact(fact: Fact) -> dict[str, Any]:
    return {"anchor": fact.anchor, "subject_id": fact.subject_id, "subject": fact.subject,
            "predicate": fact.predicate, "qualifiers": _plain(fact.qualifiers), "disputed": fact.disputed,
            "changed": fact.changed, "why": fact.why, "claims": [_claim(a) for a in fact.claims],
            "links": [_link(link) for link in fact.links], "evidence": [_evidence(e) for e in fact.evidence]}


def report_dict(report: Report) -> dict[str, Any]:
    """The report as plain JSON values (the documented shape)."""
    facts = report.facts
    return {
        "report": report.kind, "version": JSON_VERSION, "title": report.title, "scope": report.scope,
        "known_at": _time(report.known_at), "entity": report.entity, "predicate": report.predicate,
        "summary": {"entities": len(report.sections), "facts": len(facts),
                    "disputed": sum(f.disputed for f in facts), "changed": sum(f.changed for f in facts)},
        "entities": [{"id": s.entity_id, "name": s.name, "anchor": s.anchor, "facts": [_fact(f) for f in s.facts]}
                     for s in report.sections],
    }


def render_json(report: Report) -> str:
    """The report as indented JSON text (UTF-8, keys in a fixed order)."""
    return json.dumps(report_dict(report), ensure_ascii=False, indent=2) + "\n"
