"""The ``ledger`` command line: parse, make one API call, render. ``--json`` for machines.

Every failure exits non-zero: the LedgerError's exit code (2 bad input or an unreadable
document, 3 not found, 4 conflict, 5 clock, 6 database, 7 a URL that could not be fetched, 8 refused by
the write policy, 9 a path search out of time), 1 for anything else. Errors are one line on stderr; with
``--json``, one JSON object ``{"error": <class>, "message": ...}``.

The command line uses only what a program could: ``ledger``'s public names, its records and its
errors (tests/test_cli_imports.py holds it to that).
"""

from __future__ import annotations

import typer

from ledger.cli import commands
from ledger.cli.contradictions import contradictions, resolve
from ledger.cli.demo import demo
from ledger.cli.graph import ask, graph, neighborhood, paths
from ledger.cli.ingest import ingest
from ledger.cli.interchange import export, import_
from ledger.cli.report import maintain, report
from ledger.cli.safety import erase, promote, quarantine
from ledger.cli.search import search, suggest
from ledger.cli.wikidata import predicates

__all__ = ["app", "main"]

app = typer.Typer(
    name="ledger",
    help="A ledger of source-backed, bi-temporal claims.\n\nThe database is --db, else $LEDGER_URL, else ./ledger.db.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

# In the order ``ledger --help`` lists them.
app.command()(commands.claims)
app.command()(commands.history)
app.command()(commands.audit)
app.command()(commands.explain)
app.command()(report)
app.command()(contradictions)
app.command()(resolve)
app.command("add-source")(commands.add_source)
app.command("assert")(commands.assert_)
app.command()(ingest)
app.command()(predicates)
app.command()(export)
app.command("import")(import_)
app.command()(commands.backup)
app.command()(commands.restore)
app.command()(commands.check)
app.command()(search)
app.command()(suggest)
app.command()(commands.recall)
app.command()(commands.mcp)
app.command()(neighborhood)
app.command()(paths)
app.command()(graph)
app.command()(ask)
app.command()(maintain)
app.command()(quarantine)
app.command()(promote)
app.command()(erase)
app.command()(demo)


def main() -> None:
    """Entry point for ``python -m ledger``."""
    app()
