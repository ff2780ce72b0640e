"""Crash safety: SIGKILL a writing process at random moments; after every kill the SQLite ledger
must open, pass ``check()``, and hold each batch wholly or not at all.

    python tests/stress/crash.py --trials 200

Each trial starts a worker that opens a ledger file and loops over batch writes
(``assert_claims`` of 20–200 claims), PDF ingestion (the fixtures with new metadata, and PDFs
built on the spot; the same URIs make revisions, so evidence is re-anchored), text sources,
``cite`` + ``assert_claim`` on what it ingested, and ``confirm``. The parent kills it with SIGKILL
after a random delay (a few ms to ~1.5 s), then opens the file with ``Ledger.open``, runs
``check()``, and counts the claims of every batch by its marker (``actor="crash:batch:<k>"``,
with a size fixed by ``k``). The file carries over to the next trial; every ``--fresh-every``
trials a new one is started, so kills also land while a file is created and migrated.

The worker writes a line to a progress file before and after each call. The parent uses the
lines written *after* a call only as a lower bound (what they name must be visible), and the
last line to tell which call the kill interrupted.

Workers are forked from a "zygote": one fresh interpreter (this script with ``--zygote``) that
imports ledger, alembic and pymupdf once and never opens a database, so a worker is running
ledger code within a millisecond instead of after ~3 s of imports. ``--fresh-interpreter``
starts every worker as a new interpreter instead (slower; same checks).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "pdf"
PDF_FIXTURES = ("two-column.pdf", "multi-page.pdf", "typography.pdf")
BATCH_TEXT = ("Crash test batch source. Every batch claim written by the crash test quotes this "
              "sentence. Values are recorded in batches of twenty to two hundred claims.")
BATCH_QUOTE = "Every batch claim written by the crash test quotes this sentence"
SHARED_SUBJECTS = 5  # functional claims every batch may update, so batches also close old versions
WORKER_LIFETIME = 60.0  # a worker the parent lost exits by itself after this long
START_TIMEOUT = 120.0


def batch_size(k: int) -> int:
    """The number of claims in batch ``k`` (20–200), fixed so the parent can check it."""
    return 20 + (k * 2654435761 % 2**32) % 181


# ====================================================================== the worker (child)

def run_worker(spec: dict[str, Any]) -> None:
    """Write to the ledger in a random order of calls until killed (or the parent is gone)."""
    import pymupdf

    from ledger import Ledger
    from ledger.ingest.pdf import read_pdf

    began = time.monotonic()
    rng = random.Random(spec["seed"])
    progress = os.open(spec["progress"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def note(*parts: object) -> None:  # one write(2) per line: a kill never splits a line
        elapsed = f"{(time.monotonic() - began) * 1000:.1f}"
        os.write(progress, (" ".join(map(str, (elapsed, *parts))) + "\n").encode())

    parent, deadline = os.getppid(), time.monotonic() + spec["max_seconds"]
    note("open")
    ledger = Ledger.open(spec["db"])
    note("opened")
    note("source", "base")
    base = ledger.add_source(text=BATCH_TEXT, uri="crash:batches", title="Crash test batches")
    note("sourced", "base", base.id)
    citations = [ledger.cite(base, BATCH_QUOTE)]
    documents: list[Any] = []  # sources this worker stored, to cite
    claimed: list[int] = []
    serial = spec["first_serial"]
    operations = ("batch", "pdf", "claim", "text", "confirm")
    weights = (45, 25, 15, 10, 5)
    while time.monotonic() < deadline and os.getppid() == parent:
        serial += 1
        k = serial
        operation = rng.choices(operations, weights)[0]
        if (operation == "claim" and not documents) or (operation == "confirm" and not claimed):
            operation = "pdf"
        if operation == "batch":
            n = batch_size(k)
            # mostly the base source: every batch citing a note is re-anchored by each later revision of it
            citation = rng.choice(citations) if rng.random() < 0.2 else citations[0]
            drafts = batch_drafts(k, n, citation, rng)
            note("batch", k, n)
            ids = ledger.assert_claims(drafts)
            assert len(ids) == n, f"assert_claims returned {len(ids)} ids for {n} drafts"
            note("committed", k, n)
        elif operation == "pdf":
            uri, data = make_pdf(pymupdf, rng, k)
            draft = read_pdf(data, uri=uri)
            note("pdf", draft.content_hash, len(draft.passages), uri)
            source = ledger.ingest_pdf(data, uri=uri)
            note("ingested", draft.content_hash, source.id)
            documents = [*documents[-7:], source]
        elif operation == "text":
            text = (f"Crash note {k}. The reading for note {k} was {rng.randint(1, 999)} units. "
                    f"Filed by the crash test at step {k}.")
            note("text", k)
            source = ledger.add_source(text=text, uri=f"crash:notes/{k % 3}", title=f"Crash note {k}")
            note("texted", k, source.id)
            documents = [*documents[-7:], source]
            citations = [citations[0], *citations[-3:], ledger.cite(source, "Filed by the crash test")]
        elif operation == "claim":
            source = rng.choice(documents)
            lines = [line.strip() for line in source.text.split("\n") if 20 <= len(line.strip()) <= 150]
            if not lines:
                continue
            quote = rng.choice(lines)
            note("claim", k)
            citation = ledger.cite(source, quote)
            claim = ledger.assert_claim(f"crash-doc-{k}", "quotes", value=quote, evidence=[citation],
                                        actor=f"crash:doc:{k}")
            note("claimed", k, claim.id)
            claimed = [*claimed[-19:], int(claim.id)]
        else:
            claim_id = rng.choice(claimed)
            note("confirm", claim_id)
            ledger.confirm(claim_id, reason="crash test")
            note("confirmed", claim_id)


def batch_drafts(k: int, n: int, citation: Any, rng: random.Random) -> list[dict[str, Any]]:
    """``n`` claims marked with batch ``k``; some update shared functional claims."""
    marker = f"crash:batch:{k}"
    drafts: list[dict[str, Any]] = [
        {"subject": f"batch-{k}-{i}", "predicate": "measured", "value": i, "evidence": [citation],
         "actor": marker}
        for i in range(n)
    ]
    if rng.random() < 0.5:  # later starts update the shared claims; an earlier one corrects or backfills
        for j in range(SHARED_SUBJECTS):
            minutes = k if rng.random() < 0.9 else rng.randrange(k)
            drafts[j] = {"subject": f"crash-shared-{j}", "predicate": "level", "value": f"level {k}",
                         "valid_from": datetime(2001, 1, 1, tzinfo=UTC) + timedelta(minutes=minutes),
                         "evidence": [citation], "actor": marker}
    return drafts


def make_pdf(pymupdf: Any, rng: random.Random, k: int) -> tuple[str, bytes]:
    """New PDF bytes: a fixture with new metadata (same text), or a small generated PDF."""
    if rng.random() < 0.5:
        name = rng.choice(PDF_FIXTURES)
        with pymupdf.open(FIXTURES / name) as doc:
            doc.set_metadata({**doc.metadata, "subject": f"crash variant {k}"})
            return f"crash://fixture/{name}", doc.tobytes()
    with pymupdf.open() as doc:
        for page_number in range(rng.randint(1, 3)):
            page = doc.new_page()
            for line in range(rng.randint(4, 30)):
                page.insert_text((72, 72 + 14 * line), f"Crash report {k}, page {page_number + 1}, line {line}: "
                                 f"the gauge read {rng.randint(0, 10**6)} units.", fontsize=10)
        return f"crash://generated/{rng.randrange(4)}", doc.tobytes()


def become_worker(spec: dict[str, Any]) -> None:
    """Run a worker in this (fresh or forked) process and exit; never returns."""
    code = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when a worker ends
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)  # nothing on stdout: a forked worker must not write into the zygote's pipe
        os.dup2(os.open(spec["stderr"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644), 2)
        run_worker(spec)
        code = 0
    except BaseException:  # noqa: BLE001  (whatever it was, it goes to the stderr file)
        traceback.print_exc()
    finally:
        try:
            sys.stderr.flush()
        finally:
            os._exit(code)


def zygote_main() -> None:
    """Import everything once, then fork a worker per request (JSON lines on stdin/stdout)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    import alembic.command  # noqa: F401  (loaded by Ledger.open)
    import pymupdf  # noqa: F401

    import ledger.check
    import ledger.text.quotes
    import ledger.text.reanchor
    import ledger.ingest.pdf
    import ledger.migrate  # noqa: F401

    children: set[int] = set()

    def reply(message: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()

    try:
        for line in sys.stdin:
            message = json.loads(line)
            if message["cmd"] == "run":
                pid = os.fork()
                if pid == 0:
                    become_worker(message["spec"])
                children.add(pid)
                reply({"pid": pid})
            elif message["cmd"] == "reap":  # only now may the pid be reused, so the parent's kill is safe
                pid = message["pid"]
                _, status = os.waitpid(pid, 0)
                children.discard(pid)
                reply({"pid": pid, "status": os.waitstatus_to_exitcode(status)})
            else:
                break
    finally:
        for pid in children:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)


