"""Core write and read paths against raw sqlite3 on the same schema, measured in one run.

    python tests/benchmarks/bench_core.py               # 1,000,000 claims
    python tests/benchmarks/bench_core.py --claims 100000

Prints ratios, never absolute pass/fail timings: these machines are shared and noisy.
Targets (issue 2): bulk writes through ``assert_claims`` reach ≥ 1/3 of raw executemany's rate;
a point read ``claims(subject, predicate, valid_at=T, known_at=K)`` is within 3× of the same
indexed query in raw sqlite3 at the median.
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from ledger import Ledger
from ledger.entities import normalize_name
from ledger.timeline import to_micros

BATCH = 50_000
ENTITIES = 100_000
SOURCES = 100
QUOTES_PER_SOURCE = 10


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


def source_text(n: int) -> str:
    return " ".join(f"Source {n} states fact number {q} about the world in plain words." for q in range(QUOTES_PER_SOURCE))


def plan(count: int, rng: random.Random) -> list[tuple[int, int, str, str, list[int]]]:
    """(entity, predicate, value, valid_from, citation indexes) per claim."""
    rows = []
    for i in range(count):
        start = datetime(2020, 1, 1) + timedelta(days=rng.randrange(2000))
        citations = [rng.randrange(SOURCES * QUOTES_PER_SOURCE) for _ in range(1 + (i % 2))]
        rows.append((i % ENTITIES, i // ENTITIES, f"value {rng.randrange(10**6)}", start.strftime("%Y-%m-%d"), citations))
    return rows


class ApiLoad:
    """Bulk writes through ``Ledger.assert_claims``, one batch at a time."""

    def __init__(self, path: Path, rows: list) -> None:  # type: ignore[type-arg]
        self.ledger = Ledger.open(path, clock=Clock())
        sources = [self.ledger.add_source(text=source_text(n), uri=f"bench:{n}", publisher=f"P{n}")
                   for n in range(SOURCES)]
        self.citations = [self.ledger.cite(sources[n], f"Source {n} states fact number {q} about")
                          for n in range(SOURCES) for q in range(QUOTES_PER_SOURCE)]
        self.drafts = [{"subject": f"entity {e}", "predicate": f"p{p}", "value": v, "valid_from": start,
                        "evidence": [self.citations[c] for c in cs]} for e, p, v, start, cs in rows]

    def batch(self, first: int) -> float:
        started = time.perf_counter()
        self.ledger.assert_claims(self.drafts[first:first + BATCH])
        return time.perf_counter() - started


class RawLoad:
    """The same rows through raw ``sqlite3.executemany`` into the same schema."""

    def __init__(self, path: Path, rows: list, citations: list) -> None:  # type: ignore[type-arg]
        Ledger.open(path).close()  # same schema, created by the migrations
        self.connection = connection = sqlite3.connect(path, isolation_level=None)
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=NORMAL")
        connection.execute("PRAGMA foreign_keys=ON")
        now = to_micros(datetime(2026, 1, 1, tzinfo=UTC))
        connection.execute("BEGIN")
        connection.executemany(
            "INSERT INTO sources (id, scope, kind, uri, content_hash, text_hash, text, trust, recorded_at) "
            "VALUES (?, 'default', 'text', ?, ?, ?, ?, 'trusted', ?)",
            [(n + 1, f"bench:{n}", f"{n:064d}", f"{n:064d}", source_text(n), now) for n in range(SOURCES)])
        connection.execute("COMMIT")
        # The API creates the entities its claims name, so the raw run inserts them in the timed part too.
        self.entity_rows = [(e + 1, f"entity {e}", now) for e in range(min(ENTITIES, len(rows)))]
        self.alias_rows = [(e + 1, e + 1, f"entity {e}", f"entity {e}", now) for e in range(min(ENTITIES, len(rows)))]
        # Built before timing, as the API's drafts are.
        self.claims, self.versions = [], []
        self.evidence: list[list[tuple[object, ...]]] = [[] for _ in range(0, len(rows), BATCH)]
        evidence_id = 0
        for n, (e, p, v, start, cs) in enumerate(rows):
            self.claims.append((n + 1, e + 1, f"p{p}", json.dumps(v), now))
            self.versions.append((n + 1, n + 1, to_micros(datetime.fromisoformat(start).replace(tzinfo=UTC)), now))
            for c in cs:
                evidence_id += 1
                cited = citations[c]
                self.evidence[n // BATCH].append((evidence_id, n + 1, cited.source_id, cited.excerpt, cited.char_start,
                                                  cited.char_end, json.dumps(cited.locator), now))

    def batch(self, first: int) -> float:
        connection, last = self.connection, first + BATCH
        started = time.perf_counter()
        connection.execute("BEGIN IMMEDIATE")
        connection.executemany("INSERT INTO entities (id, scope, name, created_at) VALUES (?, 'default', ?, ?)",
                               self.entity_rows[first:last])
        connection.executemany(
            "INSERT INTO aliases (id, entity_id, scope, alias, normalized, recorded_at) VALUES (?, ?, 'default', ?, ?, ?)",
            self.alias_rows[first:last])
        connection.executemany(
            "INSERT INTO claims (id, scope, subject_id, predicate, value, datatype, qualifiers, recorded_at) "
            "VALUES (?, 'default', ?, ?, ?, 'string', '{}', ?)", self.claims[first:last])
        connection.executemany(
            "INSERT INTO claim_versions (id, claim_id, status, confidence, valid_from, valid_from_precision, recorded_at) "
            "VALUES (?, ?, 'reported', 0.6, ?, 'day', ?)", self.versions[first:last])
        connection.executemany(
            "INSERT INTO evidence (id, claim_id, source_id, relation, excerpt, char_start, char_end, locator, "
            "anchor_method, anchor_score, recorded_at) VALUES (?, ?, ?, 'supports', ?, ?, ?, ?, 'cited', 1.0, ?)",
            self.evidence[first // BATCH])
        connection.execute("COMMIT")
        return time.perf_counter() - started


def bench_writes(folder: Path, rows: list) -> tuple[float, float, Ledger]:  # type: ignore[type-arg]
    """Both loads, batch by batch in turns (which goes first alternates), so that the machine's
    changing load falls on both alike; returns the seconds each took and the loaded ledger."""
    api = ApiLoad(folder / "api.db", rows)
    raw = RawLoad(folder / "raw.db", rows, api.citations)
    api_seconds = raw_seconds = 0.0
    for n, first in enumerate(range(0, len(rows), BATCH)):
        if n % 2:
            raw_seconds += raw.batch(first)
            api_seconds += api.batch(first)
        else:
            api_seconds += api.batch(first)
            raw_seconds += raw.batch(first)
    raw.connection.close()
    return api_seconds, raw_seconds, api.ledger


RAW_POINT_READ = """
SELECT c.id, c.scope, c.subject_id, s.name, c.predicate, c.object_id, o.name, c.value, c.datatype, c.qualifiers,
       v.id, v.status, v.confidence, v.valid_from, v.valid_until, v.valid_from_precision, v.valid_until_precision,
       v.recorded_at, v.invalidated_at, v.cause, v.reason, v.actor,
       (SELECT group_concat(CAST(e.id AS VARCHAR), ',') FROM evidence e WHERE e.claim_id = c.id AND e.recorded_at <= :k)
