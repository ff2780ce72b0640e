"""Export one scope as the ledger held it at a moment: streamed row by row into a file that
appears only when complete (written beside it, then renamed)."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

from sqlalchemy import Connection

from ledger.errors import InvalidInput, LedgerError
from ledger.interchange import jsonl
from ledger.interchange.records import EXPORT_FORMATS, ExportFormat, ExportReport, Progress
from ledger.store import interchange_rows as rows

QUARANTINE = "quarantine:"


def check_export(path: str | os.PathLike[str], scope: str, format: object) -> Path:
    """The resolved target path, or InvalidInput (unknown format, quarantine, missing folder)."""
    if format not in EXPORT_FORMATS:
        raise InvalidInput(f"format must be one of {', '.join(EXPORT_FORMATS)}; got {format!r:.60}")
    if scope.startswith(QUARANTINE):
        raise InvalidInput(f"scope {scope!r} is a quarantine: quarantined material is never exported; "
                           "promote it into a scope first")
    if not isinstance(path, (str, os.PathLike)) or not os.fspath(path):
        raise InvalidInput(f"path must be a file path; got {path!r:.60}")
    target = Path(path).expanduser().resolve()
    if not target.parent.is_dir():
        raise InvalidInput(f"the folder {target.parent} does not exist")
    if target.is_dir():
        raise InvalidInput(f"{target} is a folder; pass a file path")
    return target


def export(connection: Connection, target: Path, *, scope: str, known_at: datetime, format: ExportFormat,
           progress: Progress | None = None) -> ExportReport:
    """Write ``scope`` as held at ``known_at`` to ``target`` in ``format``; nothing on failure."""
    with _atomic(target) as out:
        if format == "jsonl":
            counts = write_jsonl(connection, out, scope=scope, known_at=known_at, progress=progress)
        elif format == "annotations":
            from ledger.interchange.annotations import write_annotations

            counts = write_annotations(connection, out, scope=scope, known_at=known_at, progress=progress)
        else:
            from ledger.interchange.rdf import write_rdf

            counts = write_rdf(connection, out, scope=scope, known_at=known_at, progress=progress,
                               quads=format == "nquads")
    return ExportReport(path=target, format=format, scope=scope, known_at=known_at, counts=counts)


@contextmanager
def _atomic(target: Path) -> Iterator[TextIO]:
    partial = target.with_name(target.name + ".partial")
    try:
        with partial.open("w", encoding="utf-8", newline="\n") as out:
            yield out
        partial.replace(target)
    except OSError as error:
        partial.unlink(missing_ok=True)
        raise InvalidInput(f"cannot write {target}: {error.strerror or error}") from error
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


class Ticker:
    """Reports progress to a callback every ``rows.CHUNK`` rows and at the end."""

    def __init__(self, progress: Progress | None, total: int) -> None:
        self._progress, self.total, self.done = progress, total, 0

    def tick(self) -> None:
        """One more row written."""
        self.done += 1
        if self._progress is not None and self.done % rows.CHUNK == 0:
            self._progress(self.done, self.total)

    def finish(self) -> None:
        """Every row is written."""
        if self._progress is not None:
            self._progress(self.done, self.total)


def totals(connection: Connection, sections: Mapping[str, Any], *, scope: str, known_at: datetime) -> dict[str, int]:
    """Rows per section, counted before streaming (for the progress bar and the end line)."""
    return {name: rows.count(connection, statement, scope=scope, known_at=known_at)
            for name, statement in sections.items()}


def write_jsonl(connection: Connection, out: TextIO, *, scope: str, known_at: datetime,
                progress: Progress | None = None) -> dict[str, int]:
    """Stream the scope's sections as JSON Lines; returns rows written per section."""
    counts = totals(connection, rows.SECTIONS, scope=scope, known_at=known_at)
    ticker = Ticker(progress, sum(counts.values()))
    out.write(jsonl.dumps(jsonl.header(scope, known_at)) + "\n")
    written: dict[str, int] = {}
    for section, statement in rows.SECTIONS.items():
        written[section] = 0
        for row in rows.stream(connection, statement, scope=scope, known_at=known_at):
            line = jsonl.encode_row(section, row, known_at)
            if section == "source":
                passages, retrievals = rows.source_parts(connection, row["id"], known_at)
                line["passages"] = [[p["page"], p["bbox"], p["char_start"], p["char_end"], p["paragraph"]]
                                    for p in passages]
                line["retrievals"] = [[jsonl.iso(r["retrieved_at"]), r["uri"], r["actor"], jsonl.iso(r["recorded_at"])]
                                      for r in retrievals]
            out.write(jsonl.dumps(line) + "\n")
            written[section] += 1
            ticker.tick()
    if written != counts:  # pragma: no cover - one snapshot: the counts cannot change under us
        raise LedgerError(f"the export read {written} rows but counted {counts}")
    out.write(jsonl.dumps({"type": "end", "counts": written}) + "\n")
    ticker.finish()
    return written
