"""Working memory: notes one agent run keeps for itself, and their promotion to durable claims.

Notes live in their own table, per scope and run id, until their TTL runs out on the ledger
clock. No durable read (claims, search, audit) sees them; recall shows them only to their own
run. ``promote`` is the one way a note becomes a claim: the note is stored as a source of kind
``conversation`` (the turn it came from) and cited as the claim's evidence.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime, timedelta
from types import TracebackType
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection

from ledger import sources, store, validate
from ledger.agent.records import NoteReceipt, Packet, WorkingNote
from ledger.claims.draft import ClaimDraft
from ledger.claims.write import write_claims
from ledger.entities import check_text
from ledger.errors import InvalidInput, NotFound
from ledger.records import ClaimId, SourceId
from ledger.store import agent_rows
from ledger.timeline import TimeInput

if TYPE_CHECKING:
    from ledger.facets.agent import AgentCalls

MAX_RUN_ID_LENGTH = 200
MAX_NOTE_CHARS = 20_000
MAX_TTL = timedelta(days=366)
_TTL_PART = re.compile(r"(\d+(?:\.\d+)?)\s*(d|h|m|s)")
_UNITS = {"d": 86400.0, "h": 3600.0, "m": 60.0, "s": 1.0}


def parse_ttl(ttl: str | timedelta | float) -> timedelta:
    """A time to live: a timedelta, seconds, or text such as "24h", "30m", "7d", "1h30m"."""
    if isinstance(ttl, timedelta):
        span = ttl
    elif isinstance(ttl, (int, float)) and not isinstance(ttl, bool):
        span = timedelta(seconds=ttl)
    elif isinstance(ttl, str) and (text := ttl.strip().lower()) and _TTL_PART.sub("", text).strip() == "":
        span = timedelta(seconds=sum(float(n) * _UNITS[u] for n, u in _TTL_PART.findall(text)))
    else:
        raise InvalidInput(f"ttl must be a timedelta, seconds, or text such as '24h', '30m', '7d'; got {ttl!r}")
    if not timedelta(0) < span <= MAX_TTL:
        raise InvalidInput(f"ttl must be more than 0 and at most 366 days; got {span}")
    return span


def check_run_id(run_id: object) -> str:
    """A run id: one line of text, at most 200 characters."""
    if not isinstance(run_id, str) or not run_id.strip():
        raise InvalidInput(f"run_id must be a non-empty string naming the agent run; got {run_id!r}")
    check_text(run_id, what="run_id")
    if len(run_id) > MAX_RUN_ID_LENGTH:
        raise InvalidInput(f"run_id has {len(run_id)} characters; the limit is {MAX_RUN_ID_LENGTH}")
    return run_id


def check_note_text(text: object) -> str:
    """A note's text: non-empty, at most 20,000 characters."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput("a note needs non-empty text")
    check_text(text, what="note", one_line=False)
    if len(text) > MAX_NOTE_CHARS:
        raise InvalidInput(f"the note has {len(text)} characters; the limit is {MAX_NOTE_CHARS}")
    return text


def add_note(connection: Connection, ids: store.Ids, now: datetime, *, scope: str, run_id: str, text: str,
             ttl: timedelta, actor: str | None) -> NoteReceipt:
    """Store a note as its run's next turn, after purging every expired note; its receipt."""
    agent_rows.purge_expired_notes(connection, now)
    expires = now + ttl
    note_id, turn = agent_rows.insert_note(connection, ids, {
        "scope": scope, "run_id": run_id, "text": text, "actor": actor, "recorded_at": now, "expires_at": expires})
    return NoteReceipt(id=note_id, run_id=run_id, scope=scope, turn=turn, recorded_at=now, expires_at=expires)


def live_notes(connection: Connection, *, scope: str, run_id: str, now: datetime) -> list[WorkingNote]:
    """A run's notes that have not expired at ``now``, in turn order."""
    return [_note(row) for row in agent_rows.live_notes(connection, scope, run_id, now)]


