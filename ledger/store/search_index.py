"""The search index's schema: one document per alias, claim and passage (migration 0009 creates
it from here). Evidence excerpts are found through the passages they lie in (DESIGN.md: passages
are the units search works on): an excerpt is text of its source, so indexing it again would
double the index for nothing (measured: 75% of the index, and of its upkeep, on bulk writes).

A document's key is ``id * 4 + kind`` (0 alias, 1 claim, 3 passage; 2 is unused), its body the
searchable text folded by ``ledger_fold`` (SQLite: the Python function ``text.fold.search_fold``
that ``db`` registers on every connection; PostgreSQL: ``lower(unaccent(text))``).

- SQLite: an FTS5 table with the ``trigram`` tokenizer: any substring of three or more
  characters is found, in every script, spaces or not (Chinese, Japanese, Thai).
- PostgreSQL: a table with a ``tsvector`` (the language-neutral 'simple' configuration) under a
  GIN index, and a ``pg_trgm`` GIN index on the body for substrings in scripts without spaces.

New rows are indexed by the store's one insert function (``driver.insert_columns`` runs
``upkeep``): one set-based statement per batch and table. Updates and deletes (merges,
alias edits, erasure, promotion) are followed by triggers (on SQLite through ``search_stale``
and ``refresh``, which every write transaction runs). Measured on SQLite, row triggers on
inserts made bulk writes 5x slower: FTS5 writes its pending terms out at every statement, and an
executemany is one statement per row (see docs/search.md).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from sqlalchemy import Connection

from ledger.errors import StoreError

ALIAS, CLAIM, PASSAGE = 0, 1, 3
#: Tables the search index consists of, which are not in ``ledger.model`` (they differ by database).
TABLES = frozenset({"search_index", "search_names", "search_stale", "search_documents"})


def _root_name(entity: str) -> str:
    return (f"(SELECT r.name FROM entities e JOIN entities r ON r.id = coalesce(e.merged_into, e.id) "
            f"WHERE e.id = {entity})")


def _claim_body(c: str) -> str:
    """A claim's searchable text: subject's name, predicate, object's name or value, qualifiers."""
    return (f"coalesce({_root_name(f'{c}.subject_id')}, '') || ' ' || replace({c}.predicate, '_', ' ') || ' ' || "
            f"coalesce({_root_name(f'{c}.object_id')}, {c}.value, '') || "
            f"CASE WHEN {c}.qualifiers = '{{}}' THEN '' ELSE ' ' || {c}.qualifiers END")


def _passage_text(p: str, s: str) -> str:
    return f"substr({s}.text, {p}.char_start + 1, {p}.char_end - {p}.char_start)"


# ---------------------------------------------------------------- SQLite

def _sqlite_insert(rows: str) -> str:
    return f"INSERT INTO search_index(rowid, body, scope) {rows};"


def _sqlite_delete(key: str) -> str:
    return f"DELETE FROM search_index WHERE rowid = {key};"


_NAME_INSERT = "INSERT INTO search_names(rowid, body, scope) VALUES (NEW.id, ledger_fold(NEW.alias), NEW.scope);"
_NAME_DELETE = "DELETE FROM search_names WHERE rowid = OLD.id;"

# What each table puts in the index: (target, the rows' SELECT); both the rebuild and the
# upkeep of inserted rows (with " WHERE <table>.id IN <ids>") run these.
_SQLITE_ROWS = {
    "aliases": (("search_names(rowid, body, scope)", "SELECT aliases.id, ledger_fold(aliases.alias), aliases.scope "
                 "FROM aliases"),
                ("search_index(rowid, body, scope)", "SELECT aliases.id * 4, ledger_fold(aliases.alias), aliases.scope "
                 "FROM aliases")),
    "claims": (("search_index(rowid, body, scope)",
                f"SELECT claims.id * 4 + 1, ledger_fold({_claim_body('claims')}), claims.scope FROM claims"),),
    "passages": (("search_index(rowid, body, scope)",
                  f"SELECT passages.id * 4 + 3, ledger_fold({_passage_text('passages', 's')}), s.scope "
                  f"FROM passages JOIN sources s ON s.id = passages.source_id"),),
}
SQLITE_REBUILD = ("DELETE FROM search_index", "DELETE FROM search_names", "DELETE FROM search_stale", *(
    f"INSERT INTO {target} {rows}" for parts in _SQLITE_ROWS.values() for target, rows in parts))

_CLAIMS_OF_ENTITY = "FROM claims c WHERE c.scope = NEW.scope AND (c.subject_id = NEW.id OR c.object_id = NEW.id)"


def _stale(keys: str) -> str:
    return f"INSERT OR IGNORE INTO search_stale(key) {keys};"


