"""The ``ledger`` command line: parse, make one API call, render. ``--json`` for machines.

Every failure exits non-zero: the LedgerError's exit code (2 bad input, 3 not found,
4 conflict, 5 clock, 6 database), 1 for anything else.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from ledger.api import Ledger
from ledger.errors import IngestError, LedgerError, NeedsOCR
from ledger.records import Claim

app = typer.Typer(
    name="ledger",
    help="A ledger of source-backed, bi-temporal claims.\n\nThe database is --db, else $LEDGER_URL, else ./ledger.db.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console()
errors = Console(stderr=True)

DbOption = Annotated[str | None, typer.Option("--db", envvar="LEDGER_URL", help="SQLite path or database URL.")]
ScopeOption = Annotated[str, typer.Option("--scope", help="Scope to read or write.")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]


@contextmanager
def opened(db: str | None) -> Iterator[Ledger]:
    """Open the ledger, turning LedgerError anywhere inside into a message and an exit code."""
    try:
        with Ledger.open(db) as ledger:
            yield ledger
    except LedgerError as error:
        errors.print(f"[bold red]error:[/] {escape(str(error))}", highlight=False)
        raise typer.Exit(error.exit_code) from error


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value) if f.name != "text"}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    return value


def print_json(value: Any) -> None:
    """Print records as JSON on stdout."""
    sys.stdout.write(json.dumps(_plain(value), ensure_ascii=False, indent=2) + "\n")


_FORMATS = {"year": "%Y", "month": "%Y-%m", "day": "%Y-%m-%d"}


def _when(value: datetime | None, precision: str | None) -> str:
    if value is None:
        return "…"
    return value.strftime(_FORMATS.get(precision or "", "%Y-%m-%d %H:%M:%S"))


def claims_table(claims: list[Claim], *, title: str, versions: bool = False) -> Table:
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
        valid = "never" if c.never_valid else f"[{_when(c.valid_from, c.valid_from_precision)}, {_when(c.valid_until, c.valid_until_precision)})"
        status = f"[yellow]{c.status}[/]" if c.disputed else c.status
        row = [str(c.id), escape(c.subject), escape(c.predicate + qualifiers), escape(c.object_label), status,
               f"{c.confidence:.2f}", valid]
        if versions:
            row += [_when(c.recorded_at, None), _when(c.invalidated_at, None), escape(c.cause or "")]
        table.add_row(*row)
    return table


@app.command()
def claims(
    subject: Annotated[str | None, typer.Argument(help="Entity name or alias.")] = None,
    predicate: Annotated[str | None, typer.Argument()] = None,
    valid_at: Annotated[str | None, typer.Option(help="World time: what was true then (default now).")] = None,
    known_at: Annotated[str | None, typer.Option(help="System time: what the ledger said then (default now).")] = None,
    all_statuses: Annotated[bool, typer.Option("--all", help="Include retracted claims.")] = False,
    scope: ScopeOption = "default",
    as_json: JsonOption = False,
    db: DbOption = None,
) -> None:
    """Claims true at --valid-at as known at --known-at.

    Example: ledger claims home "electricity bill" --valid-at 2026-04-15 --known-at 2026-05-01
    """
    with opened(db) as ledger:
        statuses = ("reported", "confirmed", "disputed", "retracted", "superseded") if all_statuses else None
        found = ledger.claims(subject, predicate, valid_at=valid_at, known_at=known_at, statuses=statuses, scope=scope)
        if as_json:
            print_json(found)
        else:
            console.print(claims_table(found, title=f"{len(found)} claim(s)"))


@app.command()
def history(
    subject: str, predicate: str, scope: ScopeOption = "default", as_json: JsonOption = False, db: DbOption = None
) -> None:
    """Every version of every claim on SUBJECT PREDICATE, with all four times.

    Example: ledger history home "electricity bill"
    """
    with opened(db) as ledger:
        found = ledger.history(subject, predicate, scope=scope)
        if as_json:
            print_json(found)
        else:
            console.print(claims_table(found, title=f"history of {subject} / {predicate}", versions=True))


@app.command()
def audit(
    subject: Annotated[str | None, typer.Argument()] = None,
    predicate: Annotated[str | None, typer.Argument()] = None,
    status: Annotated[list[str] | None, typer.Option(help="Only claims now in this status (repeatable).")] = None,
    scope: ScopeOption = "default", as_json: JsonOption = False, db: DbOption = None,
) -> None:
    """Claims in every status, with the status history and links that explain it.

    Example: ledger audit --status disputed --status retracted
    """
    with opened(db) as ledger:
        found = ledger.audit(subject, predicate, statuses=status or None, scope=scope)
        if as_json:
            print_json(found)
            return
        for item in found:
            console.print(claims_table(list(item.versions), title=f"claim {item.claim.id}: {item.claim.status}", versions=True))
            for link in item.links:
                console.print(f"  {link.from_claim_id} {link.kind} {link.to_claim_id}  ({_when(link.recorded_at, None)})")


@app.command()
def explain(claim_id: int, as_json: JsonOption = False, db: DbOption = None) -> None:
    """Why the ledger holds a claim: versions, links, and each excerpt with its source and locator.

    Example: ledger explain 12
    """
    with opened(db) as ledger:
        found = ledger.explain(claim_id)
        if as_json:
            print_json(found)
            return
        console.print(claims_table(list(found.versions), title=f"claim {claim_id}", versions=True))
        for link in found.links:
            console.print(f"link: {link.from_claim_id} {link.kind} {link.to_claim_id}")
        for trail in found.evidence:
            where = f"page {trail.evidence.page}" if trail.evidence.page else "text"
            bbox = trail.evidence.locator.get("bbox")
            console.print(f"[bold]{trail.evidence.relation}[/] from source {trail.source.id} "
                          f"({escape(trail.source.title or trail.source.uri or trail.source.kind)}), {where}"
                          + (f", bbox {bbox}" if bbox else "") + ":", highlight=False)
            console.print(f"    “{escape(trail.evidence.excerpt)}”", highlight=False)


@app.command("add-source")
def add_source(
    path: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="A UTF-8 text file.")],
    uri: Annotated[str | None, typer.Option()] = None,
    title: Annotated[str | None, typer.Option()] = None,
    untrusted: Annotated[bool, typer.Option(help="Store in quarantine:<scope>.")] = False,
    scope: ScopeOption = "default", as_json: JsonOption = False, db: DbOption = None,
) -> None:
    """Store a plain-text file as a source (idempotent by content).

    Example: ledger add-source notes.txt --title "Call notes"
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        errors.print(f"[bold red]error:[/] cannot read {escape(str(path))} as UTF-8 text: {escape(str(error))}")
        raise typer.Exit(2) from error
    with opened(db) as ledger:
        source = ledger.add_source(text=text, uri=uri or path.resolve().as_uri(), title=title or path.name,
                                   trust="untrusted" if untrusted else "trusted", scope=scope)
        if as_json:
            print_json(source)
        else:
            console.print(f"source {source.id} ({'stored' if source.created else 'already stored'}), "
                          f"{source.passage_count} passages, scope {source.scope}")


