"""Predicate declarations: cardinality, object kind, datatype, inverse, aliases; for every scope
(the ``predicates`` table) or for one (overriding the shipped vocabulary); what is in force."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Connection

from ledger import store, validate
from ledger.claims.values import DATATYPES
from ledger.claims.vocabulary import EVERY_SCOPE, clashes, definitions, resolve_name
from ledger.entities import check_text, normalize_name
from ledger.errors import AliasConflict, FunctionalClash, InvalidInput
from ledger.interchange.records import PredicateClash
from ledger.interchange.vocabulary import shipped
from ledger.records import PredicateInfo


def check_definition(
    name: str, *, cardinality: object, object_kind: object, datatype: object, inverse: str | None,
    description: str | None, aliases: Iterable[str] = (),
) -> PredicateInfo:
    """A declaration from checked arguments, or InvalidInput."""
    name = validate.check_predicate(name)
    if cardinality not in ("one", "many"):
        raise InvalidInput(f"cardinality must be 'one' or 'many'; got {cardinality!r}")
    if object_kind not in ("entity", "value"):
        raise InvalidInput(f"object_kind must be 'entity' or 'value'; got {object_kind!r}")
    if datatype is not None and object_kind == "entity":
        raise InvalidInput("datatype applies to value predicates only")
    if datatype is not None and datatype not in DATATYPES:
        raise InvalidInput(f"datatype must be one of {DATATYPES} or None; got {datatype!r:.60}")
    inverse = None if inverse is None else validate.check_predicate(inverse, what="inverse")
    if description is not None:
        check_text(description, what="description", limit=validate.MAX_REASON_LENGTH, one_line=False)
    if isinstance(aliases, (str, bytes)) or not isinstance(aliases, Iterable):
        raise InvalidInput("aliases must be a list of names (a list even for one alias)")
    names = tuple(validate.check_predicate(alias, what="alias") for alias in aliases)
    return PredicateInfo(name=name, cardinality=cast(Any, cardinality), object_kind=cast(Any, object_kind),
                         datatype=cast(Any, datatype), inverse=inverse, description=description, aliases=names)


def define(
    connection: Connection, ids: store.Ids, now: datetime, declared: PredicateInfo, *, scope: str | None,
    origin: str = "scope", separators: Sequence[str] = (), wikidata: str | None = None,
) -> PredicateInfo:
    """Store a declaration for ``scope`` (None: every scope), replacing one of the same name, with
    its aliases; FunctionalClash, undoing it, if claims already give a predicate declared
    functional two undisputed values at once."""
    name = resolve_name(connection, scope or EVERY_SCOPE, declared.name)
    row = {"name": name, "cardinality": declared.cardinality, "object_kind": declared.object_kind,
           "datatype": declared.datatype, "inverse": declared.inverse, "description": declared.description}
    if scope is None:
        store.put_predicate(connection, ids, now, row)
    else:
        store.put_definition(connection, ids, now, {
            **row, "scope": scope, "origin": origin, "wikidata": wikidata,
            "separators": json.dumps(list(separators)) if separators else None})
    add_aliases(connection, ids, now, scope=scope, name=name, aliases=declared.aliases, strict=True)
    if declared.cardinality == "one":
        refuse_clashes(connection, name, scope)
    return in_force(connection, scope or EVERY_SCOPE, name) or declared


def add_aliases(connection: Connection, ids: store.Ids, now: datetime, *, scope: str | None, name: str,
                aliases: Iterable[str], strict: bool) -> list[str]:
    """Store other names of predicate ``name``; an alias naming another predicate raises
    AliasConflict (``strict``) or is left out and returned."""
    wanted = {normalize_name(a): a for a in aliases if normalize_name(a) and normalize_name(a) != normalize_name(name)}
    refused = store.add_predicate_aliases(connection, ids, now, scope=scope or EVERY_SCOPE, predicate=name,
                                          aliases=wanted)
    if refused and strict:
        alias, owner = refused[0]
        raise AliasConflict(f"alias {alias!r} already names predicate {owner!r}; pick another alias")
    return [alias for alias, _ in refused]


def refuse_clashes(connection: Connection, name: str, scope: str | None) -> None:
    """FunctionalClash with every clash when standing claims give ``name`` two values at once."""
    found = tuple(clashes(connection, name, scope))
    if found:
        first = found[0]
        raise FunctionalClash(
            f"declaring {name!r} functional (cardinality one) would give {name!r} two undisputed values at the "
            f"same time (claims {first.first_claim} and {first.second_claim}; {len(found)} clash(es) in all, see "
            f".clashes or dry_run=True); dispute, retract or supersede one of them first", found)


def dry_run(connection: Connection, declared: PredicateInfo, scope: str | None) -> tuple[PredicateClash, ...]:
    """The clashes declaring ``declared`` would meet, without storing it."""
    if declared.cardinality != "one":
        return ()
    return tuple(clashes(connection, resolve_name(connection, scope or EVERY_SCOPE, declared.name), scope))


def in_force(connection: Connection, scope: str, name: str) -> PredicateInfo | None:
    """The definition of the predicate ``name`` names in ``scope``, with its aliases, or None."""
    stored = resolve_name(connection, scope, name)
    row = definitions(connection, [(scope, stored)]).get((scope, stored))
    if row is None:
        return None
    return _info(row, _aliases(connection, scope).get(stored, ()))


def listing(connection: Connection, scope: str) -> list[PredicateInfo]:
    """Every predicate with a definition in force in ``scope``, by name."""
    names = set(shipped()) | {r["name"] for r in store.declared_everywhere(connection)} | {
        r["name"] for r in store.definitions_in_scope(connection, scope)}
    rows = definitions(connection, [(scope, n) for n in names])
    aliases = _aliases(connection, scope)
    return [_info(rows[(scope, n)], aliases.get(n, ())) for n in sorted(names)]


def _aliases(connection: Connection, scope: str) -> dict[str, tuple[str, ...]]:
    found: dict[str, list[str]] = {}
    for predicate in shipped().values():
        found.setdefault(predicate.name, []).extend([*predicate.aliases, *filter(None, [predicate.wikidata])])
    for _, predicate_name, alias in store.aliases_in(connection, [EVERY_SCOPE, scope]):
        found.setdefault(predicate_name, []).append(alias)
    return {name: tuple(dict.fromkeys(names)) for name, names in found.items()}


def _info(row: Mapping[str, Any], aliases: tuple[str, ...]) -> PredicateInfo:
    separators = row.get("separators")
    if isinstance(separators, str):
        separators = json.loads(separators)
    return PredicateInfo(
        name=row["name"], cardinality=row["cardinality"], object_kind=row["object_kind"], datatype=row["datatype"],
        inverse=row["inverse"], description=row["description"], aliases=aliases, wikidata=row.get("wikidata"),
        separators=tuple(separators or ()), origin=row["origin"], scope=row.get("scope") or None)


def info(row: Mapping[str, Any] | None) -> PredicateInfo | None:
    """The declaration in a predicates row."""
    if row is None:
        return None
    return PredicateInfo(name=row["name"], cardinality=row["cardinality"], object_kind=row["object_kind"],
                         datatype=row["datatype"], inverse=row["inverse"], description=row["description"])
