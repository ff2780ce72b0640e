"""``ledger export`` and ``ledger import KIND FILE...``: a scope out to a file and back, with a progress bar."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)

from ledger.cli.common import (
    DbOption,
    JsonOption,
    ScopeOption,
    console,
    errors,
    fail,
    opened,
)
from ledger.cli.render import print_json
from ledger.cli.wikidata import import_wikidata
from ledger.errors import InvalidInput

#: What ``ledger import`` reads (KIND).
IMPORT_KINDS = ("jsonl", "wikidata")


@contextmanager
def _bar(label: str, shown: bool) -> Iterator[Callable[[int, int], None] | None]:
    """A progress callback drawing a bar on stderr (none with --json or when asked not to)."""
    if not shown:
        yield None
        return
    with Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=errors,
                  transient=True) as progress:
        task = progress.add_task(label, total=None)

        def update(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total or None)

        yield update


def export(
    path: Annotated[Path, typer.Argument(help="File to write (replaced only once complete).")],
    format: Annotated[str, typer.Option("--format", "-f", help="jsonl, turtle, nquads or annotations.")] = "jsonl",
    known_at: Annotated[str | None, typer.Option(help="System time: export what the ledger held then.")] = None,
    scope: ScopeOption = "default", as_json: JsonOption = False, db: DbOption = None,
) -> None:
    """Export a scope as held at --known-at: JSON Lines (re-importable), RDF 1.2 Turtle or N-Quads, or Web Annotations.

    Example: ledger export acme.ttl --format turtle --known-at 2026-05-01
    """
    with opened(db, as_json=as_json, create=False) as ledger, _bar("exporting", not as_json) as progress:
        report = ledger.export(path, known_at=known_at, scope=scope, format=format,  # type: ignore[arg-type]
                               progress=progress)
    if as_json:
        print_json(report)
    else:
        rows = ", ".join(f"{count} {section}" for section, count in report.counts.items() if count)
        console.print(f"exported scope {report.scope} as held at {report.known_at:%Y-%m-%d %H:%M:%S} "
                      f"to {report.path} ({report.format}): {rows or 'nothing'}")


def import_(
    kind: Annotated[str, typer.Argument(metavar="KIND", help="What the files are: jsonl (a ledger export) or wikidata (entity JSON or a dump).")],
    files: Annotated[list[Path], typer.Argument(metavar="FILE...", help="The files to read.")],
    scope: Annotated[str | None, typer.Option("--scope", help="Empty scope to restore into (default: the file's).")]
    = None,
    as_json: JsonOption = False, db: DbOption = None,
) -> None:
    """Read records written elsewhere; jsonl: restore a ledger export into an empty scope, with its history;
    wikidata: entity JSON (wbgetentities, one entity, JSON lines, .json/.json.gz/.json.bz2 dumps), one claim per statement.

    Example: ledger import jsonl acme.jsonl --scope restored
    """
    if kind not in IMPORT_KINDS:
        fail(InvalidInput(f"ledger import reads {', '.join(IMPORT_KINDS)}; got {kind!r}"), as_json=as_json)
    if kind == "wikidata":
        import_wikidata(files, scope=scope or "default", as_json=as_json, db=db)
        return
    if len(files) != 1:
        fail(InvalidInput(f"ledger import jsonl restores one file at a time; got {len(files)}"), as_json=as_json)
    with opened(db, as_json=as_json) as ledger, _bar("importing", not as_json) as progress:
        report = ledger.import_jsonl(files[0], scope=scope, progress=progress)
    if as_json:
        print_json(report)
    else:
        rows = ", ".join(f"{count} {section}" for section, count in report.counts.items() if count)
        console.print(f"imported into scope {report.scope} (as held at {report.known_at:%Y-%m-%d %H:%M:%S}"
                      f"{', ids renumbered' if report.renumbered else ''}): {rows or 'nothing'}")