@app.command("assert")
def assert_(
    subject: str, predicate: str,
    source: Annotated[int, typer.Option(help="Id of the source the quote comes from.")],
    quote: Annotated[str, typer.Option(help="Exact text from the source that supports the claim.")],
    object_: Annotated[str | None, typer.Option("--object", help="An entity (name).")] = None,
    value: Annotated[str | None, typer.Option(help="A literal value.")] = None,
    valid_from: Annotated[str | None, typer.Option()] = None,
    valid_until: Annotated[str | None, typer.Option()] = None,
    actor: Annotated[str | None, typer.Option()] = None,
    scope: ScopeOption = "default", as_json: JsonOption = False, db: DbOption = None,
) -> None:
    """Assert a claim backed by a quote from a stored source.

    Example: ledger assert home "electricity bill" --value "PLN 245" --valid-from 2026-07 --source 1 --quote "PLN 245"
    """
    with opened(db) as ledger:
        claim = ledger.assert_claim(subject, predicate, object_, value=value, valid_from=valid_from,
                                    valid_until=valid_until, evidence=[ledger.cite(source, quote)], actor=actor,
                                    scope=scope)
        if as_json:
            print_json(claim)
        else:
            console.print(claims_table([claim], title=claim.cause or "asserted"))


INGESTIBLE = {".pdf": "pdf", ".html": "html", ".htm": "html", ".xhtml": "html"}


