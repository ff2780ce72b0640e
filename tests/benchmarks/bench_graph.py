"""Depth-3 time-sliced neighbourhoods: the SQL walk (``Ledger.neighborhood``) against a networkx
BFS over the whole graph already in memory, measured in one run.

    python tests/benchmarks/bench_graph.py                 # 1,000,000 claims over 100,000 entities
    python tests/benchmarks/bench_graph.py 20000 --samples 50

The ledger comes from tests/benchmarks/graphdata.py (power-law degrees, 5 hubs of tens of
thousands of claims), written through ``assert_claims`` once and kept in /tmp by size.

Both sides answer the same question from random start entities at random times on both axes:
the entities within ``--depth`` claims and the claims walked, as a MultiDiGraph with the same
node and edge attributes, stopping at the same node limit. The baseline walks a graph that holds
every claim version with its times (loaded beforehand: its load time and memory are reported
apart, the SQL side needs no load). CPU time (``time.process_time``), sides in turns with the
order alternating. Target (issue 20): median ratio ≤ 1×, and a bounded p99 through the hubs.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import statistics
import sys
import time
from collections import deque
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import networkx

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from ledger import Ledger  # noqa: E402
from ledger.records import VISIBLE_STATUSES  # noqa: E402
from tests.benchmarks.graphdata import GraphSpec, batch_time, cached_sqlite  # noqa: E402

FAR = datetime(9999, 1, 1, tzinfo=UTC)


def rss_bytes() -> int:
    """Resident memory of this process (Linux)."""
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def load_graph(ledger: Ledger) -> networkx.MultiDiGraph:
    """Every entity and every version of every entity-valued claim, with its times, in memory."""
    graph = networkx.MultiDiGraph()
    for row in ledger.ask("audit_view"):
        if row["object_id"] is None:
            continue
        graph.add_edge(row["subject_id"], row["object_id"], key=(row["claim_id"], row["version_id"]),
                       claim_id=row["claim_id"], predicate=row["predicate"], status=row["status"],
                       confidence=row["confidence"], valid_from=row["valid_from"], valid_until=row["valid_until"],
                       recorded_at=row["recorded_at"], invalidated_at=row["invalidated_at"])
    for node, data in ledger.graph(known_at=FAR, valid_at=FAR, predicates=["(names only)"]).nodes(data=True):
        if node in graph:
            graph.nodes[node].update(data)
    return graph


def bfs(graph: networkx.MultiDiGraph, start: int, *, depth: int, valid_at: datetime, known_at: datetime,
        statuses: frozenset[str], max_nodes: int) -> networkx.MultiDiGraph:
    """The same neighbourhood by a BFS in Python over the in-memory graph (no merges in this data)."""
    def holds(data: dict[str, Any]) -> bool:
        return (data["recorded_at"] <= known_at and (data["invalidated_at"] is None or known_at < data["invalidated_at"])
                and data["status"] in statuses
                and (data["valid_from"] is None or data["valid_from"] <= valid_at)
                and (data["valid_until"] is None or valid_at < data["valid_until"]))

    seen = {start: 0}
    edges: dict[int, tuple[int, int, dict[str, Any]]] = {}
    queue = deque([start])
    truncated = False
    while queue and not truncated:
        node = queue.popleft()
        distance = seen[node]
        if distance >= depth:
            continue
        for adjacency, outgoing in ((graph.succ, True), (graph.pred, False)):
            for other, keyed in adjacency[node].items():
                for data in keyed.values():
                    if not holds(data):
                        continue
                    if other not in seen:
                        if len(seen) >= max_nodes:
                            truncated = True
                            break
                        seen[other] = distance + 1
                        queue.append(other)
                    edges.setdefault(data["claim_id"], (node, other, data) if outgoing else (other, node, data))
                if truncated:
                    break
            if truncated:
                break
    result = networkx.MultiDiGraph(truncated=truncated)
    result.add_nodes_from((node, {"name": graph.nodes[node].get("name"), "kind": graph.nodes[node].get("kind")})
                          for node in seen)
    result.add_edges_from((u, v, claim, {key: value for key, value in data.items()})
                          for claim, (u, v, data) in edges.items())
    return result


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("claims", nargs="?", type=int, default=1_000_000)
    parser.add_argument("--entities", type=int, default=None, help="default: claims / 10")
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--max-nodes", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    spec = GraphSpec(claims=args.claims, entities=args.entities or max(10, args.claims // 10))
    path = cached_sqlite(spec)
    rng = random.Random(args.seed)
    with Ledger.open(path) as ledger:
        gc.collect()
        before, started = rss_bytes(), time.perf_counter()
        memory = load_graph(ledger)
        load_seconds, load_bytes = time.perf_counter() - started, rss_bytes() - before
        print(f"in-memory graph: {memory.number_of_nodes():,} nodes, {memory.number_of_edges():,} edges; "
              f"load {load_seconds:.1f} s, {load_bytes / 2**20:.0f} MiB resident", flush=True)
        entity_ids = sorted(memory.nodes)
        sql_times, nx_times, ratios, sizes, truncated, differ = [], [], [], [], 0, 0
        statuses = frozenset(VISIBLE_STATUSES)
        for n in range(args.samples):
            start = rng.choice(entity_ids)
            valid_at = datetime(2015, 1, 1, tzinfo=UTC) + timedelta(days=rng.randrange(3650))
            known_at = batch_time(rng.randrange(spec.batches))
            timed: dict[str, tuple[float, Any]] = {}
            for side in (("sql", "nx") if n % 2 else ("nx", "sql")):
                begun = time.process_time()
                if side == "sql":
                    result = ledger.neighborhood(start, depth=args.depth, valid_at=valid_at, known_at=known_at,
                                                 max_nodes=args.max_nodes, time_budget=60)
                else:
                    result = bfs(memory, start, depth=args.depth, valid_at=valid_at, known_at=known_at,
                                 statuses=statuses, max_nodes=args.max_nodes)
                timed[side] = (time.process_time() - begun, result)
            (sql_seconds, sql_graph), (nx_seconds, nx_graph) = timed["sql"], timed["nx"]
            if sql_graph.graph["truncated"]:
                truncated += 1
            elif set(sql_graph.edges(keys=True)) != set(nx_graph.edges(keys=True)):
                differ += 1
            sql_times.append(sql_seconds)
            nx_times.append(nx_seconds)
            ratios.append(sql_seconds / max(nx_seconds, 1e-6))
            sizes.append(sql_graph.number_of_nodes())
            if (n + 1) % 10 == 0:
                print(f"  {n + 1} walks: ratio median so far {statistics.median(ratios):.2f}x", flush=True)
    print(f"{args.samples} depth-{args.depth} neighbourhoods, node limit {args.max_nodes:,}: {truncated} truncated "
          f"at it, {differ} untruncated ones differing from the BFS; nodes median {statistics.median(sizes):.0f}, "
          f"max {max(sizes)}")
    print(f"SQL walk   : median {statistics.median(sql_times) * 1000:.1f} ms, p99 {percentile(sql_times, 0.99) * 1000:.1f} ms, "
          f"max {max(sql_times) * 1000:.1f} ms")
    print(f"networkx   : median {statistics.median(nx_times) * 1000:.1f} ms, p99 {percentile(nx_times, 0.99) * 1000:.1f} ms")
    print(f"ratio SQL / networkx: median {statistics.median(ratios):.2f}x, p99 {percentile(ratios, 0.99):.2f}x "
          f"(target: median <= 1x)")


if __name__ == "__main__":
    main()
