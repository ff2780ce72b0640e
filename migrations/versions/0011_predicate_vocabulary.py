"""predicates get aliases and per-scope definitions; claims stored under a shipped alias are renamed

The shipped vocabulary (ledger/interchange/vocabulary.json) names predicates by several names:
"P6", "head of government" and "mayor" are one predicate, stored under its English name. Two
tables hold what callers add: ``predicate_definitions`` (a declaration for one scope, overriding
the shipped one and the declarations for every scope) and ``predicate_aliases`` (another name of
a predicate, per scope, or '' for every scope).

Claims an older ledger stored under a name the vocabulary now resolves ("mayor", "CEO") are
renamed to the predicate's stored name ("head of government"), so reads by either name find
them; declarations in ``predicates`` are renamed likewise unless the stored name is declared
already. Nothing else changes: stored claims are not decided again under the shipped
cardinality (``Ledger.check()`` and ``define_predicate(..., dry_run=True)`` show clashes).

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-05 02:40:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import ledger.model

revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('predicate_definitions',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('scope', sa.String(length=200), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('cardinality', sa.String(length=8), nullable=False),
    sa.Column('object_kind', sa.String(length=8), nullable=False),
    sa.Column('datatype', sa.String(length=32), nullable=True),
    sa.Column('inverse', sa.String(length=200), nullable=True),
    sa.Column('description', sa.Text(), nullable=True),
    sa.Column('separators', sa.Text(), nullable=True),
    sa.Column('wikidata', sa.String(length=32), nullable=True),
    sa.Column('origin', sa.String(length=8), nullable=False),
    sa.Column('recorded_at', ledger.model.UTCTime(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_predicate_definitions')),
    sa.UniqueConstraint('scope', 'name', name=op.f('uq_predicate_definitions_scope_name'))
    )
    op.create_table('predicate_aliases',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('scope', sa.String(length=200), nullable=False),
    sa.Column('predicate', sa.String(length=200), nullable=False),
    sa.Column('alias', sa.String(length=200), nullable=False),
    sa.Column('normalized', sa.String(length=200), nullable=False),
    sa.Column('recorded_at', ledger.model.UTCTime(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_predicate_aliases')),
    sa.UniqueConstraint('scope', 'normalized', name=op.f('uq_predicate_aliases_scope_normalized'))
    )
    _rename_shipped_aliases()


def _rename_shipped_aliases() -> None:
    from ledger.interchange.vocabulary import shipped_name

    bind = op.get_bind()
    claims = sa.table('claims', sa.column('predicate', sa.String))
    predicates = sa.table('predicates', sa.column('name', sa.String))
    stored = [row[0] for row in bind.execute(sa.select(claims.c.predicate).distinct())]
    for name in stored:
        target = shipped_name(name)
        if target is not None and target != name:
            bind.execute(claims.update().where(claims.c.predicate == name).values(predicate=target))
    declared = {row[0] for row in bind.execute(sa.select(predicates.c.name))}
    for name in sorted(declared):
        target = shipped_name(name)
        if target is not None and target != name and target not in declared:
            bind.execute(predicates.update().where(predicates.c.name == name).values(name=target))
            declared.add(target)


def downgrade() -> None:
    # Renamed claims keep the stored name: it is what every name of the predicate read before.
    op.drop_table('predicate_aliases')
    op.drop_table('predicate_definitions')
