"""Property tests of the time semantics: for random sequences of assertions, status changes and
clock ticks, every ``claims(valid_at=T, known_at=K)`` equals

* a brute-force reference: every version ever recorded, filtered in plain Python, and
* a replay: a fresh ledger fed only the operations up to K, asked about T now.

The replay catches any write that rewrote what an earlier "as known at" read could see.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger import Ledger, LedgerError

from .conftest import TestClock, assert_consistent

DATES = [None, "2026-01", "2026-03", "2026-05", "2026-07", "2026-09"]
PROBES = ["2025-12-15", "2026-01-01", "2026-02-10", "2026-03-01", "2026-04-20", "2026-07-01", "2026-08-31", "2027-01-01"]
TEXTS = ["Report A: v0 v1 v2.", "Report B (independent): v0 v1 v2.", "Report A, revised: v0 v1 v2."]

assertion = st.tuples(
    st.just("assert"),
    st.sampled_from(["s0", "s1"]),
    st.sampled_from(["level", "tags"]),  # functional value predicate / cardinality-many
    st.integers(0, 2),
    st.sampled_from(DATES),
    st.sampled_from([None, None, "2026-06", "2026-10"]),
    st.integers(0, 2),
    st.sampled_from([{}, {"unit": "kg"}]),
    st.one_of(st.none(), st.integers(0, 6)),
)
status_change = st.tuples(st.just("status"), st.sampled_from(["confirm", "dispute", "retract"]), st.integers(0, 6))
tick = st.tuples(st.just("tick"), st.integers(0, 2))
operations = st.lists(st.one_of(assertion, assertion, status_change, tick), min_size=1, max_size=14)


def apply(ledger: Ledger, clock: TestClock, ops: list[tuple[object, ...]], until: datetime | None) -> list[datetime]:
    """Run ``ops`` (stopping after the clock passes ``until``); returns the time of each op."""
    sources = [ledger.add_source(text=TEXTS[0], uri="report-a", publisher="A"),
               ledger.add_source(text=TEXTS[1], uri="report-b", publisher="B")]
    clock.tick(seconds=1)
    sources.append(ledger.add_source(text=TEXTS[2], uri="report-a", publisher="A"))
    claim_ids: list[int] = []
    times = []
    for op in ops:
        if op[0] == "tick":
            clock.tick(days=op[1])  # type: ignore[arg-type]
            continue
        if until is not None and clock.now > until:
            break
        times.append(clock.now)
        try:
            if op[0] == "assert":
                _, subject, predicate, value, start, end, source, qualifiers, supersedes = op
                if start is not None and end is not None and end <= start:  # type: ignore[operator]
                    end = None
                target = claim_ids[supersedes % len(claim_ids)] if supersedes is not None and claim_ids else None  # type: ignore[operator]
                claim = ledger.assert_claim(
                    subject, predicate, value=value, valid_from=start, valid_until=end,  # type: ignore[arg-type]
                    qualifiers=qualifiers, supersedes=target,  # type: ignore[arg-type]
                    evidence=[ledger.cite(sources[source], f"v{value}")],  # type: ignore[index]
                )
                claim_ids.append(claim.id)
            elif claim_ids:
                _, verb, index = op
                target = claim_ids[index % len(claim_ids)]  # type: ignore[operator]
                if verb == "confirm":
                    ledger.confirm(target)
                elif verb == "dispute":
                    ledger.dispute(target, reason="doubt")
                else:
                    ledger.retract(target, reason="withdrawn")
        except LedgerError:
            pass  # refused calls (e.g. changing a retracted claim) write nothing
        clock.tick(seconds=1)
    return times


def view(claims: list) -> set[tuple[object, ...]]:  # type: ignore[type-arg]
    return {(c.id, c.value, c.status, c.valid_from, c.valid_until) for c in claims}


def brute_force(versions: list, valid_at: datetime, known_at: datetime) -> set[tuple[object, ...]]:  # type: ignore[type-arg]
    return view([
        v for v in versions
        if v.recorded_at <= known_at and (v.invalidated_at is None or known_at < v.invalidated_at)
        and v.status != "retracted"
        and (v.valid_from is None or v.valid_from <= valid_at) and (v.valid_until is None or valid_at < v.valid_until)
    ])


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=operations, replay_pick=st.integers(0, 10**6))
def test_as_of_reads_equal_a_brute_force_model_and_a_replay(make_db_url, ops, replay_pick) -> None:
    clock = TestClock()
    with Ledger.open(make_db_url(), clock=clock) as ledger:
        times = apply(ledger, clock, ops, until=None)
        assert_consistent(ledger)
        versions = [v for audit in ledger.audit() for v in audit.versions]
        knowns = sorted(set(times)) + [clock.now + timedelta(days=1)]
        results = {}
        for known in knowns:
            for probe in PROBES:
                got = view(ledger.claims(valid_at=probe, known_at=known))
                assert got == brute_force(versions, at(probe), known), (known, probe)
                results[(known, probe)] = got
    if not times:
        return
    known = sorted(set(times))[replay_pick % len(set(times))]
    replay_clock = TestClock()
    with Ledger.open(make_db_url(), clock=replay_clock) as replay:
        apply(replay, replay_clock, ops, until=known)
        replay_clock.now = max(replay_clock.now, known)
        for probe in PROBES:
            assert view(replay.claims(valid_at=probe, known_at=known)) == results[(known, probe)], (known, probe)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(order=st.permutations([("v0", "2026-01"), ("v1", "2026-03"), ("v2", "2026-07")]))
def test_any_arrival_order_gives_the_same_world_timeline(make_db_url, order) -> None:
    clock = TestClock()
    with Ledger.open(make_db_url(), clock=clock) as ledger:
        source = ledger.add_source(text=TEXTS[0])
        for value, start in order:
            clock.tick(days=1)
            ledger.assert_claim("s", "level", value=value, valid_from=start, evidence=[ledger.cite(source, value)])
        timeline = [[c.value for c in ledger.claims("s", "level", valid_at=p)] for p in PROBES]
        assert timeline == [[], ["v0"], ["v0"], ["v1"], ["v1"], ["v2"], ["v2"], ["v2"]]
        assert not any(c.disputed for c in ledger.claims("s", "level", during=("2025", "2028")))
