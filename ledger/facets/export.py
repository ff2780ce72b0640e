"""The facade's interchange part: export a scope as held at a moment, and import such an export."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

from sqlalchemy import Connection

from ledger import validate
from ledger.errors import InvalidInput, InvalidTime
from ledger.facets.base import Facet
from ledger.interchange import export as exporting
from ledger.interchange import load
from ledger.store import Ids
from ledger.interchange.records import ExportFormat, ExportReport, ImportReport, Progress
from ledger.timeline import TimeInput


class ExportCalls(Facet):
    """``export()`` and ``import_jsonl()``: docs/interchange.md describes the formats and the rules."""

    def export(self, path: str | os.PathLike[str], *, known_at: TimeInput | None = None, scope: str = "default",
               format: ExportFormat = "jsonl", progress: Progress | None = None) -> ExportReport:
        """Write what ``scope`` held at ``known_at`` (default now) to ``path`` as jsonl, turtle, nquads or annotations."""
        scope = validate.check_scope(scope)
        target = exporting.check_export(path, scope, format)
        now = self.now()
        at = validate.moment(known_at, "known_at") or now
        if at > now:  # the future is not yet held; an export of it could not be imported before then
            raise InvalidTime(f"known_at {at.isoformat()} is after the ledger clock's reading {now.isoformat()}")
        return self._read(lambda connection: exporting.export(
            connection, target, scope=scope, known_at=at, format=format, progress=progress))

    def import_jsonl(self, path: str | os.PathLike[str], *, scope: str | None = None,
                     progress: Progress | None = None) -> ImportReport:
        """Restore a JSON Lines export into an empty scope (None: the one it came from), all or nothing."""
        scope = None if scope is None else validate.check_scope(scope)
        source = _readable(path)
        total = _line_count(source) if progress is not None else 0

        def work(connection: Connection, now: datetime, ids: Ids) -> ImportReport:
            with source.open(encoding="utf-8") as lines:  # opened per attempt: a lock retry reads it again
                return load.import_jsonl(connection, ids, lines, scope=scope, now=now, progress=progress,
                                         total=total)

        try:
            return self._write(work)
        except UnicodeDecodeError as error:
            raise InvalidInput(f"{source} is not UTF-8 text: {error}") from error


def _readable(path: str | os.PathLike[str]) -> Path:
    if not isinstance(path, (str, os.PathLike)) or not os.fspath(path):
        raise InvalidInput(f"path must be a file path; got {path!r:.60}")
    source = Path(path).expanduser()
    if not source.is_file():
        raise InvalidInput(f"{source} is not a file")
    return source


def _line_count(source: Path) -> int:
    with source.open("rb") as file:
        return max(sum(1 for _ in file) - 2, 0)  # less the header and the end line
