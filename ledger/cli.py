"""The ``ledger`` command line: parse, make one API call, render. ``--json`` for machines.

Every failure exits non-zero: the LedgerError's exit code (2 bad input, 3 not found,
4 conflict, 5 clock, 6 database), 1 for anything else. Errors are one line on stderr; with
``--json``, one JSON object ``{"error": <class>, "message": ...}``.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NamedTuple, NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from ledger.api import Ledger
from ledger.db import describe
from ledger.errors import Conflict, IngestError, InvalidInput, LedgerError, NeedsOCR
from ledger.records import Claim

if TYPE_CHECKING:
    from sqlalchemy import Connection

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


def fail(error: LedgerError, *, as_json: bool = False) -> NoReturn:
    """Print the error as one line on stderr (a JSON object with ``--json``) and exit with its code."""
    if as_json:
        sys.stderr.write(json.dumps({"error": type(error).__name__, "message": str(error)}, ensure_ascii=False) + "\n")
    else:
        errors.print(f"[bold red]error:[/] {escape(str(error))}", highlight=False, soft_wrap=True)
    raise typer.Exit(error.exit_code) from error


@contextmanager
def opened(db: str | None, *, as_json: bool = False, create: bool = True) -> Iterator[Ledger]:
    """Open the ledger, turning LedgerError anywhere inside into a message and an exit code.

    Commands that only read pass ``create=False``: a mistyped path is an error, not a new ledger.
    """
    try:
        with Ledger.open(db, create=create) as ledger:
            yield ledger
    except LedgerError as error:
        fail(error, as_json=as_json)


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
    with opened(db, as_json=as_json, create=False) as ledger:
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
    with opened(db, as_json=as_json, create=False) as ledger:
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
    with opened(db, as_json=as_json, create=False) as ledger:
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
    with opened(db, as_json=as_json, create=False) as ledger:
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
        fail(InvalidInput(f"cannot read {path} as UTF-8 text: {error}"), as_json=as_json)
    with opened(db, as_json=as_json) as ledger:
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
    with opened(db, as_json=as_json) as ledger:
        claim = ledger.assert_claim(subject, predicate, object_, value=value, valid_from=valid_from,
                                    valid_until=valid_until, evidence=[ledger.cite(source, quote)], actor=actor,
                                    scope=scope)
        if as_json:
            print_json(claim)
        else:
            console.print(claims_table([claim], title=claim.cause or "asserted"))


INGESTIBLE = {".pdf": "pdf", ".html": "html", ".htm": "html", ".xhtml": "html"}


def _targets(items: list[str]) -> list[str]:
    """Files, folders (searched for PDF and HTML files) and URLs, in a stable order. A folder
    holding none stays in the list: it gets a row saying so."""
    found: list[str] = []
    for item in items:
        path = Path(item)
        if item.startswith(("http://", "https://")):
            found.append(item)
        elif path.is_dir():
            inside = [str(p) for p in sorted(path.rglob("*")) if p.suffix.lower() in INGESTIBLE and p.is_file()]
            found.extend(inside or [item])
        else:
            found.append(item)
    return found


def _kind(path: Path) -> str:
    """"pdf" or "html" by the file's name, else by its first bytes; IngestError for anything else."""
    if path.is_dir():
        raise IngestError(f"the folder {path} holds no PDF or HTML file (.pdf, .html, .htm, .xhtml)")
    from ledger.ingest.html import sniff_media_type

    kind = INGESTIBLE.get(path.suffix.lower())
    if kind is not None:
        return kind
    try:
        with path.open("rb") as file:
            media_type = sniff_media_type(file.read(1024))
    except OSError as error:
        raise IngestError(f"cannot read {path}: {error.strerror or error}") from error
    if media_type is not None:
        return "pdf" if media_type == "application/pdf" else "html"
    raise IngestError(f"{path} is neither a PDF nor an HTML page; for plain text use `ledger add-source`")


