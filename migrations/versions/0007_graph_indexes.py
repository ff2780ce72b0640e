"""the graph walk finds a node's claims by subject and by object in covering indexes

The neighbourhood and paths CTEs (queries/neighbourhood.sql, queries/paths.sql) look up, for
each entity walked, the claims with it as subject or object, then each claim's version in the
time slice. These indexes answer both without reading a table row: claims by subject (all
claims: value claims drop out at the join), entity-valued claims by object (partial), and
versions by claim with the columns of the time slice and the edge attributes.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-05 02:40:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('claims', schema=None) as batch_op:
        batch_op.create_index('ix_claims_entity_subject', ['subject_id', 'object_id', 'scope', 'predicate'],
                              unique=False)
        batch_op.create_index('ix_claims_entity_object', ['object_id', 'subject_id', 'scope', 'predicate'],
                              unique=False, sqlite_where=sa.text('object_id IS NOT NULL'),
                              postgresql_where=sa.text('object_id IS NOT NULL'))
    with op.batch_alter_table('claim_versions', schema=None) as batch_op:
        batch_op.create_index('ix_claim_versions_slice', ['claim_id', 'recorded_at', 'invalidated_at', 'valid_from',
                                                          'valid_until', 'status', 'confidence'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('claim_versions', schema=None) as batch_op:
        batch_op.drop_index('ix_claim_versions_slice')
    with op.batch_alter_table('claims', schema=None) as batch_op:
        batch_op.drop_index('ix_claims_entity_object')
        batch_op.drop_index('ix_claims_entity_subject')