# ====================================================================== the parent

class Launcher(Protocol):
    def start(self, spec: dict[str, Any]) -> Callable[[], int]:
        """Start a worker; returns a function that kills it with SIGKILL, reaps it, gives its status."""

    def close(self) -> None:
        """Stop every process this launcher started."""


class Zygote:
    """Forks workers from one interpreter that has imported everything (see the module docstring)."""

    def __init__(self) -> None:
        self._process = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--zygote"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, text=True, start_new_session=True)
        self._running: int | None = None

    def _ask(self, message: dict[str, Any]) -> dict[str, Any]:
        assert self._process.stdin is not None and self._process.stdout is not None
        self._process.stdin.write(json.dumps(message) + "\n")
        self._process.stdin.flush()
        answer = self._process.stdout.readline()
        if not answer:
            raise RuntimeError(f"the zygote process died (exit status {self._process.poll()})")
        return json.loads(answer)  # type: ignore[no-any-return]

    def start(self, spec: dict[str, Any]) -> Callable[[], int]:
        pid = int(self._ask({"cmd": "run", "spec": spec})["pid"])
        self._running = pid

        def kill() -> int:
            os.kill(pid, signal.SIGKILL)  # pid is unreaped until we ask, so it cannot be someone else's
            status = int(self._ask({"cmd": "reap", "pid": pid})["status"])
            self._running = None
            return status

        return kill

    def close(self) -> None:
        process = self._process
        try:
            if self._running is not None and process.poll() is None:
                os.kill(self._running, signal.SIGKILL)
            if process.stdin is not None:
                process.stdin.close()  # EOF: the zygote kills and reaps whatever it still has, then exits
            process.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            process.kill()
            process.wait()
        finally:
            if process.stdout is not None:
                process.stdout.close()


