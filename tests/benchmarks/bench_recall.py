"""recall() against the bare full-text query it is built on, measured in one run.

    python tests/benchmarks/bench_recall.py              # 1,000,000 claims, 1,500,000 excerpts
    python tests/benchmarks/bench_recall.py 20000        # while developing

Builds bench_search's ledgers with its generator (once, cached in /tmp/ledger-bench-recall-N/:
recall's migrations must not touch bench_search's own cache) and measures against its bare FTS
query. Each sample asks one question of one or two of the generator's words, in turns:
the bare FTS query (every word, ranked, no time slicing, no details), then ``recall()`` (search
with time slicing, the candidates' statements, evidence, sources, ranking and packing under 600
tokens). Prints ratios, never pass/fail timings: these machines are shared and noisy.
Target (issue 21): recall p50 at most 3x the bare FTS query's p50; p99 reported.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_search import BATCH, WORDS, BareFts, Load, percentile  # noqa: E402

from ledger import Ledger  # noqa: E402


def build(folder: Path, claims: int) -> dict[str, int]:
    """bench_search's indexed ledger alone (recall needs no unindexed twin), batch by batch."""
    folder.mkdir(parents=True, exist_ok=True)
    load = Load(folder / "with.db", claims, indexed=True)
    for first in range(0, claims, BATCH):
        load.batch(first)
    load.ledger.close()
    timings = {"claims": claims, "evidence": sum(len(d["evidence"]) for d in load.drafts)}
    (folder / "timings.json").write_text(json.dumps(timings))
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("claims", type=int, nargs="?", default=1_000_000)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    folder = Path(f"/tmp/ledger-bench-recall-{args.claims}")
    cached = folder / "timings.json"
    timings = json.loads(cached.read_text()) if cached.exists() else build(folder, args.claims)
    path = folder / "with.db"
    bare = BareFts(str(path))
    ledger = Ledger.open(path, create=False)
    rng = random.Random(5)
    bare_times, recall_times, items = [], [], []
    for n in range(args.queries + 5):
        text = " ".join(rng.sample(WORDS, 1 + n % 2))
        started = time.perf_counter()
        bare(text)
        bare_seconds = time.perf_counter() - started
        started = time.perf_counter()
        packet = ledger.recall(f"what do we know about {text}?", valid_at="2030-01-01", known_at="2030-01-01")
        recall_seconds = time.perf_counter() - started
        if n >= 5:  # the first few warm the caches
            bare_times.append(bare_seconds)
            recall_times.append(recall_seconds)
            items.append(len(packet.items))
    ledger.close()
    bare.close()
    bare_p50, recall_p50 = statistics.median(bare_times), statistics.median(recall_times)
    print(f"{timings['claims']:,} claims, {timings['evidence']:,} evidence excerpts; {args.queries} questions "
          f"(median {statistics.median(items):.0f} items per packet)")
    print(f"bare FTS query: p50 {bare_p50 * 1000:.2f} ms, p99 {percentile(bare_times, 0.99) * 1000:.2f} ms")
    print(f"recall(): p50 {recall_p50 * 1000:.2f} ms ({recall_p50 / bare_p50:.2f}x bare, target <= 3x), "
          f"p99 {percentile(recall_times, 0.99) * 1000:.2f} ms")


if __name__ == "__main__":
    main()
