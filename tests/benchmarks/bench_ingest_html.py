"""Benchmark: Ledger.ingest_html / read_html against trafilatura.bare_extraction on the same 50 pages.

Pages: the shared real-world article pages plus this project's fixtures, cycled to 50 (each
copy made distinct by a trailing HTML comment, so nothing can be cached by content).

CPU time (``time.process_time``), all sides in one process. Within a repetition the sides take
turns, rotating who goes first: each reads all the pages in one go (``--by-page``: turns page by
page, which keeps no side's code warm in the CPU caches), so a load spike from elsewhere on the
machine hits them alike; each repetition gives one total per side. Noise only ever adds time,
so two figures are reported per ratio (as ``timeit`` recommends): the median of the
per-repetition ratios, and the ratio of the best (minimum) totals.

Sides:

* ``ingest_html``: ``Ledger.ingest_html`` into a fresh SQLite file per repetition (reading,
  passages, metadata, storage): what the target is about;
* ``read_html``: the same without storing;
* ``bare_extraction (with_metadata)``: ``trafilatura.bare_extraction(page, url=..., with_metadata=True)``
  on the page's bytes: trafilatura's main text and metadata with its defaults, the work the
  ingester hands to trafilatura. Target (issue 19): ingest_html <= 1.15x this;
* ``bare_extraction (as read_html asks)``: the same with read_html's options (no comments,
  images kept, xml body), for information: the part of read_html that is trafilatura's own;
* ``extract (defaults)``: ``trafilatura.extract(page)``, txt output, no metadata, for information.

Run: python tests/benchmarks/bench_ingest_html.py [--pages 50] [--repetitions 9] [--by-page]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from ledger import Ledger
from ledger.ingest.html import read_html

REALWORLD = ROOT.parent / "shared" / "realworld" / "html"
FIXTURES = ROOT / "fixtures" / "html"

Page = tuple[str, bytes, str | None]
Side = Callable[[int, bytes, str | None], object]


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


def _url(index: int) -> str:
    return f"https://bench.example/{index}"


TARGET_BASELINE = "bare_extraction (with_metadata)"


def trafilatura_sides() -> dict[str, Side]:
    """The raw-trafilatura baselines, each a callable (page index, bytes, charset); the first is
    the target's."""
    import trafilatura

    return {
        TARGET_BASELINE: lambda index, data, charset: trafilatura.bare_extraction(
            data, url=_url(index), with_metadata=True),
        "extract (defaults)": lambda index, data, charset: trafilatura.extract(data),
    }


@contextmanager
def ledger_side(folder: Path, name: str) -> Iterator[Side]:
    """Ledger.ingest_html into a fresh SQLite file (schema created before timing starts)."""
    with Ledger.open(folder / f"{name}.db") as ledger:
        ledger.add_source(text="warm up")  # schema creation is not ingestion
        yield lambda index, data, charset: ledger.ingest_html(data, url=_url(index), encoding=charset)


def interleaved(pages: Sequence[Page], sides: dict[str, Side], repetition: int, *, by_page: bool = False) -> dict[str, float]:
    """One repetition: CPU seconds per side, the sides taking turns (order rotating per repetition).

    By default each side reads all the pages in one go (its code stays warm, as in a batch
    ingest); with by_page the sides take turns page by page.
    """
    names = list(sides)
    spent = dict.fromkeys(names, 0.0)
    clock = time.process_time
    if not by_page:
        shift = repetition % len(names)
        for name in names[shift:] + names[:shift]:
            run = sides[name]
            start = clock()
            for index, (_, data, charset) in enumerate(pages):
                run(index, data, charset)
            spent[name] = clock() - start
        return spent
    for index, (_, data, charset) in enumerate(pages):
        shift = (repetition + index) % len(names)
        for name in names[shift:] + names[:shift]:
            run = sides[name]
            start = clock()
            run(index, data, charset)
            spent[name] += clock() - start
    return spent


def ratios(ours: Sequence[float], theirs: Sequence[float]) -> tuple[float, float]:
    """(median of per-repetition ratios, ratio of the best totals)."""
    return (
        statistics.median(a / b for a, b in zip(ours, theirs, strict=True)),
        min(ours) / min(theirs),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=50)
    parser.add_argument("--repetitions", type=int, default=9)
    parser.add_argument("--by-page", action="store_true", help="sides take turns page by page, not batch by batch")
    args = parser.parse_args()

    import trafilatura

    pages = _pages(args.pages)
    realworld = sum(1 for name, _, _ in pages if not (FIXTURES / name).exists())
    fixed: dict[str, Side] = {
        "read_html": lambda index, data, charset: read_html(data, url=_url(index), encoding=charset),
        **trafilatura_sides(),
        "bare_extraction (as read_html asks)": lambda index, data, charset: trafilatura.bare_extraction(
            data, url=_url(index), with_metadata=True, include_comments=False, include_tables=True,
            include_images=True, include_links=False, include_formatting=False, output_format="xml",
        ),
    }
    totals: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as folder:
        with ledger_side(Path(folder), "warm-up") as ingest:  # imports, caches, lazy tables
            interleaved(pages, {"ingest_html": ingest, **fixed}, 0)
        for repetition in range(args.repetitions):
            with ledger_side(Path(folder), f"run-{repetition}") as ingest:
                spent = interleaved(pages, {"ingest_html": ingest, **fixed}, repetition, by_page=args.by_page)
            for name, seconds in spent.items():
                totals.setdefault(name, []).append(seconds)

    print(
        f"{len(pages)} pages ({realworld} real-world, {len(pages) - realworld} fixtures), "
        f"{sum(len(d) for _, d, _ in pages) / 2**20:.1f} MiB, {args.repetitions} repetitions, CPU time, "
        f"sides taking turns {'page by page' if args.by_page else 'batch by batch'}"
    )
    for name, spent in totals.items():
        print(f"  {name:<36} best {min(spent) * 1000:7.1f} ms   median {statistics.median(spent) * 1000:7.1f} ms")
    for ours in ("ingest_html", "read_html"):
        for baseline in (TARGET_BASELINE, "bare_extraction (as read_html asks)", "extract (defaults)"):
            median, best = ratios(totals[ours], totals[baseline])
            target = "  (target <= 1.15)" if (ours, baseline) == ("ingest_html", TARGET_BASELINE) else ""
            print(f"ratio {ours} / {baseline:<36} median {median:.3f}x   best/best {best:.3f}x{target}")


if __name__ == "__main__":
    main()
