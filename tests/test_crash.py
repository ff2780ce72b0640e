"""Crash safety: a writer killed with SIGKILL at random moments (opening a new file, mid-batch,
mid-ingest, mid-commit) leaves a ledger that opens, passes ``check()`` and holds every batch
wholly or not at all. 20 trials here; the full run is ``python tests/stress/crash.py --trials 200``.
Set LEDGER_CRASH_SEED to replay a seed (the kill moments still vary with timing)."""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

import pytest

from ledger import Ledger

from .conftest import BACKEND
from .stress import crash

pytestmark = [
    pytest.mark.skipif(sys.platform == "win32", reason="needs SIGKILL and fork"),
    pytest.mark.skipif(BACKEND == "postgres", reason="kills a process writing a SQLite file; PostgreSQL has "
                                                     "its own connection-drop test"),
]

TRIALS = 20


def test_sigkill_leaves_every_batch_whole_or_absent(tmp_path: Path) -> None:
    seed = int(os.environ.get("LEDGER_CRASH_SEED") or random.SystemRandom().getrandbits(32))
    progress: list[str] = []
    summary = crash.run(TRIALS, workdir=tmp_path, seed=seed, log=progress.append)
    report = "\n".join([*summary.lines(), *progress, *summary.failures])
    assert not summary.failures, report
    assert (summary.trials, summary.kills) == (TRIALS, TRIALS), report
    assert summary.batches_committed > 0, report


def test_the_check_after_a_kill_reports_torn_and_lost_batches(tmp_path: Path) -> None:
    whole, torn, lost = 7, 8, 9
    size = crash.batch_size
    file = crash.LedgerFile(tmp_path / "torn.db")
    with Ledger.open(file.path) as ledger:
        citation = ledger.cite(ledger.add_source(text=crash.BATCH_TEXT), crash.BATCH_QUOTE)
        ledger.assert_claims(crash.batch_drafts(whole, size(whole), citation, random.Random(1)))
        ledger.assert_claims(crash.batch_drafts(torn, size(torn), citation, random.Random(2))[:-1])
    progress = [["batch", str(k), str(size(k))] for k in (whole, torn, lost)]
    progress += [["committed", str(k), str(size(k))] for k in (whole, lost)]

    problems = crash.verify(file, progress, crash.Summary(seed=0))

    assert problems == [
        f"batch {torn} is half-written: {size(torn) - 1} of its {size(torn)} claims are visible",
        f"batch {lost} was reported committed but 0 of its {size(lost)} claims are visible",
    ]
