"""The reading, writing and upkeep commands: parse, make one API call, render."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ledger import Ledger
from ledger.agent import serve
from ledger.cli.common import DbOption, JsonOption, ScopeOption, console, fail, opened
from ledger.cli.render import (
    print_json,
    show_audit,
    show_check,
    show_claims,
    show_explanation,
)
from ledger.errors import InvalidInput, LedgerError

ALL_STATUSES = ("reported", "confirmed", "disputed", "retracted", "superseded")


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
        found = ledger.claims(subject, predicate, valid_at=valid_at, known_at=known_at,
                              statuses=ALL_STATUSES if all_statuses else None, scope=scope)
    if as_json:
        print_json(found)
    else:
        show_claims(found, title=f"{len(found)} claim(s)")


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
        show_claims(found, title=f"history of {subject} / {predicate}", versions=True)


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
    else:
        show_audit(found)


def explain(claim_id: int, as_json: JsonOption = False, db: DbOption = None) -> None:
    """Why the ledger holds a claim: versions, links, and each excerpt with its source and locator.

    Example: ledger explain 12
    """
    with opened(db, as_json=as_json, create=False) as ledger:
        found = ledger.explain(claim_id)
    if as_json:
        print_json(found)
    else:
        show_explanation(found)


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
        show_claims([claim], title=str(claim.cause or "asserted"))


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


def restore(
    backup_file: Annotated[Path, typer.Argument(help="A file written by `ledger backup`.")],
    force: Annotated[bool, typer.Option(help="Replace the database if it exists.")] = False,
    as_json: JsonOption = False, db: DbOption = None,
) -> None:
    """Restore a backup into the database file (--db), checking it first.

    Example: ledger restore /backups/ledger-2026-11-29.db --db ledger.db --force
    """
    try:
        target = Ledger.restore(backup_file, db, overwrite=force)
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


def check(as_json: JsonOption = False, db: DbOption = None) -> None:
    """Check the ledger's invariants; exits 1 when anything is found.

    Example: ledger check --db research.db
    """
    with opened(db, as_json=as_json, create=False) as ledger:
        report = ledger.check()
    if as_json:
        print_json(report)
    else:
        show_check(report)
    if not report.ok:
        raise typer.Exit(1)


def mcp(
    scope: ScopeOption = "default",
    actor: Annotated[str, typer.Option(help="Who the tool calls are logged as.")] = "mcp",
    as_json: Annotated[bool, typer.Option("--json", help="A failure to start as a JSON object on stderr.")] = False,
    db: DbOption = None,
) -> None:
    """Serve the ledger's tools to an agent over MCP (stdio) until the client disconnects.

    Example: ledger mcp --db research.db --scope home
    """
    try:
        serve(db, scope=scope, actor=actor)
    except LedgerError as error:
        fail(error, as_json=as_json)


def recall(
    question: str,
    budget: Annotated[int, typer.Option(help="Token budget of the packet.")] = 600,
    valid_at: Annotated[str | None, typer.Option(help="World time asked about (default: read from the question, else now).")] = None,
    known_at: Annotated[str | None, typer.Option(help="System time: what the ledger said then (default now).")] = None,
    scope: ScopeOption = "default", as_json: JsonOption = False, db: DbOption = None,
) -> None:
    """What the ledger holds that answers QUESTION: claims with validity, warnings and sources.

    Example: ledger recall "how much do I pay for electricity?" --budget 400
    """
    with opened(db, as_json=as_json, create=False) as ledger:
        packet = ledger.recall(question, budget_tokens=budget, valid_at=valid_at, known_at=known_at, scope=scope)
    if as_json:
        print_json(packet.to_dict())
    else:
        console.print(packet.to_prompt(), highlight=False, markup=False, soft_wrap=True)
