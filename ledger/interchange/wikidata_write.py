"""Writing planned Wikidata entities: one source per entity revision, entities with their labels
and aliases, property definitions, and one claim per statement through ``write_claims``.

Runs inside one write transaction per chunk of entities (the facade's ``_write``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Connection

from ledger import sources, store
from ledger.claims import status as lifecycle
from ledger.claims.draft import ClaimDraft
from ledger.claims.vocabulary import resolve_names
from ledger.claims.write import write_claims
from ledger.entities import canonical_label, normalize_name
from ledger.interchange.wikidata import EntityPlan, StatementPlan
from ledger.locator import quote_context
from ledger.predicates import add_aliases as add_predicate_aliases
from ledger.records import Citation, SourceId
from ledger.store.wikidata_rows import predicate_in_use, statements_of
from ledger.validate import MAX_PREDICATE_LENGTH

_ENTITY_KINDS = {"property": "property", "lexeme": "lexeme"}


@dataclass(slots=True)
class Tally:
    """Counts kept across the chunks of one import."""

    entities: int = 0
    properties: int = 0
    statements: int = 0
    claims: int = 0
    retracted: int = 0
    removed: int = 0
    skipped: int = 0
    entity_ids: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        """Count another chunk's tally in."""
        for name in ("entities", "properties", "statements", "claims", "retracted", "removed", "skipped"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.entity_ids.extend(other.entity_ids)


def write_chunk(connection: Connection, ids: store.Ids, now: datetime, plans: Sequence[EntityPlan], *,
                scope: str) -> Tally:
    """Write a chunk of entities (properties first, so their statements' predicates are named)."""
    tally = Tally()
    ordered = sorted(plans, key=lambda p: p.kind != "property")
    subjects = _entities(connection, ids, now, ordered, scope)
    for plan in ordered:
        if plan.kind == "property":
            _define_property(connection, ids, now, plan, scope)
            tally.properties += 1
    pids = {(scope, s.property) for plan in ordered for s in plan.statements}
    names = resolve_names(connection, pids)
    drafts: list[ClaimDraft] = []
    deprecated: list[tuple[int, str]] = []
    removed: list[tuple[int, str]] = []
    for plan in ordered:
        source = sources.store_draft(connection, ids, _draft(plan), scope=scope, trust="trusted", now=now,
                                     actor="import:wikidata")
        earlier = statements_of(connection, scope, plan.uri) if source.revision_of is not None or not source.created \
            else {}
        text, lines, references = plan.text()
        current = {s.statement_id for s in plan.statements}
        for statement, line_at, reference_at in zip(plan.statements, lines, references, strict=True):
            before = earlier.get(statement.statement_id, {})
            if statement.rank == "deprecated" and any(line == statement.line for line, _ in before.values()):
                continue  # retracted at an earlier import already, and unchanged since
            changed = sorted(claim for claim, (line, state) in before.items()
                             if line != statement.line and state not in ("retracted", "superseded"))
            citations = [_cite(source.id, scope, text, span) for span in (line_at, *reference_at)]
            drafts.append(ClaimDraft(
                subject=subjects[plan.id], predicate=names[(scope, statement.property)], object=statement.object,
                value=statement.value, valid_from=_bound(statement.valid_from), valid_until=_bound(statement.valid_until),
                evidence=citations, status="confirmed" if statement.rank == "preferred" else "reported",
                qualifiers=statement.qualifiers or None, supersedes=changed or None, actor="import:wikidata",
                scope=scope))
            if statement.deprecation:
                deprecated.append((len(drafts) - 1, statement.deprecation))
        for statement_id, claims in earlier.items():
            if statement_id not in current:
                removed.extend((claim, f"removed from Wikidata {plan.id} by revision {plan.lastrevid}")
                               for claim, (_, state) in claims.items() if state not in ("retracted", "superseded"))
        tally.entities += 1
        tally.skipped += plan.skipped
        tally.statements += len(plan.statements)
        tally.entity_ids.append(plan.id)
    written = write_claims(connection, drafts, now=now, ids=ids) if drafts else []
    tally.claims += len(set(written))
    for index, reason in deprecated:
        _retract(connection, ids, now, written[index], reason)
        tally.retracted += 1
    for claim, reason in removed:
        if _retract(connection, ids, now, claim, reason):
            tally.removed += 1
    return tally


def _retract(connection: Connection, ids: store.Ids, now: datetime, claim: int, reason: str) -> bool:
    if store.current_version(connection, claim)["status"] in ("retracted", "superseded"):
        return False
    lifecycle.change_status(connection, claim, status="retracted", now=now, ids=ids, reason=reason,
                            actor="import:wikidata")
    return True


def _bound(bound: Any) -> str | None:
    return None if bound is None else bound.text


def _draft(plan: EntityPlan) -> Any:
    text, _, _ = plan.text()
    modified = plan.modified if plan.modified and plan.modified.endswith("Z") else None
    return sources.text_draft(text, kind="web", uri=plan.uri, title=plan.title[:500], publisher="Wikidata",
                              published_at=modified.replace("Z", "+00:00") if modified else None)


def _cite(source_id: int, scope: str, text: str, span: tuple[int, int]) -> Citation:
    start, end = span
    prefix, suffix = quote_context(text, start, end)
    locator = {"selectors": [
        {"type": "TextQuoteSelector", "exact": text[start:end], "prefix": prefix, "suffix": suffix},
        {"type": "TextPositionSelector", "start": start, "end": end}]}
    return Citation(source_id=SourceId(source_id), scope=scope, relation="supports", excerpt=text[start:end],
                    char_start=start, char_end=end, locator=locator)


def _entities(connection: Connection, ids: store.Ids, now: datetime, plans: Sequence[EntityPlan],
              scope: str) -> dict[str, int]:
    """The entity of each plan, found by its id (as an alias) or created under its label, with
    every label and alias added where no other entity holds it already."""
    folded = {plan.id: normalize_name(plan.id) for plan in plans}
    wanted = set(folded.values()) | {normalize_name(n) for plan in plans for _, n in plan.names}
    taken: dict[str, int] = dict(store.root_entity_ids(connection, wanted - {""}, scope))
    found: dict[str, int] = {}
    missing: list[EntityPlan] = []
    for plan in plans:
        if folded[plan.id] in taken:
            found[plan.id] = taken[folded[plan.id]]
        else:
            missing.append(plan)
    names: list[str] = []
    for plan in missing:
        label = plan.label if plan.label and normalize_name(plan.label) and normalize_name(plan.label) not in taken \
            and len(plan.label) <= 1000 else plan.id
        if normalize_name(label) in {normalize_name(n) for n in names}:
            label = plan.id
        names.append(label)
    created = store.create_entities(connection, ids, scope=scope, names=names, now=now)
    for plan, new_id, name in zip(missing, created, names, strict=True):
        found[plan.id] = new_id
        taken[normalize_name(name)] = new_id
    rows = []
    for plan in plans:
        entity_id = found[plan.id]
        for language, name in ((None, plan.id), *plan.names):
            key = normalize_name(name)
            if not key or key in taken or len(name) > 1000 or len(key) * 4 > 2000:
                continue
            taken[key] = entity_id
            rows.append({"id": ids.take(store.aliases), "entity_id": entity_id, "scope": scope, "alias": name,
                         "normalized": key, "language": language, "recorded_at": now})
    store.insert_rows(connection, store.aliases, rows)
    return found


def _define_property(connection: Connection, ids: store.Ids, now: datetime, plan: EntityPlan, scope: str) -> None:
    """A property entity defines its predicate in ``scope``: cardinality from its constraints,
    object kind from its datatype, its labels and aliases as the predicate's aliases."""
    resolved = resolve_names(connection, [(scope, plan.id)])[(scope, plan.id)]
    label = canonical_label(plan.label or "")
    if resolved != plan.id or predicate_in_use(connection, scope, plan.id) or not label \
            or len(label) > MAX_PREDICATE_LENGTH:
        name = resolved  # a name in use already keeps naming it: the label becomes an alias
    else:
        name = label
    entity = plan.datatype in ("wikibase-item", "wikibase-property", "wikibase-lexeme", "wikibase-form",
                               "wikibase-sense")
    row: Mapping[str, Any] = {
        "scope": scope, "name": name, "cardinality": "one" if plan.single_value else "many",
        "object_kind": "entity" if entity else "value", "datatype": None, "inverse": None,
        "description": f"imported from Wikidata {plan.id} revision {plan.lastrevid}",
        "separators": _separators(plan.separators), "wikidata": plan.id, "origin": "import"}
    store.put_definition(connection, ids, now, row)
    names = [plan.id, *(n for _, n in plan.names)]
    usable = [canonical_label(n) for n in names if len(canonical_label(n)) <= MAX_PREDICATE_LENGTH]
    add_predicate_aliases(connection, ids, now, scope=scope, name=name, aliases=usable, strict=False)


def _separators(separators: tuple[str, ...]) -> str | None:
    return json.dumps(list(separators)) if separators else None
