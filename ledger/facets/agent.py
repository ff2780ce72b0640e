"""The agent part of the facade: recall packets, run-scoped working memory, and the tool-call log."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import timedelta
from typing import Any

from ledger import validate, views
from ledger.agent import events, forgetting, memory
from ledger.agent.recall import Question, recall
from ledger.agent.records import NoteReceipt, Packet, RecallWeights, ToolEvent, WorkingNote
from ledger.agent.tokens import estimate_tokens
from ledger.claims.draft import ClaimDraft
from ledger.errors import InvalidInput
from ledger.facets.base import Facet
from ledger.records import Claim
from ledger.timeline import TimeInput, optional_time
from ledger.validate import ClaimRef, check_scope

MIN_BUDGET, MAX_BUDGET = 32, 200_000


class AgentCalls(Facet):
    """``recall``, ``session``/``note``/``notes``/``promote`` and ``tool_events`` (docs/agents.md)."""

    def recall(self, question: str, *, budget_tokens: int = 600, valid_at: TimeInput | None = None,
               known_at: TimeInput | None = None, scope: str = "default", run_id: str | None = None,
               weights: RecallWeights | None = None, count_tokens: Callable[[str], int] | None = None) -> Packet:
        """The claims (and the run's notes) that answer ``question``, packed under ``budget_tokens``."""
        asked = Question(text=_question(question), scope=check_scope(scope), budget_tokens=_budget(budget_tokens),
                         now=self.now(), valid_at=validate.moment(valid_at, "valid_at"),
                         known_at=validate.moment(known_at, "known_at"),
                         run_id=None if run_id is None else memory.check_run_id(run_id),
                         weights=_weights(weights), count_tokens=_counter(count_tokens))
        return self._read(lambda connection: recall(connection, asked))

    def session(self, run_id: str, *, ttl: str | timedelta | float = "24h", actor: str | None = None,
                scope: str = "default") -> memory.Session:
        """Working memory for one agent run: ``with ledger.session("run-1") as s: s.note(...)``."""
        return memory.Session(self, memory.check_run_id(run_id), ttl=memory.parse_ttl(ttl),
                              actor=validate.check_actor(actor), scope=check_scope(scope))

    def note(self, run_id: str, text: str, *, ttl: str | timedelta | float = "24h", actor: str | None = None,
             scope: str = "default") -> NoteReceipt:
        """Keep a note for run ``run_id`` until ``ttl`` passes; its receipt. Expired notes are purged."""
        run_id, text = memory.check_run_id(run_id), memory.check_note_text(text)
        span, actor, scope = memory.parse_ttl(ttl), validate.check_actor(actor), check_scope(scope)
        return self._write(lambda connection, now, ids: memory.add_note(
            connection, ids, now, scope=scope, run_id=run_id, text=text, ttl=span, actor=actor))

    def notes(self, run_id: str, *, scope: str = "default") -> list[WorkingNote]:
        """Run ``run_id``'s notes that have not expired, in turn order."""
        run_id, scope, now = memory.check_run_id(run_id), check_scope(scope), self.now()
        return self._read(lambda connection: memory.live_notes(connection, scope=scope, run_id=run_id, now=now))

    def promote_note(self, note: NoteReceipt | WorkingNote | int, subject: str, predicate: str, object: str | None = None,
                *, value: Any = None, quote: str | None = None, valid_from: TimeInput | None = None,
                valid_until: TimeInput | None = None, qualifiers: Mapping[str, Any] | None = None,
                confidence: float | None = None, run_id: str | None = None, actor: str | None = None,
                scope: str = "default", create_entities: bool = True) -> Claim:
        """Make a durable claim from a note; its evidence is the note's turn, stored as a conversation source."""
        note_id, scope = memory.note_id_of(note), check_scope(scope)
        run_id = None if run_id is None else memory.check_run_id(run_id)
        draft = ClaimDraft(subject=subject, predicate=predicate, object=object, value=value, valid_from=valid_from,
                           valid_until=valid_until, confidence=confidence, qualifiers=qualifiers, actor=actor,
                           scope=scope, create_entities=create_entities)

        def work(connection: Any, now: Any, ids: Any) -> Claim:
            found = memory.live_note(connection, note_id, now=now, scope=scope, run_id=run_id)
            claim_id = memory.promote(connection, ids, now, found, draft, quote=quote)
            return views.claim_at(connection, claim_id, now)

        return self._write(work)

    def forget(self, claim: ClaimRef, *, reason: str, at: TimeInput | None = None,
               actor: str | None = None) -> Claim:
        """End a claim's validity at ``at`` (default now) with a reason: a new version; nothing is deleted."""
        claim_id, actor = validate.claim_id(claim), validate.check_actor(actor)
        if not isinstance(reason, str) or not reason.strip():
            raise InvalidInput("forget() needs a reason saying why the claim no longer holds")
        reason = validate.check_reason(reason) or reason
        end = optional_time(at, what="at")

        def work(connection: Any, now: Any, ids: Any) -> Claim:
            forgetting.end_claim(connection, ids, now, claim_id, at=end.at if end else None,
                                 precision=end.precision if end else None, reason=reason, actor=actor)
            return views.claim_at(connection, claim_id, now)

        return self._write(work)

    def log_tool_call(self, tool: str, arguments: Mapping[str, Any], *, outcome: str, detail: str | None = None,
                      actor: str | None = None, scope: str = "default") -> ToolEvent:
        """Record one tool call in the event log (``ledger.agent.call_tool`` does this for every call)."""
        row = events.event_row(tool, arguments, outcome=outcome, detail=detail, actor=actor, scope=scope)
        return self._write(lambda connection, now, ids: events.record(connection, ids, now, row))

    def tool_events(self, *, scope: str = "default", limit: int = 100) -> list[ToolEvent]:
        """The latest ``limit`` recorded tool calls in ``scope``, newest first."""
        scope, count = check_scope(scope), validate.limit(limit, "limit", 100)
        return self._read(lambda connection: events.recent(connection, scope, count))


def _question(question: object) -> str:
    if not isinstance(question, str) or not question.strip():
        raise InvalidInput("recall needs a question: non-empty text")
    if len(question) > 4000:
        raise InvalidInput(f"the question has {len(question)} characters; the limit is 4000")
    return question


def _budget(budget: object) -> int:
    if isinstance(budget, bool) or not isinstance(budget, int) or not MIN_BUDGET <= budget <= MAX_BUDGET:
        raise InvalidInput(f"budget_tokens must be a whole number from {MIN_BUDGET} to {MAX_BUDGET}; got {budget!r}")
    return budget


def _weights(weights: object) -> RecallWeights:
    if weights is None:
        return RecallWeights()
    if not isinstance(weights, RecallWeights):
        raise InvalidInput(f"weights must be a RecallWeights; got {type(weights).__name__}")
    return weights


def _counter(count: Callable[[str], int] | None) -> Callable[[str], int]:
    if count is None:
        return estimate_tokens
    if not callable(count):
        raise InvalidInput("count_tokens must be a callable taking text and returning a number of tokens")
    return count
