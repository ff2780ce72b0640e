"""Which claims each kind of report shows: a timeline an entity's, an audit a scope's, a
contradictions report the sides of each open contradiction (``Ledger.contradictions()``)."""

from __future__ import annotations

import re
from datetime import datetime

from sqlalchemy import Connection

from ledger import contradictions, naming, store
from ledger.contradictions import Contradiction, Wanted
from ledger.errors import NotFound
from ledger.report.model import Group, Report, ReportKind, gather, gather_groups

_WHY = {
    "functional-overlap": "a predicate that holds one value at a time has different values over overlapping "
                          "valid time, from independent sources",
    "contradicting-evidence": "a source was cited against it",
    "open-dispute": "disputed, and not resolved",
}


def why(contradiction: Contradiction) -> str:
    """Why the sides of a contradiction conflict, in words, with its id and any reasons given."""
    parts = [f"Contradiction {contradiction.id}: {_WHY.get(contradiction.kind, contradiction.kind)}"]
    if contradiction.kind == "functional-overlap" and (contradiction.valid_from or contradiction.valid_until):
        start = contradiction.valid_from.date().isoformat() if contradiction.valid_from else "…"
        end = contradiction.valid_until.date().isoformat() if contradiction.valid_until else "…"
        parts.append(f"they overlap over [{start}, {end})")
    parts.append(f"open since {contradiction.since:%Y-%m-%d %H:%M:%S}")
    parts += [f"reason: {reason}" for reason in contradiction.reasons]
    return "; ".join(parts) + "."


def contradiction_groups(connection: Connection, *, scope: str, known_at: datetime, subject_root: int | None,
                         predicate: str | None) -> list[Group]:
    """The open contradictions at ``known_at``, each as a group of its sides' claims."""
    found = contradictions.find(connection, Wanted(scope=scope, known_at=known_at, subject_root=subject_root,
                                                   predicate=predicate))
    return [Group(tuple(c.claim_ids), why(c), "contradiction-" + re.sub(r"[^0-9a-z]+", "-", c.id))
            for c in found]


def subject_root(connection: Connection, subject: int | str, scope: str) -> int:
    """The entity (after merges) a name or id names in ``scope``; NotFound otherwise."""
    if isinstance(subject, str):
        found = naming.resolve(connection, subject, scope)
        if found is None:
            raise NotFound(f"no entity is named {subject!r} in scope {scope!r}")
        return int(found.id)
    row = store.entity_row(connection, subject)
    if row["scope"] != scope:
        raise NotFound(f"entity {subject} is not in scope {scope!r}")
    return int(row["merged_into"] or row["id"])


def build(connection: Connection, *, kind: ReportKind, scope: str, known_at: datetime,
          subject: int | str | None, predicate: str | None) -> Report:
    """Gather the report of ``kind`` (read-only, in the caller's transaction)."""
    root = None if subject is None else subject_root(connection, subject, scope)
    label = None if root is None else naming.entity_record(connection, root).name
    if kind == "contradictions":
        groups = contradiction_groups(connection, scope=scope, known_at=known_at, subject_root=root,
                                      predicate=predicate)
        return gather_groups(connection, kind=kind, scope=scope, known_at=known_at, groups=groups,
                             entity=label, predicate=predicate)
    report = gather(connection, kind=kind, scope=scope, known_at=known_at, subject=root, predicate=predicate)
    return Report(kind=report.kind, scope=scope, known_at=known_at, entity=label, predicate=predicate,
                  sections=report.sections)
