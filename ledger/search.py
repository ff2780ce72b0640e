"""Full-text search over names, claims, evidence excerpts and passages, and name suggestions.

The index (``store.search_index``) holds text folded by ``text.fold.search_fold``; a query is
folded alike and split on spaces into terms. docs/search.md describes tokenizers and limits.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from sqlalchemy import Connection

from ledger.entities import normalize_name
from ledger.store import search_index, search_rows
from ledger.text.fold import search_fold
from ledger.text.fuzzy import similarity

HitKind = Literal["entity", "claim", "evidence", "passage"]
HIT_KINDS: tuple[HitKind, ...] = ("entity", "claim", "evidence", "passage")
MatchMode = Literal["all", "any"]
SNIPPET_LENGTH = 160
#: A fuzzy suggestion below this similarity (difflib ratio of folded names) is not offered.
FUZZY_FLOOR = 0.6


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One search result: what it is (``kind``, ``id``), a snippet, a score (higher is better)
    and where it comes from: the entity, the claim, the source (title, uri, page)."""

    kind: HitKind
    id: int
    snippet: str
    score: float
    scope: str
    entity_id: int | None = None
    claim_id: int | None = None
    source_id: int | None = None
    source_title: str | None = None
    source_uri: str | None = None
    page: int | None = None


@dataclass(frozen=True, slots=True)
class Suggestion:
    """A known entity or predicate a name may have meant: ``why`` is "exact alias" (the name as
    written), "normalized" (equal once folded) or "fuzzy" (alike; ``score`` says how much)."""

    kind: Literal["entity", "predicate"]
    name: str
    score: float
    why: Literal["exact alias", "normalized", "fuzzy"]
    entity_id: int | None = None
    matched: str | None = None


def query_terms(text: str) -> list[str]:
    """The folded terms of a query: split on spaces, punctuation trimmed from their ends."""
    folded = search_fold(text) or ""
    terms = []
    for word in folded.split():
        start, end = 0, len(word)
        while start < end and unicodedata.category(word[start])[0] in "PS":
            start += 1
        while end > start and unicodedata.category(word[end - 1])[0] in "PS":
            end -= 1
        if start < end and word[start:end] not in terms:
            terms.append(word[start:end])
    return terms


