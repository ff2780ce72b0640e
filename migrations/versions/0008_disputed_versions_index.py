"""claim versions that are disputed get an index of their own: contradictions() reads only those

contradictions() (queries/contradicted_unresolved.sql) asks which claims were disputed at a
known_at; without an index it read every claim version of the database. The partial index
holds only the disputed versions, with the system-time bounds the query compares.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-05 03:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None

_DISPUTED = sa.text("status = 'disputed'")


def upgrade() -> None:
    with op.batch_alter_table('claim_versions', schema=None) as batch_op:
        batch_op.create_index('ix_claim_versions_disputed', ['claim_id', 'recorded_at', 'invalidated_at'],
                              unique=False, sqlite_where=_DISPUTED, postgresql_where=_DISPUTED)


def downgrade() -> None:
    with op.batch_alter_table('claim_versions', schema=None) as batch_op:
        batch_op.drop_index('ix_claim_versions_disputed')
