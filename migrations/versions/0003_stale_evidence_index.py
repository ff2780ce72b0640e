"""evidence flagged stale gets an index of its own: stale_evidence() reads only those rows

stale_evidence(scope) looked for the rows flagged stale among the evidence of every claim of
the scope; the partial index holds only the flagged rows (by claim, the order it lists them).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 10:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None

_STALE = sa.text('stale_at IS NOT NULL')


def upgrade() -> None:
    with op.batch_alter_table('evidence', schema=None) as batch_op:
        batch_op.create_index('ix_evidence_stale_claim_id', ['claim_id'], unique=False,
                              sqlite_where=_STALE, postgresql_where=_STALE)


def downgrade() -> None:
    with op.batch_alter_table('evidence', schema=None) as batch_op:
        batch_op.drop_index('ix_evidence_stale_claim_id')
