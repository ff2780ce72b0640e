"""Time-sliced traversal: the recursive CTEs of queries/ walk the claims, networkx holds the result.

The SQL walk is the engine (queries/neighbourhood.sql, queries/paths.sql): it reads only the
claims at the entities it reaches, lazily and breadth first, so a reader stops it at a node limit
or a time budget. A ``networkx.MultiDiGraph`` is the form the result takes, for analysis and
export (GraphML, node-link JSON); networkx is imported only here, when a graph is built.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from sqlalchemy import Connection

from ledger import queries
from ledger.errors import InvalidInput, NotFound, ScopeMismatch, TraversalLimit
from ledger.model import UTCTime
from ledger.records import STATUSES, VISIBLE_STATUSES, ClaimId, EntityId

if TYPE_CHECKING:
    import networkx

Direction = Literal["out", "in", "both"]
DIRECTIONS: tuple[Direction, ...] = ("out", "in", "both")
#: Defaults of the bounds: nodes in one neighbourhood, seconds of walking, paths returned.
MAX_NODES = 10_000
TIME_BUDGET = 10.0
MAX_PATHS = 100
MAX_DEPTH = 10
#: Rows read from the walk between two looks at the clock; ids bound in one IN list.
_BATCH = 512
_CHUNK = 10_000


@dataclass(frozen=True, slots=True)
class Slice:
    """Which claims make the graph: a scope, both times, predicates (None: all) and statuses."""

    scope: str
    valid_at: datetime
    known_at: datetime
    predicates: tuple[str, ...] | None = None
    statuses: tuple[str, ...] = VISIBLE_STATUSES

    def params(self) -> dict[str, Any]:
        """The slice as the parameters of the named queries (lists as delimited strings)."""
        return {"scope": self.scope, "valid_at": self.valid_at, "known_at": self.known_at,
                "predicates": None if self.predicates is None else _listed(self.predicates),
                "statuses": _listed(self.statuses)}


@dataclass(frozen=True, slots=True)
class GraphEdge:
    """One claim as an edge: subject and object after merges, with its version's attributes."""

    claim_id: ClaimId
    subject_id: EntityId
    object_id: EntityId
    predicate: str
    status: str
    confidence: float
    valid_from: datetime | None
    valid_until: datetime | None
    recorded_at: datetime
    invalidated_at: datetime | None


@dataclass(frozen=True, slots=True)
class GraphPath:
    """A path between two entities: the entities passed, in order, and the claims between them."""

    entities: tuple[EntityId, ...]
    edges: tuple[GraphEdge, ...]

    def __len__(self) -> int:
        return len(self.edges)


def _listed(names: Iterable[str]) -> str:
    """Names as one delimited string (",a,b,") for a named query; the delimiter is a newline,
    which no predicate or status contains."""
    return "\n" + "\n".join(names) + "\n"


def check_predicates(predicates: Iterable[str] | str | None) -> tuple[str, ...] | None:
    """Predicate names to filter by (None: all), or InvalidInput."""
    from ledger.validate import check_predicate

    if predicates is None:
        return None
    if isinstance(predicates, str):
        predicates = [predicates]
    chosen = tuple(sorted({check_predicate(p) for p in predicates}))
    if not chosen:
        raise InvalidInput("predicates must name at least one predicate; pass None for every predicate")
    return chosen


def check_bounds(*, depth: int, max_nodes: int, time_budget: float, what: str = "depth") -> None:
    """Depth, node limit and time budget in range, or InvalidInput."""
    if isinstance(depth, bool) or not isinstance(depth, int) or not 0 <= depth <= MAX_DEPTH:
        raise InvalidInput(f"{what} must be an integer from 0 to {MAX_DEPTH}; got {depth!r}")
    if isinstance(max_nodes, bool) or not isinstance(max_nodes, int) or max_nodes < 1:
        raise InvalidInput(f"max_nodes must be a positive integer; got {max_nodes!r}")
    if isinstance(time_budget, bool) or not isinstance(time_budget, (int, float)) or not time_budget > 0:
        raise InvalidInput(f"time_budget must be a positive number of seconds; got {time_budget!r}")


def check_direction(direction: str) -> Direction:
    """'out', 'in' or 'both', or InvalidInput."""
    for known in DIRECTIONS:
        if direction == known:
            return known
    raise InvalidInput(f"direction must be one of {', '.join(DIRECTIONS)}; got {direction!r}")


