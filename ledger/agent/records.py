"""Frozen values the agent interface returns: recall packets, working-memory receipts, tool events."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from ledger.records import ClaimId, SourceId

#: What ``to_prompt()`` tells a model about the packet's standing against the conversation.
PROMPT_PREAMBLE = ("Memory from the ledger (claims with their sources). Where the conversation and this memory "
                   "disagree, the conversation wins: it is newer.")


@dataclass(frozen=True, slots=True)
class RecallWeights:
    """How recall ranks claims: a weighted sum of four scores in [0, 1] (weights need not sum to 1).

    ``text``: how well the question's words match the claim (its entities, predicate, value and
    excerpts); ``confidence``: the claim's confidence; ``recency``: halves every
    ``half_life_days`` from when the claim became valid (else when it was recorded);
    ``importance``: independent supporting sources (1 → 0.33, 2 → 0.67, 3 or more → 1), plus
    0.25 for a confirmed claim, capped at 1.
    """

    text: float = 0.55
    confidence: float = 0.2
    recency: float = 0.15
    importance: float = 0.1
    half_life_days: float = 365.0


@dataclass(frozen=True, slots=True)
class PacketCitation:
    """Where a recalled claim comes from: the source, the place in it, and the exact excerpt."""

    source_id: SourceId
    title: str
    kind: str
    uri: str | None
    page: int | None
    char_start: int
    char_end: int
    excerpt: str
    relation: str = "supports"

    @property
    def place(self) -> str:
        """The place in words: "p. 4" for a page, else "chars 10-32"."""
        return f"p. {self.page}" if self.page is not None else f"chars {self.char_start}-{self.char_end}"


@dataclass(frozen=True, slots=True)
class PacketItem:
    """One answer in a packet: a claim (with the earlier and later values of the same statement)."""

    claim_id: ClaimId
    subject: str
    predicate: str
    value: str
    #: The value and its validity in words: "PLN 245 since 2026-07-01; previously PLN 280 from 2026-03-01".
    validity: str
    status: str
    confidence: float
    score: float
    warnings: tuple[str, ...] = ()
    citations: tuple[PacketCitation, ...] = ()
    #: The other claims of the same subject, predicate and qualifiers the validity mentions.
    related_claim_ids: tuple[ClaimId, ...] = ()
    qualifiers: dict[str, Any] = field(default_factory=dict, hash=False)

    def to_text(self) -> str:
        """The item as one block of text (what the token budget counts)."""
        head = f"- {self.subject} / {self.predicate}: {self.validity} [claim {self.claim_id}, {self.status}]"
        if self.qualifiers:
            head += " (" + ", ".join(f"{k}={v}" for k, v in sorted(self.qualifiers.items())) + ")"
        lines = [head]
        lines += [f"  ! {warning}" for warning in self.warnings]
        lines += [f"  source: {c.title}, {c.place}: \u201c{c.excerpt}\u201d" for c in self.citations]
        return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class NoteReceipt:
    """The receipt of a working-memory note: its id, run, turn and times."""

    id: int
    run_id: str
    scope: str
    turn: int
    recorded_at: datetime
    expires_at: datetime


@dataclass(frozen=True, slots=True)
class WorkingNote:
    """A note of one agent run, as recall returns it."""

    id: int
    run_id: str
    turn: int
    text: str
    recorded_at: datetime
    expires_at: datetime
    actor: str | None = None

    def to_text(self) -> str:
        """The note as one line (what the token budget counts)."""
        return f"- (note {self.id}, turn {self.turn}) {self.text}"


@dataclass(frozen=True, slots=True)
class Packet:
    """What recall found for a question, packed under a token budget.

    ``items`` are durable claims, best first; ``notes`` the run's working memory; ``nothing``
    says "nothing recorded about …" when nothing matched (with ``suggestions`` for names the
    ledger does not know); ``omitted`` counts matching claims left out by the budget.
    """

    question: str
    scope: str
    items: tuple[PacketItem, ...]
    notes: tuple[WorkingNote, ...]
    tokens: int
    budget_tokens: int
    valid_at: datetime | None = None
    known_at: datetime | None = None
    #: The period a time expression in the question named ("in April" → April's first day to May's).
    period: tuple[datetime, datetime] | None = None
    nothing: str | None = None
    suggestions: tuple[str, ...] = ()
    omitted: int = 0
    run_id: str | None = None

    @property
    def found(self) -> bool:
        """Whether anything answers the question (claims or notes)."""
        return bool(self.items or self.notes)

    def to_prompt(self) -> str:
        """The packet rendered for a model, saying that the conversation wins over memory."""
        lines = [PROMPT_PREAMBLE, f"Question: {self.question}"]
        if self.period is not None:
            lines.append(f"Time asked about: {self.period[0].date()} to {self.period[1].date()} (end excluded)")
        if self.items:
            lines.append("Recorded claims:")
            lines += [item.to_text() for item in self.items]
        if self.notes:
            lines.append(f"Working notes of this run ({self.run_id}):")
            lines += [note.to_text() for note in self.notes]
        if self.nothing:
            lines.append(self.nothing if self.nothing.endswith((".", "?", "!")) else self.nothing + ".")
        if self.omitted:
            lines.append(f"({self.omitted} more matching claims left out to stay under {self.budget_tokens} tokens.)")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """The packet as JSON-ready data (times as ISO strings)."""
        data: dict[str, Any] = jsonable(asdict(self))
        return data | {"found": self.found}


@dataclass(frozen=True, slots=True)
class ToolEvent:
    """One recorded tool call: tool, arguments, outcome ("ok" or the error's name), detail, actor, time."""

    id: int
    scope: str
    tool: str
    arguments: dict[str, Any]
    outcome: str
    detail: str | None
    actor: str | None
    recorded_at: datetime


def jsonable(value: Any) -> Any:
    """Records and values as JSON-ready data; a source's full text is left out (``passage_count`` says its size)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)
                  if f.name not in ("text", "metadata") or not hasattr(value, "content_hash")}
        return {key: jsonable(item) for key, item in fields.items()}
    if isinstance(value, Mapping):
        return {str(key): jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [jsonable(item) for item in value]
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)
