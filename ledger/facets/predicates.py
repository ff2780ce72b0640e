"""The predicate calls of the facade: declarations per scope, aliases, and what is in force."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from ledger import predicates, validate
from ledger.facets.base import Facet
from ledger.interchange.records import PredicateClash
from ledger.records import PredicateInfo


class PredicateCalls(Facet):
    """define_predicate, predicate, predicates, predicate_clashes."""

    def define_predicate(self, name: str, *, cardinality: Literal["one", "many"] = "one",
                         object_kind: Literal["entity", "value"] = "value", datatype: str | None = None,
                         inverse: str | None = None, description: str | None = None, aliases: Iterable[str] = (),
                         scope: str | None = None) -> PredicateInfo:
        """Declare a predicate for ``scope`` (None: every scope), overriding the shipped vocabulary there."""
        declared = predicates.check_definition(name, cardinality=cardinality, object_kind=object_kind,
                                               datatype=datatype, inverse=inverse, description=description,
                                               aliases=aliases)
        checked = None if scope is None else validate.check_scope(scope)
        return self._write(lambda connection, now, ids: predicates.define(connection, ids, now, declared,
                                                                          scope=checked))

    def predicate_clashes(self, name: str, *, scope: str | None = None) -> list[PredicateClash]:
        """The pairs of claims that declaring ``name`` functional would refuse over (a dry run)."""
        declared = predicates.check_definition(name, cardinality="one", object_kind="value", datatype=None,
                                               inverse=None, description=None)
        checked = None if scope is None else validate.check_scope(scope)
        return list(self._read(lambda connection: predicates.dry_run(connection, declared, checked)))

    def predicate(self, name: str, *, scope: str = "default") -> PredicateInfo | None:
        """The definition in force for the predicate ``name`` names in ``scope``, or None (the default)."""
        name, scope = validate.check_predicate(name), validate.check_scope(scope)
        return self._read(lambda connection: predicates.in_force(connection, scope, name))

    def predicates(self, *, scope: str = "default") -> list[PredicateInfo]:
        """Every predicate with a definition in force in ``scope`` and where it comes from (``origin``)."""
        scope = validate.check_scope(scope)
        return self._read(lambda connection: predicates.listing(connection, scope))
