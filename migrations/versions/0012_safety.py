"""write policy settings and decision log; tombstones record who erased and which erasure

Source reliability: ``reliability`` (a rating per source or per publisher, newest holds).
Authority: ``grants`` (owner / reviewer of a scope) and ``challenges`` (a retraction or
supersession by an actor without authority in a protected scope, waiting to be resolved).
The write policy (ledger/policy) is configured per ledger (scope ``*``) and per scope, stored
as layers in ``policy_settings`` (the newest row per scope holds), and logs every decision it
takes in ``policy_decisions``: the field, the rule, the action, the actor and the time, and only
the span offsets of what it found, never the text. ``tombstones`` gain the actor of an erasure
and the id of the erasure each belongs to.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-05 02:30:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import ledger.model

revision = '0012'
down_revision = '0011'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('policy_settings',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('scope', sa.String(length=200), nullable=False),
    sa.Column('settings', sa.JSON(), nullable=False),
    sa.Column('actor', sa.Text(), nullable=True),
    sa.Column('recorded_at', ledger.model.UTCTime(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_policy_settings'))
    )
    with op.batch_alter_table('policy_settings', schema=None) as batch_op:
        batch_op.create_index('ix_policy_settings_scope', ['scope', 'id'], unique=False)
    op.create_table('policy_decisions',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('scope', sa.String(length=200), nullable=False),
    sa.Column('field', sa.String(length=64), nullable=False),
    sa.Column('rule', sa.String(length=64), nullable=False),
    sa.Column('action', sa.String(length=16), nullable=False),
    sa.Column('span_start', sa.Integer(), nullable=False),
    sa.Column('span_end', sa.Integer(), nullable=False),
    sa.Column('actor', sa.Text(), nullable=True),
    sa.Column('recorded_at', ledger.model.UTCTime(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_policy_decisions'))
    )
    with op.batch_alter_table('policy_decisions', schema=None) as batch_op:
        batch_op.create_index('ix_policy_decisions_scope', ['scope', 'id'], unique=False)
    op.create_table('grants',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('scope', sa.String(length=200), nullable=False),
    sa.Column('actor', sa.Text(), nullable=False),
    sa.Column('role', sa.String(length=16), nullable=False),
    sa.Column('granted_by', sa.Text(), nullable=True),
    sa.Column('recorded_at', ledger.model.UTCTime(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_grants'))
    )
    with op.batch_alter_table('grants', schema=None) as batch_op:
        batch_op.create_index('ix_grants_scope', ['scope'], unique=False)
    op.create_table('challenges',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('scope', sa.String(length=200), nullable=False),
    sa.Column('claim_id', sa.Integer(), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('superseded_by', sa.Integer(), nullable=True),
    sa.Column('reason', sa.Text(), nullable=True),
    sa.Column('actor', sa.Text(), nullable=True),
    sa.Column('recorded_at', ledger.model.UTCTime(), nullable=False),
    sa.Column('resolved_at', ledger.model.UTCTime(), nullable=True),
    sa.Column('resolved_by', sa.Text(), nullable=True),
    sa.Column('outcome', sa.String(length=16), nullable=True),
    sa.ForeignKeyConstraint(['claim_id'], ['claims.id'], name=op.f('fk_challenges_claim_id_claims')),
    sa.ForeignKeyConstraint(['superseded_by'], ['claims.id'], name=op.f('fk_challenges_superseded_by_claims')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_challenges'))
    )
    with op.batch_alter_table('challenges', schema=None) as batch_op:
        batch_op.create_index('ix_challenges_scope', ['scope', 'id'], unique=False)
    op.create_table('reliability',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('scope', sa.String(length=200), nullable=False),
    sa.Column('source_id', sa.Integer(), nullable=True),
    sa.Column('publisher', sa.Text(), nullable=True),
    sa.Column('rating', sa.Float(), nullable=False),
    sa.Column('actor', sa.Text(), nullable=True),
    sa.Column('recorded_at', ledger.model.UTCTime(), nullable=False),
    sa.ForeignKeyConstraint(['source_id'], ['sources.id'], name=op.f('fk_reliability_source_id_sources')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_reliability'))
    )
    with op.batch_alter_table('reliability', schema=None) as batch_op:
        batch_op.create_index('ix_reliability_scope', ['scope', 'id'], unique=False)
    with op.batch_alter_table('tombstones', schema=None) as batch_op:
        batch_op.add_column(sa.Column('actor', sa.Text(), nullable=True))
        batch_op.add_column(sa.Column('erasure_id', sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('tombstones', schema=None) as batch_op:
        batch_op.drop_column('erasure_id')
        batch_op.drop_column('actor')
    with op.batch_alter_table('reliability', schema=None) as batch_op:
        batch_op.drop_index('ix_reliability_scope')
    op.drop_table('reliability')
    with op.batch_alter_table('challenges', schema=None) as batch_op:
        batch_op.drop_index('ix_challenges_scope')
    op.drop_table('challenges')
    with op.batch_alter_table('grants', schema=None) as batch_op:
        batch_op.drop_index('ix_grants_scope')
    op.drop_table('grants')
    with op.batch_alter_table('policy_decisions', schema=None) as batch_op:
        batch_op.drop_index('ix_policy_decisions_scope')
    op.drop_table('policy_decisions')
    with op.batch_alter_table('policy_settings', schema=None) as batch_op:
        batch_op.drop_index('ix_policy_settings_scope')
    op.drop_table('policy_settings')