class FreshInterpreter:
    """Starts every worker as a new interpreter (``python crash.py --worker SPEC``)."""

    def __init__(self) -> None:
        self._running: subprocess.Popen[bytes] | None = None

    def start(self, spec: dict[str, Any]) -> Callable[[], int]:
        process = self._running = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--worker", json.dumps(spec)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, start_new_session=True)

        def kill() -> int:
            process.kill()
            status = process.wait()
            self._running = None
            return status

        return kill

    def close(self) -> None:
        if self._running is not None:
            self._running.kill()
            self._running.wait()


@dataclass
class Summary:
    """What a run did and found."""

    seed: int
    trials: int = 0
    kills: int = 0
    files: int = 0
    failures: list[str] = field(default_factory=list)
    batches_committed: int = 0  # distinct batches found wholly visible
    batches_reported: int = 0  # batches the workers reported committed (a lower bound)
    claims: int = 0  # claims in the ledger files at the end
    phases: Counter[str] = field(default_factory=Counter)  # the call each kill interrupted
    interrupted_batches: Counter[str] = field(default_factory=Counter)  # committed / rolled back
    seconds: float = 0.0
    last_kill: str = ""

    def lines(self) -> list[str]:
        """The printed summary."""
        phases = ", ".join(f"{name} {count}" for name, count in self.phases.most_common())
        batches = ", ".join(f"{name} {count}" for name, count in sorted(self.interrupted_batches.items()))
        return [
            f"trials run: {self.trials}",
            f"kills: {self.kills}",
            f"failures: {len(self.failures)}",
            (f"batches seen committed: {self.batches_committed} "
             f"(reported committed by the workers: {self.batches_reported})"),
            f"batches interrupted by the kill: {batches or 'none'}",
            f"kills by phase: {phases}",
            f"ledger files: {self.files}, claims in them at the end: {self.claims}",
            f"seed: {self.seed}",
            f"time: {self.seconds:.1f} s",
        ]


@dataclass
class LedgerFile:
    """One database file carried across trials, and what was seen committed in it."""

    path: Path
    trials: int = 0
    batches: dict[int, int] = field(default_factory=dict)  # batch → size, once seen wholly visible


