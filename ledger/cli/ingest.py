"""``ledger ingest``: files, folders and URLs in, one row per document out."""

from __future__ import annotations

import dataclasses
import warnings
from pathlib import Path
from typing import Annotated, NamedTuple

import typer
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
)

from ledger import Ledger
from ledger.cli.common import DbOption, JsonOption, ScopeOption, errors, fail, opened
from ledger.cli.render import print_json, show_ingested
from ledger.errors import IngestError, LedgerError, NeedsOCR
from ledger.records import Trust

#: The file name endings a folder is searched for: those ``Ledger.ingest_file`` reads by name.
DOCUMENT_SUFFIXES = (".pdf", ".html", ".htm", ".xhtml")


def _is_url(target: str) -> bool:
    return target.startswith(("http://", "https://"))


def expand(items: list[str]) -> list[str]:
    """Files, folders (searched for PDF and HTML files) and URLs, in a stable order. A folder
    holding none stays in the list: it gets a row saying so."""
    found: list[str] = []
    for item in items:
        path = Path(item)
        if not _is_url(item) and path.is_dir():
            inside = [str(p) for p in sorted(path.rglob("*")) if p.suffix.lower() in DOCUMENT_SUFFIXES and p.is_file()]
            found.extend(inside or [item])
        else:
            found.append(item)
    return found


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


class Options(NamedTuple):
    """The options of ``ledger ingest`` that bound, unlock or place what it reads."""

    password: str | None
    max_pages: int | None
    max_bytes: int | None
    timeout: float
    trust: Trust
    scope: str
    allow_private: bool = False


def ingest_one(ledger: Ledger, target: str, options: Options) -> Ingested:
    """Ingest one file or URL; errors become the outcome."""
    try:
        if _is_url(target):
            source = ledger.ingest_url(target, timeout=options.timeout, max_bytes=options.max_bytes,
                                       trust=options.trust, scope=options.scope,
                                       allow_private=options.allow_private or None)
        elif Path(target).is_dir():
            raise IngestError(f"the folder {target} holds no PDF or HTML file ({', '.join(DOCUMENT_SUFFIXES)})")
        else:
            source = ledger.ingest_file(target, password=options.password, max_pages=options.max_pages,
                                        max_bytes=options.max_bytes, trust=options.trust, scope=options.scope)
    except NeedsOCR as error:
        return Ingested(target, "needs OCR", pages_without_text=error.pages,
                        message=str(error))
    except LedgerError as error:
        return Ingested(target, "error", message=str(error))
    outcome = "unchanged" if not source.created else "new revision" if source.revision_of is not None else "ingested"
    return Ingested(target, outcome, source=source.id, revision_of=source.revision_of, pages=source.page_count,
                    passages=source.passage_count, pages_without_text=source.pages_without_text,
                    pages_partly_unreadable=source.pages_partly_unreadable)


def ingest(
    targets: Annotated[list[str], typer.Argument(help="PDF or HTML files, folders, or http(s) URLs.")],
    password: Annotated[str | None, typer.Option(help="Password for encrypted PDFs.")] = None,
    untrusted: Annotated[bool, typer.Option(help="Store in quarantine:<scope>.")] = False,
    max_pages: Annotated[int | None, typer.Option(help="Refuse PDFs with more pages.  [default: 5000]")] = None,
    max_bytes: Annotated[int | None, typer.Option(
        help="Refuse larger documents.  [default: 200 MiB for a PDF file, 20 MiB for a web page or a URL]")] = None,
    timeout: Annotated[float, typer.Option(help="Seconds a URL may take to download.")] = 20.0,
    allow_private: Annotated[bool, typer.Option(
        help="Let URLs reach loopback, private and link-local addresses (refused by default).")] = False,
    scope: ScopeOption = "default", as_json: JsonOption = False, db: DbOption = None,
) -> None:
    """Ingest documents as sources with located passages; re-ingesting a changed one makes a revision.

    Example: ledger ingest papers/ https://example.org/article.html
    """
    found = expand(targets)
    options = Options(password, max_pages, max_bytes, timeout, "untrusted" if untrusted else "trusted", scope,
                      allow_private)
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
            results.append(ingest_one(ledger, target, options))
            progress.advance(task)
    if as_json:
        print_json(results)
    else:
        show_ingested(results)
    failed = sum(item.outcome in ("error", "needs OCR") for item in results)
    if failed or not found:
        fail(IngestError(f"{failed} of {len(found)} failed" if found else "nothing to ingest"), as_json=as_json)
