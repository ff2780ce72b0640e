"""A report as one self-contained HTML page: inline CSS and SVG, no script, no external fetch.

Anatomy: a header with the scope and the system time read, a table of contents (entities, then
their facts, with anchors), then one section per entity. Each disputed or changed fact (every
fact of a timeline or contradictions report) is an article with its timeline picture and,
beside it, its evidence excerpts linked to their sources (``#page=N`` for a PDF page), then a
table of every version. An audit lists its unchanged facts in one table per entity. Every text
from the ledger is escaped, and a Content-Security-Policy forbids scripts and fetches besides.
"""

from __future__ import annotations

from datetime import datetime
from html import escape

from ledger.records import Claim
from ledger.report.model import EntitySection, Fact, Report, ReportEvidence
from ledger.report.svg import STATUS_COLOURS, timeline_svg, value_colours

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#212121;margin:0;background:#fafafa}
header,main,nav{max-width:1280px;margin:0 auto;padding:0 24px}
header{padding-top:16px}h1{font-size:22px;margin:8px 0}.meta{color:#546e7a;margin:0 0 12px}
nav.toc{background:#fff;border:1px solid #e0e0e0;border-radius:6px;padding:8px 24px;margin-bottom:16px}
nav.toc>ol{columns:3 300px;column-gap:32px;margin:4px 0;padding-left:20px}nav.toc>ol>li{break-inside:avoid;margin:0 0 6px}
nav.toc ol ol{display:block;margin:0;padding:0;font-size:12px}nav.toc ol ol li{display:inline-block;white-space:nowrap;margin-right:10px}
nav.toc .badge{font-size:9px;padding:0 3px}
section.entity{margin:20px 0}section.entity>h2{font-size:19px;border-bottom:2px solid #cfd8dc;padding-bottom:4px}
article.fact{background:#fff;border:1px solid #e0e0e0;border-radius:6px;padding:10px 16px;margin:12px 0}
article.fact.disputed{border-left:5px solid #c62828}article.fact h3{font-size:16px;margin:4px 0 8px}
.badge{font-size:11px;font-weight:600;border-radius:3px;padding:1px 6px;color:#fff;background:#546e7a}
.badge.disputed{background:#c62828}.qualifiers{color:#546e7a;font-weight:normal}
.why{margin:0 0 8px;color:#4e342e}
.fact-body{display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start}
figure{margin:0;flex:0 0 auto}figcaption{font-size:12px;color:#455a64;max-width:760px}
.swatch{display:inline-block;width:10px;height:10px;margin:0 4px 0 10px;vertical-align:middle}
.evidence{flex:1 1 300px;min-width:280px}.evidence h4{margin:0 0 4px;font-size:13px}
.evidence ul{list-style:none;margin:0;padding:0}.evidence li{margin:0 0 10px}
blockquote{margin:2px 0;padding:4px 8px;border-left:3px solid #90a4ae;background:#f5f7f8;white-space:pre-wrap}
li.contradicts blockquote{border-left-color:#c62828}.relation{font-size:11px;text-transform:uppercase;color:#546e7a}
cite{font-style:normal;font-size:12px;color:#455a64}.stale{color:#c62828;font-size:11px}
table{border-collapse:collapse;font-size:12px;margin-top:8px}td,th{border:1px solid #e0e0e0;padding:2px 6px;text-align:left}
th{background:#eceff1}
"""
_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def _when(at: datetime | None) -> str:
    return "—" if at is None else at.strftime("%Y-%m-%d %H:%M:%S")


def _valid(claim: Claim) -> str:
    if claim.never_valid:
        return "never (superseded as a whole)"
    formats = {"year": "%Y", "month": "%Y-%m", "day": "%Y-%m-%d"}

    def bound(at: datetime | None, precision: str | None) -> str:
        if at is None:
            return "…"
        text = at.strftime(formats.get(precision or "", "%Y-%m-%d %H:%M"))
        return ("~" if precision == "year" else "") + text

    return (f"[{bound(claim.valid_from, claim.valid_from_precision)}, "
            f"{bound(claim.valid_until, claim.valid_until_precision)})")


def _qualifiers(fact: Fact) -> str:
    if not fact.qualifiers:
        return ""
    inner = ", ".join(f"{key}={value}" for key, value in fact.qualifiers.items())
    return f' <span class="qualifiers">({escape(inner)})</span>'


def _evidence_item(item: ReportEvidence) -> str:
    evidence, source = item.evidence, item.source
    title = escape(source.label)
    cited = f'<a href="{escape(item.link, quote=True)}">{title}</a>' if item.link else title
    details = [d for d in (source.publisher, source.author) if d]
    if source.published_at is not None:
        details.append(source.published_at.strftime("%Y-%m-%d"))
    if evidence.page is not None:
        details.append(f"page {evidence.page}")
    if source.trust != "trusted":
        details.append(source.trust)
    stale = (f' <span class="stale">stale since {escape(_when(evidence.stale_at))}</span>'
             if evidence.stale_at is not None else "")
    return (f'<li class="{escape(evidence.relation)}"><span class="relation">{escape(evidence.relation)} '
            f"claim {evidence.claim_id}</span>{stale}<blockquote>{escape(evidence.excerpt)}</blockquote>"
            f"<cite>{cited}" + "".join(f" · {escape(d)}" for d in details) + "</cite></li>")


def _versions_table(fact: Fact) -> str:
    rows = ["<tr><th>claim</th><th>value</th><th>status</th><th>confidence</th><th>valid</th>"
            "<th>recorded</th><th>invalidated</th><th>cause</th><th>reason / actor</th></tr>"]
    for audit in fact.claims:
        for version in audit.versions:
            why = " / ".join(x for x in (version.reason, version.actor) if x)
            rows.append(
                f"<tr><td>{version.id}</td><td>{escape(version.object_label)}</td><td>{escape(version.status)}</td>"
                f"<td>{version.confidence:.2f}</td><td>{escape(_valid(version))}</td>"
                f"<td>{_when(version.recorded_at)}</td><td>{_when(version.invalidated_at)}</td>"
                f"<td>{escape(str(version.cause or ''))}</td><td>{escape(why)}</td></tr>")
    return '<table class="versions">' + "".join(rows) + "</table>"


def _legend(fact: Fact) -> str:
    values = "".join(f'<span class="swatch" style="background:{colour}"></span>{escape(label)}'
                     for label, colour in value_colours(fact).items())
    statuses = {v.status for a in fact.claims for v in a.versions}
    lanes = "".join(f'<span class="swatch" style="background:{STATUS_COLOURS[s]}"></span>{s}'
                    for s in STATUS_COLOURS if s in statuses)
    return (f"<figcaption>values:{values}<br>system time, by status:{lanes}; ● recorded, | new version, "
            "✕ retracted or superseded as a whole, ┆ read at; an arrow is an open bound, a pale dashed window a "
            "bound known only to the year, a dashed outline an interval held before</figcaption>")


def _badges(fact: Fact) -> str:
    badges = []
    if fact.disputed:
        badges.append('<span class="badge disputed">disputed</span>')
    if fact.changed:
        badges.append('<span class="badge">changed</span>')
    return " ".join(badges)


def _article(fact: Fact, report: Report) -> str:
    classes = "fact disputed" if fact.disputed else "fact"
    why = f'<p class="why">{escape(fact.why)}</p>' if fact.why else ""
    evidence = "".join(_evidence_item(item) for item in fact.evidence) or "<li>no evidence recorded</li>"
    return (f'<article class="{classes}" id="{fact.anchor}"><h3>{escape(fact.predicate)}{_qualifiers(fact)} '
            f"{_badges(fact)}</h3>{why}"
            f'<div class="fact-body"><figure>{timeline_svg(fact, report.known_at)}{_legend(fact)}</figure>'
            f'<div class="evidence"><h4>Evidence</h4><ul>{evidence}</ul></div></div>'
            f"{_versions_table(fact)}</article>")


def pictured(report: Report, fact: Fact) -> bool:
    """Whether a fact gets a picture: in an audit, when it was disputed or changed; else always."""
    return report.kind != "audit" or fact.disputed or fact.changed


def _unchanged(facts: list[Fact]) -> str:
    if not facts:
        return ""
    rows = "".join(
        f'<tr id="{fact.anchor}"><td>{escape(fact.predicate)}{_qualifiers(fact)}</td>'
        f"<td>{escape(audit.claim.object_label)}</td><td>{escape(audit.claim.status)}</td>"
        f"<td>{escape(_valid(audit.claim))}</td><td>{_when(audit.claim.recorded_at)}</td>"
        f'<td class="evidence"><ul>'
        + "".join(_evidence_item(item) for item in fact.evidence if item.evidence.claim_id == audit.claim.id)
        + "</ul></td></tr>"
        for fact in facts for audit in fact.claims)
    return ('<table class="unchanged"><tr><th>unchanged fact</th><th>value</th><th>status</th><th>valid</th>'
            f"<th>recorded</th><th>evidence</th></tr>{rows}</table>")


def _section(section: EntitySection, report: Report) -> str:
    articles = "".join(_article(f, report) for f in section.facts if pictured(report, f))
    rest = _unchanged([f for f in section.facts if not pictured(report, f)])
    return f'<section class="entity" id="{section.anchor}"><h2>{escape(section.name)}</h2>{articles}{rest}</section>'


def _contents(report: Report) -> str:
    entries = []
    for section in report.sections:
        facts = "".join(
            f'<li><a href="#{fact.anchor}">{escape(fact.predicate)}</a>{_qualifiers(fact)}'
            + (' <span class="badge disputed">disputed</span>' if fact.disputed else "") + "</li>"
            for fact in section.facts)
        entries.append(f'<li><a href="#{section.anchor}">{escape(section.name)}</a> '
                       f"({len(section.facts)} fact{'s' if len(section.facts) != 1 else ''})<ol>{facts}</ol></li>")
    if not entries:
        return '<nav class="toc"><p>Nothing to report.</p></nav>'
    return '<nav class="toc"><h2>Contents</h2><ol>' + "".join(entries) + "</ol></nav>"


def render_html(report: Report) -> str:
    """The report as one self-contained HTML page."""
    facts = report.facts
    disputed = sum(1 for f in facts if f.disputed)
    meta = (f"scope {escape(report.scope)} · as known at {_when(report.known_at)} UTC · "
            f"{len(report.sections)} entities · {len(facts)} facts · {disputed} disputed")
    body = "".join(_section(section, report) for section in report.sections)
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{_POLICY}">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{escape(report.title)}</title><style>{_CSS}</style></head><body>"
            f'<header><h1>{escape(report.title)}</h1><p class="meta">{meta}</p></header>'
            f"{_contents(report)}<main>{body}</main></body></html>\n")
