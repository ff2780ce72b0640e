"""Search index upkeep, the bare full-text query, and the index's size, measured in one run.

    python tests/benchmarks/bench_search.py              # 1,000,000 claims, 1,500,000 excerpts
    python tests/benchmarks/bench_search.py 20000        # while developing
    python tests/benchmarks/bench_search.py 20000 --fresh  # rebuild the cached ledgers

Builds two ledgers batch by batch in turns through ``assert_claims`` (the bulk path, as
bench_core does): one with the search index, one without it (dropped after opening, its upkeep
paused). Prints ratios, never pass/fail timings: these machines are shared and noisy.
Targets (issue 21): index upkeep costs at most 1.5x the bulk write rate without it; the bare
FTS query (``bare_fts``, importable: recall's benchmark measures itself against it) is reported
with ``search()``'s overhead over it; the index's size per claim.

The built ledgers are kept in /tmp/ledger-bench-search-N/ (with timings.json) and reused.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import time
from contextlib import nullcontext
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from ledger import Ledger
from ledger.db import make_engine, resolve_url
from ledger.search import bare_search
from ledger.store import search_index

BATCH = 50_000
ENTITIES = 100_000
SENTENCES = 10
WORDS = ("electricity", "invoice", "contract", "tenant", "coach", "stadium", "revenue", "shares", "budget",
         "council", "river", "bridge", "harvest", "vaccine", "patent", "license", "merger", "tariff", "pension",
         "railway", "北京大学", "東京都", "กรุงเทพ", "Zürich", "Łódź")


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


def sentence(n: int, q: int, rng: random.Random) -> str:
    words = " ".join(rng.choice(WORDS) for _ in range(5))
    return f"Report {n}.{q} notes {words} item{rng.randrange(10**6)}."


class Load:
    """Bulk writes through ``assert_claims`` into one ledger, with or without the search index."""

    def __init__(self, path: Path, claims: int, *, indexed: bool) -> None:
        self.ledger = Ledger.open(path, clock=Clock())
        self.indexed = indexed
        if not indexed:
            engine = make_engine(resolve_url(str(path)))
            with engine.begin() as connection:
                search_index.drop(connection)
            engine.dispose()
        rng = random.Random(7)
        sources = max(10, claims // 100)
        self.citations = []
        for n in range(sources):
            quotes = [sentence(n, q, rng) for q in range(SENTENCES)]
            with nullcontext() if indexed else search_index.upkeep_paused():
                source = self.ledger.add_source(text=" ".join(quotes), uri=f"bench:{n}", title=f"Report {n}")
            self.citations += [self.ledger.cite(source, quote) for quote in quotes]
        rng = random.Random(11)
        self.drafts = [
            {"subject": f"entity {i % ENTITIES}", "predicate": f"p{i // ENTITIES}", "value": f"value {rng.randrange(10**6)}",
             "valid_from": (datetime(2020, 1, 1) + timedelta(days=rng.randrange(2000))).strftime("%Y-%m-%d"),
             "evidence": [self.citations[rng.randrange(len(self.citations))] for _ in range(1 + i % 2)]}
            for i in range(claims)
        ]

    def batch(self, first: int) -> float:
        with nullcontext() if self.indexed else search_index.upkeep_paused():
            started = time.perf_counter()
            self.ledger.assert_claims(self.drafts[first:first + BATCH])
            return time.perf_counter() - started


def build(folder: Path, claims: int) -> dict[str, Any]:
    """Both ledgers, batch by batch in turns (which goes first alternates); their timings."""
    folder.mkdir(parents=True, exist_ok=True)
    with_index = Load(folder / "with.db", claims, indexed=True)
    without = Load(folder / "without.db", claims, indexed=False)
    seconds = {"with": 0.0, "without": 0.0}
    for n, first in enumerate(range(0, claims, BATCH)):
        order = [("with", with_index), ("without", without)]
        for name, load in order if n % 2 == 0 else reversed(order):
            seconds[name] += load.batch(first)
    with_index.ledger.close()
    without.ledger.close()
    timings = {"claims": claims, "evidence": sum(len(d["evidence"]) for d in with_index.drafts), **seconds}
    (folder / "timings.json").write_text(json.dumps(timings))
    return timings


class BareFts:
    """The bare full-text query under search() and recall(): ranked document keys for every
    word, no time slicing, no details. ``BareFts(url)("electricity invoice")``."""

    def __init__(self, url: str) -> None:
        self.engine: Engine = make_engine(resolve_url(url))

    def __call__(self, text: str, *, scope: str = "default", limit: int = 10) -> list[int]:
        """The query's document keys, best first."""
        with self.engine.connect() as connection:
            return bare_search(connection, text, scope=scope, limit=limit)

    def close(self) -> None:
        """Release the engine."""
        self.engine.dispose()


