"""What the write path reads before the rules decide: entities named by the drafts, the sources
they cite (checked against their stored text) and the standing claims they may touch."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, select

from ledger import store
from ledger.claims.batch import Live, live_from_row
from ledger.claims.draft import Prepared
from ledger.claims.values import object_key
from ledger.entities import check_name, normalize_name
from ledger.errors import InvalidInput, NotFound, ScopeMismatch, UnknownName
from ledger.records import Citation
from ledger.validate import EntityRef, entity_id_of

Key = tuple[str, str] | int | None


def resolve_entities(connection: Connection, prepared: Sequence[Prepared], ids: store.Ids, now: datetime) -> None:
    """Fill in each draft's subject and object ids, creating the entities named for the first time."""
    names: dict[tuple[str, str], str] = {}
    given: set[int] = set()
    # Per item, how its subject and its object are found: a (scope, normalized name) key, or
    # an entity id the caller gave (None: no object).
    keys: list[tuple[Key, Key]] = []

    def key_of(ref: EntityRef, scope: str) -> Key:
        if isinstance(ref, str):
            name = check_name(ref)
            key = (scope, normalize_name(name))
            names.setdefault(key, name)
            return key
        entity_id = entity_id_of(ref)
        given.add(entity_id)
        return entity_id

    must_exist: set[tuple[str, str]] = set()
    for item in prepared:
        keys.append((key_of(item.subject, item.scope), None if item.object is None else key_of(item.object, item.scope)))
        if not item.create_entities:
            must_exist.update(key for key in keys[-1] if type(key) is tuple)
    roots: dict[tuple[str, str], int] = {}
    for scope in {scope for scope, _ in names}:
        found = store.root_entity_ids(connection, [n for s, n in names if s == scope], scope)
        roots.update({(scope, n): i for n, i in found.items()})
    for scope in {scope for scope, _ in names}:
        missing = [(n, name) for (s, n), name in names.items() if s == scope and (s, n) not in roots]
        unknown = [name for n, name in missing if (scope, n) in must_exist]
        if unknown:
            raise unknown_name(connection, unknown[0], scope)
        created = store.create_entities(connection, ids, scope=scope, names=[name for _, name in missing], now=now)
        roots.update({(scope, n): entity_id for (n, _), entity_id in zip(missing, created, strict=True)})
    known = entity_scopes(connection, given)

    def resolve(key: Key, scope: str) -> int:
        if type(key) is tuple:
            return roots[key]
        assert isinstance(key, int)
        entity_id = key
        if entity_id not in known:
            raise NotFound(f"entity {entity_id} does not exist; create it with entity(name)")
        entity_scope, root = known[entity_id]
        if entity_scope != scope:
            raise ScopeMismatch(f"entity {entity_id} belongs to scope {entity_scope!r}, not {scope!r}")
        return root

    for item, (subject, target) in zip(prepared, keys, strict=True):
        item.subject_id = resolve(subject, item.scope)
        item.object_id = None if target is None else resolve(target, item.scope)


def unknown_name(connection: Connection, name: str, scope: str) -> UnknownName:
    """The error for a name no entity of ``scope`` has, with the entities it may have meant."""
    from ledger.search import entity_suggestions  # a read above the write path, needed only here

    suggestions = entity_suggestions(connection, name, scope=scope)
    hint = (f"; did you mean {' or '.join(repr(s.name) for s in suggestions)}?" if suggestions
            else "; create it with entity(name) or pass create_entities=True")
    return UnknownName(f"no entity {name!r} in scope {scope!r}{hint}", name=name, scope=scope,
                       suggestions=tuple(suggestions))


_ENTITY_SCOPES = select(store.entities.c.id, store.entities.c.scope, store.entities.c.merged_into).where(
    store.one_of(store.entities.c.id, "ids"))


def entity_scopes(connection: Connection, entity_ids: set[int]) -> dict[int, tuple[str, int]]:
    """entity id → (its scope, the entity it is merged into or itself)."""
    if not entity_ids:
        return {}
    rows = connection.execute(_ENTITY_SCOPES, {"ids": sorted(entity_ids)}).all()
    return {i: (scope, merged or i) for i, scope, merged in rows}


def check_citations(
    connection: Connection, cited: Sequence[tuple[str, Sequence[Citation]]]
) -> dict[int, Mapping[Any, Any]]:
    """Check that each (scope, citations) pair cites existing sources of that scope, at the
    offsets where their excerpts really are; returns the sources' facts."""
    source_ids = {c.source_id for _, citations in cited for c in citations}
    facts = store.source_facts(connection, source_ids)
    texts = store.source_texts(connection, source_ids)
    for scope, citations in cited:
        for citation in citations:
            row = facts.get(citation.source_id)
            if row is None:
                raise NotFound(f"evidence cites source {citation.source_id}, which does not exist")
            if row["scope"] == f"quarantine:{scope}":
                raise ScopeMismatch(
                    f"source {citation.source_id} is untrusted and lives in {row['scope']}; assert the claim in "
                    f"{row['scope']} and promote it (Ledger.promote), or cite a trusted source")
            if row["scope"] != scope:
                raise ScopeMismatch(
                    f"source {citation.source_id} belongs to scope {row['scope']!r}, not {scope!r}"
                )
            text = texts[citation.source_id]
            if text[citation.char_start:citation.char_end] != citation.excerpt:
                raise InvalidInput(
                    f"the excerpt {citation.excerpt[:60]!r} does not occur at {citation.char_start}–"
                    f"{citation.char_end} of source {citation.source_id}; make citations with cite()"
                )
    return facts


def load_standing(
    connection: Connection, prepared: Sequence[Prepared], facts: dict[int, Mapping[Any, Any]]
) -> dict[tuple[str, int, str, str], list[Live]]:
    """The standing claims the drafts may touch, by (scope, root subject, predicate, qualifiers)."""
    subjects = {item.subject_id for item in prepared}
    merged = _merged_children(connection, subjects)
    keys = {(item.scope, s, item.predicate) for item in prepared for s in [item.subject_id, *merged.get(item.subject_id, ())]}
    explicit = {i for item in prepared for i in item.supersedes}
    rows = store.standing_claims(connection, keys, explicit)
    supports = store.supporting_sources(connection, [r["claim_id"] for r in rows])
    facts.update(store.source_facts(connection, {s for ids in supports.values() for s in ids} - set(facts)))
    root_of = {child: root for root, children in merged.items() for child in children}
    live: dict[tuple[str, int, str, str], list[Live]] = {}
    for row in rows:
        sources = supports.get(row["claim_id"], set())
        subject = root_of.get(row["subject_id"], row["subject_id"])
        live.setdefault((row["scope"], subject, row["predicate"], row["qualifiers"]), []).append(live_from_row(
            row, object_key=object_key(row["object_id"], row["value"], row["datatype"]), sources=list(sources)))
    return live


_MERGED_CHILDREN = select(store.entities.c.merged_into, store.entities.c.id).where(
    store.one_of(store.entities.c.merged_into, "ids"))


def _merged_children(connection: Connection, roots: set[int]) -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    if roots:
        for root, child in connection.execute(_MERGED_CHILDREN, {"ids": sorted(roots)}).all():
            children.setdefault(root, []).append(child)
    return children


#: A claim's identity, by id.
CLAIM_KEY = select(
    store.claims.c.scope, store.claims.c.subject_id, store.claims.c.predicate, store.claims.c.qualifiers,
    store.claims.c.object_id, store.claims.c.value, store.claims.c.datatype,
).where(store.claims.c.id == bindparam("id"))
