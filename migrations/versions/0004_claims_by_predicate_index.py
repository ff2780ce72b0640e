"""claims get an index by (scope, predicate, subject): a read by predicate alone uses it

claims(predicate=X) without a subject searched every claim of the scope through the (scope,
subject, predicate) index; this index finds the predicate's claims in subject order, the
order the read returns.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30 17:00:00.000000
"""

from __future__ import annotations

from alembic import op

revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('claims', schema=None) as batch_op:
        batch_op.create_index('ix_claims_scope_predicate_subject', ['scope', 'predicate', 'subject_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('claims', schema=None) as batch_op:
        batch_op.drop_index('ix_claims_scope_predicate_subject')
