"""End-to-end ingestion through the Ledger against raw pymupdf and raw trafilatura, in one run.

    python tests/benchmarks/bench_ingest.py [--pages 200] [--articles 50] [--repeat 5]

PDF: ``Ledger.ingest_pdf`` (extraction, passages, storage in a fresh SQLite file) against
opening the same bytes with pymupdf and ``page.get_text()`` on every page. Web:
``Ledger.ingest_html`` for each page against ``trafilatura.extract`` of the same bytes, both
with trafilatura's defaults and with ``with_metadata=True`` (the ledger extracts metadata,
and that step is most of the difference). CPU time, medians of per-repetition ratios.
Targets (issue 3): ≤ 1.25× (PDF) and ≤ 1.15× (web).
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

from bench_ingest_html import _pages  # noqa: E402
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
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    import pymupdf
    import trafilatura

    with tempfile.TemporaryDirectory() as folder:
        pdf_path = Path(folder) / "book.pdf"
        build_text_pdf(pdf_path, args.pages)
        data = pdf_path.read_bytes()
        pages = _pages(args.articles)

        def raw_pdf() -> None:
            with pymupdf.open(stream=data, filetype="pdf") as document:
                for page in document:
                    page.get_text()

        pdf_ratios, web_ratios, web_meta_ratios = [], [], []
        for run in range(args.repeat):
            baseline = cpu(raw_pdf)
            with Ledger.open(Path(folder) / f"pdf-{run}.db") as ledger:
                ledger.add_source(text="warm up")  # schema creation is not ingestion
                ours = cpu(lambda: ledger.ingest_pdf(data, uri="bench:book"))
            pdf_ratios.append(ours / baseline)

            plain = cpu(lambda: [trafilatura.extract(html) for _, html, _ in pages])
            with_meta = cpu(lambda: [trafilatura.extract(html, with_metadata=True) for _, html, _ in pages])
            with Ledger.open(Path(folder) / f"web-{run}.db") as ledger:
                ledger.add_source(text="warm up")
                ours = cpu(lambda: [ledger.ingest_html(html, url=f"https://bench.example/{n}", encoding=charset)
                                    for n, (_, html, charset) in enumerate(pages)])
            web_ratios.append(ours / plain)
            web_meta_ratios.append(ours / with_meta)

    print(f"PDF, {args.pages} pages, {args.repeat} runs: Ledger.ingest_pdf / raw pymupdf get_text = "
          f"{statistics.median(pdf_ratios):.2f}  (target <= 1.25; runs {', '.join(f'{r:.2f}' for r in pdf_ratios)})")
    print(f"web, {args.articles} pages: Ledger.ingest_html / trafilatura.extract (defaults) = "
          f"{statistics.median(web_ratios):.2f}  (target <= 1.15)")
    print(f"web, {args.articles} pages: Ledger.ingest_html / trafilatura.extract(with_metadata=True) = "
          f"{statistics.median(web_meta_ratios):.2f}")


if __name__ == "__main__":
    main()
