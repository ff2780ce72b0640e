"""A report as Markdown: the same content as the JSON and HTML forms, for reading in a terminal,
a pull request or a wiki. Text from the ledger is escaped so that it renders as written: no raw
HTML, no accidental emphasis or links; links go only to http(s), file and ftp URIs."""

from __future__ import annotations

import re
from datetime import datetime

from ledger.records import Claim
from ledger.report.model import Fact, Report, ReportEvidence

_SPECIAL = re.compile(r"([\\`*_\[\]|])")


def md(text: str) -> str:
    """Text escaped for Markdown: HTML characters as entities, Markdown punctuation backslashed,
    on one line."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _SPECIAL.sub(r"\\\1", " ".join(text.split())).replace("~~", "\\~\\~")


def _url(link: str) -> str:
    return link.replace(" ", "%20").replace("<", "%3C").replace(">", "%3E").replace("(", "%28").replace(")", "%29")


def _when(at: datetime | None) -> str:
    return "—" if at is None else at.strftime("%Y-%m-%d %H:%M:%S")


def _bound(at: datetime | None, precision: str | None) -> str:
    if at is None:
        return "…"
    text = at.strftime({"year": "%Y", "month": "%Y-%m", "day": "%Y-%m-%d"}.get(precision or "", "%Y-%m-%d %H:%M"))
    return ("~" if precision == "year" else "") + text


def valid_text(claim: Claim) -> str:
    """A claim's valid interval as the reports write it (``~1994``: known only to the year)."""
    if claim.never_valid:
        return "never (superseded as a whole)"
    return f"[{_bound(claim.valid_from, claim.valid_from_precision)}, " \
           f"{_bound(claim.valid_until, claim.valid_until_precision)})"


def _heading(fact: Fact) -> str:
    qualifiers = ", ".join(f"{k}={v}" for k, v in fact.qualifiers.items())
    flags = [flag for flag, on in (("disputed", fact.disputed), ("changed", fact.changed)) if on]
    return md(fact.predicate) + (f" ({md(qualifiers)})" if qualifiers else "") + \
        (" — " + ", ".join(flags) if flags else "")


def _evidence(item: ReportEvidence) -> list[str]:
    evidence, source = item.evidence, item.source
    title = md(source.label)
    cited = f"[{title}](<{_url(item.link)}>)" if item.link else title
    details = [md(d) for d in (source.publisher, source.author) if d]
    if source.published_at is not None:
        details.append(source.published_at.strftime("%Y-%m-%d"))
    if evidence.page is not None:
        details.append(f"page {evidence.page}")
    if source.trust != "trusted":
        details.append(source.trust)
    if evidence.stale_at is not None:
        details.append(f"stale since {_when(evidence.stale_at)}")
    head = f"- **{evidence.relation}** claim {evidence.claim_id} — {cited}" + "".join(f" · {d}" for d in details)
    quote = [f"  > {md(line)}" for line in evidence.excerpt.splitlines() if line.strip()] or ["  > "]
    return [head, *quote]


def _fact(fact: Fact) -> list[str]:
    lines = [f'<a id="{fact.anchor}"></a>', "", f"### {_heading(fact)}", ""]
    if fact.why:
        lines += [md(fact.why), ""]
    lines += ["| claim | value | status | confidence | valid | recorded | invalidated | cause |",
              "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for audit in fact.claims:
        for v in audit.versions:
            lines.append(f"| {v.id} | {md(v.object_label)} | {v.status} | {v.confidence:.2f} | {md(valid_text(v))} | "
                         f"{_when(v.recorded_at)} | {_when(v.invalidated_at)} | {md(str(v.cause or ''))} |")
    lines.append("")
    if fact.links:
        lines += ["Links:", ""] + [f"- claim {link.from_claim_id} {link.kind} claim {link.to_claim_id} "
                                   f"({_when(link.recorded_at)})" + (f": {md(link.reason)}" if link.reason else "")
                                   for link in fact.links] + [""]
    lines += ["Evidence:", ""]
    for item in fact.evidence:
        lines += _evidence(item)
    if not fact.evidence:
        lines.append("- no evidence recorded")
    return lines + [""]


def render_markdown(report: Report) -> str:
    """The report as a Markdown document with a table of contents."""
    facts = report.facts
    lines = [f"# {md(report.title)}", "",
             f"Scope {md(report.scope)} · as known at {_when(report.known_at)} UTC · {len(report.sections)} "
             f"entities · {len(facts)} facts · {sum(f.disputed for f in facts)} disputed", ""]
    if not facts:
        return "\n".join(lines + ["Nothing to report.", ""])
    lines += ["## Contents", ""]
    for section in report.sections:
        lines.append(f"- [{md(section.name)}](#{section.anchor})")
        lines += [f"  - [{_heading(fact)}](#{fact.anchor})" for fact in section.facts]
    lines.append("")
    for section in report.sections:
        lines += [f'<a id="{section.anchor}"></a>', "", f"## {md(section.name)}", ""]
        for fact in section.facts:
            lines += _fact(fact)
    return "\n".join(lines)
