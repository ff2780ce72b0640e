"""Reports against ``audit()`` on the same ledger, in one run: what gathering and rendering cost
on top of reading every version.

    python tests/benchmarks/bench_reports.py                 # 200 entities x 10 predicates x 3 values
    python tests/benchmarks/bench_reports.py --entities 20   # develop at small scale

The ledger is built through ``assert_claims``: each (entity, predicate) gets values over
successive years (each update closes the one before), a few of them conflicting values from an
independent source (disputed, so the contradictions report has work). Then, in one process:

- baseline: ``audit()`` of the whole scope (every version of every claim, with links);
- ``report("audit")`` as Markdown, JSON and HTML; ``report("timeline", entity)`` as HTML;
  ``report("contradictions")`` as HTML; ``maintain(dry_run=True)``.

Prints medians, the ratio of each to the baseline, and the size of each report.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from ledger import Ledger  # noqa: E402


def build(path: Path, *, entities: int, predicates: int, values: int) -> Ledger:
    """A ledger with entities x predicates facts of ``values`` successive values each."""
    moment = [datetime(2026, 1, 1, tzinfo=UTC)]
    ledger = Ledger.open(str(path), clock=lambda: moment[0])
    text = " ".join(f"e{e} p{p} v{v}." for e in range(entities) for p in range(predicates) for v in range(values))
    main = ledger.add_source(text=text, uri="https://bench.example/main", publisher="main")
    rival = ledger.add_source(text=text + " (rival)", uri="https://bench.example/rival", publisher="rival")
    for v in range(values):
        moment[0] += timedelta(days=1)
        ledger.assert_claims([
            {"subject": f"e{e}", "predicate": f"p{p}", "value": f"v{v}", "valid_from": str(2000 + 5 * v),
             "evidence": [ledger.cite(main, f"e{e} p{p} v{v}")]}
            for e in range(entities) for p in range(predicates)])
    moment[0] += timedelta(days=1)
    ledger.assert_claims([  # conflicts: another value for the first period, from an independent source
        {"subject": f"e{e}", "predicate": "p0", "value": f"v{values - 1}", "valid_from": "2000",
         "valid_until": "2003", "evidence": [ledger.cite(rival, f"e{e} p0 v{values - 1}")]}
        for e in range(0, entities, 10)])
    moment[0] += timedelta(days=1)
    return ledger


def median_seconds(run: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entities", type=int, default=200)
    parser.add_argument("--predicates", type=int, default=10)
    parser.add_argument("--values", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        ledger = build(Path(folder) / "bench.db", entities=args.entities, predicates=args.predicates,
                       values=args.values)
        facts = args.entities * args.predicates
        print(f"built {facts:,} facts, {facts * args.values + args.entities // 10:,} claims "
              f"in {time.perf_counter() - start:.1f} s")
        baseline = median_seconds(lambda: ledger.audit(), args.repeat)
        print(f"{'audit() (baseline)':38} {baseline * 1000:9.1f} ms   1.00x")
        runs: list[tuple[str, Callable[[], object]]] = [
            ("report audit markdown", lambda: ledger.report("audit")),
            ("report audit json", lambda: ledger.report("audit", format="json")),
            ("report audit html", lambda: ledger.report("audit", format="html")),
            ("report timeline e0 html", lambda: ledger.report("timeline", "e0", format="html")),
            ("report contradictions html", lambda: ledger.report("contradictions", format="html")),
            ("maintain(dry_run=True)", lambda: ledger.maintain(dry_run=True)),
        ]
        for name, run in runs:
            seconds = median_seconds(run, args.repeat)
            result = run()
            size = f"{len(result.encode()) / 1024:,.0f} KiB" if isinstance(result, str) else ""
            print(f"{name:38} {seconds * 1000:9.1f} ms {seconds / baseline:6.2f}x   {size}")
        ledger.close()


if __name__ == "__main__":
    main()
