"""Benchmark: read_pdf against the raw pymupdf text baseline on a 200-page text PDF.

Run ``python tests/benchmarks/bench_ingest_pdf.py [--pages N] [--repeat R] [--pdf FILE]``
(``--pdf`` measures an existing document instead, e.g. a real two-column paper).

The baseline is ``for page in doc: page.get_text()`` on the same bytes (opening the
document included in both). The two run back to back ``R`` times in the same process,
timed as CPU time (``time.process_time``: other processes on a busy machine inflate
wall-clock time unevenly). The figure is the median over the repetitions of
read_pdf's time divided by the baseline's in the same repetition; the ratios of the
medians and of the minima are printed beside it. The budget is about 1.15x: the
ledger's storage adds the rest of its 1.25x.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pymupdf

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from ledger.ingest.pdf import read_pdf

WORDS = [
    "ledger", "claim", "source", "passage", "evidence", "temporal", "research", "agent",
    "reading", "order", "column", "harbour", "survey", "estuary", "tide", "volunteer",
    "notebook", "record", "station", "river", "spring", "autumn", "measure", "average",
    "water", "mark", "dredging", "summer", "months", "plan", "repeat", "compiled", "trace",
]


def build_text_pdf(path: Path, pages: int, *, seed: int = 20240101) -> None:
    """Write a ``pages``-page PDF of dense running text (about 50 lines a page)."""
    rng = random.Random(seed)
    doc = pymupdf.open()
    font = pymupdf.Font("tiro")
    for _ in range(pages):
        page = doc.new_page(width=612, height=792)
        writer = pymupdf.TextWriter(page.rect)
        y = 72.0
        for line in range(50):
            words = [rng.choice(WORDS) for _ in range(rng.randint(9, 13))]
            text = " ".join(words)
            if line % 7 == 6:
                text += " hyphen-"  # a line-break hyphen now and then
            writer.append((72, y), text, font=font, fontsize=10)
            y += 13.0
        writer.write_text(page)
    doc.subset_fonts()
    doc.save(path, garbage=4, deflate=True)
    doc.close()


def baseline(data: bytes) -> None:
    doc = pymupdf.open(stream=data, filetype="pdf")
    for page in doc:
        page.get_text()
    doc.close()


def ingest(data: bytes) -> None:
    read_pdf(data)


def measure(
    functions: dict[str, Callable[[bytes], None]], data: bytes, repeat: int
) -> dict[str, list[float]]:
    """CPU seconds per run of each function, run back to back (alternating which goes
    first) so that each repetition's pair shares the machine's momentary load."""
    times: dict[str, list[float]] = {name: [] for name in functions}
    for function in functions.values():  # warm up: imports, font caches
        function(data)
    items = list(functions.items())
    for repetition in range(repeat):
        for name, function in items if repetition % 2 == 0 else items[::-1]:
            start = time.process_time()
            function(data)
            times[name].append(time.process_time() - start)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=21)
    parser.add_argument("--pdf", type=Path, help="measure this PDF instead of a generated one")
    args = parser.parse_args(argv)
    if args.pdf:
        data = args.pdf.read_bytes()
    else:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "bench.pdf"
            build_text_pdf(path, args.pages)
            data = path.read_bytes()
    draft = read_pdf(data)
    times = measure({"baseline": baseline, "read_pdf": ingest}, data, args.repeat)
    medians = {name: statistics.median(values) for name, values in times.items()}
    fastest = {name: min(values) for name, values in times.items()}
    paired = statistics.median(r / b for r, b in zip(times["read_pdf"], times["baseline"], strict=True))
    print(
        f"{args.pdf or 'generated PDF'}: {draft.page_count} pages, {len(data)} bytes, "
        f"{len(draft.passages)} passages, {len(draft.text)} chars; "
        f"CPU time, {args.repeat} alternating runs each"
    )
    for name, label in (("baseline", "page.get_text() baseline"), ("read_pdf", "read_pdf")):
        print(
            f"{label:25s} median {medians[name] * 1000:7.1f} ms   "
            f"min {fastest[name] * 1000:7.1f} ms"
        )
    print(
        f"ratio of medians {medians['read_pdf'] / medians['baseline']:.3f}x, "
        f"of minima {fastest['read_pdf'] / fastest['baseline']:.3f}x"
    )
    print(f"ratio (median of the {args.repeat} paired runs): {paired:.3f}x   (budget ~1.15x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
