"""Which predicate a name means in a scope, and the definition in force for it.

A name resolves, after ``normalize_name``, through the aliases of its scope, then the aliases for
every scope, then the shipped vocabulary; a name none of them knows is its own predicate.
Definitions are looked up the same way round: the scope's own, then the declarations for every
scope (the ``predicates`` table), then the shipped one; none means the default of DESIGN §4.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import Connection, bindparam, select

from ledger import store
from ledger.claims.load import entity_scopes
from ledger.claims.rules import Held, all_clashes
from ledger.claims.values import object_key
from ledger.entities import normalize_name
from ledger.interchange.records import PredicateClash
from ledger.interchange.vocabulary import shipped, shipped_names
from ledger.records import ClaimId

#: The scope of aliases that hold in every scope.
EVERY_SCOPE = ""


def resolve_names(connection: Connection, pairs: Iterable[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """(scope, predicate as given, in its stored form) → the stored name of the predicate it names."""
    wanted = set(pairs)
    if not wanted:
        return {}
    normalized = {name: normalize_name(name) for _, name in wanted}
    stored = store.alias_targets(connection, {s for s, _ in wanted} | {EVERY_SCOPE}, normalized.values())
    index = shipped_names()
    resolved: dict[tuple[str, str], str] = {}
    for scope, name in wanted:
        folded = normalized[name]
        resolved[(scope, name)] = (stored.get((scope, folded)) or stored.get((EVERY_SCOPE, folded))
                                   or index.get(folded) or name)
    return resolved


def resolve_name(connection: Connection, scope: str, name: str) -> str:
    """The stored name of the predicate ``name`` names in ``scope``."""
    return resolve_names(connection, [(scope, name)])[(scope, name)]


def shipped_row(name: str) -> dict[str, Any] | None:
    """A shipped predicate as a definition row, or None."""
    predicate = shipped().get(name)
    if predicate is None:
        return None
    return {"name": predicate.name, "cardinality": predicate.cardinality, "object_kind": predicate.object_kind,
            "datatype": predicate.datatype, "inverse": predicate.inverse, "description": predicate.constraint,
            "separators": list(predicate.separators), "wikidata": predicate.wikidata, "origin": "shipped",
            "scope": None}


def definitions(connection: Connection, pairs: Iterable[tuple[str, str]]) -> dict[tuple[str, str], Mapping[str, Any]]:
    """(scope, stored name) → the definition in force there (its ``origin`` says whose), if any."""
    wanted = set(pairs)
    if not wanted:
        return {}
    scoped = store.scoped_definitions(connection, wanted)
    declared = store.predicate_rows(connection, {name for _, name in wanted})
    found: dict[tuple[str, str], Mapping[str, Any]] = {}
    for scope, name in wanted:
        if (row := scoped.get((scope, name))) is not None:
            found[(scope, name)] = dict(row)
        elif (row := declared.get(name)) is not None:
            found[(scope, name)] = {**row, "origin": "declared", "scope": None, "separators": None,
                                    "wikidata": None}
        elif (shipped_definition := shipped_row(name)) is not None:
            found[(scope, name)] = shipped_definition
    return found


_STANDING_OF = select(store.claims.c.scope, store.claims.c.subject_id, store.claims.c.predicate).distinct().where(
    store.claims.c.predicate == bindparam("predicate"))


def clashes(connection: Connection, predicate: str, scope: str | None) -> list[PredicateClash]:
    """Every pair of standing, undisputed claims of ``predicate`` (in ``scope``, or any) that would
    hold two values at the same time if the predicate were functional."""
    keys = {tuple(r) for r in connection.execute(_STANDING_OF, {"predicate": predicate})
            if scope is None or r[0] == scope}
    rows = [r for r in store.standing_claims(connection, keys) if r["status"] != "disputed"
            and not (r["valid_from"] is not None and r["valid_from"] == r["valid_until"])]
    roots = entity_scopes(connection, {r["subject_id"] for r in rows})
    held = [Held(r["claim_id"], (r["scope"], roots[r["subject_id"]][1], r["predicate"], r["qualifiers"]),
                 (object_key(r["object_id"], r["value"], r["datatype"]),),  # 30 and 30.0 are one value
                 r["valid_from"], r["valid_until"], r["valid_from_precision"], r["valid_until_precision"])
            for r in rows]
    return [PredicateClash(scope=key[0], subject_id=key[1], predicate=key[2], qualifiers=key[3],
                           first_claim=ClaimId(first), second_claim=ClaimId(second))
            for first, second, key in all_clashes(held)]
