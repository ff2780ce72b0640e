"""a search index over names, claims, evidence excerpts and passages, kept in step by triggers

``Ledger.search()`` and ``Ledger.suggest()`` read it. SQLite: an FTS5 table with the trigram
tokenizer (substrings of three or more characters in any script, spaces or not); PostgreSQL: a
table with a 'simple' tsvector under GIN and a pg_trgm GIN index on the folded text. The DDL,
the triggers and the statements that fill the index live in ``ledger.store.search_index`` (the
same statements ``Ledger.rebuild_search_index()`` runs); upgrading fills it from the tables.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-05 02:45:00.000000
"""

from __future__ import annotations

from alembic import op

from ledger.store import search_index

revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None


def upgrade() -> None:
    search_index.create(op.get_bind())


def downgrade() -> None:
    search_index.drop(op.get_bind())