def bare_fts(url: str, text: str, *, scope: str = "default", limit: int = 10) -> float:
    """Seconds one bare FTS query takes on the ledger at ``url`` (a fresh engine each call: for
    one-off use; keep a ``BareFts`` for many)."""
    query = BareFts(url)
    started = time.perf_counter()
    query(text, scope=scope, limit=limit)
    elapsed = time.perf_counter() - started
    query.close()
    return elapsed


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def bench_queries(path: Path, samples: int) -> tuple[list[float], list[float]]:
    """(bare FTS seconds, search() seconds) per query, in turns."""
    rng = random.Random(3)
    bare = BareFts(str(path))
    ledger = Ledger.open(path, create=False)
    bare_times, search_times = [], []
    for n in range(samples):
        text = " ".join(rng.sample(WORDS, 1 + n % 2))
        started = time.perf_counter()
        bare(text)
        bare_times.append(time.perf_counter() - started)
        started = time.perf_counter()
        ledger.search(text, valid_at="2030-01-01", known_at="2030-01-01")
        search_times.append(time.perf_counter() - started)
    ledger.close()
    bare.close()
    return bare_times, search_times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("claims", type=int, nargs="?", default=1_000_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--fresh", action="store_true", help="rebuild the cached ledgers")
    args = parser.parse_args()
    folder = Path(f"/tmp/ledger-bench-search-{args.claims}")
    if args.fresh and folder.exists():
        shutil.rmtree(folder)
    cached = folder / "timings.json"
    timings = json.loads(cached.read_text()) if cached.exists() else build(folder, args.claims)
    size_with = sum(p.stat().st_size for p in folder.glob("with.db*"))
    size_without = sum(p.stat().st_size for p in folder.glob("without.db*"))
    bare_times, search_times = bench_queries(folder / "with.db", args.queries)
    claims = timings["claims"]
    print(f"{claims:,} claims, {timings['evidence']:,} evidence excerpts (cached in {folder})")
    print(f"bulk writes: {claims / timings['without']:,.0f} claims/s without the index, "
          f"{claims / timings['with']:,.0f} with it")
    print(f"index upkeep: {timings['with'] / timings['without']:.2f}x the bulk write time (target <= 1.5x)")
    print(f"index size: {(size_with - size_without) / claims:,.0f} bytes per claim "
          f"({(size_with - size_without) / 2**20:,.0f} MiB; database {size_with / 2**20:,.0f} MiB)")
    print(f"bare FTS query: p50 {statistics.median(bare_times) * 1000:.2f} ms, "
          f"p99 {percentile(bare_times, 0.99) * 1000:.2f} ms")
    print(f"search(): p50 {statistics.median(search_times) * 1000:.2f} ms "
          f"({statistics.median(search_times) / statistics.median(bare_times):.2f}x bare), "
          f"p99 {percentile(search_times, 0.99) * 1000:.2f} ms")


if __name__ == "__main__":
    main()