@dataclasses.dataclass(frozen=True, slots=True)
class Ingested:
    """What became of one file or URL given to ``ledger ingest`` (a row of its table or JSON)."""

    target: str
    #: "ingested", "new revision", "unchanged", "needs OCR" (nothing stored) or "error".
    outcome: str
    source: int | None = None
    revision_of: int | None = None
    pages: int | None = None
    passages: int = 0
    pages_without_text: tuple[int, ...] = ()
    pages_partly_unreadable: tuple[int, ...] = ()
    message: str | None = None


class _Limits(NamedTuple):
    """The options of ``ledger ingest`` that bound or unlock what it reads."""

    password: str | None
    max_pages: int | None
    max_bytes: int | None
    timeout: float


def _ingest_one(ledger: Ledger, target: str, limits: _Limits, *, trust: Any, scope: str) -> Ingested:
    """Ingest one file or URL; errors become the outcome."""
    from ledger.ingest.base import check_size
    from ledger.ingest.html import DEFAULT_MAX_BYTES

    try:
        if target.startswith(("http://", "https://")):
            source = ledger.ingest_url(target, timeout=limits.timeout, max_bytes=limits.max_bytes, trust=trust,
                                       scope=scope)
        elif _kind(Path(target)) == "html":
            path = Path(target)
            try:
                check_size(path.stat().st_size, path.resolve().as_uri(), limits.max_bytes or DEFAULT_MAX_BYTES)
                data = path.read_bytes()  # not before: a huge file is refused unread
            except OSError as error:
                raise IngestError(f"cannot read {target}: {error.strerror or error}") from error
            source = ledger.ingest_html(data, url=path.resolve().as_uri(), trust=trust, scope=scope,
                                        max_bytes=limits.max_bytes)
        else:
            source = ledger.ingest_pdf(target, password=limits.password, max_pages=limits.max_pages,
                                       max_bytes=limits.max_bytes, trust=trust, scope=scope)
    except NeedsOCR as error:
        return Ingested(target, "needs OCR", pages_without_text=error.pages, message=str(error))
    except LedgerError as error:
        return Ingested(target, "error", message=str(error))
    outcome = "unchanged" if not source.created else "new revision" if source.revision_of is not None else "ingested"
    return Ingested(target, outcome, source=source.id, revision_of=source.revision_of, pages=source.page_count,
                    passages=source.passage_count, pages_without_text=source.pages_without_text,
                    pages_partly_unreadable=source.pages_partly_unreadable)


def _ingest_row(item: Ingested) -> tuple[str, str, str, str]:
    """(file, pages / paragraphs, passages, outcome) as the ingest table shows them."""
    if item.outcome == "error":
        return escape(item.target), "", "", f"[red]error:[/] {escape(item.message or '')}"
    if item.outcome == "needs OCR":
        return (escape(item.target), _count(len(item.pages_without_text), "page"), "0",
                "[yellow]needs OCR[/], nothing stored")
    units = _count(item.pages, "page") if item.pages else _count(item.passages, "paragraph")
    outcome = {"unchanged": f"unchanged (source {item.source})",
               "new revision": f"[cyan]new revision[/] of {item.revision_of} (source {item.source})",
               "ingested": f"[green]ingested[/] (source {item.source})"}[item.outcome]
    if item.pages_without_text:
        pages = item.pages_without_text
        outcome += f"; no readable text on page{'s' if len(pages) > 1 else ''} {', '.join(map(str, pages))}"
    if item.pages_partly_unreadable:
        pages = item.pages_partly_unreadable
        outcome += f"; lines only OCR can read left out on page{'s' if len(pages) > 1 else ''} {', '.join(map(str, pages))}"
    return escape(item.target), units, str(item.passages), outcome


def _count(number: int, noun: str) -> str:
    """ "1 page", "2 pages" """
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


