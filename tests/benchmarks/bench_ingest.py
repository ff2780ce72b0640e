"""End-to-end ingestion through the Ledger against raw pymupdf and raw trafilatura, in one run.

    python tests/benchmarks/bench_ingest.py [--pages 200] [--articles 50] [--repeat 5] [--pdf-repeat 11]

PDF: ``Ledger.ingest_pdf`` (extraction, passages, storage in a fresh SQLite file) against
opening the same bytes with pymupdf and ``page.get_text()`` on every page. Web:
``Ledger.ingest_html`` for each page against ``trafilatura.bare_extraction(page, with_metadata=True)``
of the same bytes (the target's baseline, issue 19), and ``trafilatura.extract`` with its defaults
for information; the three take turns in each run, order rotating, batch by batch (each reads all the pages in
one go) and then page by page (steadier where other work loads the machine), and the ratio is
given both as the median of per-run ratios and as best time / best time (noise only adds time). PDF: the two take
turns, order alternating, reported the same two ways. CPU time, after one untimed pass of each.
Targets: ≤ 1.25× (PDF, issue 3) and ≤ 1.15× bare_extraction with metadata (web, issue 19).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_ingest_html import (  # noqa: E402
    TARGET_BASELINE,
    _pages,
    interleaved,
    ledger_side,
    ratios,
    trafilatura_sides,
)
from bench_ingest_pdf import build_text_pdf  # noqa: E402

from ledger import Ledger  # noqa: E402


def cpu(work: Callable[[], object]) -> float:
    started = time.process_time()
    work()
    return time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--articles", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5, help="web runs")
    parser.add_argument("--pdf-repeat", type=int, default=11, help="PDF runs")
    args = parser.parse_args()

    import pymupdf

    with tempfile.TemporaryDirectory() as folder:
        pdf_path = Path(folder) / "book.pdf"
        build_text_pdf(pdf_path, args.pages)
        data = pdf_path.read_bytes()
        pages = _pages(args.articles)

        def raw_pdf() -> None:
            with pymupdf.open(stream=data, filetype="pdf") as document:
                for page in document:
                    page.get_text()

        # PDF: after one untimed pass (lazy imports, caches), the two take turns, order alternating.
        def ours_pdf(run: int) -> None:
            with Ledger.open(Path(folder) / f"pdf-{run}.db") as ledger:
                ledger.add_source(text="warm up")  # schema creation is not ingestion
                pdf_seconds.setdefault("ours", []).append(cpu(lambda: ledger.ingest_pdf(data, uri="bench:book")))

        pdf_seconds: dict[str, list[float]] = {}
        ours_pdf(-1)
        raw_pdf()
        pdf_seconds.clear()
        for run in range(args.pdf_repeat):
            if run % 2:
                ours_pdf(run)
                pdf_seconds.setdefault("raw", []).append(cpu(raw_pdf))
            else:
                pdf_seconds.setdefault("raw", []).append(cpu(raw_pdf))
                ours_pdf(run)

        # web: Ledger.ingest_html and the raw-trafilatura baselines take turns each run (the
        # order rotating), after one untimed pass that loads what each imports lazily.
        web_sides = trafilatura_sides()
        web_totals: dict[str, list[float]] = {}
        by_page_totals: dict[str, list[float]] = {}
        with ledger_side(Path(folder), "web-warm-up") as ingest:
            interleaved(pages, {"ingest_html": ingest, **web_sides}, 0)
        for run in range(args.repeat):
            with ledger_side(Path(folder), f"web-{run}") as ingest:
                spent = interleaved(pages, {"ingest_html": ingest, **web_sides}, run)
            for name, seconds in spent.items():
                web_totals.setdefault(name, []).append(seconds)
        # Page by page as well: the sides take turns on every page, so a burst of load from
        # elsewhere on the machine hits them alike (steadier on a shared host; no side's code
        # stays warm in the CPU caches).
        for run in range(args.repeat):
            with ledger_side(Path(folder), f"web-by-page-{run}") as ingest:
                spent = interleaved(pages, {"ingest_html": ingest, **web_sides}, run, by_page=True)
            for name, seconds in spent.items():
                by_page_totals.setdefault(name, []).append(seconds)

    median, best = ratios(pdf_seconds["ours"], pdf_seconds["raw"])
    print(f"PDF, {args.pages} pages, {args.pdf_repeat} runs: Ledger.ingest_pdf / raw pymupdf get_text = {median:.2f} "
          f"(median of runs; best/best {best:.2f})  (target <= 1.25)")
    for totals, how in ((web_totals, "batch by batch"), (by_page_totals, "page by page")):
        for baseline, label, target in ((TARGET_BASELINE, "trafilatura.bare_extraction(with_metadata=True)",
                                         "  (target <= 1.15)"),
                                        ("extract (defaults)", "trafilatura.extract (defaults)", "")):
            median, best = ratios(totals["ingest_html"], totals[baseline])
            print(f"web, {args.articles} pages, {args.repeat} runs, {how}: Ledger.ingest_html / {label} = {median:.2f} "
                  f"(median of runs; best/best {best:.2f}){target}")


if __name__ == "__main__":
    main()
