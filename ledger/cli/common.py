"""What every command shares: the consoles, the common options, and failures as exit codes."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from ledger import Ledger
from ledger.errors import LedgerError

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
