"""The event log: every tool call an agent makes, with its arguments, outcome, time and actor."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import Connection

from ledger import store
from ledger.agent.records import ToolEvent
from ledger.store import agent_rows
from ledger.validate import check_actor, check_scope

MAX_DETAIL_CHARS = 2000
MAX_ARGUMENT_CHARS = 20_000


def event_row(tool: str, arguments: Mapping[str, Any], *, outcome: str, detail: str | None, actor: str | None,
              scope: str) -> dict[str, Any]:
    """The row of one tool call, its arguments made JSON-safe and cut to a bounded size."""
    safe = json.loads(json.dumps(dict(arguments), default=str, ensure_ascii=False))
    if len(json.dumps(safe, ensure_ascii=False)) > MAX_ARGUMENT_CHARS:
        safe = {key: (value[:500] + "\u2026" if isinstance(value, str) and len(value) > 500 else value)
                for key, value in safe.items()}
    return {"scope": check_scope(scope), "tool": str(tool)[:64], "arguments": safe, "outcome": str(outcome)[:64],
            "detail": None if detail is None else detail[:MAX_DETAIL_CHARS], "actor": check_actor(actor)}


def record(connection: Connection, ids: store.Ids, now: datetime, row: Mapping[str, Any]) -> ToolEvent:
    """Store one tool call; its event."""
    event_id = agent_rows.insert_event(connection, ids, {**row, "recorded_at": now})
    return ToolEvent(id=event_id, recorded_at=now, **row)


def recent(connection: Connection, scope: str, limit: int) -> list[ToolEvent]:
    """The latest tool calls in ``scope``, newest first."""
    return [ToolEvent(id=r["id"], scope=r["scope"], tool=r["tool"], arguments=_json(r["arguments"]),
                      outcome=r["outcome"], detail=r["detail"], actor=r["actor"], recorded_at=r["recorded_at"])
            for r in agent_rows.recent_events(connection, scope, limit)]


def _json(value: Any) -> dict[str, Any]:
    return json.loads(value) if isinstance(value, str) else dict(value)
