"""Benchmark: read_html against raw trafilatura.extract on the same 50 pages, in the same run.

Pages: the shared real-world article pages plus this project's fixtures, cycled to 50 (each
copy made distinct by a trailing HTML comment, so nothing can be cached by content). Within a
repetition the sides take turns page by page; each repetition gives one ratio of totals, and the
figure reported is the median of those ratios. Two baselines:

* ``trafilatura.extract(page)`` with its defaults (txt output, comments included, no metadata):
  the raw extractor as most callers use it;
* ``trafilatura.extract(page, with_metadata=True, include_comments=False)``: the same work
  read_html asks of trafilatura (main text without reader comments, plus metadata);
* ``trafilatura.bare_extraction`` exactly as read_html calls it: the ratio is ledger's own
  overhead (decoding, hashing, the passage walk, meta-tag times).

Target: read_html ≤ ~1.08× the raw extractor, so that storing fits ledger's 1.15× budget.

Run: python tests/benchmarks/bench_ingest_html.py [--pages 50] [--repetitions 9]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from ledger.ingest.html import read_html

REALWORLD = ROOT.parent / "shared" / "realworld" / "html"
FIXTURES = ROOT / "fixtures" / "html"


def _pages(count: int) -> list[tuple[str, bytes, str | None]]:
    """(name, bytes, HTTP charset) for count article pages, cycling what exists."""
    expected = json.loads((FIXTURES / "expected.json").read_text(encoding="utf-8"))
    base: list[tuple[str, bytes, str | None]] = [
        (path.name, path.read_bytes(), None) for path in sorted(REALWORLD.glob("*.html"))
    ]
    base += [
        (name, (FIXTURES / name).read_bytes(), entry.get("http_charset"))
        for name, entry in sorted(expected.items())
        if "error" not in entry
    ]
    if not base:
        raise SystemExit("no pages found: build the fixtures first (python fixtures/build_html.py)")
    return [
        (name, data + f"\n<!-- copy {index} -->\n".encode("ascii"), charset)
        for index, (name, data, charset) in ((i, base[i % len(base)]) for i in range(count))
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=50)
    parser.add_argument("--repetitions", type=int, default=9)
    args = parser.parse_args()

    import trafilatura

    pages = _pages(args.pages)
    realworld = sum(1 for name, _, _ in pages if not (FIXTURES / name).exists())
    sides: dict[str, Callable[[bytes, str | None], object]] = {
        "read_html": lambda data, charset: read_html(data, encoding=charset),
        "extract (defaults)": lambda data, charset: trafilatura.extract(data),
        "extract (metadata, no comments)": lambda data, charset: trafilatura.extract(
            data, with_metadata=True, include_comments=False
        ),
        # exactly the trafilatura call inside read_html: what remains is ledger's own work
        "bare_extraction as read_html calls it": lambda data, charset: trafilatura.bare_extraction(
            data, with_metadata=True, include_comments=False, include_formatting=False, output_format="xml"
        ),
    }
    names = list(sides)
    for _, data, charset in pages:  # warm up: imports, caches, lazy tables
        for run in sides.values():
            run(data, charset)

    # Page by page, the sides take turns (rotating who goes first), so a load spike from
    # elsewhere on the machine hits all of them alike; one total per side per repetition.
    totals: dict[str, list[float]] = {name: [] for name in names}
    clock = time.perf_counter
    for repetition in range(args.repetitions):
        spent = dict.fromkeys(names, 0.0)
        for index, (_, data, charset) in enumerate(pages):
            shift = (repetition + index) % len(names)
            for name in names[shift:] + names[:shift]:
                start = clock()
                sides[name](data, charset)
                spent[name] += clock() - start
        for name in names:
            totals[name].append(spent[name])

    print(
        f"{len(pages)} pages ({realworld} real-world, {len(pages) - realworld} fixtures), "
        f"{sum(len(d) for _, d, _ in pages) / 2**20:.1f} MiB, {args.repetitions} repetitions"
    )
    for name in names:
        median = statistics.median(totals[name])
        print(f"  {name:<40} median {median * 1000:8.1f} ms   {median / len(pages) * 1000:6.2f} ms/page")
    for baseline in names[1:]:
        ratios = [ours / theirs for ours, theirs in zip(totals["read_html"], totals[baseline], strict=True)]
        print(
            f"ratio read_html / {baseline:<40} median {statistics.median(ratios):.3f}x "
            f"(min {min(ratios):.3f}, max {max(ratios):.3f})"
        )


if __name__ == "__main__":
    main()
