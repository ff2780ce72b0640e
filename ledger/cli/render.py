"""How commands show what they got: rich tables for people, JSON for machines."""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Sequence
from datetime import date, datetime, timedelta
from decimal import Decimal
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

from rich.markup import escape
from rich.table import Table

from ledger import CheckReport
from ledger.cli.common import console, errors
from ledger.records import Audit, Claim, Explanation

if TYPE_CHECKING:
    from ledger.cli.ingest import Ingested


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value) if f.name != "text"}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, timedelta):
        return value.total_seconds()
    if isinstance(value, (Decimal, PurePath)):
        return str(value)
    return value


def print_json(value: Any) -> None:
    """Print records as JSON on stdout."""
    sys.stdout.write(json.dumps(_plain(value), ensure_ascii=False, indent=2) + "\n")


_FORMATS = {"year": "%Y", "month": "%Y-%m", "day": "%Y-%m-%d"}


def when(value: datetime | None, precision: str | None = None) -> str:
    """A time as the tables show it: to its precision, "…" when open."""
    if value is None:
        return "…"
    return value.strftime(_FORMATS.get(precision or "", "%Y-%m-%d %H:%M:%S"))


def claims_table(claims: Sequence[Claim], *, title: str, versions: bool = False) -> Table:
    """A rich table of claims (or of versions, with system times)."""
    table = Table(title=escape(title), title_justify="left")
    for column in ("id", "subject", "predicate", "object / value", "status", "conf", "valid"):
        table.add_column(column)
    if versions:
        table.add_column("recorded")
        table.add_column("invalidated")
        table.add_column("cause")
    for c in claims:
        qualifiers = "".join(f" ({k}={v})" for k, v in c.qualifiers.items())
        start, end = when(c.valid_from, c.valid_from_precision), when(c.valid_until, c.valid_until_precision)
        valid = "never" if c.never_valid else f"[{start}, {end})"
        status = f"[yellow]{c.status}[/]" if c.disputed else c.status
        row = [str(c.id), escape(c.subject), escape(c.predicate + qualifiers), escape(c.object_label), status,
               f"{c.confidence:.2f}", valid]
        if versions:
            row += [when(c.recorded_at), when(c.invalidated_at), escape(str(c.cause or ""))]
        table.add_row(*row)
    return table


def show_claims(claims: Sequence[Claim], *, title: str, versions: bool = False) -> None:
    """Print claims (or versions) as a table."""
    console.print(claims_table(claims, title=title, versions=versions))


def show_audit(found: Sequence[Audit]) -> None:
    """Each audited claim's versions, then the links that explain its status."""
    for item in found:
        show_claims(item.versions, title=f"claim {item.claim.id}: {item.claim.status}", versions=True)
        for link in item.links:
            console.print(f"  {link.from_claim_id} {link.kind} {link.to_claim_id}  ({when(link.recorded_at)})")


def show_explanation(found: Explanation) -> None:
    """A claim's versions, links, and each excerpt with its source and locator."""
    show_claims(found.versions, title=f"claim {found.claim.id}", versions=True)
    for link in found.links:
        console.print(f"link: {link.from_claim_id} {link.kind} {link.to_claim_id}")
    for trail in found.evidence:
        where = f"page {trail.evidence.page}" if trail.evidence.page else "text"
        bbox = trail.evidence.locator.get("bbox")
        console.print(f"[bold]{trail.evidence.relation}[/] from source {trail.source.id} "
                      f"({escape(trail.source.title or trail.source.uri or trail.source.kind)}), {where}"
                      + (f", bbox {bbox}" if bbox else "") + ":", highlight=False)
        console.print(f"    “{escape(trail.evidence.excerpt)}”", highlight=False)
    if found.confidence is not None:
        why = found.confidence
        console.print(f"confidence {why.stored:.2f} (from {why.independent} independent source(s): "
                      f"{why.from_sources:.2f})", highlight=False)
        for source in why.sources:
            counted = (f"weight {source.weight:.2f}, +{source.gain:.2f}" if source.counted
                       else f"a copy of source {source.copy_of} ({source.folded_because}): counted once")
            console.print(f"    source {source.source_id}: {counted}", highlight=False)


def show_check(report: CheckReport) -> None:
    """One line per check, with up to 20 of its findings under it."""
    for name in report.checks:
        failed = [f for f in report.findings if f.check == name]
        mark = "[green]ok[/]" if not failed else f"[red]{len(failed)} finding(s)[/]"
        console.print(f"{mark:>24}  {name}")
        for finding in failed[:20]:
            console.print(f"      {escape(finding.detail)}", highlight=False)


def count(number: int, noun: str) -> str:
    """ "1 page", "2 pages" """
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


def _pages(pages: Sequence[int]) -> str:
    return f"page{'s' if len(pages) > 1 else ''} {', '.join(map(str, pages))}"


def ingested_row(item: Ingested) -> tuple[str, str, str, str]:
    """(file, pages / paragraphs, passages, outcome) as the ingest table shows them."""
    if item.outcome == "error":
        return escape(item.target), "", "", f"[red]error:[/] {escape(item.message or '')}"
    if item.outcome == "needs OCR":
        return (escape(item.target), count(len(item.pages_without_text), "page"), "0",
                "[yellow]needs OCR[/], nothing stored")
    units = count(item.pages, "page") if item.pages else count(item.passages, "paragraph")
    outcome = {"unchanged": f"unchanged (source {item.source})",
               "new revision": f"[cyan]new revision[/] of {item.revision_of} (source {item.source})",
               "ingested": f"[green]ingested[/] (source {item.source})"}[item.outcome]
    if item.pages_without_text:
        outcome += f"; no readable text on {_pages(item.pages_without_text)}"
    if item.pages_partly_unreadable:
        outcome += f"; lines only OCR can read left out on {_pages(item.pages_partly_unreadable)}"
    return escape(item.target), units, str(item.passages), outcome


def show_ingested(results: Sequence[Ingested]) -> None:
    """The ingest table, then every error in full (the table may cut a long message short)."""
    table = Table(title=f"{len(results)} document(s)", title_justify="left")
    for column in ("file", "pages / paragraphs", "passages", "outcome"):
        table.add_column(column)
    for item in results:
        table.add_row(*ingested_row(item))
    console.print(table)
    for item in results:
        if item.outcome == "error":
            errors.print(f"[red]error:[/] {escape(item.message or '')} ({escape(item.target)})",
                         highlight=False, soft_wrap=True)