def _targets(items: list[str]) -> list[str]:
    """Files, folders (searched for PDF and HTML files) and URLs, in a stable order."""
    found: list[str] = []
    for item in items:
        path = Path(item)
        if item.startswith(("http://", "https://")):
            found.append(item)
        elif path.is_dir():
            found.extend(str(p) for p in sorted(path.rglob("*")) if p.suffix.lower() in INGESTIBLE and p.is_file())
        else:
            found.append(item)
    return found


def _ingest_one(ledger: Ledger, target: str, *, password: str | None, trust: Any, scope: str) -> tuple[str, str, str]:
    """(units, passages, outcome) for one file or URL; errors become the outcome."""
    try:
        if target.startswith(("http://", "https://")):
            source = ledger.ingest_url(target, trust=trust, scope=scope)
        elif Path(target).suffix.lower() in (".html", ".htm", ".xhtml"):
            path = Path(target)
            try:
                data = path.read_bytes()
            except OSError as error:
                raise IngestError(f"cannot read {target}: {error.strerror or error}") from error
            source = ledger.ingest_html(data, url=path.resolve().as_uri(), trust=trust, scope=scope)
        else:
            source = ledger.ingest_pdf(target, password=password, trust=trust, scope=scope)
    except NeedsOCR as error:
        return str(len(error.pages)) + " pages", "0", f"[yellow]recorded, needs OCR[/] (source {error.source_id})"
    except LedgerError as error:
        return "", "", f"[red]error:[/] {escape(str(error))}"
    units = f"{source.page_count} pages" if source.page_count else f"{source.passage_count} paragraphs"
    if not source.created:
        outcome = f"unchanged (source {source.id})"
    elif source.revision_of is not None:
        outcome = f"[cyan]new revision[/] of {source.revision_of} (source {source.id})"
    else:
        outcome = f"[green]ingested[/] (source {source.id})"
    if source.pages_without_text:
        outcome += f"; no readable text on pages {', '.join(map(str, source.pages_without_text))}"
    return units, str(source.passage_count), outcome


@app.command()
def ingest(
    targets: Annotated[list[str], typer.Argument(help="PDF or HTML files, folders, or http(s) URLs.")],
    password: Annotated[str | None, typer.Option(help="Password for encrypted PDFs.")] = None,
    untrusted: Annotated[bool, typer.Option(help="Store in quarantine:<scope>.")] = False,
    scope: ScopeOption = "default", db: DbOption = None,
) -> None:
    """Ingest documents as sources with located passages; re-ingesting a changed one makes a revision.

    Example: ledger ingest papers/ https://example.org/article.html
    """
    found = _targets(targets)
    rows: list[tuple[str, str, str, str]] = []
    with opened(db) as ledger, Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                                        MofNCompleteColumn(), TimeElapsedColumn(), console=errors) as progress:
        task = progress.add_task("ingesting", total=len(found))
        for target in found:
            progress.update(task, description=escape(Path(target).name if "://" not in target else target))
            rows.append((escape(target), *_ingest_one(ledger, target, password=password,
                                              trust="untrusted" if untrusted else "trusted", scope=scope)))
            progress.advance(task)
    table = Table(title=f"{len(found)} document(s)", title_justify="left")
    for column in ("file", "pages / paragraphs", "passages", "outcome"):
        table.add_column(column)
    for row in rows:
        table.add_row(*row)
    console.print(table)
    failed = sum("error:" in outcome for *_, outcome in rows)
    for target, *_, outcome in rows:  # the table may cut a long message short; say it in full
        if "error:" in outcome:
            errors.print(f"{outcome} ({target})", highlight=False, soft_wrap=True)
    if failed or not found:
        errors.print(f"{failed} of {len(found)} failed" if found else "nothing to ingest")
        raise typer.Exit(2)


