"""Records the API returns: frozen values, detached from any database session."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, NewType

if TYPE_CHECKING:
    from ledger.claims.confidence import ConfidenceExplanation

EntityId = NewType("EntityId", int)
SourceId = NewType("SourceId", int)
ClaimId = NewType("ClaimId", int)
EvidenceId = NewType("EvidenceId", int)

Status = Literal["reported", "confirmed", "disputed", "retracted", "superseded"]
STATUSES: tuple[Status, ...] = ("reported", "confirmed", "disputed", "retracted", "superseded")
#: Statuses the current and as-of views show; retracted claims only appear in audits.
VISIBLE_STATUSES: tuple[Status, ...] = ("reported", "confirmed", "disputed", "superseded")
Relation = Literal["supports", "contradicts"]
#: Why a claim version exists. On the version a claim is asserted with: "asserted" (its effects
#: on other claims in ``Cause.effects``). On a version another claim made: "corroborated",
#: "closed-by" (a later value), "superseded-by" (explicitly), "corrected-by" (its own source),
#: "contradicted-by" (an independent source), "settled" (its rivals were superseded),
#: "retracted-with" (it continued a claim that was retracted), "restored-after" (the claim that
#: changed it was retracted). By an explicit call: "confirmed", "disputed", "retracted", "ended" (its
#: validity closed by the agent tool ``forget``, with the reason).
CauseKind = Literal["asserted", "corroborated", "extended", "closed-by", "superseded-by", "corrected-by",
                    "contradicted-by", "contradicted-in-source", "coalesced-into", "settled", "confirmed", "disputed",
                    "retracted", "retracted-with", "restored-after", "ended"]
#: What an assertion did to another claim: "supersedes" (explicitly, by ``supersedes=``),
#: "backfilled-before" (asserted open-ended, it ends where that claim starts), "updates",
#: "corrects", "conflicts-with", "resumes" and "resumes-after" (a continuation: it holds the
#: first claim's statement again after the second ends); "superseded" (on "settled": the rival
#: that was superseded).
EffectKind = Literal["supersedes", "backfilled-before", "updates", "corrects", "conflicts-with",
                     "conflicts-in-source", "resumes", "resumes-after", "superseded"]
CAUSE_KINDS: tuple[CauseKind, ...] = ("asserted", "corroborated", "extended", "closed-by", "superseded-by",
                                      "corrected-by", "contradicted-by", "contradicted-in-source", "coalesced-into",
                                      "settled", "confirmed", "disputed", "retracted", "retracted-with",
                                      "restored-after", "ended")
Trust = Literal["trusted", "untrusted"]


@dataclass(frozen=True, slots=True)
class Entity:
    """A person, organization, place or other thing, with the names it is known by."""

    id: EntityId
    scope: str
    name: str
    kind: str | None
    aliases: tuple[str, ...] = ()
    merged_into: EntityId | None = None


@dataclass(frozen=True, slots=True)
class Retrieval:
    """One time a source's bytes were fetched or read (stored the first time, or again)."""

    #: When it was fetched or read: the ``retrieved_at`` given, else when the ledger stored it.
    retrieved_at: datetime
    #: The URI as given (a web page's URL before it became its document URL), if any.
    uri: str | None
    actor: str | None
    recorded_at: datetime


@dataclass(frozen=True, slots=True)
class Source:
    """A stored document: where it came from, its hash, trust and extracted text."""

    id: SourceId
    scope: str
    kind: str
    uri: str | None
    title: str | None
    content_hash: str
    trust: Trust
    recorded_at: datetime
    author: str | None = None
    publisher: str | None = None
    published_at: datetime | None = None
    retrieved_at: datetime | None = None
    revision_of: SourceId | None = None
    passage_count: int = 0
    page_count: int | None = None
    pages_without_text: tuple[int, ...] = ()
    #: Pages with text that also had lines only OCR can read (mostly glyphs without a Unicode
    #: mapping), left out of the text.
    pages_partly_unreadable: tuple[int, ...] = ()
    #: True when this call stored it; False when these bytes were stored already as the source
    #: returned (a page that came back to earlier bytes is a new revision: True).
    created: bool = True
    text: str = field(default="", repr=False)
    #: When the document says it was last changed (PDF modification date, a page's declared
    #: ``article:modified_time``/``dateModified``), if it says.
    modified_at: datetime | None = None
    #: What the ingester read besides the fields above: for web pages ``sitename``,
    #: ``description``, ``canonical_url``, ``hostname``, ``language``, ``date``, ``categories``,
    #: ``tags``, ``license``, ``image``, ``pagetype``, ``encoding``, ``url``; for PDFs their
    #: document information as pymupdf gives it (``title``, ``author``, ``creationDate``, …).
    metadata: dict[str, Any] = field(default_factory=dict, repr=False, hash=False)
    #: Every time these bytes were fetched or read, oldest ``retrieved_at`` first.
    retrievals: tuple[Retrieval, ...] = ()

    @property
    def last_retrieved_at(self) -> datetime | None:
        """When these bytes were last fetched or read (the newest retrieval)."""
        return max((r.retrieved_at for r in self.retrievals), default=None)


