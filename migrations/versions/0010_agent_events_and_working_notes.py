"""agent_events logs every tool call; working_notes keeps run-scoped notes until they expire

Agents call ledger through tools (``ledger.agent.call_tool``, the MCP server); each call is
recorded with its arguments, outcome, time and actor. A run's working memory (``Ledger.session``)
lives in ``working_notes``: per scope and run id, with an expiry time on the ledger clock.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-05 02:30:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import ledger.model

revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('agent_events',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('scope', sa.String(length=200), nullable=False),
    sa.Column('tool', sa.String(length=64), nullable=False),
    sa.Column('arguments', sa.JSON(), nullable=False),
    sa.Column('outcome', sa.String(length=64), nullable=False),
    sa.Column('detail', sa.Text(), nullable=True),
    sa.Column('actor', sa.Text(), nullable=True),
    sa.Column('recorded_at', ledger.model.UTCTime(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_agent_events'))
    )
    with op.batch_alter_table('agent_events', schema=None) as batch_op:
        batch_op.create_index('ix_agent_events_scope_recorded_at', ['scope', 'recorded_at'], unique=False)
    op.create_table('working_notes',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('scope', sa.String(length=200), nullable=False),
    sa.Column('run_id', sa.String(length=200), nullable=False),
    sa.Column('turn', sa.Integer(), nullable=False),
    sa.Column('text', sa.Text(), nullable=False),
    sa.Column('actor', sa.Text(), nullable=True),
    sa.Column('recorded_at', ledger.model.UTCTime(), nullable=False),
    sa.Column('expires_at', ledger.model.UTCTime(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_working_notes'))
    )
    with op.batch_alter_table('working_notes', schema=None) as batch_op:
        batch_op.create_index('ix_working_notes_expires_at', ['expires_at'], unique=False)
        batch_op.create_index('ix_working_notes_scope_run_id', ['scope', 'run_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('working_notes', schema=None) as batch_op:
        batch_op.drop_index('ix_working_notes_scope_run_id')
        batch_op.drop_index('ix_working_notes_expires_at')
    op.drop_table('working_notes')
    with op.batch_alter_table('agent_events', schema=None) as batch_op:
        batch_op.drop_index('ix_agent_events_scope_recorded_at')
    op.drop_table('agent_events')
