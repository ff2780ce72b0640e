"""Named SQL statements from ``queries/*.sql``, loaded once and run with typed parameters.

Each file holds one statement after a header::

    -- name: evidence_for_claims
    -- params: ids:ids, known_at:time
    -- returns: id, claim_id, locator:json, recorded_at:time

``ids`` parameters expand to an IN list; ``time`` parameters and columns go through
``UTCTime``, ``json`` columns are decoded.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from sqlalchemy import JSON, BindParameter, Connection, CursorResult, TextClause, bindparam, text
from sqlalchemy.sql.selectable import TextualSelect

from ledger.errors import LedgerError
from ledger.model import UTCTime

_HEADER = re.compile(r"^--\s*(name|params|returns):\s*(.*)$")
_TYPES = {"time", "ids", "int", "str", "float"}


def queries_dir() -> Path:
    """Where the .sql files are, installed (ledger.sql) or in a checkout."""
    try:
        installed = resources.files("ledger.sql")
        if any(p.name.endswith(".sql") for p in installed.iterdir()):
            return Path(str(installed))
    except ModuleNotFoundError:
        pass
    return Path(__file__).resolve().parent.parent / "queries"


@cache
def statement(name: str) -> TextClause | TextualSelect:
    """The named statement, parsed and typed once per process."""
    path = queries_dir() / f"{name}.sql"
    if not path.is_file():
        raise LedgerError(f"the named query {name!r} is missing from {path.parent}; reinstall ledger")
    header: dict[str, str] = {}
    body: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        match = _HEADER.match(line)
        if match:
            header[match.group(1)] = match.group(2).strip()
        elif not line.lstrip().startswith("--"):
            body.append(line)
    if header.get("name") != name:
        raise LedgerError(f"{path} must start with '-- name: {name}'")
    clause = text("\n".join(body).strip().rstrip(";"))
    params: list[BindParameter[Any]] = []
    for spec in filter(None, (p.strip() for p in header.get("params", "").split(","))):
        param, _, kind = spec.partition(":")
        if kind not in _TYPES:
            raise LedgerError(f"{path}: parameter {param!r} has unknown type {kind!r}")
        if kind == "ids":
            params.append(bindparam(param, expanding=True))
        elif kind == "time":
            params.append(bindparam(param, type_=UTCTime()))
        else:
            params.append(bindparam(param))
    clause = clause.bindparams(*params)
    typed: dict[str, Any] = {}
    for spec in filter(None, (c.strip() for c in header.get("returns", "").split(","))):
        column, _, kind = spec.partition(":")
        if kind == "time":
            typed[column] = UTCTime()
        elif kind == "json":
            typed[column] = JSON()
    return clause.columns(**typed) if typed else clause


def run(connection: Connection, name: str, **params: Any) -> CursorResult[Any]:
    """Execute a named statement."""
    return connection.execute(statement(name), params)