@dataclass(frozen=True, slots=True)
class Passage:
    """A located piece of a source's text: a PDF line, a web page's paragraph, a text paragraph.

    ``text`` is ``Source.text[char_start:char_end]``.
    """

    source_id: SourceId
    ordinal: int  #: 0-based, in text order
    char_start: int
    char_end: int
    text: str
    page: int | None = None  #: 1-based (PDFs)
    bbox: tuple[float, float, float, float] | None = None  #: PDF points in pymupdf's page coordinates
    paragraph: int | None = None  #: 0-based paragraph index (web pages, text)


@dataclass(frozen=True, slots=True)
class Citation:
    """A located quote from a source, ready to be attached to a claim as evidence.

    ``cite()`` makes one after checking that the quote occurs in the source; the evidence
    row is written when a claim (or a confirm/dispute call) uses it.
    """

    source_id: SourceId
    scope: str
    relation: Relation
    excerpt: str
    char_start: int
    char_end: int
    locator: dict[str, Any]
    page: int | None = None
    #: How many places the quote occurs at (on ``page`` if given); the citation is the first,
    #: or the one its prefix and suffix stand beside.
    occurrences: int = 1


@dataclass(frozen=True, slots=True)
class Evidence:
    """A stored excerpt supporting or contradicting one claim."""

    id: EvidenceId
    claim_id: ClaimId
    source_id: SourceId
    relation: Relation
    excerpt: str
    locator: dict[str, Any]
    page: int | None
    recorded_at: datetime
    anchor_method: str
    anchor_score: float
    stale_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class Cause:
    """Why a claim version exists, structured; ``str(cause)`` renders it for people.

    ``claim`` is the related claim (the one that closed, superseded, corrected, contradicted or
    restored this one); ``effects`` what an assertion did to other claims; ``sources`` the count
    of independent sources behind a corroboration.
    """

    kind: CauseKind
    claim: ClaimId | None = None
    effects: tuple[tuple[EffectKind, ClaimId | None], ...] = ()
    sources: int | None = None

    def __str__(self) -> str:
        return render_cause(self)

    def did(self, effect: EffectKind, claim: int) -> bool:
        """Whether this cause records ``effect`` on ``claim``."""
        return (effect, claim) in self.effects


_CAUSE_TEXT = {
    "closed-by": "closed by a later value (claim {})", "superseded-by": "superseded explicitly (claim {})",
    "corrected-by": "corrected by its own source (claim {})",
    "contradicted-by": "contradicted by an independent source (claim {})",
    "contradicted-in-source": "contradicted within its own source (claim {})",
    "coalesced-into": "coalesced into claim {}",
    "retracted-with": "retracted: claim {} was retracted", "restored-after": "restored: claim {} was retracted",
}
_EFFECT_TEXT = {
    "supersedes": "supersedes explicitly", "backfilled-before": "backfilled: ends where claim {} starts",
    "updates": "updates claim {}", "corrects": "corrects claim {}", "conflicts-with": "conflicts with claim {}",
    "conflicts-in-source": "conflicts with claim {} in the same source",
    "resumes": "resumes claim {}", "resumes-after": "after claim {} ends",
}


def render_cause(cause: Cause) -> str:
    """A cause in words, as shown to people (never parsed back)."""
    if cause.kind in _CAUSE_TEXT:
        return _CAUSE_TEXT[cause.kind].format(cause.claim)
    if cause.kind == "corroborated":
        return "corroborated" if cause.sources is None else f"corroborated by {cause.sources} independent source(s)"
    if cause.kind == "extended":
        counted = "" if cause.sources is None else f" ({cause.sources} independent source(s))"
        return f"extended: the same value asserted over a meeting or overlapping interval{counted}"
    if cause.kind == "settled":
        return "dispute settled: claim " + ", ".join(str(c) for _, c in cause.effects) + " superseded"
    if cause.kind != "asserted" or not cause.effects:
        return cause.kind
    parts: list[str] = []
    for kind, claim in cause.effects:
        text = _EFFECT_TEXT[kind].format(claim)
        if kind == "resumes-after" and parts:
            parts[-1] += " " + text
        else:
            parts.append(text)
    return "asserted; " + "; ".join(parts)


