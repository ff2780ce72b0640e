"""ledger: a claim-graph knowledge ledger of source-backed, bi-temporal claims.

``import ledger`` stays light: pymupdf and trafilatura load only when a document is ingested.
"""

from ledger.api import Ledger
from ledger.claims.draft import ClaimDraft
from ledger.check import CheckReport, Finding
from ledger.errors import (
    AliasConflict,
    ClockError,
    Conflict,
    FetchError,
    IngestError,
    InvalidInput,
    InvalidTime,
    LedgerError,
    MissingEvidence,
    NeedsOCR,
    NotFound,
    QuoteNotFound,
    ScopeMismatch,
    StoreError,
)
from ledger.records import (
    Audit,
    Citation,
    Claim,
    ClaimId,
    Entity,
    EntityId,
    Evidence,
    EvidenceId,
    EvidenceTrail,
    Explanation,
    Link,
    Passage,
    PredicateInfo,
    Source,
    SourceId,
    StaleEvidence,
)

__all__ = [
    "AliasConflict",
    "Audit",
    "CheckReport",
    "Citation",
    "Claim",
    "ClaimDraft",
    "ClaimId",
    "ClockError",
    "Conflict",
    "Entity",
    "EntityId",
    "Evidence",
    "EvidenceId",
    "EvidenceTrail",
    "Explanation",
    "FetchError",
    "Finding",
    "IngestError",
    "InvalidInput",
    "InvalidTime",
    "Ledger",
    "LedgerError",
    "Link",
    "MissingEvidence",
    "NeedsOCR",
    "NotFound",
    "Passage",
    "PredicateInfo",
    "QuoteNotFound",
    "ScopeMismatch",
    "Source",
    "SourceId",
    "StaleEvidence",
    "StoreError",
]
