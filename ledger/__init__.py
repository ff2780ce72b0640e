"""ledger: a claim-graph knowledge ledger of source-backed, bi-temporal claims.

``import ledger`` stays light: pymupdf and trafilatura load only when a document is ingested.
"""

from ledger.api import Ledger
from ledger.claims.draft import ClaimDraft
from ledger.authority import Challenge
from ledger.check import CheckReport, Finding
from ledger.erasure import Erased, Tombstone
from ledger.errors import (
    AliasConflict,
    BlockedAddress,
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
    PolicyViolation,
    QuoteNotFound,
    ScopeMismatch,
    StoreError,
)
from ledger.policy.config import PolicyConfig
from ledger.policy.decide import PolicyDecision
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
    "BlockedAddress",
    "Cause",
    "Challenge",
    "CheckReport",
    "Citation",
    "Claim",
    "ClaimDraft",
    "ClaimId",
    "ClockError",
    "Conflict",
    "Entity",
    "EntityId",
    "Erased",
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
    "PolicyConfig",
    "PolicyDecision",
    "PolicyViolation",
    "PredicateInfo",
    "QuoteNotFound",
    "Retrieval",
    "ScopeMismatch",
    "Source",
    "SourceId",
    "StaleEvidence",
    "StoreError",
    "Tombstone",
]