@app.command()
def ingest(
    targets: Annotated[list[str], typer.Argument(help="PDF or HTML files, folders, or http(s) URLs.")],
    password: Annotated[str | None, typer.Option(help="Password for encrypted PDFs.")] = None,
    untrusted: Annotated[bool, typer.Option(help="Store in quarantine:<scope>.")] = False,
    max_pages: Annotated[int | None, typer.Option(help="Refuse PDFs with more pages.  [default: 5000]")] = None,
    max_bytes: Annotated[int | None, typer.Option(
        help="Refuse larger documents.  [default: 200 MiB for a PDF file, 20 MiB for a web page or a URL]")] = None,
    timeout: Annotated[float, typer.Option(help="Seconds a URL may take to download.")] = 20.0,
    scope: ScopeOption = "default", as_json: JsonOption = False, db: DbOption = None,
) -> None:
    """Ingest documents as sources with located passages; re-ingesting a changed one makes a revision.

    Example: ledger ingest papers/ https://example.org/article.html
    """
    found = _targets(targets)
    results: list[Ingested] = []
    # dateutil, reading a page's dates for htmldate, warns of time-zone names it cannot place
    # ("PST"): nothing a reader can act on, written across the progress bar.
    with warnings.catch_warnings(), opened(db, as_json=as_json) as ledger, Progress(
            SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
            TimeElapsedColumn(), console=errors, disable=as_json) as progress:
        warnings.filterwarnings("ignore", message=r"tzname \S+ identified but not understood")
        task = progress.add_task("ingesting", total=len(found))
        for target in found:
            progress.update(task, description=escape(Path(target).name if "://" not in target else target))
            results.append(_ingest_one(ledger, target, _Limits(password, max_pages, max_bytes, timeout),
                                       trust="untrusted" if untrusted else "trusted", scope=scope))
            progress.advance(task)
    if as_json:
        print_json(results)
    else:
        _print_ingested(results)
    failed = sum(item.outcome in ("error", "needs OCR") for item in results)
    if failed or not found:
        fail(IngestError(f"{failed} of {len(found)} failed" if found else "nothing to ingest"), as_json=as_json)


def _print_ingested(results: list[Ingested]) -> None:
    table = Table(title=f"{len(results)} document(s)", title_justify="left")
    for column in ("file", "pages / paragraphs", "passages", "outcome"):
        table.add_column(column)
    for item in results:
        table.add_row(*_ingest_row(item))
    console.print(table)
    for item in results:  # the table may cut a long message short; say it in full
        if item.outcome == "error":
            errors.print(f"[red]error:[/] {escape(item.message or '')} ({escape(item.target)})",
                         highlight=False, soft_wrap=True)


@app.command()
def backup(
    path: Annotated[Path, typer.Argument(help="New file to write the copy to.")],
    as_json: JsonOption = False, db: DbOption = None,
) -> None:
    """Copy a SQLite ledger with the online backup API (consistent while others write).

    Example: ledger backup /backups/ledger-2026-11-29.db
    """
    with opened(db, as_json=as_json, create=False) as ledger:
        target = ledger.backup(path)
    if as_json:
        print_json({"path": str(target), "bytes": target.stat().st_size})
    else:
        console.print(f"backed up to {target} ({target.stat().st_size:,} bytes)")


@app.command()
def restore(
    backup_file: Annotated[Path, typer.Argument(help="A file written by `ledger backup`.")],
    force: Annotated[bool, typer.Option(help="Replace the database if it exists.")] = False,
    as_json: JsonOption = False, db: DbOption = None,
) -> None:
    """Restore a backup into the database file (--db), checking it first.

    Example: ledger restore /backups/ledger-2026-11-29.db --db ledger.db --force
    """
    from ledger.db import DEFAULT_FILE

    try:
        target = Ledger.restore(backup_file, db or DEFAULT_FILE, overwrite=force)
    except LedgerError as error:
        fail(error, as_json=as_json)
    with opened(str(target), as_json=as_json, create=False) as ledger:
        report = ledger.check()
    if as_json:
        print_json({"path": str(target), "check": report})
    else:
        console.print(f"restored {target}; check: {'ok' if report.ok else f'{len(report.findings)} finding(s)'}")
    if not report.ok:
        raise typer.Exit(1)


