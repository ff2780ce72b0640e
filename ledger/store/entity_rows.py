"""Entities and aliases: lookups by normalized name, creation, merges."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import (
    Connection,
    bindparam,
    func,
    or_,
    select,
    update,
)

from ledger.entities import normalize_name
from ledger.errors import AliasConflict, Conflict, NotFound
from ledger.records import EntityId
from ledger.store.driver import Ids, aliases, entities, insert_rows, one_of

_ROOTS = (
    select(aliases.c.normalized, func.coalesce(entities.c.merged_into, entities.c.id))
    .join(entities, entities.c.id == aliases.c.entity_id)
    .where(aliases.c.scope == bindparam("scope"), one_of(aliases.c.normalized, "names"))
)


def root_entity_ids(connection: Connection, names: Iterable[str], scope: str) -> dict[str, EntityId]:
    """Map normalized names to the entity they resolve to (following merges)."""
    wanted = sorted(set(names))
    if not wanted:
        return {}
    rows = connection.execute(_ROOTS, {"scope": scope, "names": wanted})
    return {normalized: EntityId(root) for normalized, root in rows.all()}


def create_entity(
    connection: Connection, ids: Ids, *, scope: str, name: str, kind: str | None, now: datetime
) -> EntityId:
    """Insert an entity and its name as its first alias."""
    [entity_id] = create_entities(connection, ids, scope=scope, names=[name], now=now, kind=kind)
    return entity_id


def create_entities(
    connection: Connection, ids: Ids, *, scope: str, names: Sequence[str], now: datetime, kind: str | None = None
) -> list[EntityId]:
    """Insert entities whose names (distinct when normalized) no alias of ``scope`` holds yet."""
    if not names:
        return []
    first_entity, first_alias = ids.take(entities, len(names)), ids.take(aliases, len(names))
    insert_rows(connection, entities, [
        {"id": first_entity + n, "scope": scope, "kind": kind, "name": name, "created_at": now}
        for n, name in enumerate(names)
    ])
    insert_rows(connection, aliases, [
        {"id": first_alias + n, "entity_id": first_entity + n, "scope": scope, "alias": name,
         "normalized": normalize_name(name), "language": None, "recorded_at": now}
        for n, name in enumerate(names)
    ])
    return [EntityId(first_entity + n) for n in range(len(names))]


def add_aliases(
    connection: Connection, ids: Ids, entity_id: EntityId, names: Iterable[str], *, scope: str,
    now: datetime, language: str | None = None,
) -> None:
    """Add aliases to an entity; an alias naming another entity raises AliasConflict."""
    wanted = {normalize_name(name): name for name in names}
    taken = root_entity_ids(connection, wanted, scope)
    rows = []
    for normalized, name in wanted.items():
        owner = taken.get(normalized)
        if owner is None:
            rows.append({"id": ids.take(aliases), "entity_id": entity_id, "scope": scope, "alias": name,
                         "normalized": normalized, "language": language, "recorded_at": now})
        elif owner != entity_id:
            raise AliasConflict(
                f"alias {name!r} already names entity {owner} in scope {scope!r}; "
                f"merge the two entities with merge_entities() if they are the same"
            )
    insert_rows(connection, aliases, rows)


_ENTITY = select(entities).where(entities.c.id == bindparam("id"))
_ENTITY_ALIASES = select(aliases.c.alias).where(one_of(aliases.c.entity_id, "ids")) \
    .order_by(aliases.c.id)
_MERGED = select(entities.c.id).where(or_(entities.c.id == bindparam("root"),
                                          entities.c.merged_into == bindparam("root")))


def set_entity_kind(connection: Connection, entity_id: int, kind: str) -> None:
    """Give an entity without a kind its kind."""
    connection.execute(update(entities).where(entities.c.id == entity_id).values(kind=kind))


def entity_row(connection: Connection, entity_id: int) -> Mapping[Any, Any]:
    """The entity row, or NotFound."""
    row = connection.execute(_ENTITY, {"id": entity_id}).mappings().first()
    if row is None:
        raise NotFound(f"entity {entity_id} does not exist")
    return row


def entity_aliases(connection: Connection, entity_ids: Sequence[int]) -> tuple[str, ...]:
    """Every alias of the given entities, oldest first."""
    return tuple(connection.execute(_ENTITY_ALIASES, {"ids": list(entity_ids)}).scalars())


def merged_ids(connection: Connection, root: int) -> list[int]:
    """The entity and every entity merged into it."""
    return list(connection.execute(_MERGED, {"root": root}).scalars())


def merge_entities(connection: Connection, keep: int, other: int, now: datetime) -> None:
    """Point ``other`` (and whatever was merged into it) at ``keep``; no claim row changes."""
    if keep == other:
        raise Conflict(f"cannot merge entity {keep} into itself")
    connection.execute(
        update(entities).where(or_(entities.c.id == other, entities.c.merged_into == other))
        .values(merged_into=keep, merged_at=now)
    )
