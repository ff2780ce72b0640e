"""claim versions keep their cause structured: a kind, the related claim, and details

Causes were sentences ("closed by a later value (claim 4)", "asserted; updates claim 4") that the
write path parsed to undo a retraction. They become three columns: ``cause`` (the kind, e.g.
closed-by), ``cause_claim_id`` (4) and ``cause_detail`` (JSON: the effects of an assertion, the
independent-source count of a corroboration). Text is rendered from them, never parsed. Every
sentence the earlier schema could hold is converted; any other text stops the upgrade.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-05 00:30:00.000000
"""

from __future__ import annotations

import re
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None

_ON_ANOTHER = {  # "<words> (claim N)" → kind
    "closed by a later value": "closed-by", "superseded explicitly": "superseded-by",
    "corrected by its own source": "corrected-by", "contradicted by an independent source": "contradicted-by",
    # kinds of later revisions, which a downgrade renders and an upgrade reads back
    "contradicted within its own source": "contradicted-in-source",
}
_EFFECTS = [
    (re.compile(r"supersedes explicitly"), ("supersedes",)),
    (re.compile(r"backfilled: ends where claim (\d+) starts"), ("backfilled-before",)),
    (re.compile(r"updates claim (\d+)"), ("updates",)),
    (re.compile(r"corrects claim (\d+)"), ("corrects",)),
    (re.compile(r"conflicts with claim (\d+)"), ("conflicts-with",)),
    (re.compile(r"conflicts with claim (\d+) in the same source"), ("conflicts-in-source",)),
    (re.compile(r"resumes claim (\d+) after claim (\d+) ends"), ("resumes", "resumes-after")),
]


def parse(text: str | None) -> tuple[str | None, int | None, dict[str, Any] | None]:
    """(kind, related claim, detail) of a cause sentence written before this revision."""
    if text is None:
        return None, None, None
    if text in ("asserted", "corroborated", "confirmed", "disputed", "retracted"):
        return text, None, None
    if text.startswith("asserted; "):
        effects: list[list[Any]] = []
        for part in text[len("asserted; "):].split("; "):
            for pattern, kinds in _EFFECTS:
                if found := pattern.fullmatch(part):
                    claims = [int(n) for n in found.groups()] or [None]
                    effects.extend([kind, claim] for kind, claim in zip(kinds, claims, strict=True))
                    break
            else:
                raise ValueError(part)
        return "asserted", None, {"effects": effects}
    if found := re.fullmatch(r"(.+) \(claim (\d+)\)", text):
        if found.group(1) in _ON_ANOTHER:
            return _ON_ANOTHER[found.group(1)], int(found.group(2)), None
    if found := re.fullmatch(r"coalesced into claim (\d+)", text):
        return "coalesced-into", int(found.group(1)), None
    if found := re.fullmatch(r"extended: the same value asserted over a meeting or overlapping interval"
                             r"(?: \((\d+) independent source\(s\)\))?", text):
        return "extended", None, None if found.group(1) is None else {"sources": int(found.group(1))}
    if found := re.fullmatch(r"corroborated by (\d+) independent source\(s\)", text):
        return "corroborated", None, {"sources": int(found.group(1))}
    if found := re.fullmatch(r"dispute settled: claim ([\d, ]+) superseded", text):
        return "settled", None, {"effects": [["superseded", int(n)] for n in found.group(1).split(", ")]}
    if found := re.fullmatch(r"(retracted|restored): claim (\d+) was retracted", text):
        return ("retracted-with" if found.group(1) == "retracted" else "restored-after"), int(found.group(2)), None
    raise ValueError(text)