@app.command()
def check(as_json: JsonOption = False, db: DbOption = None) -> None:
    """Check the ledger's invariants; exits 1 when anything is found.

    Example: ledger check --db research.db
    """
    with opened(db, as_json=as_json, create=False) as ledger:
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


DEMO_URI = "demo:invoices"
DEMO_ACTOR = "demo"
#: (label, valid_at) of the demo's three time questions; None is now.
DEMO_QUESTIONS: tuple[tuple[str, str | None], ...] = (
    ("now", None), ("true on 2026-04-15", "2026-04-15"), ("true on 2026-07-01", "2026-07-01"))


@app.command()
def demo(as_json: JsonOption = False, db: DbOption = None) -> None:
    """Record a small bi-temporal example and answer the three time questions.

    The ledger must be new or hold only what earlier demo runs wrote; any other data is left
    alone and the demo refuses (exit 4).

    Example: ledger demo --db /tmp/demo.db
    """
    with opened(db, as_json=as_json) as ledger:
        _refuse_data_not_from_the_demo(ledger)
        invoices = ledger.add_source(text=DEMO_TEXT, uri=DEMO_URI, title="Utility invoices")
        for value, start in (("PLN 280", "2026-03-01"), ("PLN 245", "2026-07-01")):
            ledger.assert_claim("home", "electricity bill", value=value, valid_from=start,
                                evidence=[ledger.cite(invoices, f"electricity bill for the flat is {value}")],
                                actor=DEMO_ACTOR)
        history = ledger.history("home", "electricity bill")
        answers = {label: [c.object_label for c in ledger.claims("home", "electricity bill", valid_at=valid_at)]
                   for label, valid_at in DEMO_QUESTIONS}
        if as_json:
            print_json({"ledger": ledger.url, "history": history, "answers": answers})
            return
        console.print(f"ledger at {escape(ledger.url)}")
        console.print(claims_table(history, title="history", versions=True))
        for label, values in answers.items():
            console.print(f"{label:>22}: {escape(', '.join(values)) or '(nothing)'}")


def _refuse_data_not_from_the_demo(ledger: Ledger) -> None:
    """Raise Conflict if the ledger holds anything, in any scope, that no demo run wrote."""
    found = ledger._read(_data_not_from_the_demo)
    if found:
        raise Conflict(f"{describe(ledger.url)} already holds data the demo did not write ({', '.join(found)}); "
                       "the demo leaves it alone: run it on a new file, e.g. ledger demo --db demo.db")


def _data_not_from_the_demo(connection: Connection) -> list[str]:
    """Counts such as "sources: 3" of the rows, in any scope, that the demo does not write."""
    from sqlalchemy import func, or_, select, true

    from ledger.model import metadata

    t = metadata.tables
    sources, entities, aliases = t["sources"], t["entities"], t["aliases"]
    claims_, versions = t["claims"], t["claim_versions"]
    not_the_demos = {
        "sources": (sources, or_(sources.c.scope != "default", sources.c.uri.is_distinct_from(DEMO_URI))),
        "entities": (entities, or_(entities.c.scope != "default", entities.c.name != "home")),
        "aliases": (aliases, or_(aliases.c.scope != "default", aliases.c.alias != "home")),
        "claims": (claims_, claims_.c.actor.is_distinct_from(DEMO_ACTOR)),
        "claim versions": (versions, versions.c.actor.is_distinct_from(DEMO_ACTOR)),
        "predicates": (t["predicates"], true()),
        "tombstones": (t["tombstones"], true()),
    }
    counts = {name: connection.execute(select(func.count()).select_from(table).where(where)).scalar_one()
              for name, (table, where) in not_the_demos.items()}
    return [f"{name}: {count}" for name, count in counts.items() if count]


def main() -> None:
    """Entry point for ``python -m ledger``."""
    app()
