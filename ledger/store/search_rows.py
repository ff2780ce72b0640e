"""Reads of the search index (see ``search_index``): ranked documents as of a time, what each
document is, alias candidates for suggestions, the predicates a scope uses."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import (
    BindParameter,
    Connection,
    TextClause,
    bindparam,
    func,
    select,
    text,
)
from sqlalchemy.dialects import postgresql
from sqlalchemy.sql.selectable import TextualSelect
from sqlalchemy.types import Float, Integer, Text

from ledger.model import UTCTime
from ledger.store.driver import (
    aliases,
    claims,
    entities,
    evidence,
    one_of,
    passages,
    sources,
)

# What a document must be to count at (valid, known): a claim visible as claims() sees it (not
# retracted, its version held at `known`, its interval covering `valid`); a passage of a source
# stored by `known` that no revision stored by then replaces; an alias recorded by `known`.
_VISIBLE_CLAIM = (
    "EXISTS (SELECT 1 FROM claim_versions v WHERE v.claim_id = {claim} AND v.recorded_at <= :known "
    "AND (v.invalidated_at IS NULL OR v.invalidated_at > :known) AND v.status <> 'retracted' "
    "AND (v.valid_from IS NULL OR v.valid_from <= :valid) AND (v.valid_until IS NULL OR v.valid_until > :valid))"
)
_AS_OF = (
    "CASE {doc} % 4 "
    "WHEN 0 THEN EXISTS (SELECT 1 FROM aliases a WHERE a.id = {doc} / 4 AND a.recorded_at <= :known) "
    "WHEN 1 THEN " + _VISIBLE_CLAIM.format(claim="{doc} / 4") + " "
    "ELSE EXISTS (SELECT 1 FROM passages p JOIN sources s ON s.id = p.source_id WHERE p.id = {doc} / 4 "
    "AND s.recorded_at <= :known AND NOT EXISTS (SELECT 1 FROM sources r WHERE r.revision_of = s.id "
    "AND r.recorded_at <= :known)) END"
)
# Evidence is found through the passages it overlaps (search_index): recorded by `known`, of a
# visible claim, not carried forward into a newer revision, its own excerpt holding the terms.
_EVIDENCE_JOIN = ("JOIN passages p ON p.id = {doc} / 4 JOIN evidence e ON e.source_id = p.source_id "
                  "AND e.char_start < p.char_end AND e.char_end > p.char_start")
_EVIDENCE_AS_OF = ("e.recorded_at <= :known AND " + _VISIBLE_CLAIM.format(claim="e.claim_id")
                   + " AND NOT EXISTS (SELECT 1 FROM evidence n WHERE n.reanchored_from = e.id "
                     "AND n.recorded_at <= :known)")
#: PostgreSQL looks for evidence in at most this many of the best passages (or 5 per hit wanted).
EVIDENCE_PASSAGES = 50
_SQLITE_TERMS_IN = {
    "all": "NOT EXISTS (SELECT 1 FROM json_each({terms}) WHERE instr({body}, value) = 0)",
    "any": "EXISTS (SELECT 1 FROM json_each({terms}) WHERE instr({body}, value) > 0)",
}


def _sqlite(match: bool, mode: str, evidence: bool) -> TextualSelect:
    where = ["f.scope = :scope"]
    if evidence:
        where.append("f.rowid % 4 = 3")
    else:
        where += ["f.rowid % 4 IN (SELECT value FROM json_each(:kinds))", _AS_OF.format(doc="f.rowid")]
    if match:
        where.insert(0, "search_index MATCH :match")
        if mode == "all":
            where.append(_SQLITE_TERMS_IN["all"].format(terms=":short", body="f.body"))
        order, rank = "ORDER BY f.rank", "-f.rank"
    else:
        where.append(_SQLITE_TERMS_IN[mode].format(terms=":short", body="f.body"))
        order, rank = "ORDER BY f.rowid", "0.0"
    if not evidence:
        return _typed(text(f"SELECT f.rowid AS doc, {rank} AS score FROM search_index f WHERE {' AND '.join(where)} "
                           f"{order} LIMIT :limit"))
    # FTS5 hands the passages over in rank order, and the join stops after `limit` excerpts
    # the excerpt's own words first: most excerpts beside a matching passage fail them, cheaply
    where += [_SQLITE_TERMS_IN[mode].format(terms=":terms", body="ledger_fold(e.excerpt)"), _EVIDENCE_AS_OF]
    return _typed(text(
        f"SELECT e.id * 4 + 2 AS doc, {rank} AS score FROM search_index f {_EVIDENCE_JOIN.format(doc='f.rowid')} "
        f"WHERE {' AND '.join(where)} {order} LIMIT :limit"))


def _postgres(mode: str, evidence: bool) -> TextualSelect:
    quantifier = "ALL" if mode == "all" else "ANY"
    tsquery = "websearch_to_tsquery('simple', :words)"
    match = f"(d.body LIKE {quantifier} (:patterns)"
    match += f" OR d.tsv @@ {tsquery})" if mode == "all" else ")"
    score = (f"ts_rank(d.tsv, {tsquery}) + (SELECT count(*) FROM unnest(CAST(:patterns AS text[])) t "
             "WHERE d.body LIKE t)")
    if not evidence:
        return _typed(text(
            f"SELECT d.id AS doc, {score} AS score FROM search_documents d WHERE d.scope = :scope AND {match} "
            f"AND (d.id % 4) = ANY(:kinds) AND {_AS_OF.format(doc='d.id')} ORDER BY score DESC, doc LIMIT :limit"
        ), postgres=True)
    return _typed(text(
        f"SELECT e.id::bigint * 4 + 2 AS doc, top.score AS score FROM (SELECT d.id AS doc, {score} AS score "
        f"FROM search_documents d WHERE d.scope = :scope AND {match} AND d.id % 4 = 3 ORDER BY score DESC "
        f"LIMIT :passages) top {_EVIDENCE_JOIN.format(doc='top.doc')} WHERE {_EVIDENCE_AS_OF} "
        f"AND ledger_fold(e.excerpt) LIKE {quantifier} (:patterns) ORDER BY top.score DESC, e.id LIMIT :limit"
    ), postgres=True)


def _typed(statement: TextClause, *, postgres: bool = False) -> TextualSelect:
    binds: list[BindParameter[Any]] = [bindparam("valid", type_=UTCTime()), bindparam("known", type_=UTCTime())]
    if postgres:
        binds.append(bindparam("patterns", type_=postgresql.ARRAY(Text())))
        if ":kinds" in statement.text:
            binds.append(bindparam("kinds", type_=postgresql.ARRAY(Integer())))
    return statement.bindparams(*binds).columns(doc=Integer(), score=Float())


_STATEMENTS: dict[tuple[str, bool, str, bool], TextualSelect] = {}


def _statement(dialect: str, match: bool, mode: str, evidence: bool) -> TextualSelect:
    key = (dialect, match, mode, evidence)
    if key not in _STATEMENTS:
        _STATEMENTS[key] = _sqlite(match, mode, evidence) if dialect == "sqlite" else _postgres(mode, evidence)
    return _STATEMENTS[key]


def _fts_phrase(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def _like(term: str) -> str:
    return "%" + term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def find_documents(
    connection: Connection, terms: Sequence[str], *, mode: str, scope: str, kinds: Sequence[int],
    valid: datetime, known: datetime, limit: int, evidence: bool = False,
) -> list[tuple[int, float]]:
    """(document key, score) of the best ``limit`` documents of ``scope`` holding the folded
    ``terms`` (``mode`` "all" or "any"), as of (``valid``, ``known``), best first; with
    ``evidence``, the evidence rows (key ``id * 4 + 2``) whose excerpts hold them instead."""
    params: dict[str, Any] = {"scope": scope, "valid": valid, "known": known, "limit": limit,
                              "passages": max(EVIDENCE_PASSAGES, limit * 5)}
    if connection.dialect.name == "sqlite":
        long = [t for t in terms if len(t) >= 3]
        short = [t for t in terms if len(t) < 3]
        params |= {"kinds": json.dumps(list(kinds)), "short": json.dumps(short, ensure_ascii=False),
                   "terms": json.dumps(list(terms), ensure_ascii=False)}
        if long:
            params["match"] = (" AND " if mode == "all" else " OR ").join(map(_fts_phrase, long))
        statement = _statement("sqlite", bool(long), mode, evidence)
    else:
        params |= {"kinds": list(kinds), "patterns": [_like(t) for t in terms],
                   "words": (" " if mode == "all" else " or ").join(f'"{t.replace(chr(34), " ")}"' for t in terms)}
        statement = _statement("postgresql", True, mode, evidence)
    return [(row.doc, row.score) for row in connection.execute(statement, params)]


_BARE_SQLITE = text("SELECT f.rowid AS doc FROM search_index f WHERE search_index MATCH :match "
                    "AND f.scope = :scope ORDER BY f.rank LIMIT :limit")
_BARE_POSTGRES = text("SELECT d.id AS doc FROM search_documents d WHERE d.scope = :scope "
                      "AND d.body LIKE ALL (:patterns) ORDER BY ts_rank(d.tsv, websearch_to_tsquery('simple', "
                      ":words)) DESC LIMIT :limit").bindparams(bindparam("patterns", type_=postgresql.ARRAY(Text())))


def bare_documents(connection: Connection, terms: Sequence[str], *, scope: str, limit: int) -> list[int]:
    """The bare full-text query (every term, ranked, no time slicing, no details): the floor
    that search and recall build on, for benchmarks."""
    if connection.dialect.name == "sqlite":
        match = " AND ".join(_fts_phrase(t) for t in terms)
        return list(connection.execute(_BARE_SQLITE, {"match": match, "scope": scope, "limit": limit}).scalars())
    return list(connection.execute(_BARE_POSTGRES, {
        "patterns": [_like(t) for t in terms], "words": " ".join(f'"{t}"' for t in terms), "scope": scope,
        "limit": limit}).scalars())


# ---------------------------------------------------------------- what the documents are

_root = func.coalesce(entities.c.merged_into, entities.c.id)
_ALIASES = (select(aliases.c.id, aliases.c.alias, _root.label("entity_id"))
            .join(entities, entities.c.id == aliases.c.entity_id).where(one_of(aliases.c.id, "ids")))
_subject, _object = entities.alias("subject"), entities.alias("object")
_subject_root, _object_root = entities.alias("subject_root"), entities.alias("object_root")
_CLAIMS = (
    select(claims.c.id, claims.c.predicate, claims.c.value, claims.c.datatype, claims.c.qualifiers,
           _subject_root.c.name.label("subject"), _object_root.c.name.label("object"))
    .join(_subject, _subject.c.id == claims.c.subject_id)
    .join(_subject_root, _subject_root.c.id == func.coalesce(_subject.c.merged_into, _subject.c.id))
    .outerjoin(_object, _object.c.id == claims.c.object_id)
    .outerjoin(_object_root, _object_root.c.id == func.coalesce(_object.c.merged_into, _object.c.id))
    .where(one_of(claims.c.id, "ids"))
)
_EVIDENCE = (
    select(evidence.c.id, evidence.c.claim_id, evidence.c.excerpt, evidence.c.page, evidence.c.source_id,
           sources.c.title, sources.c.uri)
    .join(sources, sources.c.id == evidence.c.source_id).where(one_of(evidence.c.id, "ids"))
)
_PASSAGES = (
    select(passages.c.id, passages.c.page, passages.c.source_id, sources.c.title, sources.c.uri,
           func.substr(sources.c.text, passages.c.char_start + 1, passages.c.char_end - passages.c.char_start)
           .label("text"))
    .join(sources, sources.c.id == passages.c.source_id).where(one_of(passages.c.id, "ids"))
)
_DETAILS = {0: _ALIASES, 1: _CLAIMS, 2: _EVIDENCE, 3: _PASSAGES}


def document_details(connection: Connection, keys: Sequence[int]) -> dict[int, Mapping[Any, Any]]:
    """Document key → the row it was made from (with its entity, claim or source)."""
    found: dict[int, Mapping[Any, Any]] = {}
    for kind, statement in _DETAILS.items():
        ids = [key // 4 for key in keys if key % 4 == kind]
        if ids:
            for row in connection.execute(statement, {"ids": ids}).mappings():
                found[row["id"] * 4 + kind] = row
    return found


# ---------------------------------------------------------------- suggestions

_ALIAS_CANDIDATES_SQLITE = text(
    "SELECT a.alias, a.normalized, coalesce(e.merged_into, e.id) AS entity_id FROM search_names f "
    "JOIN aliases a ON a.id = f.rowid JOIN entities e ON e.id = a.entity_id "
    "WHERE search_names MATCH :match AND f.scope = :scope ORDER BY f.rank LIMIT :limit")
_ALIAS_CANDIDATES_POSTGRES = text(
    "SELECT a.alias, a.normalized, coalesce(e.merged_into, e.id) AS entity_id FROM search_documents d "
    "JOIN aliases a ON a.id = d.id / 4 JOIN entities e ON e.id = a.entity_id "
    "WHERE d.id % 4 = 0 AND d.scope = :scope AND d.body LIKE ANY (:patterns) "
    "ORDER BY ledger_name_similarity(d.body, :name) DESC LIMIT :limit").bindparams(
    bindparam("patterns", type_=postgresql.ARRAY(Text())))


def alias_candidates(connection: Connection, folded: str, *, scope: str, limit: int) -> list[Mapping[Any, Any]]:
    """Aliases of ``scope`` sharing three-letter runs with the folded name, the most alike first."""
    grams = sorted({folded[i:i + 3] for i in range(max(1, len(folded) - 2))})
    if connection.dialect.name == "sqlite":
        if len(folded) < 3:
            return []
        match = " OR ".join(_fts_phrase(g) for g in grams)
        rows = connection.execute(_ALIAS_CANDIDATES_SQLITE, {"match": match, "scope": scope, "limit": limit})
    else:
        rows = connection.execute(_ALIAS_CANDIDATES_POSTGRES, {
            "name": folded, "patterns": [_like(g) for g in grams], "scope": scope, "limit": limit})
    return list(rows.mappings())


_EXACT = (select(aliases.c.alias, aliases.c.normalized, _root.label("entity_id"))
          .join(entities, entities.c.id == aliases.c.entity_id)
          .where(aliases.c.scope == bindparam("scope"), aliases.c.normalized == bindparam("normalized")))


def exact_aliases(connection: Connection, normalized: str, *, scope: str) -> list[Mapping[Any, Any]]:
    """The alias of ``scope`` with this normalized form (at most one), with its entity."""
    return list(connection.execute(_EXACT, {"scope": scope, "normalized": normalized}).mappings())


_ENTITY_NAMES = select(entities.c.id, entities.c.name).where(one_of(entities.c.id, "ids"))


def entity_names(connection: Connection, ids: Sequence[int]) -> dict[int, str]:
    """Entity id → canonical name."""
    return {row.id: row.name for row in connection.execute(_ENTITY_NAMES, {"ids": list(ids)})} if ids else {}


# Each next predicate of the scope by one index probe (a skip scan): a scope of a million claims
# has a few hundred predicates.
_PREDICATES = text(
    "WITH RECURSIVE p(name) AS (SELECT min(predicate) FROM claims WHERE scope = :scope "
    "UNION ALL SELECT (SELECT min(predicate) FROM claims WHERE scope = :scope AND predicate > p.name) "
    "FROM p WHERE p.name IS NOT NULL) SELECT name FROM p WHERE name IS NOT NULL "
    "UNION SELECT name FROM predicates")


def predicate_names(connection: Connection, scope: str) -> list[str]:
    """The predicates claims of ``scope`` use, and every declared predicate."""
    return sorted(connection.execute(_PREDICATES, {"scope": scope}).scalars())
