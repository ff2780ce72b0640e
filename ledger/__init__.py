"""ledger: a claim-graph knowledge ledger of source-backed, bi-temporal claims.

``import ledger`` stays light: pymupdf and trafilatura load only when a document is ingested.
"""

from ledger.api import Ledger
from ledger.claims.draft import ClaimDraft
from ledger.check import CheckReport, Finding
from ledger.claims.confidence import ConfidenceExplanation, SourceContribution
from ledger.contradictions import Contradiction, ContradictionSide, Resolution, SideEvidence
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
from ledger.maintenance import DuplicateMerge, MaintenanceReport
from ledger.records import (
    Audit,
    Cause,
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
    Retrieval,
    Source,
    SourceId,
    StaleEvidence,
)

__all__ = [
    "AliasConflict",
    "Audit",
    "Cause",
    "CheckReport",
    "Citation",
    "Claim",
    "ClaimDraft",
    "ClaimId",
    "ClockError",
    "ConfidenceExplanation",
    "Conflict",
    "Contradiction",
    "ContradictionSide",
    "DuplicateMerge",
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
    "MaintenanceReport",
    "MissingEvidence",
    "NeedsOCR",
    "NotFound",
    "Passage",
    "PredicateInfo",
    "QuoteNotFound",
    "Resolution",
    "Retrieval",
    "ScopeMismatch",
    "SideEvidence",
    "Source",
    "SourceContribution",
    "SourceId",
    "StaleEvidence",
    "StoreError",
]