def snippet(text: str, terms: Sequence[str], length: int = SNIPPET_LENGTH) -> str:
    """Up to ``length`` characters of ``text`` around the first term found in it."""
    flat = " ".join(text.split())
    if len(flat) <= length:
        return flat
    folded = search_fold(flat) or ""
    found = [p for p in (folded.find(t) for t in terms) if p >= 0]
    at = min(found) if found and len(folded) == len(flat) else 0
    start = max(0, min(at - length // 4, len(flat) - length))
    return ("…" if start else "") + flat[start:start + length].strip() + ("…" if start + length < len(flat) else "")


def search(
    connection: Connection, text: str, *, scope: str, kinds: Iterable[HitKind], valid_at: datetime,
    known_at: datetime, limit: int, match: MatchMode = "all",
) -> list[SearchHit]:
    """The best ``limit`` hits for ``text`` in ``scope`` as of (``valid_at``, ``known_at``)."""
    terms = query_terms(text)
    if not terms:
        return []
    codes = sorted({search_index.KINDS[k] for k in kinds})
    # an entity has one document per alias: fetch more so that `limit` entities remain
    fetch = limit * 3 if search_index.ALIAS in codes else limit
    found = search_rows.find_documents(connection, terms, mode=match, scope=scope, kinds=codes, valid=valid_at,
                                       known=known_at, limit=fetch)
    details = search_rows.document_details(connection, [key for key, _ in found])
    hits: list[SearchHit] = []
    seen_entities: set[int] = set()
    for key, score in found:
        row = details.get(key)
        if row is None:
            continue
        hit = _hit(key % 4, row, score, scope, terms)
        if hit.kind == "entity":
            if hit.id in seen_entities:
                continue
            seen_entities.add(hit.id)
        hits.append(hit)
        if len(hits) == limit:
            break
    return hits


def _hit(kind: int, row: Mapping[str, Any], score: float, scope: str, terms: Sequence[str]) -> SearchHit:
    if kind == search_index.ALIAS:
        return SearchHit("entity", row["entity_id"], row["alias"], score, scope, entity_id=row["entity_id"])
    if kind == search_index.CLAIM:
        qualifiers = "" if row["qualifiers"] == "{}" else f" {row['qualifiers']}"
        told = row["object"] if row["object"] is not None else row["value"]
        return SearchHit("claim", row["id"], f"{row['subject']} · {row['predicate']} · {told}{qualifiers}", score,
                         scope, claim_id=row["id"])
    source = {"source_id": row["source_id"], "source_title": row["title"], "source_uri": row["uri"],
              "page": row["page"]}
    if kind == search_index.EVIDENCE:
        return SearchHit("evidence", row["id"], snippet(row["excerpt"], terms), score, scope,
                         claim_id=row["claim_id"], **source)
    return SearchHit("passage", row["id"], snippet(row["text"], terms), score, scope, **source)


def bare_search(connection: Connection, text: str, *, scope: str, limit: int = 10) -> list[int]:
    """The bare full-text query under ``search`` (document keys only): a benchmark's floor."""
    terms = query_terms(text)
    return search_rows.bare_documents(connection, terms, scope=scope, limit=limit) if terms else []


def rebuild(connection: Connection) -> None:
    """Fill the search index again from the tables."""
    search_index.rebuild(connection)


def name_similarity(name: str, known: str) -> float:
    """How alike two normalized names are: the whole names, or (a little less) ``name`` and as
    many leading words of ``known`` ("tottenahm" is near "tottenham hotspur")."""
    whole = similarity(name, known)
    words = len(name.split(" "))
    leading = " ".join(known.split(" ")[:words])
    return round(max(whole, 0.9 * similarity(name, leading) if leading != known else 0.0), 3)


def suggest(connection: Connection, name: str, *, scope: str, limit: int) -> list[Suggestion]:
    """Entities and predicates of ``scope`` that ``name`` may mean, the likeliest first."""
    normalized = normalize_name(name)
    if not normalized:
        return []
    found: dict[tuple[str, int | str], Suggestion] = {}
    for row in search_rows.exact_aliases(connection, normalized, scope=scope):
        why: Literal["exact alias", "normalized"] = "exact alias" if row["alias"] == name.strip() else "normalized"
        found[("entity", row["entity_id"])] = Suggestion("entity", row["alias"], 1.0, why, row["entity_id"],
                                                         row["alias"])
    folded = search_fold(name.strip()) or ""
    for row in search_rows.alias_candidates(connection, folded, scope=scope, limit=max(50, limit * 10)):
        score = name_similarity(normalized, row["normalized"])
        key = ("entity", row["entity_id"])
        if score >= FUZZY_FLOOR and (key not in found or found[key].score < score):
            found[key] = Suggestion("entity", row["alias"], score, "fuzzy", row["entity_id"], row["alias"])
    for predicate in search_rows.predicate_names(connection, scope):
        folded_predicate = normalize_name(predicate.replace("_", " "))
        if folded_predicate == normalized.replace("_", " "):
            found[("predicate", predicate)] = Suggestion("predicate", predicate, 1.0, "normalized",
                                                         matched=predicate)
            continue
        score = round(similarity(normalized.replace("_", " "), folded_predicate), 3)
        if score >= FUZZY_FLOOR:
            found[("predicate", predicate)] = Suggestion("predicate", predicate, score, "fuzzy", matched=predicate)
    names = search_rows.entity_names(connection, [s.entity_id for s in found.values() if s.entity_id is not None])
    ranked = sorted(
        (s if s.entity_id is None else Suggestion(s.kind, names.get(s.entity_id, s.name), s.score, s.why,
                                                  s.entity_id, s.matched) for s in found.values()),
        key=lambda s: (-s.score, s.kind, s.name))
    return ranked[:limit]


def entity_suggestions(connection: Connection, name: str, *, scope: str, limit: int = 3) -> list[Suggestion]:
    """Only the entities ``suggest`` offers for ``name``."""
    return [s for s in suggest(connection, name, scope=scope, limit=limit * 3) if s.kind == "entity"][:limit]
