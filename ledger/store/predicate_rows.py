"""Predicate definitions per scope and predicate aliases: rows in and out."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, insert, select, update

from ledger.store.driver import Ids, one_of, predicate_aliases, predicate_definitions, predicates

_SCOPED = select(predicate_definitions).where(
    one_of(predicate_definitions.c.scope, "scopes"), one_of(predicate_definitions.c.name, "names"))
_IN_SCOPE = select(predicate_definitions).where(predicate_definitions.c.scope == bindparam("scope")) \
    .order_by(predicate_definitions.c.name)
_ALL_DECLARED = select(predicates).order_by(predicates.c.name)
_ALIASES = select(predicate_aliases.c.scope, predicate_aliases.c.normalized, predicate_aliases.c.predicate).where(
    one_of(predicate_aliases.c.scope, "scopes"), one_of(predicate_aliases.c.normalized, "names"))
_ALIASES_IN = select(predicate_aliases.c.scope, predicate_aliases.c.predicate, predicate_aliases.c.alias).where(
    one_of(predicate_aliases.c.scope, "scopes")).order_by(predicate_aliases.c.id)


def scoped_definitions(connection: Connection, keys: Iterable[tuple[str, str]]) -> dict[tuple[str, str], Mapping[Any, Any]]:
    """Per-scope definitions by (scope, name)."""
    wanted = set(keys)
    if not wanted:
        return {}
    params = {"scopes": sorted({s for s, _ in wanted}), "names": sorted({n for _, n in wanted})}
    rows = connection.execute(_SCOPED, params).mappings()
    return {(row["scope"], row["name"]): row for row in rows if (row["scope"], row["name"]) in wanted}


def definitions_in_scope(connection: Connection, scope: str) -> list[Mapping[Any, Any]]:
    """Every definition made for ``scope``, by name."""
    return list(connection.execute(_IN_SCOPE, {"scope": scope}).mappings())


def declared_everywhere(connection: Connection) -> list[Mapping[Any, Any]]:
    """Every declaration for all scopes (the ``predicates`` table), by name."""
    return list(connection.execute(_ALL_DECLARED).mappings())


def put_definition(connection: Connection, ids: Ids, now: datetime, row: Mapping[str, Any]) -> None:
    """Insert a definition for a scope, or replace the one of the same scope and name."""
    key = (row["scope"], row["name"])
    if key in scoped_definitions(connection, [key]):
        connection.execute(update(predicate_definitions).where(
            predicate_definitions.c.scope == row["scope"], predicate_definitions.c.name == row["name"]).values(**row))
    else:
        connection.execute(insert(predicate_definitions),
                           {**row, "id": ids.take(predicate_definitions), "recorded_at": now})


def alias_targets(connection: Connection, scopes: Iterable[str], normalized: Iterable[str]) -> dict[tuple[str, str], str]:
    """(scope, normalized alias) → the predicate it names, for the aliases stored in ``scopes``."""
    params = {"scopes": sorted(set(scopes)), "names": sorted(set(normalized))}
    if not params["scopes"] or not params["names"]:
        return {}
    return {(scope, name): predicate for scope, name, predicate in connection.execute(_ALIASES, params)}


def aliases_in(connection: Connection, scopes: Iterable[str]) -> list[tuple[str, str, str]]:
    """(scope, predicate, alias as written) of every alias stored in ``scopes``, oldest first."""
    return [(s, p, a) for s, p, a in connection.execute(_ALIASES_IN, {"scopes": sorted(set(scopes))})]


def add_predicate_aliases(
    connection: Connection, ids: Ids, now: datetime, *, scope: str, predicate: str,
    aliases: Mapping[str, str],
) -> list[tuple[str, str]]:
    """Store ``aliases`` (normalized → as written) of ``predicate`` in ``scope``; returns the
    (alias, predicate) pairs refused because the alias names another predicate there."""
    taken = alias_targets(connection, [scope], aliases)
    refused: list[tuple[str, str]] = []
    rows = []
    for normalized, alias in aliases.items():
        owner = taken.get((scope, normalized))
        if owner is None:
            rows.append({"id": ids.take(predicate_aliases), "scope": scope, "predicate": predicate, "alias": alias,
                         "normalized": normalized, "recorded_at": now})
        elif owner != predicate:
            refused.append((alias, owner))
    if rows:
        connection.execute(insert(predicate_aliases), rows)
    return refused