def run(trials: int, *, workdir: Path, seed: int, fresh_every: int = 10, max_delay: float = 1.5,
        fresh_interpreter: bool = False, log: Callable[[str], None] = print, verbose: bool = False,
        summary: Summary | None = None) -> Summary:
    """Run ``trials`` kill-and-check trials in ``workdir``; the summary lists every failure."""
    rng = random.Random(seed)
    summary = summary if summary is not None else Summary(seed=seed)
    launcher: Launcher = FreshInterpreter() if fresh_interpreter else Zygote()
    started = time.monotonic()
    current: LedgerFile | None = None
    try:
        for trial in range(1, trials + 1):
            if current is None or current.trials >= fresh_every:
                current = LedgerFile(workdir / f"ledger-{summary.files + 1:03d}.db")
                summary.files += 1
            problems = run_trial(trial, current, launcher, rng, summary, workdir, max_delay)
            current.trials += 1
            summary.trials += 1
            for problem in problems:
                summary.failures.append(f"trial {trial} ({current.path.name}): {problem}")
            if verbose or problems or trial % 10 == 0 or trial == trials:
                log(f"trial {trial}/{trials}: kills {summary.kills}, failures {len(summary.failures)}, "
                    f"batches seen committed {summary.batches_committed}"
                    + (f"; {summary.last_kill}" if verbose else "")
                    + "".join(f"\n  FAILED: {p}" for p in problems))
            if problems:
                current = None  # go on with a fresh file; the failed one stays in workdir
    finally:
        launcher.close()
        summary.seconds = time.monotonic() - started
        for path in sorted(workdir.glob("ledger-*.db")):
            try:
                with closing(sqlite3.connect(path)) as connection:
                    summary.claims += connection.execute("SELECT COUNT(*) FROM claims").fetchone()[0]
            except sqlite3.DatabaseError:
                pass  # a file a failed trial left behind (already reported), or one with no schema yet
    return summary


def run_trial(trial: int, file: LedgerFile, launcher: Launcher, rng: random.Random, summary: Summary,
              workdir: Path, max_delay: float) -> list[str]:
    """One worker, one kill, one check of the file; returns what went wrong."""
    progress, errors = workdir / f"trial-{trial:04d}.progress", workdir / f"trial-{trial:04d}.stderr"
    fresh = file.trials == 0
    spec = {"db": str(file.path), "progress": str(progress), "stderr": str(errors), "seed": rng.getrandbits(32),
            "first_serial": trial * 1_000_000, "max_seconds": WORKER_LIFETIME}
    delay = kill_delay(rng, fresh, max_delay)
    kill = launcher.start(spec)
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while not (progress.exists() and progress.stat().st_size) and time.monotonic() < deadline:
            time.sleep(0.0005)
        time.sleep(delay)
    finally:
        status = kill()
    lines = read_lines(progress)
    if status == -signal.SIGKILL:
        summary.kills += 1
    else:
        tail = errors.read_text(errors="replace")[-3000:] if errors.exists() else ""
        return [f"the worker ended by itself (status {status}) before the kill:\n{tail}"]
    phase = phase_of(lines[-1], fresh) if lines else "before Ledger.open"
    summary.phases[phase] += 1
    summary.last_kill = f"killed {delay * 1000:.0f} ms after start, in {phase}"
    return verify(file, lines, summary)


def kill_delay(rng: random.Random, fresh: bool, max_delay: float) -> float:
    """Seconds from the worker's first line to the kill."""
    if fresh and rng.random() < 0.6:
        return rng.uniform(0.0, 0.15)  # while the new file is created and migrated
    if rng.random() < 0.3:
        return math.exp(rng.uniform(math.log(0.003), math.log(max_delay)))
    return rng.uniform(0.05, max_delay)


def read_lines(path: Path) -> list[list[str]]:
    """The complete lines of a progress file, split into words (without the leading milliseconds)."""
    if not path.exists():
        return []
    text = path.read_text()
    return [line.split(" ")[1:] for line in text.split("\n")[:-1] if line]


PHASES = {"open": "Ledger.open", "source": "add_source", "text": "add_source", "batch": "assert_claims",
          "pdf": "ingest_pdf", "claim": "cite + assert_claim", "confirm": "confirm"}


def phase_of(last: list[str], fresh: bool) -> str:
    """Which call a kill interrupted, from the last line the worker wrote."""
    if last[0] == "open" and fresh:
        return "Ledger.open (creating + migrating)"
    return PHASES.get(last[0], "between calls")


