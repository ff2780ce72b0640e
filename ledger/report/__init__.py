"""Reports: contradictions, audits and timelines as Markdown, JSON or a self-contained HTML page.

``model`` gathers what a report shows once, in one read transaction; ``markdown``, ``json`` and
``html`` (with ``svg`` timelines) render it. Nothing here writes. docs/reports.md describes them.
"""

from __future__ import annotations

from ledger.report.model import REPORT_FORMATS, REPORT_KINDS, Report, ReportFormat, ReportKind

__all__ = ["REPORT_FORMATS", "REPORT_KINDS", "Report", "ReportFormat", "ReportKind", "render"]


def render(report: Report, format: ReportFormat) -> str:
    """The report as text in ``format`` ("markdown", "json" or "html")."""
    if format == "html":
        from ledger.report.html import render_html

        return render_html(report)
    if format == "json":
        from ledger.report.json import render_json

        return render_json(report)
    from ledger.report.markdown import render_markdown

    return render_markdown(report)
