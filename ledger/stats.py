"""Counts of stored rows, for telling a scratch ledger from one that holds real data."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Connection

from ledger import queries
from ledger.entities import check_text


def rows_besides(connection: Connection, *, actor: str, source_uri: str, entity: str) -> dict[str, int]:
    """Counts by kind, in every scope, of the rows other than ``actor``'s claims and versions and,
    in the default scope, the source at ``source_uri`` and the entity ``entity`` with its alias;
    kinds with none are left out."""
    rows = queries.run(connection, "rows_besides", actor=actor, source_uri=source_uri, entity=entity)
    return {row.kind: row.total for row in rows if row.total}


def rows_besides_reader(*, actor: str, source_uri: str, entity: str) -> Callable[[Connection], dict[str, int]]:
    """``rows_besides`` with checked arguments, as work for a read transaction."""
    for name, value in (("actor", actor), ("source_uri", source_uri), ("entity", entity)):
        check_text(value, what=name)
    return lambda connection: rows_besides(connection, actor=actor, source_uri=source_uri, entity=entity)
