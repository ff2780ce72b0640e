"""a revision may hold bytes stored before: a page A, B, then A again

Such a page gets a third revision (revision_of B) with A's bytes, and a page changed to bytes
stored under another uri a revision with them, so the unique (scope, content_hash) becomes two
partial unique indexes: first ingests stay unique by their bytes; a revision is unique by its
bytes and the revision it follows. As every revision now looks for the evidence no newer row
carried forward (stale rows included), evidence gets an index on reanchored_from.

Downgrading fails while such a returning revision is stored.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30 02:49:34.797341
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None

_FIRST = sa.text('revision_of IS NULL')
_LATER = sa.text('revision_of IS NOT NULL')


def upgrade() -> None:
    with op.batch_alter_table('sources', schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f('uq_sources_scope_content_hash'), type_='unique')
        batch_op.create_index('uq_sources_scope_content_hash', ['scope', 'content_hash'], unique=True,
                              sqlite_where=_FIRST, postgresql_where=_FIRST)
        batch_op.create_index('uq_sources_scope_content_hash_revision_of', ['scope', 'content_hash', 'revision_of'],
                              unique=True, sqlite_where=_LATER, postgresql_where=_LATER)
    carried = sa.text('reanchored_from IS NOT NULL')
    with op.batch_alter_table('evidence', schema=None) as batch_op:
        batch_op.create_index('ix_evidence_reanchored_from', ['reanchored_from'], unique=False,
                              sqlite_where=carried, postgresql_where=carried)


def downgrade() -> None:
    with op.batch_alter_table('evidence', schema=None) as batch_op:
        batch_op.drop_index('ix_evidence_reanchored_from')
    with op.batch_alter_table('sources', schema=None) as batch_op:
        batch_op.drop_index('uq_sources_scope_content_hash_revision_of')
        batch_op.drop_index('uq_sources_scope_content_hash')
        batch_op.create_unique_constraint(batch_op.f('uq_sources_scope_content_hash'), ['scope', 'content_hash'])