BATCH_COUNTS = ("SELECT CAST(substr(actor, 13) AS INTEGER), COUNT(*) FROM claims "
                "WHERE actor LIKE 'crash:batch:%' GROUP BY actor")
DOC_CLAIMS = "SELECT CAST(substr(actor, 11) AS INTEGER), id FROM claims WHERE actor LIKE 'crash:doc:%'"
SOURCE_PASSAGES = ("SELECT s.id, s.content_hash, (SELECT COUNT(*) FROM passages AS p WHERE p.source_id = s.id) "
                   "FROM sources AS s")
CURRENT_STATUS = "SELECT claim_id, status FROM claim_versions WHERE invalidated_at IS NULL"
# Evidence of a source that was live when a newer revision was stored must have been carried into
# that revision or flagged stale, by the same transaction that stored it.
NOT_REANCHORED = """
SELECT r.id, e.id FROM sources AS r JOIN evidence AS e ON e.source_id = r.revision_of
WHERE e.recorded_at < r.recorded_at AND e.stale_at IS NULL
  AND NOT EXISTS (SELECT 1 FROM evidence AS m WHERE m.reanchored_from = e.id AND m.source_id = r.id)
"""

# The clock row is advanced in every write transaction, so no stored time may be later than it.
CLOCK_BEHIND = """
SELECT c.last_recorded_at, t.latest FROM ledger_clock AS c, (
  SELECT MAX(recorded_at) AS latest FROM claim_versions UNION ALL SELECT MAX(invalidated_at) FROM claim_versions
  UNION ALL SELECT MAX(recorded_at) FROM sources UNION ALL SELECT MAX(recorded_at) FROM evidence
  UNION ALL SELECT MAX(stale_at) FROM evidence UNION ALL SELECT MAX(recorded_at) FROM claims) AS t
WHERE c.id = 1 AND t.latest > COALESCE(c.last_recorded_at, 0)
"""


def verify(file: LedgerFile, lines: list[list[str]], summary: Summary) -> list[str]:
    """Open the file after a kill and check it against what the worker said it did."""
    from ledger import Ledger, LedgerError

    if not file.path.exists():
        return []  # killed before SQLite created the file
    try:
        ledger = Ledger.open(file.path)
    except LedgerError as error:
        return [f"Ledger.open failed after the kill: {error}"]
    try:
        report = ledger.check()
    except LedgerError as error:
        return [f"check() failed after the kill: {error}"]
    finally:
        ledger.close()
    problems = [f"check() {finding.check}: {finding.detail}" for finding in report.findings]
    try:
        return problems + compare(file, lines, summary)
    except sqlite3.DatabaseError as error:
        return [*problems, f"reading the file after the kill failed: {error}"]


