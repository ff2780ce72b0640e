"""Predicate declarations: cardinality, object kind, datatype, inverse."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import Connection

from ledger import store, validate
from ledger.claims.status import refuse_functional_overlaps
from ledger.claims.values import DATATYPES
from ledger.entities import check_text
from ledger.errors import InvalidInput
from ledger.records import PredicateInfo


def check_definition(
    name: str, *, cardinality: object, object_kind: object, datatype: object, inverse: str | None,
    description: str | None,
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
    return PredicateInfo(name=name, cardinality=cardinality, object_kind=object_kind,
                         datatype=datatype, inverse=inverse, description=description)


def define(connection: Connection, ids: store.Ids, now: datetime, declared: PredicateInfo) -> PredicateInfo:
    """Store a declaration (replacing one of the same name); refused if claims already give a
    predicate declared functional two undisputed values at once."""
    store.put_predicate(connection, ids, now, _row(declared))
    if declared.cardinality == "one":
        refuse_functional_overlaps(connection, predicate=declared.name,
                                   because=f"declaring {declared.name!r} functional (cardinality one)")
    return declared


def info(row: Mapping[str, Any] | None) -> PredicateInfo | None:
    """The declaration in a predicates row."""
    if row is None:
        return None
    return PredicateInfo(name=row["name"], cardinality=row["cardinality"], object_kind=row["object_kind"],
                         datatype=row["datatype"], inverse=row["inverse"], description=row["description"])


def _row(declared: PredicateInfo) -> dict[str, Any]:
    return {"name": declared.name, "cardinality": declared.cardinality, "object_kind": declared.object_kind,
            "datatype": declared.datatype, "inverse": declared.inverse, "description": declared.description}
