"""sources keep every retrieval: when their bytes were fetched or read, from which URI, by whom

Adding bytes stored already returned the existing source and kept the new retrieval date
nowhere, so "when did we last see this document unchanged?" had no answer. Each store of a
source (the first, the same bytes again, a revision) now writes a ``source_retrievals`` row.
Every existing source gets one from its own columns: ``retrieved_at`` (else ``recorded_at``,
when it was stored), its uri as given (a web page's ``meta.url`` when it had one), no actor.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-05 00:30:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import ledger.model

revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('source_retrievals',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('source_id', sa.Integer(), nullable=False),
    sa.Column('retrieved_at', ledger.model.UTCTime(), nullable=False),
    sa.Column('uri', sa.Text(), nullable=True),
    sa.Column('actor', sa.Text(), nullable=True),
    sa.Column('recorded_at', ledger.model.UTCTime(), nullable=False),
    sa.ForeignKeyConstraint(['source_id'], ['sources.id'], name=op.f('fk_source_retrievals_source_id_sources')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_source_retrievals'))
    )
    with op.batch_alter_table('source_retrievals', schema=None) as batch_op:
        batch_op.create_index('ix_source_retrievals_source_id', ['source_id'], unique=False)
    # Times are copied as stored (both columns are UTCTime), so no value passes through Python.
    sources = sa.table('sources', sa.column('id', sa.Integer), sa.column('kind', sa.String),
                       sa.column('uri', sa.Text), sa.column('meta', sa.JSON),
                       sa.column('retrieved_at', ledger.model.UTCTime()),
                       sa.column('recorded_at', ledger.model.UTCTime()))
    retrievals = sa.table('source_retrievals', sa.column('id', sa.Integer), sa.column('source_id', sa.Integer),
                          sa.column('retrieved_at', ledger.model.UTCTime()), sa.column('uri', sa.Text),
                          sa.column('actor', sa.Text), sa.column('recorded_at', ledger.model.UTCTime()))
    # A web page's uri is its document URL; the URL it was given as is in meta.url when they differ.
    given_uri = sa.case((sources.c.kind == 'web', sa.func.coalesce(sources.c.meta['url'].as_string(), sources.c.uri)),
                        else_=sources.c.uri)
    op.get_bind().execute(retrievals.insert().from_select(
        ['id', 'source_id', 'retrieved_at', 'uri', 'actor', 'recorded_at'],
        sa.select(sources.c.id, sources.c.id, sa.func.coalesce(sources.c.retrieved_at, sources.c.recorded_at),
                  given_uri, sa.null(), sources.c.recorded_at),
    ))


def downgrade() -> None:
    with op.batch_alter_table('source_retrievals', schema=None) as batch_op:
        batch_op.drop_index('ix_source_retrievals_source_id')
    op.drop_table('source_retrievals')
