"""The values the vocabulary and the Wikidata import return (frozen)."""

from __future__ import annotations

from dataclasses import dataclass

from ledger.records import ClaimId


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