@dataclass(frozen=True, slots=True)
class Claim:
    """A claim as seen at one point in system time (its version then)."""

    id: ClaimId
    scope: str
    subject_id: EntityId
    subject: str
    predicate: str
    object_id: EntityId | None
    object: str | None
    value: Any
    datatype: str | None
    qualifiers: dict[str, Any]
    status: Status
    confidence: float
    valid_from: datetime | None
    valid_until: datetime | None
    valid_from_precision: str | None
    valid_until_precision: str | None
    recorded_at: datetime
    invalidated_at: datetime | None
    version_id: int
    cause: Cause | None
    reason: str | None
    actor: str | None
    evidence_ids: tuple[EvidenceId, ...] = ()
    #: True when the read asked about an instant inside the window of a bound known only to the
    #: year ("held on 1952-05-31?" of a claim "from 1952"): it may or may not hold then.
    imprecise: bool = False

    @property
    def disputed(self) -> bool:
        """Whether the claim is flagged as disputed in this version."""
        return self.status == "disputed"

    @property
    def never_valid(self) -> bool:
        """True for a claim superseded as a whole: its valid interval is empty."""
        return self.valid_from is not None and self.valid_from == self.valid_until

    @property
    def windows(self) -> tuple[tuple[str, datetime, datetime], ...]:
        """Its bounds known only to the year, as ("valid_from" or "valid_until", earliest, latest)
        windows [earliest, latest) of the instants they may stand for; what ``explain`` shows of
        an imprecise claim."""
        from ledger.timeline import end_window, start_window

        found = (("valid_from", start_window(self.valid_from, self.valid_from_precision)),
                 ("valid_until", end_window(self.valid_until, self.valid_until_precision)))
        return tuple((bound, window[0], window[1]) for bound, window in found if window is not None)

    @property
    def object_label(self) -> str:
        """The object's name or the value, as text."""
        return self.object if self.object is not None else str(self.value)


@dataclass(frozen=True, slots=True)
class Link:
    """A typed edge between claims: supersedes, contradicts or derived_from."""

    kind: str
    from_claim_id: ClaimId
    to_claim_id: ClaimId
    recorded_at: datetime
    reason: str | None


@dataclass(frozen=True, slots=True)
class Audit:
    """A claim with every version it went through and the links that explain them."""

    claim: Claim
    versions: tuple[Claim, ...]
    links: tuple[Link, ...]


@dataclass(frozen=True, slots=True)
class EvidenceTrail:
    """One piece of evidence with the source it came from, for ``explain``."""

    evidence: Evidence
    source: Source


@dataclass(frozen=True, slots=True)
class Explanation:
    """Why the ledger holds a claim: its versions, links and evidence down to the excerpt."""

    claim: Claim
    versions: tuple[Claim, ...]
    links: tuple[Link, ...]
    evidence: tuple[EvidenceTrail, ...]
    #: Why it has its confidence: which sources counted, which were folded as copies, and what
    #: each added (``ledger.claims.confidence``).
    confidence: ConfidenceExplanation | None = None


@dataclass(frozen=True, slots=True)
class PredicateInfo:
    """A declared (or default) predicate; ``origin`` says whose definition is in force: "shipped"
    (the vocabulary), "declared" (for every scope), "scope" or "import" (for ``scope``)."""

    name: str
    cardinality: Literal["one", "many"]
    object_kind: Literal["entity", "value"]
    datatype: str | None = None
    inverse: str | None = None
    description: str | None = None
    aliases: tuple[str, ...] = ()
    wikidata: str | None = None
    separators: tuple[str, ...] = ()
    origin: Literal["shipped", "declared", "scope", "import"] | None = None
    scope: str | None = None


@dataclass(frozen=True, slots=True)
class StaleEvidence:
    """Evidence whose quote vanished from a newer revision of its source."""

    evidence_id: EvidenceId
    claim_id: ClaimId
    source_id: SourceId
    newer_source_id: SourceId | None
    relation: Relation
    excerpt: str
    stale_at: datetime
    #: False when the claim has no supporting evidence left in any newest revision.
    claim_supported: bool
