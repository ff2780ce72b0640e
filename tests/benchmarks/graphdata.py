"""A generated claim graph for graph benchmarks and property tests: power-law degrees, a few hubs,
cycles, parallel edges, and claims recorded over several system times.

    from tests.benchmarks.graphdata import GraphSpec, plan, load, cached_sqlite

    spec = GraphSpec(claims=10_000, entities=1_000, seed=7)
    edges = plan(spec)                       # pure: the edges, no database
    load(ledger, edges, spec)                # through Ledger.assert_claims, batch by batch
    path = cached_sqlite(spec)               # a built SQLite file in /tmp, reused by size and seed

``load`` sends every claim through ``Ledger.assert_claims`` (the bulk write path: rules, evidence
and versions as any user's claims get); the clock advances one day per batch, so ``known_at``
slices the graph by batch. Predicates are declared many-valued entity predicates, so every edge
is its own claim (parallel edges between one pair differ by their valid interval; an edge equal
to an earlier one in all of subject, predicate, object and interval corroborates it).

``cached_sqlite`` builds large ledgers with ``write_rows`` instead: the same rows ``load`` makes
(tests/test_graph.py compares the two), inserted with ``sqlite3.executemany``. The write path
reads the standing claims of every subject in a batch to look for corroboration, which with hubs
of 60,000 claims made a 1,000,000-claim build take hours on a shared machine.
"""

from __future__ import annotations

import json
import random
import sqlite3
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import NamedTuple

from ledger import Citation, Ledger
from ledger.entities import normalize_name
from ledger.timeline import to_micros

PREDICATES = ("knows", "works_with", "owns", "funds")
START = datetime(2026, 1, 1, tzinfo=UTC)
SOURCES = 20
QUOTES_PER_SOURCE = 10


@dataclass(frozen=True)
class GraphSpec:
    """What to generate: sizes, hubs, how many batches (system times) and the random seed."""

    claims: int = 1_000_000
    entities: int = 100_000
    hubs: int = 5
    #: Share of edge endpoints that land on a hub (0.15 of 2,000,000 endpoints over 5 hubs:
    #: about 60,000 edges each at the default size).
    hub_share: float = 0.15
    batches: int = 20
    seed: int = 20
    scope: str = "default"


class Edge(NamedTuple):
    """One claim to write: subject and object entity numbers, predicate, valid interval, batch."""

    subject: int
    object: int
    predicate: str
    valid_from: str | None
    valid_until: str | None
    batch: int


def entity_name(number: int) -> str:
    """The name entity ``number`` is written under."""
    return f"entity {number}"


def _endpoint(rng: random.Random, spec: GraphSpec) -> int:
    if rng.random() < spec.hub_share:
        return rng.randrange(spec.hubs)
    # power law over the rest: low numbers are much more likely (degree ~ rank^-0.5)
    return spec.hubs + int((spec.entities - spec.hubs) * rng.random() ** 2)


def _interval(rng: random.Random) -> tuple[str | None, str | None]:
    start = datetime(2015, 1, 1) + timedelta(days=rng.randrange(3650))
    roll = rng.random()
    if roll < 0.1:
        return None, None  # unknown bounds on both sides
    if roll < 0.5:
        return start.date().isoformat(), None
    end = start + timedelta(days=1 + rng.randrange(1500))
    return start.date().isoformat(), end.date().isoformat()


def _apart(interval: tuple[str | None, str | None], held: list[tuple[str | None, str | None]]) -> bool:
    """Whether ``interval`` neither overlaps nor meets any of ``held`` (None: unbounded)."""
    start, end = interval
    for other_start, other_end in held:
        before = end is not None and other_start is not None and end < other_start
        after = start is not None and other_end is not None and other_end < start
        if not (before or after):
            return False
    return True