# SQLite's triggers call no function of ledger's: a program that is not ledger (the sqlite3
# shell, a plain SQLAlchemy engine) may update and delete rows. They drop the documents an
# update makes stale and queue their keys in search_stale; ledger indexes them again (``refresh``)
# in the same transaction when it made the change, else in its next write.
SQLITE_CREATE = (
    "CREATE VIRTUAL TABLE search_index USING fts5(body, scope UNINDEXED, tokenize = 'trigram')",
    # names alone as well: suggestions look for any shared three letters, which in the whole
    # index would match most passages
    "CREATE VIRTUAL TABLE search_names USING fts5(body, scope UNINDEXED, tokenize = 'trigram')",
    "CREATE TABLE search_stale (key INTEGER PRIMARY KEY)",
    "CREATE TRIGGER search_aliases_au AFTER UPDATE ON aliases BEGIN " + _sqlite_delete("OLD.id * 4") + _NAME_DELETE
    + _stale("VALUES (NEW.id * 4)") + " END",
    "CREATE TRIGGER search_aliases_ad AFTER DELETE ON aliases BEGIN " + _sqlite_delete("OLD.id * 4") + _NAME_DELETE
    + " END",
    # claims: identities never change, but a merge renames their subject or object
    "CREATE TRIGGER search_claims_au AFTER UPDATE ON claims BEGIN " + _sqlite_delete("OLD.id * 4 + 1")
    + _stale("VALUES (NEW.id * 4 + 1)") + " END",
    "CREATE TRIGGER search_claims_ad AFTER DELETE ON claims BEGIN " + _sqlite_delete("OLD.id * 4 + 1") + " END",
    "CREATE TRIGGER search_entities_au AFTER UPDATE OF merged_into, name ON entities BEGIN "
    f"DELETE FROM search_index WHERE rowid IN (SELECT c.id * 4 + 1 {_CLAIMS_OF_ENTITY}); "
    + _stale(f"SELECT c.id * 4 + 1 {_CLAIMS_OF_ENTITY}") + " END",
    "CREATE TRIGGER search_passages_ad AFTER DELETE ON passages BEGIN " + _sqlite_delete("OLD.id * 4 + 3") + " END",
    # a source whose text or scope changes (erasure, promotion) takes its passages along
    "CREATE TRIGGER search_sources_au AFTER UPDATE OF text, scope ON sources BEGIN "
    "DELETE FROM search_index WHERE rowid IN (SELECT p.id * 4 + 3 FROM passages p WHERE p.source_id = NEW.id); "
    + _stale("SELECT p.id * 4 + 3 FROM passages p WHERE p.source_id = NEW.id") + " END",
)

SQLITE_DROP = (
    *(f"DROP TRIGGER IF EXISTS {name}" for name in (
        "search_aliases_au", "search_aliases_ad", "search_claims_au", "search_claims_ad", "search_entities_au",
        "search_passages_ad", "search_sources_au")),
    "DROP TABLE IF EXISTS search_index",
    "DROP TABLE IF EXISTS search_names",
    "DROP TABLE IF EXISTS search_stale",
)

# ---------------------------------------------------------------- PostgreSQL

_PG_DOC = "INSERT INTO search_documents(id, scope, body) "


