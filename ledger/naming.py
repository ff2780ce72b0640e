"""Entities and their names: get or create by name, resolve, aliases and merges (one transaction each)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from sqlalchemy import Connection

from ledger import store
from ledger.claims.status import refuse_functional_overlaps
from ledger.entities import check_name, normalize_name
from ledger.errors import Conflict, InvalidInput, ScopeMismatch
from ledger.records import Entity, EntityId


def entity_record(connection: Connection, entity_id: int) -> Entity:
    """An entity with the aliases of everything merged into it."""
    row = store.entity_row(connection, entity_id)
    members = store.merged_ids(connection, entity_id)
    return Entity(
        id=EntityId(row["id"]), scope=row["scope"], name=row["name"], kind=row["kind"],
        aliases=store.entity_aliases(connection, members or [entity_id]),
        merged_into=None if row["merged_into"] is None else EntityId(row["merged_into"]),
    )


def check_aliases(aliases: object) -> list[str]:
    """Alias names given as a list, or InvalidInput."""
    if isinstance(aliases, (str, bytes)) or not isinstance(aliases, Iterable):
        raise InvalidInput(f"aliases must be a list of names, not a {type(aliases).__name__}; "
                           f"pass aliases=[...] even for one alias")
    return [check_name(a, what="alias") for a in aliases]


def get_or_create(
    connection: Connection, ids: store.Ids, now: datetime, *, name: str, kind: str | None,
    aliases: Sequence[str], scope: str,
) -> Entity:
    """The entity ``name`` resolves to in ``scope`` (created if none), with ``aliases`` added."""
    from ledger.policy.apply import screen_names  # the write policy: names and aliases pass here

    name, *aliases = screen_names(connection, [name, *aliases], scope=scope, now=now, ids=ids)
    found = store.root_entity_ids(connection, [normalize_name(name)], scope)
    if found:
        entity_id = next(iter(found.values()))
        known = store.entity_row(connection, entity_id)["kind"]
        if kind is not None and known not in (None, kind):
            raise Conflict(f"{name!r} already names entity {entity_id}, a {known}, not a {kind}; "
                           f"use a more specific name for the {kind}")
        if kind is not None and known is None:
            store.set_entity_kind(connection, entity_id, kind)
    else:
        entity_id = store.create_entity(connection, ids, scope=scope, name=name, kind=kind, now=now)
    if aliases:
        store.add_aliases(connection, ids, entity_id, list(aliases), scope=scope, now=now)
    return entity_record(connection, entity_id)


def resolve(connection: Connection, name: str, scope: str) -> Entity | None:
    """The entity a name or alias names in ``scope`` (after merges), or None."""
    found = store.root_entity_ids(connection, [normalize_name(name)], scope)
    return entity_record(connection, next(iter(found.values()))) if found else None


def add_alias(connection: Connection, ids: store.Ids, now: datetime, target: Entity, alias: str,
              language: str | None) -> Entity:
    """Give ``target`` (or the entity it was merged into) another name."""
    from ledger.policy.apply import screen_names

    (alias,) = screen_names(connection, [alias], scope=target.scope, now=now, ids=ids, field="entity.alias")
    root = target.merged_into or target.id
    store.add_aliases(connection, ids, EntityId(root), [alias], scope=target.scope, now=now, language=language)
    return entity_record(connection, root)


def merge_plan(kept: Entity, merged: Entity, keep_label: str, other_label: str) -> tuple[int, int]:
    """The (kept, merged) root ids of a merge, or the Conflict or ScopeMismatch that refuses it."""
    if kept.scope != merged.scope:
        raise ScopeMismatch(f"entities {kept.id} (scope {kept.scope!r}) and {merged.id} (scope "
                            f"{merged.scope!r}) belong to different scopes; only entities of one scope merge")
    keep_id, other_id = kept.merged_into or kept.id, merged.merged_into or merged.id
    if keep_id == other_id:
        raise Conflict(
            f"{keep_label} and {other_label} already resolve to the same entity {keep_id} (merged "
            f"before, or one name); an entity cannot be merged into itself, so there is nothing to merge"
        )
    if kept.kind and merged.kind and kept.kind.casefold() != merged.kind.casefold():
        raise Conflict(
            f"entity {kept.id} {kept.name!r} is a {kept.kind} and entity {merged.id} {merged.name!r} a "
            f"{merged.kind}; entities of different kinds do not merge"
        )
    return keep_id, other_id


def merge(connection: Connection, now: datetime, *, keep: int, other: int, scope: str) -> Entity:
    """Merge ``other`` into ``keep``; refused if a functional predicate would get two values."""
    store.merge_entities(connection, keep, other, now)
    refuse_functional_overlaps(connection, scope=scope, subjects=store.merged_ids(connection, keep),
                               because=f"merging entity {other} into {keep}")
    return entity_record(connection, keep)
