"""The write policy's rows: settings layers by scope, and the decision log."""

from __future__ import annotations

import json

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, func, select

from ledger.store.driver import Ids, insert_rows, one_of, policy_decisions, policy_settings, rows

_NEWEST = (
    select(policy_settings.c.scope, policy_settings.c.settings)
    .where(policy_settings.c.id.in_(
        select(func.max(policy_settings.c.id)).where(one_of(policy_settings.c.scope, "scopes"))
        .group_by(policy_settings.c.scope)))
)
_DECISIONS = (
    select(policy_decisions).where(policy_decisions.c.scope == bindparam("scope"))
    .order_by(policy_decisions.c.id.desc()).limit(bindparam("limit"))
)


def policy_layers(connection: Connection, scopes: Iterable[str]) -> dict[str, Mapping[str, Any]]:
    """The newest stored settings of each of ``scopes`` that has any."""
    found = connection.execute(_NEWEST, {"scopes": sorted(set(scopes))}).mappings().all()
    return {row["scope"]: json.loads(row["settings"]) if isinstance(row["settings"], str) else row["settings"]
            for row in found}


def insert_policy(connection: Connection, ids: Ids, *, scope: str, settings: Mapping[str, Any], actor: str | None,
                  now: datetime) -> None:
    """Store a new settings layer for ``scope``."""
    insert_rows(connection, policy_settings, [{
        "id": ids.take(policy_settings), "scope": scope, "settings": dict(settings), "actor": actor,
        "recorded_at": now}])


def insert_decisions(connection: Connection, ids: Ids, decisions: Sequence[Mapping[str, Any]], now: datetime) -> None:
    """Log policy decisions (scope, field, rule, action, span_start, span_end, actor)."""
    if decisions:
        first = ids.take(policy_decisions, len(decisions))
        insert_rows(connection, policy_decisions, [
            {"id": first + n, **decision, "recorded_at": now} for n, decision in enumerate(decisions)])


def decision_rows(connection: Connection, scope: str, limit: int) -> list[dict[str, Any]]:
    """The newest ``limit`` logged decisions of ``scope``, newest first."""
    return rows(connection, _DECISIONS, {"scope": scope, "limit": limit})
