"""What the vocabulary, the Wikidata import, exports and imports return: frozen values."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Literal

from ledger.records import ClaimId

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


@dataclass(frozen=True, slots=True)
class PredicateClash:
    """Two standing, undisputed claims that would give a functional predicate two values at once."""

    scope: str
    subject_id: int
    predicate: str
    qualifiers: str
    first_claim: ClaimId
    second_claim: ClaimId


@dataclass(frozen=True, slots=True)
class WikidataImport:
    """What ``import_wikidata`` did: counts, and the entities it read in order of import."""

    entities: int
    properties: int
    statements: int
    claims: int
    retracted: int
    removed: int
    skipped: int
    entity_ids: tuple[str, ...]
