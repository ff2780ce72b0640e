"""``ledger report`` and ``ledger maintain``: parse, make one API call, render."""

from __future__ import annotations

import sys
from datetime import timedelta
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from ledger import MaintenanceReport
from ledger.cli.common import DbOption, JsonOption, ScopeOption, console, fail, opened
from ledger.cli.render import print_json, show_claims
from ledger.errors import InvalidInput

#: The names --format takes, and the report format each means.
FORMATS = {"md": "markdown", "markdown": "markdown", "json": "json", "html": "html"}


def report(
    kind: Annotated[str, typer.Argument(help="contradictions, audit or timeline.")],
    entity: Annotated[str | None, typer.Argument(help="The entity (required for timeline; a filter otherwise).")] = None,
    predicate: Annotated[str | None, typer.Argument(help="Only this predicate.")] = None,
    format_: Annotated[str | None, typer.Option("--format", help="md, json or html (default md; json with --json).")]
    = None,
    out: Annotated[Path | None, typer.Option("--out", help="Write to this file instead of stdout.")] = None,
    known_at: Annotated[str | None, typer.Option(help="System time: the ledger as it was then (default now).")] = None,
    scope: ScopeOption = "default", as_json: JsonOption = False, db: DbOption = None,
) -> None:
    """A report of contradictions, an audit, or an entity's timeline, as Markdown, JSON or HTML.

    With --json: the report is JSON unless --format says otherwise, errors are JSON on stderr, and
    with --out a JSON line says what was written.

    Example: ledger report timeline home "electricity bill" --format html --out bill.html
    """
    chosen = format_ or ("json" if as_json else "md")
    if chosen not in FORMATS:
        fail(InvalidInput(f"unknown --format {chosen!r}; choose md, json or html"), as_json=as_json)
    with opened(db, as_json=as_json, create=False) as ledger:
        text = ledger.report(kind, entity, predicate, format=FORMATS[chosen],  # type: ignore[arg-type]
                             scope=scope, known_at=known_at)
    if out is None:
        sys.stdout.write(text)
        return
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as error:
        fail(InvalidInput(f"cannot write {out}: {error}"), as_json=as_json)
    size = len(text.encode())
    if as_json:
        print_json({"kind": kind, "format": FORMATS[chosen], "path": str(out), "bytes": size})
    else:
        console.print(f"{kind} report written to {escape(str(out))} ({size:,} bytes)", highlight=False)


def maintain(
    dry_run: Annotated[bool, typer.Option("--dry-run", help="List what would be merged; change nothing.")] = False,
    older_than: Annotated[int, typer.Option(help="List unconfirmed claims first recorded this many days ago.")] = 90,
    scope: ScopeOption = "default", as_json: JsonOption = False, db: DbOption = None,
) -> None:
    """Merge duplicate claims by joining their evidence (never deleting); list unconfirmed claims,
    claims left on stale evidence and open contradictions.

    Example: ledger maintain --dry-run --older-than 30
    """
    if older_than < 0:
        fail(InvalidInput(f"--older-than must be 0 or more days; got {older_than}"), as_json=as_json)
    with opened(db, as_json=as_json, create=False) as ledger:
        done = ledger.maintain(scope=scope, older_than=timedelta(days=older_than), dry_run=dry_run)
    if as_json:
        print_json(done)
    else:
        show_maintenance(done)


def show_maintenance(done: MaintenanceReport) -> None:
    """What maintain merged (or would merge) and what it found to look at."""
    verb = "would merge" if done.dry_run else "merged"
    console.print(f"[bold]{verb} {len(done.merges)} group(s) of duplicate claims[/]")
    for merge in done.merges:
        others = ", ".join(str(i) for i in merge.merged)
        console.print(f"  claim {merge.kept} ← {others}  (+{merge.evidence_added} evidence row(s))")
    days = done.older_than.days
    if done.unconfirmed:
        show_claims(done.unconfirmed, title=f"{len(done.unconfirmed)} claim(s) unconfirmed after {days} day(s)")
    else:
        console.print(f"no claim unconfirmed after {days} day(s)")
    if done.unsupported:
        show_claims(done.unsupported, title=f"{len(done.unsupported)} claim(s) whose evidence all went stale")
    else:
        console.print("no claim left on stale evidence only")
    console.print(f"[bold]{len(done.contradictions)} open contradiction(s)[/]")
    for found in done.contradictions:
        sides = "; ".join(f"claim {side.claim.id}: {escape(side.claim.object_label)}" for side in found.sides)
        console.print(f"  {found.id} ({found.kind}) {escape(found.subject)} / {escape(found.predicate)}: {sides}",
                      highlight=False)