FROM claims c JOIN claim_versions v ON v.claim_id = c.id
JOIN entities s ON s.id = c.subject_id LEFT OUTER JOIN entities o ON o.id = c.object_id
WHERE c.scope = 'default'
  AND c.subject_id IN (SELECT id FROM entities WHERE id = (SELECT coalesce(x.merged_into, x.id) FROM aliases a
       JOIN entities x ON x.id = a.entity_id WHERE a.scope = 'default' AND a.normalized = :name)
       OR merged_into = (SELECT coalesce(x.merged_into, x.id) FROM aliases a
       JOIN entities x ON x.id = a.entity_id WHERE a.scope = 'default' AND a.normalized = :name))
  AND c.predicate = :p AND v.recorded_at <= :k AND (v.invalidated_at IS NULL OR v.invalidated_at > :k)
  AND v.status IN ('reported', 'confirmed', 'disputed', 'superseded')
  AND (v.valid_from IS NULL OR v.valid_from <= :t) AND (v.valid_until IS NULL OR v.valid_until > :t)
"""


def bench_reads(api: Ledger, raw_path: Path, rows: list, rng: random.Random, samples: int) -> tuple[list[float], list[float], int]:  # type: ignore[type-arg]
    raw = sqlite3.connect(raw_path, isolation_level=None)
    probes = []
    for _ in range(samples):
        e, p, _v, start, _c = rows[rng.randrange(len(rows))]
        valid_at = datetime.fromisoformat(start).replace(tzinfo=UTC) + timedelta(days=rng.randrange(400))
        probes.append((f"entity {e}", f"p{p}", valid_at, datetime(2027, 1, 1, tzinfo=UTC)))
    api_times, raw_times, found = [], [], 0
    for name, predicate, valid_at, known_at in probes:
        started = time.perf_counter()
        result = raw.execute(RAW_POINT_READ, {"name": normalize_name(name), "p": predicate, "k": to_micros(known_at),
                                              "t": to_micros(valid_at)}).fetchall()
        raw_times.append(time.perf_counter() - started)
        started = time.perf_counter()
        claims = api.claims(name, predicate, valid_at=valid_at, known_at=known_at)
        api_times.append(time.perf_counter() - started)
        assert len(claims) == len(result)
        found += len(claims)
    raw.close()
    return api_times, raw_times, found


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--claims", type=int, default=1_000_000)
    parser.add_argument("--reads", type=int, default=3000)
    args = parser.parse_args()
    rng = random.Random(7)
    rows = plan(args.claims, rng)
    with tempfile.TemporaryDirectory() as folder:
        api_seconds, raw_seconds, api = bench_writes(Path(folder), rows)
        api_rate, raw_rate = args.claims / api_seconds, args.claims / raw_seconds
        print(f"bulk write of {args.claims:,} claims (+{sum(len(r[4]) for r in rows):,} evidence rows), batches of "
              f"{BATCH:,}, API and raw batches in turns")
        print(f"  raw sqlite3 executemany : {raw_rate:10,.0f} claims/s ({raw_seconds:.1f} s)")
        print(f"  Ledger.assert_claims    : {api_rate:10,.0f} claims/s ({api_seconds:.1f} s)")
        print(f"  API rate / raw rate     : {api_rate / raw_rate:.2f}   (target >= 0.33)")
        api_times, raw_times, found = bench_reads(api, Path(folder) / "raw.db", rows, rng, args.reads)
        api.close()
        api_median, raw_median = statistics.median(api_times), statistics.median(raw_times)
        print(f"point read claims(subject, predicate, valid_at=T, known_at=K), {args.reads} probes, {found} claims found")
        print(f"  raw sqlite3 median {raw_median * 1e6:7.1f} µs  p99 {percentile(raw_times, 0.99) * 1e6:7.1f} µs")
        print(f"  Ledger      median {api_median * 1e6:7.1f} µs  p99 {percentile(api_times, 0.99) * 1e6:7.1f} µs")
        print(f"  median ratio {api_median / raw_median:.2f}  (target <= 3)   p99 ratio "
              f"{percentile(api_times, 0.99) / percentile(raw_times, 0.99):.2f}")
        for name in ("api.db", "raw.db"):
            size = (Path(folder) / name).stat().st_size
            print(f"  {name}: {size / args.claims:.0f} B/claim")


if __name__ == "__main__":
    main()