def live_note(connection: Connection, note_id: int, *, now: datetime, scope: str, run_id: str | None) -> WorkingNote:
    """One note that has not expired, of ``scope`` (and ``run_id`` when given); NotFound otherwise."""
    row = agent_rows.note_row(connection, note_id)
    if row is None or row["scope"] != scope or (run_id is not None and row["run_id"] != run_id):
        raise NotFound(f"note {note_id} does not exist in scope {scope!r}" + (f" for run {run_id!r}" if run_id else ""))
    if row["expires_at"] <= now:
        raise NotFound(f"note {note_id} expired at {row['expires_at'].isoformat()}; note it again to keep it")
    return _note(row)


def _note(row: Mapping[str, Any]) -> WorkingNote:
    return WorkingNote(id=row["id"], run_id=row["run_id"], turn=row["turn"], text=row["text"],
                       recorded_at=row["recorded_at"], expires_at=row["expires_at"], actor=row["actor"])


def promote(connection: Connection, ids: store.Ids, now: datetime, note: WorkingNote, draft: ClaimDraft, *,
            quote: str | None) -> ClaimId:
    """Write ``draft`` as a durable claim whose evidence is ``note``'s turn, stored as a conversation source."""
    scope = draft.scope
    source_draft = sources.text_draft(note.text, kind="conversation",
                                      uri=f"conversation:{note.run_id}#turn={note.turn}",
                                      title=f"conversation {note.run_id}, turn {note.turn}",
                                      retrieved_at=note.recorded_at)
    source = sources.store_draft(connection, ids, source_draft, scope=scope, trust="trusted", now=now,
                                 actor=draft.actor)
    citation = sources.cite(connection, SourceId(source.id), quote if quote is not None else note.text.strip(),
                            relation="supports", prefix=None, suffix=None, page=None, scope=scope)
    turn_locator = {**citation.locator, "run_id": note.run_id, "turn": note.turn, "note_id": note.id}
    turned = replace(citation, locator=turn_locator)
    return write_claims(connection, [draft._replace(evidence=[turned])], now=now, ids=ids)[0]


class Session:
    """One agent run's working memory: ``note``, ``notes``, ``recall`` and ``promote`` for that run.

    Made by ``Ledger.session(run_id, ttl="24h")``; leaving the ``with`` block keeps the notes
    until their TTL (another session with the same run id sees them again).
    """

    def __init__(self, ledger: AgentCalls, run_id: str, *, ttl: timedelta, actor: str | None, scope: str) -> None:
        self.ledger, self.run_id, self.ttl, self.actor, self.scope = ledger, run_id, ttl, actor, scope

    def __enter__(self) -> Session:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        return None

    def note(self, text: str, *, ttl: str | timedelta | float | None = None) -> NoteReceipt:
        """Keep a note for this run; its receipt (id, turn, time, expiry)."""
        return self.ledger.note(self.run_id, text, ttl=self.ttl if ttl is None else ttl, actor=self.actor,
                                scope=self.scope)

    def notes(self) -> list[WorkingNote]:
        """This run's notes that have not expired, in turn order."""
        return self.ledger.notes(self.run_id, scope=self.scope)

    def recall(self, question: str, **options: Any) -> Packet:
        """``Ledger.recall`` for this run: durable claims plus this run's notes."""
        return self.ledger.recall(question, run_id=self.run_id, scope=self.scope, **options)

    def promote(self, note: NoteReceipt | WorkingNote | int, subject: str, predicate: str, object: str | None = None,
                *, value: Any = None, quote: str | None = None, valid_from: TimeInput | None = None,
                valid_until: TimeInput | None = None, qualifiers: Mapping[str, Any] | None = None,
                confidence: float | None = None) -> Any:
        """Make a durable claim from one of this run's notes (its evidence: the note's turn)."""
        return self.ledger.promote_note(note, subject, predicate, object, value=value, quote=quote, valid_from=valid_from,
                                   valid_until=valid_until, qualifiers=qualifiers, confidence=confidence,
                                   run_id=self.run_id, actor=self.actor, scope=self.scope)


def note_id_of(note: object) -> int:
    """The id of a note given as a receipt, a note, or an id."""
    if isinstance(note, (NoteReceipt, WorkingNote)):
        return note.id
    return validate.check_id(note, what="note")
