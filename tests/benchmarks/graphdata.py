"""A generated claim graph for graph benchmarks and property tests: power-law degrees, a few hubs,
cycles, parallel edges, and claims recorded over several system times.

    from tests.benchmarks.graphdata import GraphSpec, plan, load, cached_sqlite

    spec = GraphSpec(claims=10_000, entities=1_000, seed=7)
    edges = plan(spec)                       # pure: the edges, no database
    load(ledger, edges, spec)                # through Ledger.assert_claims, batch by batch
    path = cached_sqlite(spec)               # a built SQLite file in /tmp, reused by size and seed

Every claim goes through ``Ledger.assert_claims`` (the bulk write path: rules, evidence and
versions as any user's claims get); the clock advances one day per batch, so ``known_at`` slices
the graph by batch. Predicates are declared many-valued entity predicates, so every edge is its
own claim (parallel edges between one pair differ by their valid interval).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import NamedTuple

from ledger import Ledger

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


def plan(spec: GraphSpec) -> list[Edge]:
    """The edges of the graph (pure and deterministic for a spec); every entity number below
    ``spec.entities`` is named by at least one edge when there are enough claims."""
    rng = random.Random(spec.seed)
    edges: list[Edge] = []
    per_batch = max(1, -(-spec.claims // spec.batches))
    for n in range(spec.claims):
        subject = _endpoint(rng, spec)
        target = n % spec.entities if n < spec.entities else _endpoint(rng, spec)  # every entity appears
        if target == subject:
            target = (subject + 1) % spec.entities
        if rng.random() < 0.05 and edges:  # a parallel edge: an earlier pair again, another interval
            previous = edges[rng.randrange(len(edges))]
            subject, target = previous.subject, previous.object
        valid_from, valid_until = _interval(rng)
        edges.append(Edge(subject, target, rng.choice(PREDICATES), valid_from, valid_until, n // per_batch))
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


def prepare(ledger: Ledger, spec: GraphSpec) -> list[object]:
    """Declare the predicates and store the sources; the citations claims cite, in order."""
    for name in PREDICATES:
        ledger.define_predicate(name, cardinality="many", object_kind="entity")
    citations: list[object] = []
    for s in range(SOURCES):
        text = " ".join(f"Source {s} records link number {q} between two parties." for q in range(QUOTES_PER_SOURCE))
        source = ledger.add_source(text=text, uri=f"graphdata:{spec.seed}:{s}", publisher=f"Publisher {s}",
                                   scope=spec.scope)
        citations.extend(ledger.cite(source, f"Source {s} records link number {q} between")
                         for q in range(QUOTES_PER_SOURCE))
    return citations


def load(ledger: Ledger, edges: list[Edge], spec: GraphSpec, *, clock: _Clock | None = None,
         chunk: int = 50_000) -> list[int]:
    """Write ``edges`` through ``assert_claims`` (one transaction per chunk); their claim ids.

    Pass the ledger's clock (``open_ledger`` makes one) to record each batch on its own day.
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
            clock.batch = batch
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


def cached_sqlite(spec: GraphSpec, folder: Path = Path("/tmp")) -> Path:
    """A SQLite ledger holding ``plan(spec)``, built once and kept in ``folder`` (by size and seed)."""
    path = folder / f"ledger-graph-{spec.claims}-{spec.entities}-{spec.hubs}-{spec.seed}.db"
    if path.exists():
        return path
    partial = path.with_suffix(".partial")
    for leftover in folder.glob(partial.name + "*"):
        leftover.unlink()
    started = time.perf_counter()
    ledger, clock = open_ledger(partial)
    with ledger:
        load(ledger, plan(spec), spec, clock=clock)
    partial.rename(path)
    print(f"built {path} in {time.perf_counter() - started:.0f} s")
    return path
