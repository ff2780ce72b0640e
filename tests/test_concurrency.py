"""Concurrency: CI-sized runs of tests/stress/concurrency.py, and reads racing one write.

The full runs: ``python tests/stress/concurrency.py --seconds 30 [--postgres URL]``.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from ledger import Ledger, reads
from tests.conftest import TestClock, assert_consistent
from tests.stress.concurrency import RACE_KINDS, run_mix, run_race


def _explained(report: Any) -> str:
    return "\n".join(report.lines() + [f"! {kind}: {examples}" for kind, examples in
                                       report.problems["examples"].items()])


def test_four_writers_and_four_readers_on_one_sqlite_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    report = run_mix(str(tmp_path / "ledger.db"), seconds=8, writers=4, readers=4, log_dir=tmp_path / "logs")
    print(_explained(report))
    assert report.batches > 20 and report.contested > 5 and report.reads > 100, _explained(report)
    assert report.store_errors == 0, _explained(report)
    assert (report.lost, report.duplicated, report.phantom) == (0, 0, 0), _explained(report)
    assert not report.problems["counts"], _explained(report)
    assert report.check_ok, _explained(report)


@pytest.mark.postgres
def test_two_agents_racing_on_one_functional_predicate_on_postgres(pg_url: str) -> None:
    report = run_race(pg_url, rounds=3 * len(RACE_KINDS))
    print(_explained(report))
    assert report.kinds == {kind: 3 for kind in RACE_KINDS}
    assert not report.problems["counts"], _explained(report)
    assert report.store_errors == 0


def test_explain_shows_one_state_while_another_agent_writes(db_url: str, clock: TestClock,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """explain() reads in several statements; a write committed between them must not show."""
    with Ledger.open(db_url, clock=clock) as ledger, Ledger.open(db_url, clock=clock) as other:
        source = ledger.add_source(text="The shop's price is 10.", publisher="A")
        claim = ledger.assert_claim("shop", "price", value="10", evidence=ledger.cite(source, "price is 10"))
        clock.tick()
        real, calls = reads.claim_versions, []

        def interleaved(*args: Any, **kwargs: Any) -> Any:
            calls.append(1)
            if len(calls) == 2:  # between explain()'s statements, another agent confirms the claim
                other.confirm(claim, reason="checked")
            return real(*args, **kwargs)

        monkeypatch.setattr(reads, "claim_versions", interleaved)
        explanation = ledger.explain(claim)
        monkeypatch.undo()
        assert len(calls) == 3  # explain()'s two reads of the versions, and confirm()'s own
        assert ledger.claim(claim).status == "confirmed"  # the write did commit
        assert [v.status for v in explanation.versions] == ["reported"]
        assert explanation.claim.version_id == explanation.versions[-1].version_id
        assert_consistent(ledger)


@pytest.mark.xfail(strict=True, reason=(
    "known_at answers near now are not final: a write transaction reads the clock (its recorded_at) "
    "when it starts and commits later, so a reader asking about a K after that reading, before the "
    "commit, gets an answer that a later read about the same K contradicts"))
def test_an_answer_about_known_at_stays_the_answer(db_url: str) -> None:
    started = datetime(2026, 1, 1, tzinfo=UTC)
    in_transaction, release = threading.Event(), threading.Event()

    class StallingClock:
        """The writer's clock: optionally stalls right after being read inside a transaction."""

        stall = False

        def __call__(self) -> datetime:
            if self.stall:
                in_transaction.set()
                release.wait(10)
            return started

    writer_clock = StallingClock()
    with Ledger.open(db_url, clock=writer_clock) as writer, \
            Ledger.open(db_url, clock=lambda: started + timedelta(seconds=1)) as reader:
        source = writer.add_source(text="The shop's price is 10.", publisher="A")
        citation = writer.cite(source, "price is 10")
        writer_clock.stall = True
        thread = threading.Thread(target=lambda: writer.assert_claim("shop", "price", value="10", evidence=citation))
        thread.start()
        try:
            assert in_transaction.wait(10)
            asked = started + timedelta(seconds=1)            # after the writer's clock reading
            first = reader.claims("shop", "price", known_at=asked)
        finally:
            release.set()
            thread.join(10)
        again = reader.claims("shop", "price", known_at=asked)
        assert [c.id for c in again] == [c.id for c in first]
