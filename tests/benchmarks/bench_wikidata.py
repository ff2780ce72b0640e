"""Wikidata import against the core bulk write (``assert_claims``), measured in one run.

    python tests/benchmarks/bench_wikidata.py            # 1,000,000 statements
    python tests/benchmarks/bench_wikidata.py 50000

Synthetic dump entries (JSON lines, 20 statements an entity: items with start/end years,
populations at a point in time, external ids, a reference URL on some) are imported part by part
with ``import_wikidata``, in turns with batches of the same number of claims through
bench_core's ``ApiLoad`` (``assert_claims``), so the machine's changing load falls on both alike.
Prints the ratio of the rates, never a pass/fail time. Target (issue 22): import rate ≥ 1/3 of
the core bulk-write rate.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_core import ApiLoad, Clock, plan  # noqa: E402

from ledger import Ledger  # noqa: E402

PART = 50_000  # statements per import part and claims per core batch
PER_ENTITY = 20


def _time(year: int, precision: int = 9) -> dict[str, object]:
    return {"time": f"+{year:04d}-00-00T00:00:00Z", "precision": precision, "timezone": 0, "before": 0,
            "after": 0, "calendarmodel": "http://www.wikidata.org/entity/Q1985727"}


def _snak(pid: str, datavalue: dict[str, object]) -> dict[str, object]:
    return {"snaktype": "value", "property": pid, "datavalue": datavalue}


def entity(n: int, rng: random.Random) -> dict[str, object]:
    """One synthetic item with PER_ENTITY statements."""
    qid = f"Q{n + 1_000_000}"
    claims: dict[str, list[dict[str, object]]] = {}
    for k in range(PER_ENTITY):
        kind = k % 4
        sid = f"{qid}${k:08x}-bench"
        if kind == 0:  # a term of office, year precision
            start = 1900 + rng.randrange(120)
            statement = {"mainsnak": _snak("P6", {"type": "wikibase-entityid", "value": {"id": f"Q{rng.randrange(10**6)}"}}),
                         "qualifiers": {"P580": [_snak("P580", {"type": "time", "value": _time(start)})],
                                        "P582": [_snak("P582", {"type": "time", "value": _time(start + 4)})]}}
            pid = "P6"
        elif kind == 1:  # a population at a point in time
            statement = {"mainsnak": _snak("P1082", {"type": "quantity", "value": {"amount": f"+{rng.randrange(10**7)}", "unit": "1"}}),
                         "qualifiers": {"P585": [_snak("P585", {"type": "time", "value": _time(1950 + k, 11) | {
                             "time": f"+{1950 + k:04d}-12-31T00:00:00Z"}})]},
                         "references": [{"snaks": {"P854": [_snak("P854", {"type": "string",
                                                                          "value": f"https://stats.example/{n}/{k}"})]}}]}
            pid = "P1082"
        elif kind == 2:  # an external id
            pid = f"P{200 + k}"
            statement = {"mainsnak": _snak(pid, {"type": "string", "value": f"id-{n}-{k}"})}
        else:  # a link to another item
            pid = f"P{300 + k}"
            statement = {"mainsnak": _snak(pid, {"type": "wikibase-entityid", "value": {"id": f"Q{rng.randrange(10**6)}"}})}
        statement.update({"type": "statement", "id": sid, "rank": "preferred" if k == 0 else "normal"})
        claims.setdefault(pid, []).append(statement)
    return {"id": qid, "type": "item", "lastrevid": 1, "modified": "2024-01-01T00:00:00Z",
            "labels": {"en": {"language": "en", "value": f"Place {n}"}, "de": {"language": "de", "value": f"Ort {n}"}},
            "aliases": {}, "claims": claims}


def write_parts(folder: Path, statements: int, rng: random.Random) -> list[Path]:
    """Dump parts of PART statements each, as JSON lines (a dump's lines without the brackets)."""
    parts = []
    for first in range(0, statements // PER_ENTITY, PART // PER_ENTITY):
        path = folder / f"part-{len(parts):04d}.json"
        with path.open("w", encoding="utf-8") as stream:
            for n in range(first, min(first + PART // PER_ENTITY, statements // PER_ENTITY)):
                stream.write(json.dumps(entity(n, rng)) + ",\n")
        parts.append(path)
    return parts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("statements", type=int, nargs="?", default=1_000_000)
    args = parser.parse_args()
    rng = random.Random(22)
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        parts = write_parts(folder, args.statements, rng)
        core = ApiLoad(folder / "core.db", plan(args.statements, rng))
        wiki = Ledger.open(folder / "wiki.db", clock=Clock())
        import_seconds = core_seconds = 0.0
        imported = claims = 0
        for n, part in enumerate(parts):
            def run_import(part: Path = part) -> float:
                nonlocal imported, claims
                started = time.perf_counter()
                report = wiki.import_wikidata(part)
                imported += report.statements
                claims += report.claims
                return time.perf_counter() - started
            if n % 2:
                core_seconds += core.batch(n * PART)
                import_seconds += run_import()
            else:
                import_seconds += run_import()
                core_seconds += core.batch(n * PART)
        wiki.close()
        core.ledger.close()
        import_rate, core_rate = imported / import_seconds, args.statements / core_seconds
        print(f"Wikidata import of {imported:,} statements ({imported // PER_ENTITY:,} entities, {claims:,} claims), "
              f"parts of {PART:,}, in turns with assert_claims batches of {PART:,}")
        print(f"  Ledger.assert_claims  : {core_rate:10,.0f} claims/s ({core_seconds:.1f} s)")
        print(f"  Ledger.import_wikidata: {import_rate:10,.0f} statements/s ({import_seconds:.1f} s)")
        print(f"  import rate / core rate: {import_rate / core_rate:.2f}   (target >= 0.33)")


if __name__ == "__main__":
    main()
