"""What an export or an import reports: frozen values."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Literal

ExportFormat = Literal["jsonl", "turtle", "nquads", "annotations"]
EXPORT_FORMATS: tuple[ExportFormat, ...] = ("jsonl", "turtle", "nquads", "annotations")
#: Called as rows are written or read: (rows done, rows in all).
Progress = Callable[[int, int], None]


@dataclass(frozen=True, slots=True)
class ExportReport:
    """A written export: where, what format, which scope as held when, and rows by section."""

    path: Path
    format: ExportFormat
    scope: str
    known_at: datetime
    counts: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class ImportReport:
    """A finished import: the scope written, the moment the file was exported at, rows by section,
    and whether ids were shifted (the database already held rows of other scopes)."""

    scope: str
    known_at: datetime
    counts: Mapping[str, int]
    renumbered: bool
