"""The agent interface's rows: the tool-call event log and run-scoped working notes."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Table, bindparam, delete, func, select, union, update

from ledger import model
from ledger.erased_content import ErasedContent
from ledger.store.driver import Ids, claims, entities, insert_rows, one_of, rows, sources

events: Table = model.AgentEvent.__table__  # type: ignore[attr-defined]
notes: Table = model.WorkingNote.__table__  # type: ignore[attr-defined]

_EVENTS = (select(events).where(events.c.scope == bindparam("scope"))
           .order_by(events.c.id.desc()).limit(bindparam("limit")))
_LIVE_NOTES = (select(notes)
               .where(notes.c.scope == bindparam("scope"), notes.c.run_id == bindparam("run_id"),
                      notes.c.expires_at > bindparam("now"))
               .order_by(notes.c.turn))
_NOTE = select(notes).where(notes.c.id == bindparam("id"))
_LAST_TURN = select(func.max(notes.c.turn)).where(notes.c.scope == bindparam("scope"),
                                                  notes.c.run_id == bindparam("run_id"))
_SOURCE_LABELS = select(sources.c.id, sources.c.title, sources.c.uri, sources.c.kind).where(
    one_of(sources.c.id, "ids"))
_ENTITY_IDS = union(select(entities.c.id).where(one_of(entities.c.id, "entities")),
                    select(entities.c.id).where(one_of(entities.c.merged_into, "entities")))
_ABOUT = union(
    select(claims.c.id).where(claims.c.subject_id.in_(_ENTITY_IDS), claims.c.scope == bindparam("scope")),
    select(claims.c.id).where(claims.c.object_id.in_(_ENTITY_IDS), claims.c.scope == bindparam("scope")),
).limit(bindparam("limit"))
_PURGE = delete(notes).where(notes.c.expires_at <= bindparam("now"))


def insert_event(connection: Connection, ids: Ids, row: Mapping[str, Any]) -> int:
    """Store one tool call; its id."""
    event_id = ids.take(events)
    insert_rows(connection, events, [{"id": event_id, **row}])
    return event_id


def recent_events(connection: Connection, scope: str, limit: int) -> list[dict[str, Any]]:
    """The latest ``limit`` tool calls in ``scope``, newest first."""
    return rows(connection, _EVENTS, {"scope": scope, "limit": limit})


def insert_note(connection: Connection, ids: Ids, row: Mapping[str, Any]) -> tuple[int, int]:
    """Store a note as the next turn of its run; (its id, its turn)."""
    ((last,),) = connection.execute(_LAST_TURN, {"scope": row["scope"], "run_id": row["run_id"]}).all()
    note_id, turn = ids.take(notes), (last or 0) + 1
    insert_rows(connection, notes, [{"id": note_id, "turn": turn, **row}])
    return note_id, turn


def live_notes(connection: Connection, scope: str, run_id: str, now: datetime) -> list[dict[str, Any]]:
    """The notes of one run in ``scope`` that have not expired at ``now``, in turn order."""
    return rows(connection, _LIVE_NOTES, {"scope": scope, "run_id": run_id, "now": now})


def note_row(connection: Connection, note_id: int) -> dict[str, Any] | None:
    """One note by id (expired or not), or None."""
    found = rows(connection, _NOTE, {"id": note_id})
    return found[0] if found else None


def purge_expired_notes(connection: Connection, now: datetime) -> int:
    """Delete every note expired at ``now``; how many."""
    return connection.execute(_PURGE, {"now": now}).rowcount


def source_labels(connection: Connection, source_ids: list[int]) -> dict[int, tuple[str | None, str | None, str]]:
    """(title, uri, kind) of each source, without its text."""
    if not source_ids:
        return {}
    return {row[0]: (row[1], row[2], row[3]) for row in connection.execute(_SOURCE_LABELS, {"ids": source_ids})}


def claims_about(connection: Connection, entity_ids: list[int], scope: str, limit: int) -> list[int]:
    """Ids of up to ``limit`` claims in ``scope`` with one of these entities (or one merged into them)
    as subject or object."""
    if not entity_ids:
        return []
    return list(connection.execute(_ABOUT, {"entities": entity_ids, "scope": scope, "limit": limit}).scalars())


_SCOPE_EVENTS = select(events.c.id, events.c.arguments, events.c.detail).where(one_of(events.c.scope, "scopes"))
_SCOPE_NOTES = select(notes.c.id, notes.c.text).where(one_of(notes.c.scope, "scopes"))
_REDACT_EVENT = update(events).where(events.c.id == bindparam("event_id")).values(
    arguments=bindparam("marker"), detail=bindparam("note"))
_DELETE_NOTE = delete(notes).where(notes.c.id == bindparam("note_id"))


def forget(connection: Connection, content: ErasedContent, erasure_id: int) -> tuple[int, int]:
    """Erasure's part here: replace the arguments and detail of the erased scopes' tool calls that
    quote ``content`` (or name its ids) by a marker naming the erasure, keeping the call's tool,
    outcome, actor and time; delete the working notes that quote it. (redacted events, deleted notes)"""
    scopes = sorted(content.scopes)
    if not scopes:
        return 0, 0
    redacted = [{"event_id": event_id, "marker": {"erased": erasure_id}, "note": f"[erased by erasure {erasure_id}]"}
                for event_id, arguments, detail in connection.execute(_SCOPE_EVENTS, {"scopes": scopes})
                if content.mentions(_arguments(arguments)) or content.quotes(detail)]
    deleted = [{"note_id": note_id} for note_id, text in connection.execute(_SCOPE_NOTES, {"scopes": scopes})
               if content.quotes(text)]
    if redacted:
        connection.execute(_REDACT_EVENT, redacted)
    if deleted:
        connection.execute(_DELETE_NOTE, deleted)
    return len(redacted), len(deleted)


def _arguments(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value