def entity_root(connection: Connection, entity_id: int, *, scope: str, known_at: datetime) -> int:
    """The entity ``entity_id`` was merged into as of ``known_at`` (itself if none), checked to be in ``scope``."""
    rows = queries.run(connection, "graph_entities", ids=[entity_id], known_at=known_at).mappings().all()
    if not rows:
        raise NotFound(f"no entity has id {entity_id}")
    if rows[0]["scope"] != scope:
        raise ScopeMismatch(f"entity {entity_id} belongs to scope {rows[0]['scope']!r}, not {scope!r}; "
                            f"a graph never crosses scopes")
    return int(rows[0]["root_id"])


def _stream(connection: Connection, name: str, params: Mapping[str, Any]) -> Iterator[Sequence[Any]]:
    """Rows of a named walk in batches, read lazily (a server-side cursor on PostgreSQL), so
    that stopping early stops the walk."""
    result = connection.execution_options(stream_results=True).execute(queries.statement(name), dict(params))
    try:
        while batch := result.fetchmany(_BATCH):
            yield batch
    finally:
        result.close()


def neighborhood(connection: Connection, start: int, graph_slice: Slice, *, depth: int, direction: Direction,
                 max_nodes: int, time_budget: float) -> networkx.MultiDiGraph:
    """The claims within ``depth`` hops of entity ``start`` (a root) in the slice, as a graph.

    Stops at ``max_nodes`` nodes or after ``time_budget`` seconds with what it has, and says so in
    ``graph.graph["truncated"]`` (the reason in ``graph.graph["truncated_reason"]``).
    """
    deadline = time.monotonic() + time_budget
    nodes: dict[int, None] = {start: None}
    edges: dict[int, Sequence[Any]] = {}
    reason: str | None = None
    params = {**graph_slice.params(), "start": start, "depth": depth, "direction": direction}
    if depth > 0:
        for batch in _stream(connection, "neighbourhood", params):
            for row in batch:  # by position: depth, entity_id, claim_id, outgoing, other_id, ...
                # both ends: a database may return a walked entity's claims before the claim that reached it
                new = [end for end in {row[1], row[4]} if end not in nodes]
                if new:
                    if len(nodes) + len(new) > max_nodes:
                        reason = "max_nodes"
                        break
                    nodes.update(dict.fromkeys(new))
                if row[2] not in edges:
                    edges[row[2]] = row
            if reason is None and time.monotonic() > deadline:
                reason = "time_budget"
            if reason is not None:
                break
    when = stored_time(connection)
    graph = _graph(connection, nodes, (), graph_slice)
    graph.add_edges_from(
        ((row[1], row[4]) if row[3] else (row[4], row[1])) + (claim, {
            "claim_id": claim, "predicate": row[5], "status": row[6], "confidence": row[7],
            "valid_from": when(row[8]), "valid_until": when(row[9]), "recorded_at": when(row[10]),
            "invalidated_at": when(row[11])})
        for claim, row in edges.items())
    graph.graph.update(start=start, depth=depth, direction=direction, truncated=reason is not None,
                       truncated_reason=reason, max_nodes=max_nodes, time_budget=time_budget)
    return graph


def stored_time(connection: Connection) -> Callable[[Any], datetime | None]:
    """A converter of times as the database stores them (microseconds, timestamptz) to aware UTC datetimes."""
    column = UTCTime()
    dialect = connection.dialect
    seen: dict[Any, datetime | None] = {}  # a walk's claims share few distinct times (dates, batches)

    def convert(value: Any) -> datetime | None:
        if value in seen:
            return seen[value]
        seen[value] = converted = column.process_result_value(value, dialect)
        return converted

    return convert