def upgrade() -> None:
    with op.batch_alter_table('claim_versions', schema=None) as batch_op:
        batch_op.add_column(sa.Column('cause_claim_id', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('cause_detail', sa.JSON(), nullable=True))
    versions = sa.table('claim_versions', sa.column('id', sa.Integer), sa.column('cause', sa.Text),
                        sa.column('cause_claim_id', sa.Integer), sa.column('cause_detail', sa.JSON(none_as_null=True)))
    connection = op.get_bind()
    rows = connection.execute(sa.select(versions.c.id, versions.c.cause).where(versions.c.cause.is_not(None))).all()
    changes = []
    for version_id, text in rows:
        try:
            kind, claim, detail = parse(text)
        except ValueError as error:
            raise RuntimeError(f"claim version {version_id} has a cause this upgrade does not know: {text!r} "
                               f"(at {error.args[0]!r}); nothing was changed") from error
        changes.append({"key": version_id, "kind": kind, "claim": claim, "detail": detail})
    if changes:
        connection.execute(
            versions.update().where(versions.c.id == sa.bindparam("key"))
            .values(cause=sa.bindparam("kind"), cause_claim_id=sa.bindparam("claim"), cause_detail=sa.bindparam("detail")),
            changes)
    with op.batch_alter_table('claim_versions', schema=None) as batch_op:
        batch_op.alter_column('cause', existing_type=sa.Text(), type_=sa.String(length=32), existing_nullable=True)
        batch_op.create_foreign_key(batch_op.f('fk_claim_versions_cause_claim_id_claims'), 'claims',
                                    ['cause_claim_id'], ['id'])


_TEXT = {  # kind → sentence: how ledger rendered causes when this revision was written
    "closed-by": "closed by a later value (claim {})", "superseded-by": "superseded explicitly (claim {})",
    "corrected-by": "corrected by its own source (claim {})",
    "contradicted-by": "contradicted by an independent source (claim {})",
    "contradicted-in-source": "contradicted within its own source (claim {})",
    "coalesced-into": "coalesced into claim {}",
    "retracted-with": "retracted: claim {} was retracted", "restored-after": "restored: claim {} was retracted",
}
_EFFECT_TEXT = {
    "supersedes": "supersedes explicitly", "backfilled-before": "backfilled: ends where claim {} starts",
    "updates": "updates claim {}", "corrects": "corrects claim {}", "conflicts-with": "conflicts with claim {}",
    "conflicts-in-source": "conflicts with claim {} in the same source", "resumes": "resumes claim {}",
    "resumes-after": "after claim {} ends",
}


def render(kind: str, claim: int | None, detail: dict[str, Any] | None) -> str:
    """The sentence earlier revisions stored for a structured cause (the inverse of ``parse``).

    A copy, not an import of ledger's renderer: what a downgrade writes must not change when
    ledger's wording does."""
    detail = detail or {}
    effects = detail.get("effects", [])
    if kind in _TEXT:
        return _TEXT[kind].format(claim)
    if kind in ("corroborated", "extended"):
        sources = detail.get("sources")
        if kind == "corroborated":
            return "corroborated" if sources is None else f"corroborated by {sources} independent source(s)"
        counted = "" if sources is None else f" ({sources} independent source(s))"
        return f"extended: the same value asserted over a meeting or overlapping interval{counted}"
    if kind == "settled":
        return "dispute settled: claim " + ", ".join(str(c) for _, c in effects) + " superseded"
    if kind != "asserted" or not effects:
        return kind
    parts: list[str] = []
    for effect, related in effects:
        text = _EFFECT_TEXT[effect].format(related)
        if effect == "resumes-after" and parts:
            parts[-1] += " " + text
        else:
            parts.append(text)
    return "asserted; " + "; ".join(parts)


def downgrade() -> None:
    with op.batch_alter_table('claim_versions', schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f('fk_claim_versions_cause_claim_id_claims'), type_='foreignkey')
        batch_op.alter_column('cause', existing_type=sa.String(length=32), type_=sa.Text(), existing_nullable=True)
    versions = sa.table('claim_versions', sa.column('id', sa.Integer), sa.column('cause', sa.Text),
                        sa.column('cause_claim_id', sa.Integer), sa.column('cause_detail', sa.JSON(none_as_null=True)))
    connection = op.get_bind()
    rows = connection.execute(sa.select(versions.c.id, versions.c.cause, versions.c.cause_claim_id,
                                        versions.c.cause_detail).where(versions.c.cause.is_not(None))).all()
    texts = [{"key": key, "text": render(kind, claim, detail)} for key, kind, claim, detail in rows]
    if texts:
        connection.execute(versions.update().where(versions.c.id == sa.bindparam("key"))
                           .values(cause=sa.bindparam("text")), texts)
    with op.batch_alter_table('claim_versions', schema=None) as batch_op:
        batch_op.drop_column('cause_detail')
        batch_op.drop_column('cause_claim_id')