def _postgres_create(ext: str) -> tuple[str, ...]:
    """The PostgreSQL DDL, with pg_trgm's and unaccent's objects named in their schema ``ext``
    (a ledger's schema need not have it on its search_path)."""
    return (
        "CREATE TABLE search_documents (id bigint PRIMARY KEY, scope varchar(200) NOT NULL, body text NOT NULL, "
        "tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', body)) STORED)",
        "CREATE INDEX ix_search_documents_tsv ON search_documents USING gin (tsv)",
        f"CREATE INDEX ix_search_documents_body_trgm ON search_documents USING gin (body {ext}.gin_trgm_ops)",
        # names alone as well, for suggestions (see search_names on SQLite)
        f"CREATE INDEX ix_search_documents_names_trgm ON search_documents USING gin (body {ext}.gin_trgm_ops) "
        "WHERE id % 4 = 0",
        # unaccent's one-argument form finds its dictionary on the search_path: name it
        f"CREATE FUNCTION ledger_fold(value text) RETURNS text LANGUAGE sql STABLE AS $$ SELECT "
        f"lower({ext}.unaccent('{ext}.unaccent'::regdictionary, value)) $$",
        f"CREATE FUNCTION ledger_name_similarity(a text, b text) RETURNS real LANGUAGE sql STABLE AS $$ SELECT "
        f"{ext}.similarity(a, b) $$",
        "CREATE FUNCTION ledger_claim_search_body(c claims) RETURNS text LANGUAGE sql STABLE AS $$ SELECT ledger_fold("
        + _claim_body("c") + ") $$",
        "CREATE FUNCTION ledger_search_aliases() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        "DELETE FROM search_documents WHERE id = OLD.id::bigint * 4; "
        f"IF TG_OP = 'UPDATE' THEN {_PG_DOC} VALUES (NEW.id::bigint * 4, NEW.scope, ledger_fold(NEW.alias)); END IF; "
        "RETURN NULL; END $$",
        "CREATE FUNCTION ledger_search_claims() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        "DELETE FROM search_documents WHERE id = OLD.id::bigint * 4 + 1; "
        f"IF TG_OP = 'UPDATE' THEN {_PG_DOC} VALUES (NEW.id::bigint * 4 + 1, NEW.scope, ledger_claim_search_body(NEW)); "
        "END IF; RETURN NULL; END $$",
        "CREATE FUNCTION ledger_search_entities() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        "DELETE FROM search_documents WHERE id IN (SELECT c.id::bigint * 4 + 1 "
        + _CLAIMS_OF_ENTITY + "); "
        f"{_PG_DOC} SELECT c.id::bigint * 4 + 1, c.scope, ledger_claim_search_body(c) {_CLAIMS_OF_ENTITY}; "
        "RETURN NULL; END $$",
        "CREATE FUNCTION ledger_search_passages() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        "DELETE FROM search_documents WHERE id = OLD.id::bigint * 4 + 3; RETURN NULL; END $$",
        "CREATE FUNCTION ledger_search_sources() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        "DELETE FROM search_documents WHERE id IN (SELECT p.id::bigint * 4 + 3 FROM passages p WHERE p.source_id = NEW.id); "
        f"{_PG_DOC} SELECT p.id::bigint * 4 + 3, NEW.scope, ledger_fold({_passage_text('p', 'NEW')}) FROM passages p "
        "WHERE p.source_id = NEW.id; RETURN NULL; END $$",
        "CREATE TRIGGER search_aliases AFTER UPDATE OR DELETE ON aliases "
        "FOR EACH ROW EXECUTE FUNCTION ledger_search_aliases()",
        "CREATE TRIGGER search_claims AFTER UPDATE OR DELETE ON claims "
        "FOR EACH ROW EXECUTE FUNCTION ledger_search_claims()",
        "CREATE TRIGGER search_entities AFTER UPDATE OF merged_into, name ON entities "
        "FOR EACH ROW EXECUTE FUNCTION ledger_search_entities()",
        "CREATE TRIGGER search_passages AFTER DELETE ON passages "
        "FOR EACH ROW EXECUTE FUNCTION ledger_search_passages()",
        "CREATE TRIGGER search_sources AFTER UPDATE OF text, scope ON sources "
        "FOR EACH ROW EXECUTE FUNCTION ledger_search_sources()",
    )


_POSTGRES_ROWS = {
    "aliases": (("search_documents(id, scope, body)",
                 "SELECT aliases.id::bigint * 4, aliases.scope, ledger_fold(aliases.alias) FROM aliases"),),
    "claims": (("search_documents(id, scope, body)",
                "SELECT claims.id::bigint * 4 + 1, claims.scope, ledger_claim_search_body(claims) FROM claims"),),
    "passages": (("search_documents(id, scope, body)",
                  f"SELECT passages.id::bigint * 4 + 3, s.scope, ledger_fold({_passage_text('passages', 's')}) "
                  f"FROM passages JOIN sources s ON s.id = passages.source_id"),),
}
POSTGRES_REBUILD = ("DELETE FROM search_documents", *(
    f"INSERT INTO {target} {rows}" for parts in _POSTGRES_ROWS.values() for target, rows in parts))

#: Per indexed table, the statements that index rows just inserted (one list parameter of ids).
_UPKEEP = {
    "sqlite": {table: tuple(f"INSERT INTO {target} {rows} WHERE {table}.id IN (SELECT value FROM json_each(?))"
                            for target, rows in parts) for table, parts in _SQLITE_ROWS.items()},
    "postgresql": {table: tuple(f"INSERT INTO {target} {rows} WHERE {table}.id = ANY(%s)" for target, rows in parts)
                   for table, parts in _POSTGRES_ROWS.items()},
}
INDEXED_TABLES = frozenset(_SQLITE_ROWS)
_paused: ContextVar[bool] = ContextVar("ledger_search_upkeep_paused", default=False)


def upkeep(dialect: str, table: str, ids: Sequence[int]) -> list[tuple[str, tuple[Any]]]:
    """The statements (SQL, parameters) that index rows of ``table`` just inserted."""
    if _paused.get() or not ids or table not in INDEXED_TABLES:
        return []
    parameter = json.dumps(list(ids)) if dialect == "sqlite" else list(ids)
    return [(statement, (parameter,)) for statement in _UPKEEP[dialect][table]]


_STALE = "SELECT key FROM search_stale"
_STALE_DONE = "DELETE FROM search_stale"


def refresh(connection: Connection) -> None:
    """Index again what updates made stale (SQLite; PostgreSQL's triggers do it themselves)."""
    if connection.dialect.name != "sqlite" or _paused.get():
        return
    cursor = connection.connection.cursor()
    try:
        keys = [key for (key,) in cursor.execute(_STALE).fetchall()]
        if not keys:
            return
        for table, kind in (("aliases", ALIAS), ("claims", CLAIM), ("passages", PASSAGE)):
            for statement, parameters in upkeep("sqlite", table, [key // 4 for key in keys if key % 4 == kind]):
                cursor.execute(statement, parameters)
        cursor.execute(_STALE_DONE)
    finally:
        cursor.close()


_OPTIMIZE = ("INSERT INTO search_index(search_index) VALUES('optimize')",
             "INSERT INTO search_names(search_names) VALUES('optimize')")


def forget(connection: Connection) -> None:
    """Erasure's part here, after its updates and deletes: the triggers dropped the erased rows'
    documents; on SQLite, index again what they made stale and merge FTS5's segments ('optimize'),
    which still hold the deleted documents' terms until then (SQLite 3.40 has no 'secure-delete'
    option). PostgreSQL's triggers did it all; ``compact`` vacuums the table."""
    if connection.dialect.name != "sqlite":
        return
    refresh(connection)
    _run(connection, _OPTIMIZE)


@contextmanager
def upkeep_paused() -> Iterator[None]:
    """Write without indexing (a bulk import followed by ``rebuild``, or a benchmark's baseline)."""
    token = _paused.set(True)
    try:
        yield
    finally:
        _paused.reset(token)


POSTGRES_DROP = (
    *(f"DROP TRIGGER IF EXISTS search_{table} ON {table}"
      for table in ("aliases", "claims", "entities", "passages", "sources")),
    *(f"DROP FUNCTION IF EXISTS ledger_search_{table}()"
      for table in ("aliases", "claims", "entities", "passages", "sources")),
    "DROP FUNCTION IF EXISTS ledger_claim_search_body(claims)",
    "DROP FUNCTION IF EXISTS ledger_fold(text)",
    "DROP FUNCTION IF EXISTS ledger_name_similarity(text, text)",
    "DROP TABLE IF EXISTS search_documents",
)


def _run(connection: Connection, statements: tuple[str, ...]) -> None:
    escape = connection.dialect.name != "sqlite"  # psycopg reads "%" as the start of a parameter
    for statement in statements:
        connection.exec_driver_sql(statement.replace("%", "%%") if escape else statement)


def create(connection: Connection) -> None:
    """Create the search index and its triggers, and fill it from the tables."""
    if connection.dialect.name == "sqlite":
        _run(connection, SQLITE_CREATE)
    else:
        _run(connection, _postgres_create(_extensions_schema(connection)))
    rebuild(connection)


_EXTENSION_SCHEMA = ("SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace "
                     "WHERE e.extname = %s")


def _extensions_schema(connection: Connection) -> str:
    """The schema pg_trgm and unaccent are in, creating them (in public, else the current schema)
    where missing: they are per database, and a ledger may live in a schema of its own."""
    cursor = connection.connection.cursor()
    try:
        cursor.execute(_EXTENSION_SCHEMA, ("pg_trgm",))
        found = cursor.fetchone()
        if found is None:
            cursor.execute("SELECT coalesce((SELECT nspname FROM pg_namespace WHERE nspname = 'public'), "
                           "current_schema())")
            found = cursor.fetchone()
        name = str(found[0]) if found else "public"
        schema = '"' + name.replace('"', '""') + '"'
        cursor.execute(f"CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA {schema}")
        cursor.execute(_EXTENSION_SCHEMA, ("unaccent",))
        if cursor.fetchone() is None:
            cursor.execute(f"CREATE EXTENSION IF NOT EXISTS unaccent SCHEMA {schema}")
        cursor.execute(_EXTENSION_SCHEMA, ("unaccent",))
        unaccent = cursor.fetchone()
        if unaccent is None or unaccent[0] != name:
            raise StoreError(f"pg_trgm is in schema {name!r} and unaccent in {unaccent and unaccent[0]!r}; "
                             f"ledger's search needs both in one schema")
        return schema
    finally:
        cursor.close()


def drop(connection: Connection) -> None:
    """Drop the search index and its triggers (the extensions stay: others may use them)."""
    _run(connection, SQLITE_DROP if connection.dialect.name == "sqlite" else POSTGRES_DROP)


def rebuild(connection: Connection) -> None:
    """Fill the search index again from the tables (what the triggers keep in step)."""
    _run(connection, SQLITE_REBUILD if connection.dialect.name == "sqlite" else POSTGRES_REBUILD)