def paths(connection: Connection, source: int, target: int, graph_slice: Slice, *, max_depth: int,
          direction: Direction, limit: int, time_budget: float) -> list[GraphPath]:
    """Simple paths from ``source`` to ``target`` (roots) in the slice, shortest first, at most ``limit``.

    Raises TraversalLimit (with the paths found so far) when the time budget runs out first.
    """
    deadline = time.monotonic() + time_budget
    found: list[tuple[list[int], list[int]]] = []
    if source != target and max_depth > 0:
        params = {**graph_slice.params(), "source": source, "target": target, "max_depth": max_depth,
                  "direction": direction}
        for batch in _stream(connection, "paths", params):
            found.extend((_ids(row.nodes), _ids(row.claims)) for row in batch)
            if len(found) >= limit:
                break
            if time.monotonic() > deadline:
                partial = _paths(connection, found, graph_slice)
                raise TraversalLimit(f"the path search ran out of its time budget ({time_budget} s) after "
                                     f"{len(partial)} paths of at most {max_depth} claims; raise time_budget "
                                     f"or lower max_depth", partial=partial)
    found.sort(key=lambda path: len(path[1]))
    return _paths(connection, found[:limit], graph_slice)


def whole_graph(connection: Connection, graph_slice: Slice) -> networkx.MultiDiGraph:
    """Every entity and entity-valued claim of the slice's scope as of its times."""
    known_at = graph_slice.known_at
    edges = [_edge(row.claim_id, row.subject_id, row.object_id, row)
             for row in queries.run(connection, "graph_edges", **graph_slice.params())]
    graph = _graph(connection, {}, edges, graph_slice)
    graph.add_nodes_from((row.id, {"name": row.name, "kind": row.kind})
                         for row in queries.run(connection, "graph_nodes", scope=graph_slice.scope, known_at=known_at))
    graph.graph.update(truncated=False, truncated_reason=None)
    return graph


def _ids(joined: str) -> list[int]:
    return [int(part) for part in joined.strip(",").split(",") if part]


def _paths(connection: Connection, found: list[tuple[list[int], list[int]]], graph_slice: Slice) -> list[GraphPath]:
    wanted = sorted({claim for _, claims in found for claim in claims})
    by_id = {}
    for first in range(0, len(wanted), _CHUNK):
        rows = queries.run(connection, "graph_claims", ids=wanted[first:first + _CHUNK], scope=graph_slice.scope,
                           known_at=graph_slice.known_at)
        by_id.update({row.claim_id: _edge(row.claim_id, row.subject_id, row.object_id, row) for row in rows})
    return [GraphPath(entities=tuple(EntityId(n) for n in nodes), edges=tuple(by_id[c] for c in claims))
            for nodes, claims in found]


def _edge(claim_id: int, subject_id: int, object_id: int, row: Any) -> GraphEdge:
    return GraphEdge(
        claim_id=ClaimId(claim_id), subject_id=EntityId(subject_id), object_id=EntityId(object_id),
        predicate=row.predicate, status=row.status, confidence=row.confidence, valid_from=row.valid_from,
        valid_until=row.valid_until, recorded_at=row.recorded_at, invalidated_at=row.invalidated_at,
    )


def _graph(connection: Connection, nodes: Mapping[int, None], edges: Sequence[GraphEdge],
           graph_slice: Slice) -> networkx.MultiDiGraph:
    """A MultiDiGraph of these nodes (named from the database) and edges, keyed by claim id."""
    import networkx

    graph = networkx.MultiDiGraph(scope=graph_slice.scope, valid_at=graph_slice.valid_at,
                                  known_at=graph_slice.known_at,
                                  predicates=None if graph_slice.predicates is None else list(graph_slice.predicates),
                                  statuses=list(graph_slice.statuses))
    wanted = list(nodes)
    for first in range(0, len(wanted), _CHUNK):  # SQLite binds at most 32,766 parameters
        rows = queries.run(connection, "graph_entities", ids=wanted[first:first + _CHUNK],
                           known_at=graph_slice.known_at).all()
        graph.add_nodes_from((row.id, {"name": row.name, "kind": row.kind}) for row in rows)
    graph.add_edges_from(
        (edge.subject_id, edge.object_id, edge.claim_id,
         {"claim_id": edge.claim_id, "predicate": edge.predicate, "status": edge.status,
          "confidence": edge.confidence, "valid_from": edge.valid_from, "valid_until": edge.valid_until,
          "recorded_at": edge.recorded_at, "invalidated_at": edge.invalidated_at})
        for edge in edges)
    return graph


def statuses_of(chosen: Iterable[str] | str | None) -> tuple[str, ...]:
    """Statuses for a slice: the visible ones for None, else known ones (retracted only if asked)."""
    from ledger.validate import statuses

    picked = statuses(chosen)
    return tuple(s for s in STATUSES if s in picked)