@app.command()
def backup(
    path: Annotated[Path, typer.Argument(help="New file to write the copy to.")], db: DbOption = None
) -> None:
    """Copy a SQLite ledger with the online backup API (consistent while others write).

    Example: ledger backup /backups/ledger-2026-11-29.db
    """
    with opened(db) as ledger:
        target = ledger.backup(path)
    console.print(f"backed up to {target} ({target.stat().st_size:,} bytes)")


@app.command()
def restore(
    backup_file: Annotated[Path, typer.Argument(help="A file written by `ledger backup`.")],
    force: Annotated[bool, typer.Option(help="Replace the database if it exists.")] = False,
    db: DbOption = None,
) -> None:
    """Restore a backup into the database file (--db), checking it first.

    Example: ledger restore /backups/ledger-2026-11-29.db --db ledger.db --force
    """
    from ledger.db import DEFAULT_FILE

    try:
        target = Ledger.restore(backup_file, db or DEFAULT_FILE, overwrite=force)
    except LedgerError as error:
        errors.print(f"[bold red]error:[/] {escape(str(error))}", highlight=False)
        raise typer.Exit(error.exit_code) from error
    with opened(str(target)) as ledger:
        report = ledger.check()
    console.print(f"restored {target}; check: {'ok' if report.ok else f'{len(report.findings)} finding(s)'}")
    if not report.ok:
        raise typer.Exit(1)


@app.command()
def check(as_json: JsonOption = False, db: DbOption = None) -> None:
    """Check the ledger's invariants; exits 1 when anything is found.

    Example: ledger check --db research.db
    """
    with opened(db) as ledger:
        report = ledger.check()
    if as_json:
        print_json(report)
    else:
        for name in report.checks:
            failed = [f for f in report.findings if f.check == name]
            mark = "[green]ok[/]" if not failed else f"[red]{len(failed)} finding(s)[/]"
            console.print(f"{mark:>24}  {name}")
            for finding in failed[:20]:
                console.print(f"      {escape(finding.detail)}", highlight=False)
    if not report.ok:
        raise typer.Exit(1)


DEMO_TEXT = (
    "Invoice 03/2026. From 1 March 2026 the monthly electricity bill for the flat is PLN 280.\n\n"
    "Invoice 07/2026. From 1 July 2026 the monthly electricity bill for the flat is PLN 245 "
    "after the tariff change."
)


@app.command()
def demo(db: DbOption = None) -> None:
    """Record a small bi-temporal example and answer the three time questions.

    Example: ledger demo --db /tmp/demo.db
    """
    with opened(db) as ledger:
        invoices = ledger.add_source(text=DEMO_TEXT, uri="demo:invoices", title="Utility invoices")
        for value, start in (("PLN 280", "2026-03-01"), ("PLN 245", "2026-07-01")):
            ledger.assert_claim("home", "electricity bill", value=value, valid_from=start,
                                evidence=[ledger.cite(invoices, f"electricity bill for the flat is {value}")],
                                actor="demo")
        console.print(f"ledger at {escape(ledger.url)}")
        console.print(claims_table(ledger.history("home", "electricity bill"), title="history", versions=True))
        for label, query in (("now", {}), ("true on 2026-04-15", {"valid_at": "2026-04-15"}),
                             ("true on 2026-07-01", {"valid_at": "2026-07-01"})):
            found = ledger.claims("home", "electricity bill", **query)  # type: ignore[arg-type]
            console.print(f"{label:>22}: {escape(', '.join(c.object_label for c in found)) or '(nothing)'}")


def main() -> None:
    """Entry point for ``python -m ledger``."""
    app()
