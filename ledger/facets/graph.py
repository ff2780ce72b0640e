"""The graph part of the facade: neighbourhoods, paths, whole-scope graphs, exports, audit questions."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection

from ledger import graph as walk
from ledger import graphio, naming, questions, validate
from ledger.errors import NotFound
from ledger.facets.base import Facet
from ledger.timeline import TimeInput
from ledger.validate import EntityRef, check_scope

if TYPE_CHECKING:
    import networkx

    from ledger.graph import GraphPath


class GraphCalls(Facet):
    """Time-sliced traversal over entity-valued claims, and the named audit questions."""

    def neighborhood(self, entity: EntityRef, *, depth: int = 2, valid_at: TimeInput | None = None,
                     known_at: TimeInput | None = None, predicates: Iterable[str] | str | None = None,
                     statuses: Iterable[str] | str | None = None, direction: str = "both", scope: str = "default",
                     max_nodes: int = walk.MAX_NODES, time_budget: float = walk.TIME_BUDGET,
                     ) -> networkx.MultiDiGraph:
        """Entities within ``depth`` claims of ``entity`` as a MultiDiGraph (one edge per claim, keyed by its id).

        Bounded: past ``max_nodes`` nodes or ``time_budget`` seconds it returns what it has, with
        ``graph.graph["truncated"]`` True and ``graph.graph["truncated_reason"]`` saying which.
        """
        walk.check_bounds(depth=depth, max_nodes=max_nodes, time_budget=time_budget)
        way = walk.check_direction(direction)
        graph_slice = self._slice(scope, valid_at, known_at, predicates, statuses)
        return self._read(lambda connection: walk.neighborhood(
            connection, self._root(connection, entity, graph_slice), graph_slice, depth=depth, direction=way,
            max_nodes=max_nodes, time_budget=time_budget))

    def paths(self, a: EntityRef, b: EntityRef, *, max_depth: int = 4, valid_at: TimeInput | None = None,
              known_at: TimeInput | None = None, predicates: Iterable[str] | str | None = None,
              statuses: Iterable[str] | str | None = None, direction: str = "both", scope: str = "default",
              limit: int = walk.MAX_PATHS, time_budget: float = walk.TIME_BUDGET) -> list[GraphPath]:
        """Simple paths of at most ``max_depth`` claims from ``a`` to ``b``, shortest first, at most ``limit``.

        Raises TraversalLimit (its ``partial`` holds the paths found) when ``time_budget`` runs out.
        """
        walk.check_bounds(depth=max_depth, max_nodes=limit, time_budget=time_budget, what="max_depth")
        way = walk.check_direction(direction)
        graph_slice = self._slice(scope, valid_at, known_at, predicates, statuses)

        def read(connection: Connection) -> list[GraphPath]:
            source, target = self._root(connection, a, graph_slice), self._root(connection, b, graph_slice)
            return walk.paths(connection, source, target, graph_slice, max_depth=max_depth, direction=way,
                              limit=limit, time_budget=time_budget)

        return self._read(read)

    def graph(self, *, scope: str = "default", valid_at: TimeInput | None = None, known_at: TimeInput | None = None,
              predicates: Iterable[str] | str | None = None,
              statuses: Iterable[str] | str | None = None) -> networkx.MultiDiGraph:
        """The whole scope as of a time: its entities and entity-valued claims in the slice."""
        graph_slice = self._slice(scope, valid_at, known_at, predicates, statuses)
        return self._read(lambda connection: walk.whole_graph(connection, graph_slice))

    @staticmethod
    def write_graph(graph: networkx.MultiDiGraph, path: str | os.PathLike[str], *,
                    format: graphio.ExportFormat = "graphml") -> Path:
        """Write a graph from neighborhood() or graph() as GraphML or node-link JSON."""
        return graphio.write_graph(graph, path, format=format)

    @staticmethod
    def node_link(graph: networkx.MultiDiGraph) -> dict[str, Any]:
        """A graph from neighborhood() or graph() as node-link data, ready for json.dumps."""
        return graphio.node_link(graph)

    def ask(self, question: str, *, scope: str = "default", **params: object) -> list[dict[str, Any]]:
        """Rows answering a named audit question (queries/<question>.sql); times default to now."""
        scope = check_scope(scope)
        checked = questions.check(question, params, self.now())
        return self._read(lambda connection: questions.ask(connection, question, scope, checked))

    def _slice(self, scope: str, valid_at: TimeInput | None, known_at: TimeInput | None,
               predicates: Iterable[str] | str | None, statuses: Iterable[str] | str | None) -> walk.Slice:
        scope = check_scope(scope)
        valid, known = validate.moment(valid_at, "valid_at"), validate.moment(known_at, "known_at")
        now = self.now() if valid is None or known is None else known  # with both times given, no clock read
        return walk.Slice(scope=scope, valid_at=valid or now, known_at=known or now,
                          predicates=walk.check_predicates(predicates), statuses=walk.statuses_of(statuses))

    @staticmethod
    def _root(connection: Connection, entity: EntityRef, graph_slice: walk.Slice) -> int:
        if isinstance(entity, str):
            found = naming.resolve(connection, entity, graph_slice.scope)
            if found is None:
                raise NotFound(f"no entity is named {entity!r} in scope {graph_slice.scope!r}")
            entity_id = int(found.id)
        else:
            entity_id = validate.entity_id_of(entity)
        return walk.entity_root(connection, entity_id, scope=graph_slice.scope, known_at=graph_slice.known_at)
