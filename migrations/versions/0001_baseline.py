"""baseline: entities, sources, evidence, claims and versions

Revision ID: 0001
Revises: 
Create Date: 2026-11-29 12:50:35.132023
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import ledger.model

revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('entities',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('scope', sa.String(length=200), nullable=False),
    sa.Column('kind', sa.String(length=64), nullable=True),
    sa.Column('name', sa.Text(), nullable=False),
    sa.Column('properties', sa.JSON(), nullable=True),
    sa.Column('merged_into', sa.Integer(), nullable=True),
    sa.Column('created_at', ledger.model.UTCTime(), nullable=False),
    sa.Column('merged_at', ledger.model.UTCTime(), nullable=True),
    sa.ForeignKeyConstraint(['merged_into'], ['entities.id'], name=op.f('fk_entities_merged_into_entities')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_entities'))
    )
    with op.batch_alter_table('entities', schema=None) as batch_op:
        batch_op.create_index('ix_entities_merged_into', ['merged_into'], unique=False)
        batch_op.create_index(batch_op.f('ix_entities_scope'), ['scope'], unique=False)

    op.create_table('ledger_clock',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('last_recorded_at', ledger.model.UTCTime(), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_ledger_clock'))
    )
    op.create_table('predicates',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('cardinality', sa.String(length=8), nullable=False),
    sa.Column('object_kind', sa.String(length=8), nullable=False),
    sa.Column('datatype', sa.String(length=32), nullable=True),
    sa.Column('inverse', sa.String(length=200), nullable=True),
    sa.Column('description', sa.Text(), nullable=True),
    sa.Column('recorded_at', ledger.model.UTCTime(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_predicates')),
    sa.UniqueConstraint('name', name=op.f('uq_predicates_name'))
    )
    op.create_table('sources',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('scope', sa.String(length=200), nullable=False),
    sa.Column('kind', sa.String(length=32), nullable=False),
    sa.Column('uri', sa.Text(), nullable=True),
    sa.Column('title', sa.Text(), nullable=True),
    sa.Column('author', sa.Text(), nullable=True),
    sa.Column('publisher', sa.Text(), nullable=True),
    sa.Column('published_at', ledger.model.UTCTime(), nullable=True),
    sa.Column('retrieved_at', ledger.model.UTCTime(), nullable=True),
    sa.Column('content_hash', sa.String(length=64), nullable=False),
    sa.Column('text_hash', sa.String(length=64), nullable=False),
    sa.Column('text', sa.Text(), nullable=False),
    sa.Column('trust', sa.String(length=16), nullable=False),
    sa.Column('revision_of', sa.Integer(), nullable=True),
    sa.Column('meta', sa.JSON(), nullable=True),
    sa.Column('recorded_at', ledger.model.UTCTime(), nullable=False),
    sa.ForeignKeyConstraint(['revision_of'], ['sources.id'], name=op.f('fk_sources_revision_of_sources')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_sources')),
    sa.UniqueConstraint('scope', 'content_hash', name=op.f('uq_sources_scope_content_hash'))
    )
    with op.batch_alter_table('sources', schema=None) as batch_op:
        batch_op.create_index('ix_sources_revision_of', ['revision_of'], unique=False)
        batch_op.create_index('ix_sources_scope_uri', ['scope', 'uri'], unique=False)

    op.create_table('tombstones',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('scope', sa.String(length=200), nullable=False),
    sa.Column('kind', sa.String(length=32), nullable=False),
    sa.Column('ref_id', sa.Integer(), nullable=False),
    sa.Column('reason', sa.Text(), nullable=False),
    sa.Column('recorded_at', ledger.model.UTCTime(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_tombstones'))
    )
    op.create_table('aliases',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('entity_id', sa.Integer(), nullable=False),
    sa.Column('scope', sa.String(length=200), nullable=False),
    sa.Column('alias', sa.Text(), nullable=False),
    sa.Column('normalized', sa.Text(), nullable=False),
    sa.Column('language', sa.String(length=35), nullable=True),
    sa.Column('recorded_at', ledger.model.UTCTime(), nullable=False),
    sa.ForeignKeyConstraint(['entity_id'], ['entities.id'], name=op.f('fk_aliases_entity_id_entities')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_aliases')),
    sa.UniqueConstraint('scope', 'normalized', name=op.f('uq_aliases_scope_normalized'))
    )
    with op.batch_alter_table('aliases', schema=None) as batch_op:
        batch_op.create_index('ix_aliases_entity_id', ['entity_id'], unique=False)

    op.create_table('claims',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('scope', sa.String(length=200), nullable=False),
    sa.Column('subject_id', sa.Integer(), nullable=False),
    sa.Column('predicate', sa.String(length=200), nullable=False),
    sa.Column('object_id', sa.Integer(), nullable=True),
    sa.Column('value', sa.Text(), nullable=True),
    sa.Column('datatype', sa.String(length=32), nullable=True),
    sa.Column('qualifiers', sa.Text(), server_default=sa.text("'{}'"), nullable=False),
    sa.Column('recorded_at', ledger.model.UTCTime(), nullable=False),
    sa.Column('actor', sa.Text(), nullable=True),
    sa.ForeignKeyConstraint(['object_id'], ['entities.id'], name=op.f('fk_claims_object_id_entities')),
    sa.ForeignKeyConstraint(['subject_id'], ['entities.id'], name=op.f('fk_claims_subject_id_entities')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_claims'))
    )
    with op.batch_alter_table('claims', schema=None) as batch_op:
        batch_op.create_index('ix_claims_object_id', ['object_id'], unique=False)
        batch_op.create_index('ix_claims_scope_subject_predicate', ['scope', 'subject_id', 'predicate'], unique=False)

    op.create_table('passages',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('source_id', sa.Integer(), nullable=False),
    sa.Column('ordinal', sa.Integer(), nullable=False),
    sa.Column('page', sa.Integer(), nullable=True),
    sa.Column('bbox', sa.JSON(), nullable=True),
    sa.Column('char_start', sa.Integer(), nullable=False),
    sa.Column('char_end', sa.Integer(), nullable=False),
    sa.Column('paragraph', sa.Integer(), nullable=True),
    sa.ForeignKeyConstraint(['source_id'], ['sources.id'], name=op.f('fk_passages_source_id_sources')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_passages')),
    sa.UniqueConstraint('source_id', 'ordinal', name=op.f('uq_passages_source_id_ordinal'))
    )
    op.create_table('claim_links',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('scope', sa.String(length=200), nullable=False),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('from_claim_id', sa.Integer(), nullable=False),
    sa.Column('to_claim_id', sa.Integer(), nullable=False),
    sa.Column('recorded_at', ledger.model.UTCTime(), nullable=False),
    sa.Column('reason', sa.Text(), nullable=True),
    sa.Column('actor', sa.Text(), nullable=True),
    sa.ForeignKeyConstraint(['from_claim_id'], ['claims.id'], name=op.f('fk_claim_links_from_claim_id_claims')),
    sa.ForeignKeyConstraint(['to_claim_id'], ['claims.id'], name=op.f('fk_claim_links_to_claim_id_claims')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_claim_links'))
    )
    with op.batch_alter_table('claim_links', schema=None) as batch_op:
        batch_op.create_index('ix_claim_links_from_claim_id', ['from_claim_id'], unique=False)
        batch_op.create_index('ix_claim_links_to_claim_id', ['to_claim_id'], unique=False)

    op.create_table('claim_versions',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('claim_id', sa.Integer(), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('confidence', sa.Float(), nullable=False),
    sa.Column('valid_from', ledger.model.UTCTime(), nullable=True),
    sa.Column('valid_until', ledger.model.UTCTime(), nullable=True),
    sa.Column('valid_from_precision', sa.String(length=8), nullable=True),
    sa.Column('valid_until_precision', sa.String(length=8), nullable=True),
    sa.Column('recorded_at', ledger.model.UTCTime(), nullable=False),
    sa.Column('invalidated_at', ledger.model.UTCTime(), nullable=True),
    sa.Column('reason', sa.Text(), nullable=True),
    sa.Column('actor', sa.Text(), nullable=True),
    sa.Column('cause', sa.Text(), nullable=True),
    sa.ForeignKeyConstraint(['claim_id'], ['claims.id'], name=op.f('fk_claim_versions_claim_id_claims')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_claim_versions'))
    )
    with op.batch_alter_table('claim_versions', schema=None) as batch_op:
        batch_op.create_index('ix_claim_versions_claim_id_recorded_at', ['claim_id', 'recorded_at'], unique=False)

    op.create_table('evidence',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('claim_id', sa.Integer(), nullable=False),
    sa.Column('source_id', sa.Integer(), nullable=False),
    sa.Column('relation', sa.String(length=16), nullable=False),
    sa.Column('excerpt', sa.Text(), nullable=False),
    sa.Column('char_start', sa.Integer(), nullable=False),
    sa.Column('char_end', sa.Integer(), nullable=False),
    sa.Column('page', sa.Integer(), nullable=True),
    sa.Column('locator', sa.JSON(), nullable=False),
    sa.Column('anchor_method', sa.String(length=16), nullable=False),
    sa.Column('anchor_score', sa.Float(), nullable=False),
    sa.Column('reanchored_from', sa.Integer(), nullable=True),
    sa.Column('stale_at', ledger.model.UTCTime(), nullable=True),
    sa.Column('recorded_at', ledger.model.UTCTime(), nullable=False),
    sa.Column('actor', sa.Text(), nullable=True),
    sa.ForeignKeyConstraint(['claim_id'], ['claims.id'], name=op.f('fk_evidence_claim_id_claims')),
    sa.ForeignKeyConstraint(['reanchored_from'], ['evidence.id'], name=op.f('fk_evidence_reanchored_from_evidence')),
    sa.ForeignKeyConstraint(['source_id'], ['sources.id'], name=op.f('fk_evidence_source_id_sources')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_evidence'))
    )
    with op.batch_alter_table('evidence', schema=None) as batch_op:
        batch_op.create_index('ix_evidence_claim_id', ['claim_id'], unique=False)
        batch_op.create_index('ix_evidence_source_id', ['source_id'], unique=False)

    op.execute("INSERT INTO ledger_clock (id, last_recorded_at) VALUES (1, NULL)")


def downgrade() -> None:
    with op.batch_alter_table('evidence', schema=None) as batch_op:
        batch_op.drop_index('ix_evidence_source_id')
        batch_op.drop_index('ix_evidence_claim_id')

    op.drop_table('evidence')
    with op.batch_alter_table('claim_versions', schema=None) as batch_op:
        batch_op.drop_index('ix_claim_versions_claim_id_recorded_at')

    op.drop_table('claim_versions')
    with op.batch_alter_table('claim_links', schema=None) as batch_op:
        batch_op.drop_index('ix_claim_links_to_claim_id')
        batch_op.drop_index('ix_claim_links_from_claim_id')

    op.drop_table('claim_links')
    op.drop_table('passages')
    with op.batch_alter_table('claims', schema=None) as batch_op:
        batch_op.drop_index('ix_claims_scope_subject_predicate')
        batch_op.drop_index('ix_claims_object_id')

    op.drop_table('claims')
    with op.batch_alter_table('aliases', schema=None) as batch_op:
        batch_op.drop_index('ix_aliases_entity_id')

    op.drop_table('aliases')
    op.drop_table('tombstones')
    with op.batch_alter_table('sources', schema=None) as batch_op:
        batch_op.drop_index('ix_sources_scope_uri')
        batch_op.drop_index('ix_sources_revision_of')

    op.drop_table('sources')
    op.drop_table('predicates')
    op.drop_table('ledger_clock')
    with op.batch_alter_table('entities', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_entities_scope'))
        batch_op.drop_index('ix_entities_merged_into')

    op.drop_table('entities')
