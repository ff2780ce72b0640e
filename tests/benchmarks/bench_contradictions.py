"""``Ledger.contradictions()`` on the generated claim graph against the raw sqlite3 floor, in one run.

    python tests/benchmarks/bench_contradictions.py                 # 1,000,000 claims, 100,000 entities
    python tests/benchmarks/bench_contradictions.py --claims 20000  # develop at small scale

The graph (``graphdata.py``: power-law degrees, hubs, parallel edges; many-valued predicates, so
no contradictions of its own) is copied, and contradictions are added through the API: value
conflicts of a functional predicate from independent sources, disputes with a reason,
contradicting evidence, and some resolved. Then, in one process:

- baseline: ``queries/contradicted_unresolved.sql`` run by raw sqlite3 (the disputed claims
  only: no rivals, evidence, sources or records);
- ``contradictions()``: the full records, now; at a ``known_at`` in the past; with resolved ones.

Target (issue 20): ``contradictions()`` answers in under a second on the 1,000,000-claim ledger.
Prints medians, ratios to the baseline, and the counts found.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sqlite3
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from ledger import Ledger  # noqa: E402
from ledger.queries import queries_dir  # noqa: E402
from ledger.timeline import to_micros  # noqa: E402
from tests.benchmarks.graphdata import GraphSpec, cached_sqlite  # noqa: E402


def add_contradictions(ledger: Ledger, *, entities: int, conflicts: int, disputes: int, contradicted: int,
                       resolved: int, seed: int = 5) -> None:
    """Write value conflicts, disputes and contradicting evidence about random graph entities."""
    rng = random.Random(seed)
    sources = [ledger.add_source(text=f"Register {n}: the status is active. The status is dormant. "
                                      f"The figure is wrong.", publisher=f"Register {n}", uri=f"bench:register:{n}")
               for n in range(4)]
    active = [ledger.cite(s, "active") for s in sources]
    dormant = [ledger.cite(s, "dormant") for s in sources]
    wrong = ledger.cite(sources[3], "The figure is wrong.", relation="contradicts")
    subjects = rng.sample(range(5, max(entities, 4 * (conflicts + disputes + contradicted))),
                          conflicts + disputes + contradicted)
    first = ledger.assert_claims([{"subject": f"entity {s}", "predicate": "status", "value": "active",
                                   "valid_from": "2024-01", "evidence": active[0]} for s in subjects])
    # the same subjects from an independent source with another value: both sides disputed
    ledger.assert_claims([{"subject": f"entity {s}", "predicate": "status", "value": "dormant",
                           "valid_from": "2024-01", "evidence": dormant[1]} for s in subjects[:conflicts]])
    for claim in first[conflicts:conflicts + disputes]:
        ledger.dispute(claim, reason="the register was not updated")
    for claim in first[conflicts + disputes:]:
        ledger.dispute(claim, evidence=wrong)
    open_now = ledger.contradictions()
    for found in [c for c in open_now if c.kind == "functional-overlap"][:resolved]:
        ledger.resolve_contradiction(found, keep=found.sides[0].claim, reason="checked the register", actor="bench")


def values_ledger(claims: int, entities: int, folder: Path = Path("/tmp")) -> Path:
    """A quicker ledger of ``claims`` value claims over ``entities`` entities (bench_core's shape:
    each entity has one value per attribute, 20 sources), built once through ``assert_claims``;
    for when the graph of ``graphdata`` is not built yet at this size."""
    path = folder / f"ledger-values-{claims}-{entities}.db"
    if path.exists():
        return path
    partial = path.with_suffix(".partial")
    partial.unlink(missing_ok=True)
    rng = random.Random(11)
    started = time.perf_counter()
    with Ledger.open(partial) as ledger:
        citations = []
        for n in range(20):
            source = ledger.add_source(text=f"Almanac {n}: figures for every entity, year by year.",
                                       publisher=f"Almanac {n}", uri=f"bench:almanac:{n}")
            citations.append(ledger.cite(source, "figures for every entity"))
        for first in range(0, claims, 50_000):
            ledger.assert_claims(
                {"subject": f"entity {i % entities}", "predicate": f"attribute {i // entities}",
                 "value": rng.randrange(10**6), "valid_from": f"{2000 + rng.randrange(25)}-01-01",
                 "evidence": citations[i % 20]}
                for i in range(first, min(claims, first + 50_000)))
    partial.rename(path)
    print(f"built {path} in {time.perf_counter() - started:.0f} s")
    return path


def median_time(call: Callable[[], object], runs: int) -> tuple[float, float, object]:
    """The median wall time and the median CPU time of this process over ``runs`` calls (after one
    warm-up call), and the last result. On a shared machine the wall time includes waiting for a
    core; the CPU time is what the call itself costs."""
    result = call()
    walls, cpus = [], []
    for _ in range(runs):
        started, cpu = time.perf_counter(), time.process_time()
        result = call()
        walls.append(time.perf_counter() - started)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--claims", type=int, default=1_000_000)
    parser.add_argument("--entities", type=int, default=None, help="default: claims / 10")
    parser.add_argument("--conflicts", type=int, default=500)
    parser.add_argument("--disputes", type=int, default=200)
    parser.add_argument("--contradicted", type=int, default=100)
    parser.add_argument("--resolved", type=int, default=50)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--generator", choices=("graph", "values"), default="graph",
                        help="graphdata's power-law graph (default) or a quicker ledger of value claims")
    args = parser.parse_args()
    spec = GraphSpec(claims=args.claims, entities=args.entities or max(2_000, args.claims // 10))
    graph = cached_sqlite(spec) if args.generator == "graph" else values_ledger(spec.claims, spec.entities)
    path = Path(f"/tmp/ledger-contradictions-{args.generator}-{spec.claims}-{spec.entities}.db")
    if not path.exists():
        partial = path.with_suffix(".partial")
        shutil.copyfile(graph, partial)
        started = time.perf_counter()
        with Ledger.open(partial) as ledger:
            add_contradictions(ledger, entities=spec.entities, conflicts=args.conflicts, disputes=args.disputes,
                               contradicted=args.contradicted, resolved=args.resolved)
        partial.rename(path)
        print(f"added contradictions to a copy of {graph.name} in {time.perf_counter() - started:.1f} s")
    sql = "\n".join(line for line in (queries_dir() / "contradicted_unresolved.sql").read_text().splitlines()
                    if not line.startswith("--"))
    with Ledger.open(path, create=False) as ledger:
        now = ledger.now()
        past = min(c.since for c in ledger.contradictions(include_resolved=True))
        with sqlite3.connect(path) as raw:
            claims = raw.execute("SELECT count(*) FROM claims").fetchone()[0]
            versions = raw.execute("SELECT count(*) FROM claim_versions").fetchone()[0]
            floor, floor_cpu, rows = median_time(
                lambda: raw.execute(sql, {"scope": "default", "known_at": to_micros(now)}).fetchall(), args.runs)
        print(f"ledger: {claims:,} claims, {versions:,} versions; {len(rows):,} claims contradicted and unresolved")
        print(f"{'baseline: raw sqlite3 contradicted_unresolved.sql':42s} {floor * 1000:8.1f} ms wall "
              f"{floor_cpu * 1000:8.1f} ms cpu   (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
        cases: list[tuple[str, Callable[[], list[Any]]]] = [
            ("contradictions()", lambda: ledger.contradictions()),
            ("contradictions(known_at=past)", lambda: ledger.contradictions(known_at=past)),
            ("contradictions(include_resolved=True)", lambda: ledger.contradictions(include_resolved=True)),
            ("contradictions(subject=...)", lambda: ledger.contradictions(subject="entity 1000")),
        ]
        for name, call in cases:
            took, cpu, found = median_time(call, args.runs)
            assert isinstance(found, list)
            kinds: dict[str, int] = {}
            for item in found:
                kinds[item.kind] = kinds.get(item.kind, 0) + 1
            verdict = "under 1 s" if took < 1.0 else "OVER 1 s"
            print(f"{name:42s} {took * 1000:8.1f} ms wall {cpu * 1000:8.1f} ms cpu  {took / floor:5.1f}x baseline "
                  f"(cpu {cpu / max(floor_cpu, 1e-9):5.1f}x)  {verdict}  {len(found)} found {kinds}")


if __name__ == "__main__":
    main()