def plan(spec: GraphSpec) -> list[Edge]:
    """The edges of the graph (pure and deterministic for a spec); every entity number below
    ``spec.entities`` is named by at least one edge when there are enough claims.

    Two edges with the same subject, predicate and object never have intervals that overlap or
    meet: the write path would corroborate the second into the first (one claim over the union),
    and the edges are meant to be claims one for one.
    """
    rng = random.Random(spec.seed)
    edges: list[Edge] = []
    held: dict[tuple[int, str, int], list[tuple[str | None, str | None]]] = {}
    per_batch = max(1, -(-spec.claims // spec.batches))
    for n in range(spec.claims):
        subject = _endpoint(rng, spec)
        target = n % spec.entities if n < spec.entities else _endpoint(rng, spec)  # every entity appears
        if rng.random() < 0.05 and edges:  # a parallel edge: an earlier pair again, another interval
            previous = edges[rng.randrange(len(edges))]
            subject, target = previous.subject, previous.object
        interval = _interval(rng)
        predicate = rng.choice(PREDICATES)
        for shift in range(spec.entities * len(PREDICATES)):
            if target == subject:
                target = (target + 1) % spec.entities
            key = (subject, predicate, target)
            if _apart(interval, held.get(key, [])):
                break
            predicate = PREDICATES[(PREDICATES.index(predicate) + 1) % len(PREDICATES)]
            if shift % len(PREDICATES) == len(PREDICATES) - 1:
                target = (target + 1) % spec.entities
        held.setdefault((subject, predicate, target), []).append(interval)
        edges.append(Edge(subject, target, predicate, interval[0], interval[1], n // per_batch))
    return edges


class _Clock:
    """One day per batch, a microsecond per reading within it (the ledger refuses going back)."""

    def __init__(self) -> None:
        self.batch = 0
        self.tick = 0

    def __call__(self) -> datetime:
        self.tick += 1
        return START + timedelta(days=self.batch, microseconds=self.tick)


def batch_time(batch: int) -> datetime:
    """A system time just after batch ``batch`` was recorded (before the next one)."""
    return START + timedelta(days=batch, hours=12)


def prepare(ledger: Ledger, spec: GraphSpec) -> list[Citation]:
    """Declare the predicates and store the sources; the citations claims cite, in order."""
    for name in PREDICATES:
        ledger.define_predicate(name, cardinality="many", object_kind="entity")
    citations: list[Citation] = []
    for s in range(SOURCES):
        text = " ".join(f"Source {s} records link number {q} between two parties." for q in range(QUOTES_PER_SOURCE))
        source = ledger.add_source(text=text, uri=f"graphdata:{spec.seed}:{s}", publisher=f"Publisher {s}",
                                   scope=spec.scope)
        citations.extend(ledger.cite(source, f"Source {s} records link number {q} between")
                         for q in range(QUOTES_PER_SOURCE))
    return citations


def load(ledger: Ledger, edges: list[Edge], spec: GraphSpec, *, clock: _Clock | None = None,
         chunk: int = 50_000, first_day: int = 0) -> list[int]:
    """Write ``edges`` through ``assert_claims`` (one transaction per chunk); their claim ids.

    Pass the ledger's clock (``open_ledger`` makes one) to record batch b on day ``first_day + b``.
    """
    citations = prepare(ledger, spec)
    ids: list[int] = []
    batch_start = 0
    while batch_start < len(edges):
        batch = edges[batch_start].batch
        batch_end = batch_start
        while batch_end < len(edges) and edges[batch_end].batch == batch:
            batch_end += 1
        if clock is not None:
            clock.batch = first_day + batch
        for first in range(batch_start, batch_end, chunk):
            ids.extend(ledger.assert_claims(
                {"subject": entity_name(e.subject), "predicate": e.predicate, "object": entity_name(e.object),
                 "valid_from": e.valid_from, "valid_until": e.valid_until, "scope": spec.scope,
                 "evidence": citations[(first + k) % len(citations)]}
                for k, e in enumerate(edges[first:min(batch_end, first + chunk)])))
        batch_start = batch_end
    return ids


def open_ledger(url: str | Path) -> tuple[Ledger, _Clock]:
    """A ledger on ``url`` with the batch clock ``load`` advances."""
    clock = _Clock()
    return Ledger.open(url, clock=clock), clock


def _day(text: str | None) -> int | None:
    return None if text is None else to_micros(datetime.fromisoformat(text).replace(tzinfo=UTC))


def write_rows(path: Path, edges: list[Edge], spec: GraphSpec) -> None:
    """Write ``edges`` into a new SQLite ledger at ``path`` as ``load`` would, with executemany.

    The schema, predicates and sources come through the API; entities, aliases, claims, versions
    and evidence are inserted as the write path stores them (first appearance creates an entity;
    an edge equal to an earlier one corroborates it, its evidence joining the claim).
    """
    ledger = Ledger.open(path, clock=_Clock())
    with ledger:
        citations = prepare(ledger, spec)
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=NORMAL")
    connection.execute("BEGIN IMMEDIATE")
    entity_ids: dict[int, int] = {}
    entity_rows, alias_rows, claim_rows, version_rows, evidence_rows = [], [], [], [], []
    claims_by_key: dict[tuple[int, str, int, str | None, str | None], int] = {}
    last = 0
    for n, edge in enumerate(edges):
        recorded = to_micros(START + timedelta(days=edge.batch, microseconds=1))
        last = max(last, recorded)
        for number in (edge.subject, edge.object):
            if number not in entity_ids:
                entity_ids[number] = len(entity_ids) + 1
                name = entity_name(number)
                entity_rows.append((entity_ids[number], spec.scope, name, recorded))
                alias_rows.append((entity_ids[number], spec.scope, name, normalize_name(name), recorded))
        key = (entity_ids[edge.subject], edge.predicate, entity_ids[edge.object], edge.valid_from, edge.valid_until)
        claim_id = claims_by_key.get(key)
        if claim_id is None:
            claim_id = claims_by_key[key] = len(claims_by_key) + 1
            claim_rows.append((claim_id, spec.scope, key[0], edge.predicate, key[2], recorded))
            version_rows.append((claim_id, claim_id, _day(edge.valid_from), _day(edge.valid_until),
                                 None if edge.valid_from is None else "day",
                                 None if edge.valid_until is None else "day", recorded))
        cited = citations[n % len(citations)]
        evidence_rows.append((claim_id, cited.source_id, cited.excerpt, cited.char_start, cited.char_end,
                              json.dumps(cited.locator, separators=(",", ":")), recorded))
    connection.executemany("INSERT INTO entities (id, scope, name, created_at) VALUES (?, ?, ?, ?)", entity_rows)
    connection.executemany("INSERT INTO aliases (entity_id, scope, alias, normalized, recorded_at) "
                           "VALUES (?, ?, ?, ?, ?)", alias_rows)
    connection.executemany("INSERT INTO claims (id, scope, subject_id, predicate, object_id, qualifiers, recorded_at) "
                           "VALUES (?, ?, ?, ?, ?, '{}', ?)", claim_rows)
    connection.executemany(
        "INSERT INTO claim_versions (id, claim_id, status, confidence, valid_from, valid_until, valid_from_precision, "
        "valid_until_precision, recorded_at, cause) VALUES (?, ?, 'reported', 0.6, ?, ?, ?, ?, ?, 'asserted')",
        version_rows)
    connection.executemany(
        "INSERT INTO evidence (claim_id, source_id, relation, excerpt, char_start, char_end, locator, anchor_method, "
        "anchor_score, recorded_at) VALUES (?, ?, 'supports', ?, ?, ?, ?, 'cited', 1.0, ?)", evidence_rows)
    connection.execute("UPDATE ledger_clock SET last_recorded_at = max(last_recorded_at, ?)", (last,))
    connection.execute("COMMIT")
    connection.close()


def cached_sqlite(spec: GraphSpec, folder: Path = Path("/tmp")) -> Path:
    """A SQLite ledger holding ``plan(spec)``, built once (``write_rows``) and kept in ``folder``."""
    path = folder / f"ledger-graph-{spec.claims}-{spec.entities}-{spec.hubs}-{spec.seed}.db"
    if path.exists():
        return path
    partial = path.with_suffix(".partial")
    for leftover in folder.glob(partial.name + "*"):
        leftover.unlink()
    started = time.perf_counter()
    write_rows(partial, plan(spec), spec)
    partial.rename(path)
    print(f"built {path} in {time.perf_counter() - started:.0f} s")
    return path
