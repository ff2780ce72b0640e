"""Traversal: the SQL walk equals a networkx BFS over the same time slice, on a generated graph
with hubs, cycles, parallel edges, retractions and a merge; bounds, paths, exports, scopes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import networkx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger import Ledger, ScopeMismatch, TraversalLimit
from ledger.errors import InvalidInput
from ledger.records import STATUSES, VISIBLE_STATUSES
from tests.benchmarks.graphdata import PREDICATES, GraphSpec, batch_time, load, open_ledger, plan, write_rows
from tests.conftest import BACKEND

SPEC = GraphSpec(claims=700, entities=90, hubs=2, hub_share=0.2, batches=6, seed=11)
OTHER = GraphSpec(claims=150, entities=40, hubs=1, batches=2, seed=12, scope="other")


@dataclass
class Generated:
    """The generated ledger, every version of its claims, and when entity 7 was merged into 3."""

    ledger: Ledger
    versions: list[dict[str, Any]]
    ids: dict[int, int]  # entity number → entity id
    merged_at: datetime
    merged: tuple[int, int]  # (other, keep) entity ids
    end: datetime


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Iterator[Generated]:
    if BACKEND == "postgres":
        url: str | Path = request.getfixturevalue("pg_schemas").new_url()
    else:
        url = tmp_path_factory.mktemp("graph") / "graph.db"
    ledger, clock = open_ledger(url)
    with ledger:
        claim_ids = load(ledger, plan(SPEC), SPEC, clock=clock)
        load(ledger, plan(OTHER), OTHER, clock=clock, first_day=SPEC.batches)
        clock.batch = SPEC.batches + OTHER.batches + 1  # later system times: retractions, a dispute, a merge
        distinct = sorted(set(claim_ids))  # a corroborated edge returns the id of the claim it corroborates
        retracted = set(distinct[::17])
        for claim_id in retracted:
            ledger.retract(claim_id, reason="withdrawn by the test")
        for claim_id in set(distinct[5::23]) - retracted:
            ledger.dispute(claim_id, reason="doubted by the test")
        ids = {n: ledger.get_entity(f"entity {n}").id for n in range(SPEC.entities)}
        clock.batch = SPEC.batches + OTHER.batches + 2
        ledger.merge_entities(ids[3], ids[7])
        merged_at = ledger.now()
        versions = ledger.ask("audit_view")
        yield Generated(ledger, versions, ids, merged_at, (ids[7], ids[3]), batch_time(SPEC.batches + OTHER.batches + 3))


def _holds(row: dict[str, Any], at: datetime) -> bool:
    return (row["valid_from"] is None or row["valid_from"] <= at) and (row["valid_until"] is None or at < row["valid_until"])


def reference_graph(g: Generated, *, valid_at: datetime, known_at: datetime, statuses: tuple[str, ...],
                    predicates: tuple[str, ...] | None) -> networkx.MultiDiGraph:
    """The time slice built in Python from the audit rows (not by the walk's SQL)."""
    other, keep = g.merged

    def root(entity: int) -> int:
        return keep if entity == other and known_at >= g.merged_at else entity

    graph = networkx.MultiDiGraph()
    for row in g.versions:
        if row["object_id"] is None or row["status"] not in statuses:
            continue
        if predicates is not None and row["predicate"] not in predicates:
            continue
        held = row["recorded_at"] <= known_at and (row["invalidated_at"] is None or known_at < row["invalidated_at"])
        if held and _holds(row, valid_at):
            graph.add_edge(root(row["subject_id"]), root(row["object_id"]), key=row["claim_id"])
    return graph


def reference_neighbourhood(sliced: networkx.MultiDiGraph, start: int, depth: int,
                            direction: str) -> tuple[set[int], set[tuple[int, int, int]]]:
    """Nodes within ``depth`` (networkx BFS) and the edges walked: those leaving a node nearer than ``depth``."""
    sliced.add_node(start)
    view = {"out": sliced, "in": sliced.reverse(copy=False), "both": sliced.to_undirected(as_view=True)}[direction]
    distance = networkx.single_source_shortest_path_length(view, start, cutoff=depth)
    far = depth + 1
    edges = {(u, v, k) for u, v, k in sliced.edges(keys=True)
             if (direction != "in" and distance.get(u, far) < depth) or (direction != "out" and distance.get(v, far) < depth)}
    return set(distance), edges


TIMES = st.builds(lambda days: datetime(2014, 6, 1, tzinfo=UTC) + timedelta(days=days), st.integers(0, 4500))
KNOWN = st.sampled_from([batch_time(b) for b in range(-1, SPEC.batches + OTHER.batches + 4)])
STATUS_SETS = st.sampled_from([VISIBLE_STATUSES, STATUSES, ("reported",), ("disputed", "retracted")])
PREDICATE_SETS = st.one_of(st.none(), st.lists(st.sampled_from(PREDICATES), min_size=1, max_size=3).map(tuple))


@settings(max_examples=80 if BACKEND == "sqlite" else 40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(number=st.integers(0, SPEC.entities - 1), depth=st.integers(1, 4), direction=st.sampled_from(["out", "in", "both"]),
       valid_at=TIMES, known_at=KNOWN, statuses=STATUS_SETS, predicates=PREDICATE_SETS)
def test_the_walk_equals_a_networkx_bfs_over_the_same_slice(
    generated: Generated, number: int, depth: int, direction: str, valid_at: datetime, known_at: datetime,
    statuses: tuple[str, ...], predicates: tuple[str, ...] | None,
) -> None:
    g = generated
    start = g.ids[number]
    if start == g.merged[0] and known_at >= g.merged_at:
        start = g.merged[1]
    graph = g.ledger.neighborhood(start, depth=depth, direction=direction, valid_at=valid_at, known_at=known_at,
                                  statuses=statuses, predicates=predicates)
    sliced = reference_graph(g, valid_at=valid_at, known_at=known_at, statuses=statuses, predicates=predicates)
    nodes, edges = reference_neighbourhood(sliced, start, depth, direction)
    assert set(graph.nodes) == nodes
    assert set(graph.edges(keys=True)) == edges
    assert graph.graph["truncated"] is False
    for _, _, key, data in graph.edges(keys=True, data=True):
        assert data["claim_id"] == key and data["status"] in statuses
        assert predicates is None or data["predicate"] in predicates


def test_the_start_is_a_node_even_without_edges_in_the_slice(generated: Generated) -> None:
    graph = generated.ledger.neighborhood("entity 40", depth=3, known_at=batch_time(-1))
    assert list(graph.nodes(data=True)) == [(generated.ids[40], {"name": "entity 40", "kind": None})]
    assert graph.number_of_edges() == 0


def test_parallel_edges_are_kept_keyed_by_claim(generated: Generated) -> None:
    graph = generated.ledger.graph(known_at=generated.end, statuses=STATUSES, valid_at="2020-01-01")
    pairs: dict[tuple[int, int], int] = {}
    for u, v, _ in graph.edges(keys=True):
        pairs[(u, v)] = pairs.get((u, v), 0) + 1
    assert max(pairs.values()) >= 2
    sliced = reference_graph(generated, valid_at=datetime(2020, 1, 1, tzinfo=UTC), known_at=generated.end,
                             statuses=STATUSES, predicates=None)
    assert set(graph.edges(keys=True)) == set(sliced.edges(keys=True))


def test_a_merged_entity_walks_as_the_one_it_was_merged_into(generated: Generated) -> None:
    other, keep = generated.merged
    after = generated.ledger.neighborhood(other, depth=1, known_at=generated.end, statuses=STATUSES,
                                          valid_at="2020-01-01")
    assert after.graph["start"] == keep and other not in after
    before = generated.ledger.neighborhood(other, depth=1, known_at=batch_time(SPEC.batches), statuses=STATUSES,
                                           valid_at="2020-01-01")
    assert before.graph["start"] == other


def test_a_hub_walk_stops_at_the_node_limit_and_says_so(generated: Generated) -> None:
    hub = generated.ids[0]
    full = generated.ledger.neighborhood(hub, depth=3, valid_at="2020-01-01")
    small = generated.ledger.neighborhood(hub, depth=3, valid_at="2020-01-01", max_nodes=10)
    assert full.graph["truncated"] is False and full.number_of_nodes() > 10
    assert small.graph["truncated"] is True and small.graph["truncated_reason"] == "max_nodes"
    assert 2 <= small.number_of_nodes() <= 10 and hub in small
    assert set(small.edges(keys=True)) <= set(full.edges(keys=True))


def test_a_walk_out_of_time_returns_what_it_found(generated: Generated) -> None:
    graph = generated.ledger.neighborhood(generated.ids[0], depth=4, statuses=STATUSES, time_budget=1e-9)
    assert graph.graph["truncated"] is True and graph.graph["truncated_reason"] == "time_budget"
    assert generated.ids[0] in graph


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(a=st.integers(0, SPEC.entities - 1), b=st.integers(0, SPEC.entities - 1), max_depth=st.integers(1, 3),
       direction=st.sampled_from(["out", "in", "both"]), known_at=KNOWN)
def test_paths_are_networkx_simple_paths_shortest_first(generated: Generated, a: int, b: int, max_depth: int,
                                                        direction: str, known_at: datetime) -> None:
    g = generated
    source, target = g.ids[a], g.ids[b]
    if known_at >= g.merged_at:
        source, target = (g.merged[1] if x == g.merged[0] else x for x in (source, target))
    valid_at = datetime(2021, 1, 1, tzinfo=UTC)
    found = g.ledger.paths(source, target, max_depth=max_depth, direction=direction, valid_at=valid_at,
                           known_at=known_at, predicates=["owns", "funds"], limit=100_000, time_budget=60)
    sliced = reference_graph(g, valid_at=valid_at, known_at=known_at, statuses=VISIBLE_STATUSES,
                             predicates=("owns", "funds"))
    sliced.add_nodes_from([source, target])
    view = {"out": sliced, "in": sliced.reverse(copy=False), "both": sliced.to_undirected(as_view=True)}[direction]
    expected = set() if source == target else {
        tuple(k for _, _, k in path) for path in networkx.all_simple_edge_paths(view, source, target, cutoff=max_depth)}
    assert {tuple(e.claim_id for e in p.edges) for p in found} == expected
    assert [len(p) for p in found] == sorted(len(p) for p in found)
    for path in found:
        assert path.entities[0] == source and path.entities[-1] == target and len(path.entities) == len(path) + 1
        assert len(set(path.entities)) == len(path.entities)


def test_paths_stop_at_the_limit_and_the_time_budget(generated: Generated) -> None:
    hub, other = generated.ids[0], generated.ids[1]
    assert len(generated.ledger.paths(hub, other, max_depth=3, limit=3, statuses=STATUSES)) == 3
    with pytest.raises(TraversalLimit) as raised:
        generated.ledger.paths(hub, other, max_depth=4, statuses=STATUSES, limit=10**6, time_budget=1e-9)
    assert isinstance(raised.value.partial, list)


def test_no_walk_leaves_its_scope(generated: Generated) -> None:
    ledger = generated.ledger
    other_ids = {e.id for n in range(OTHER.entities) if (e := ledger.resolve(f"entity {n}", scope="other"))}
    mine = set(generated.ids.values())
    assert not other_ids & mine
    for start in ("entity 0", "entity 1", "entity 5"):
        for direction in ("out", "in", "both"):
            graph = ledger.neighborhood(start, depth=4, direction=direction, statuses=STATUSES)
            assert set(graph.nodes) <= mine, direction
            there = ledger.neighborhood(start, depth=4, direction=direction, statuses=STATUSES, scope="other")
            assert set(there.nodes) <= other_ids
    assert set(ledger.graph(statuses=STATUSES).nodes) <= mine
    assert set(ledger.graph(scope="other").nodes) == other_ids
    with pytest.raises(ScopeMismatch):
        ledger.neighborhood(min(other_ids), scope="default")
    with pytest.raises(ScopeMismatch):
        ledger.paths(generated.ids[0], min(other_ids))


def test_exports_round_trip(generated: Generated, tmp_path: Path) -> None:
    graph = generated.ledger.neighborhood("entity 2", depth=2, valid_at="2020-01-01")
    written = Ledger.write_graph(graph, tmp_path / "n.graphml", format="graphml")
    back = networkx.read_graphml(written, force_multigraph=True)
    assert back.number_of_nodes() == graph.number_of_nodes() and back.number_of_edges() == graph.number_of_edges()
    some = next(iter(graph.edges(keys=True, data=True)))
    assert back.edges[str(some[0]), str(some[1]), some[2]]["predicate"] == some[3]["predicate"]
    Ledger.write_graph(graph, tmp_path / "n.json", format="json")
    data = json.loads((tmp_path / "n.json").read_text(encoding="utf-8"))
    assert data == Ledger.node_link(graph)
    again = networkx.node_link_graph(data, edges="edges")
    assert set(again.edges(keys=True)) == set(graph.edges(keys=True))
    assert data["graph"]["valid_at"].startswith("2020-01-01")


@pytest.mark.parametrize("arguments", [
    {"depth": -1}, {"depth": 11}, {"depth": True}, {"max_nodes": 0}, {"time_budget": 0},
    {"direction": "sideways"}, {"predicates": []}, {"statuses": ["gone"]},
])
def test_bad_arguments_are_refused(generated: Generated, arguments: dict[str, Any]) -> None:
    with pytest.raises(InvalidInput):
        generated.ledger.neighborhood("entity 1", **arguments)


@pytest.mark.skipif(BACKEND != "sqlite", reason="the benchmark's bulk rows are written with sqlite3")
def test_the_benchmarks_bulk_rows_are_what_assert_claims_writes(tmp_path: Path) -> None:
    """bench_graph.py builds its million claims with write_rows: it must make the ledger load() makes."""
    spec = GraphSpec(claims=400, entities=60, hubs=2, batches=4, seed=3)
    edges = plan(spec)
    api, clock = open_ledger(tmp_path / "api.db")
    with api:
        load(api, edges, spec, clock=clock)
    write_rows(tmp_path / "rows.db", edges, spec)
    with Ledger.open(tmp_path / "rows.db") as rows, open_ledger(tmp_path / "api.db")[0] as api:
        assert rows.check().ok, rows.check().findings
        for known_at in (batch_time(0), batch_time(2), batch_time(9)):
            for valid_at in ("2016-01-01", "2020-06-01", "2024-12-31"):
                def named(ledger: Ledger) -> list[tuple[Any, ...]]:
                    graph = ledger.graph(valid_at=valid_at, known_at=known_at)
                    names = dict(graph.nodes(data="name"))
                    return sorted((names[u], d["predicate"], names[v], str(d["valid_from"]), str(d["valid_until"]))
                                  for u, v, d in graph.edges(data=True))
                assert named(rows) == named(api)
        at = {"valid_at": "2020-06-01", "known_at": batch_time(9)}
        assert rows.neighborhood("entity 0", depth=2, **at).number_of_edges() == api.neighborhood(
            "entity 0", depth=2, **at).number_of_edges() > 10