def compare(file: LedgerFile, lines: list[list[str]], summary: Summary) -> list[str]:
    """What the worker said it did and what each batch holds, against the file."""
    problems: list[str] = []
    with closing(sqlite3.connect(file.path)) as connection:
        batches = dict(connection.execute(BATCH_COUNTS).fetchall())
        docs: dict[int, list[int]] = {}
        for k, claim_id in connection.execute(DOC_CLAIMS):
            docs.setdefault(k, []).append(claim_id)
        passages: dict[str, list[tuple[int, int]]] = {}
        for source_id, content_hash, count in connection.execute(SOURCE_PASSAGES):
            passages.setdefault(content_hash, []).append((source_id, count))
        status = dict(connection.execute(CURRENT_STATUS).fetchall())
        not_reanchored = connection.execute(NOT_REANCHORED).fetchall()
        clock_behind = connection.execute(CLOCK_BEHIND).fetchall()

    for k, count in sorted(batches.items()):
        if count != batch_size(k):
            problems.append(f"batch {k} is half-written: {count} of its {batch_size(k)} claims are visible")
    for k, size in file.batches.items():
        if batches.get(k) != size:
            problems.append(f"batch {k}, seen committed after an earlier kill, now has {batches.get(k, 0)} claims")
    for k, claim_ids in docs.items():
        if len(claim_ids) > 1:
            problems.append(f"cite + assert_claim {k} made {len(claim_ids)} claims")
    for source_id, evidence_id in not_reanchored:
        problems.append(f"revision {source_id} is half-written: evidence {evidence_id} of the previous "
                        f"revision was neither re-anchored nor flagged stale")
    for clock, latest in clock_behind:
        problems.append(f"the ledger clock ({clock}) is behind a stored time ({latest})")
    in_flight: int | None = None
    for words in lines:
        match words:
            case ["batch", k, n]:
                in_flight = int(k)
                if int(n) != batch_size(int(k)):
                    problems.append(f"worker started batch {k} with {n} claims, not {batch_size(int(k))}")
            case ["committed", k, n]:
                in_flight = None
                summary.batches_reported += 1
                if batches.get(int(k)) != int(n):
                    problems.append(f"batch {k} was reported committed but {batches.get(int(k), 0)} of its "
                                    f"{n} claims are visible")
            case ["pdf", content_hash, n, *_]:
                for source_id, count in passages.get(content_hash, []):
                    if count != int(n):
                        problems.append(f"source {source_id} (ingested PDF) has {count} of its {n} passages")
            case ["ingested", content_hash, source_id]:
                if int(source_id) not in {s for s, _ in passages.get(content_hash, [])}:
                    problems.append(f"ingest_pdf returned source {source_id}, which is not in the database")
            case ["texted", _, source_id]:
                if not any(int(source_id) == s for rows in passages.values() for s, _ in rows):
                    problems.append(f"add_source returned source {source_id}, which is not in the database")
            case ["claimed", k, claim_id]:
                if docs.get(int(k)) != [int(claim_id)]:
                    problems.append(f"assert_claim returned claim {claim_id}, but the database has {docs.get(int(k))}")
            case ["confirmed", claim_id]:
                if status.get(int(claim_id)) != "confirmed":
                    problems.append(f"confirm({claim_id}) returned, but the claim is {status.get(int(claim_id))}")
    if in_flight is not None:
        summary.interrupted_batches["committed" if in_flight in batches else "rolled back"] += 1
    if not problems:
        for k, count in batches.items():
            if k not in file.batches:
                file.batches[k] = count
                summary.batches_committed += 1
    return problems


@dataclass
class Workdir:
    """A temporary directory, kept when asked or when something failed."""

    path: Path
    keep: bool

    @classmethod
    def make(cls, given: str | None, keep: bool) -> Workdir:
        if given:
            path = Path(given)
            path.mkdir(parents=True, exist_ok=True)
            return cls(path, True)
        return cls(Path(tempfile.mkdtemp(prefix="ledger-crash-")), keep)

    def finish(self, failed: bool) -> Iterator[str]:
        if self.keep or failed:
            yield f"files kept in {self.path}"
        else:
            shutil.rmtree(self.path, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    """The command line; exit status 1 when any trial failed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials", type=int, default=200, help="kills to run (default 200)")
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: a new one, printed)")
    parser.add_argument("--fresh-every", type=int, default=10, help="start a new file every N trials")
    parser.add_argument("--max-delay", type=float, default=1.5, help="longest wait before a kill, in seconds")
    parser.add_argument("--fresh-interpreter", action="store_true",
                        help="start every worker as a new interpreter instead of forking it from the zygote")
    parser.add_argument("--workdir", help="directory for the ledger files (default: a temporary one, removed)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    parser.add_argument("--verbose", action="store_true", help="a line per trial")
    parser.add_argument("--zygote", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.zygote:
        zygote_main()
        return 0
    if args.worker:
        become_worker(json.loads(args.worker))
    for signum in (signal.SIGTERM, signal.SIGHUP):  # so the finally blocks kill and reap the workers
        signal.signal(signum, lambda number, _frame: sys.exit(128 + number))
    seed = args.seed if args.seed is not None else random.SystemRandom().getrandbits(32)
    workdir = Workdir.make(args.workdir, args.keep)
    print(f"crash test: {args.trials} trials, seed {seed}, files in {workdir.path}", flush=True)
    summary = Summary(seed=seed)
    try:
        run(args.trials, workdir=workdir.path, seed=seed, fresh_every=args.fresh_every, max_delay=args.max_delay,
            fresh_interpreter=args.fresh_interpreter, verbose=args.verbose, summary=summary,
            log=lambda line: print(line, flush=True))
    finally:
        for line in [*summary.lines(), *workdir.finish(bool(summary.failures) or summary.trials < args.trials)]:
            print(line)
    for failure in summary.failures:
        print(f"FAILURE {failure}")
    return 1 if summary.failures else 0


if __name__ == "__main__":
    sys.exit(main())
