"""Export and import rates against the core bulk write rate, and their peak memory, in one run.

    python tests/benchmarks/bench_export.py 200000      # claims (default 100,000)

Builds a SQLite ledger through ``assert_claims`` (the baseline rate), exports it as JSON Lines
and Turtle, and imports the JSON Lines into a new ledger; prints each rate as a ratio of the
bulk write rate, and the peak Python memory (tracemalloc, in a second run of each step) at a
quarter of the claims and at all of them: streaming means the peak does not grow with the
ledger. Ratios only, never pass/fail timings: the machines are shared and noisy.
"""

from __future__ import annotations

import argparse
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from ledger import Ledger

BATCH = 50_000
SOURCES = 50


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


CLOCK = Clock()  # one clock for every ledger: an import's history must lie in its clock's past


def build(path: Path, claims: int) -> float:
    """A ledger of ``claims`` claims; the bulk write rate (claims per second)."""
    with Ledger.open(path, clock=CLOCK) as ledger:
        sources = [ledger.add_source(text=f"Source {n} says the value is {n} in plain words.", uri=f"bench:{n}",
                                     publisher=f"P{n}") for n in range(SOURCES)]
        citations = [ledger.cite(s, "the value is") for s in sources]
        drafts = [{"subject": f"entity {i % 20_000}", "predicate": f"p{i // 20_000}", "value": f"v{i}",
                   "valid_from": f"20{10 + i % 15}-0{1 + i % 9}-1{i % 9}", "evidence": citations[i % SOURCES]}
                  for i in range(claims)]
        started = time.perf_counter()
        for first in range(0, claims, BATCH):
            ledger.assert_claims(drafts[first:first + BATCH])
        return claims / (time.perf_counter() - started)


def timed(work: Callable[[], object]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def peak(work: Callable[[], object]) -> int:
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def measure(folder: Path, claims: int) -> dict[str, float]:
    db = folder / f"bench-{claims}.db"
    write_rate = build(db, claims)
    found: dict[str, float] = {"write": write_rate}
    with Ledger.open(db, clock=CLOCK) as ledger:
        for format in ("jsonl", "turtle"):
            out = folder / f"out-{claims}.{format}"
            found[f"export {format}"] = claims / timed(lambda: ledger.export(out, format=format))  # type: ignore[arg-type]
            found[f"export {format} peak"] = peak(lambda: ledger.export(out, format=format))  # type: ignore[arg-type]
    counter = iter(range(10))

    def restore() -> None:
        with Ledger.open(folder / f"copy-{claims}-{next(counter)}.db", clock=CLOCK) as copy:
            copy.import_jsonl(folder / f"out-{claims}.jsonl")

    found["import jsonl"] = claims / timed(restore)
    found["import jsonl peak"] = peak(restore)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("claims", type=int, nargs="?", default=100_000)
    claims = parser.parse_args().claims
    with tempfile.TemporaryDirectory() as folder:
        small = measure(Path(folder), max(claims // 4, 1))
        large = measure(Path(folder), claims)
    print(f"claims: {claims:,} (peak memory also at {max(claims // 4, 1):,})")
    print(f"bulk write (assert_claims): {large['write']:,.0f} claims/s")
    for step in ("export jsonl", "export turtle", "import jsonl"):
        print(f"{step}: {large[step]:,.0f} claims/s = {large[step] / large['write']:.2f}x the bulk write rate; "
              f"peak Python memory {small[step + ' peak'] / 2**20:.1f} MiB at {max(claims // 4, 1):,} claims, "
              f"{large[step + ' peak'] / 2**20:.1f} MiB at {claims:,}")


if __name__ == "__main__":
    main()
