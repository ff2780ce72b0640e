"""The tables (DESIGN.md §2) as SQLModel models on ledger's own registry; no behaviour here.

Times are stored through ``UTCTime``: INTEGER microseconds since the epoch on SQLite (small
rows, numeric range predicates) and ``timestamptz`` on PostgreSQL.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Column,
    Dialect,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.dialects.postgresql import TIMESTAMP
from sqlalchemy.orm import registry
from sqlalchemy.types import TypeDecorator, TypeEngine
from sqlmodel import Field, SQLModel

from ledger.timeline import from_micros, to_micros

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

metadata = MetaData(naming_convention=NAMING_CONVENTION)


class UTCTime(TypeDecorator[datetime]):
    """Aware UTC datetimes: INTEGER microseconds on SQLite, timestamptz on PostgreSQL."""

    impl = BigInteger
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        if dialect.name == "postgresql":
            return dialect.type_descriptor(TIMESTAMP(timezone=True))
        return dialect.type_descriptor(BigInteger())

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> Any:
        if value is None:
            return None
        if dialect.name == "postgresql":
            return value
        return to_micros(value)

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if isinstance(value, datetime):
            return value.astimezone(UTC)
        return from_micros(int(value))


def _time(*, nullable: bool = True, index: bool = False) -> Any:
    return Field(default=None, sa_column=Column(UTCTime(), nullable=nullable, index=index))


class Table(SQLModel, registry=registry(metadata=metadata)):
    """Base of ledger's tables, on a registry of its own (not SQLModel's global one)."""


class Entity(Table, table=True):
    """A thing claims are about: person, organization, place, law, topic, event, object …"""

    __tablename__ = "entities"
    __table_args__ = (Index("ix_entities_merged_into", "merged_into"),)

    id: int | None = Field(default=None, primary_key=True)
    scope: str = Field(sa_column=Column(String(200), nullable=False, index=True))
    kind: str | None = Field(default=None, sa_column=Column(String(64)))
    name: str = Field(sa_column=Column(Text, nullable=False))
    properties: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON))
    merged_into: int | None = Field(default=None, sa_column=Column(Integer, ForeignKey("entities.id")))
    created_at: datetime = _time(nullable=False)
    merged_at: datetime | None = _time()


class Alias(Table, table=True):
    """A name an entity is known by; unique per scope in its normalized form."""

    __tablename__ = "aliases"
    __table_args__ = (UniqueConstraint("scope", "normalized"), Index("ix_aliases_entity_id", "entity_id"))

    id: int | None = Field(default=None, primary_key=True)
    entity_id: int = Field(sa_column=Column(Integer, ForeignKey("entities.id"), nullable=False))
    scope: str = Field(sa_column=Column(String(200), nullable=False))
    alias: str = Field(sa_column=Column(Text, nullable=False))
    normalized: str = Field(sa_column=Column(Text, nullable=False))
    language: str | None = Field(default=None, sa_column=Column(String(35)))
    recorded_at: datetime = _time(nullable=False)


class Source(Table, table=True):
    """A document something was read from: its text, origin, hash and trust."""

    __tablename__ = "sources"
    __table_args__ = (
        # Bytes are stored once per scope as a first ingest, and once per revision they follow as
        # a revision (a page A, B, then A again; a page changed to bytes stored under another uri).
        Index("uq_sources_scope_content_hash", "scope", "content_hash", unique=True,
              sqlite_where=text("revision_of IS NULL"), postgresql_where=text("revision_of IS NULL")),
        Index("uq_sources_scope_content_hash_revision_of", "scope", "content_hash", "revision_of", unique=True,
              sqlite_where=text("revision_of IS NOT NULL"), postgresql_where=text("revision_of IS NOT NULL")),
        Index("ix_sources_scope_uri", "scope", "uri"),
        Index("ix_sources_revision_of", "revision_of"),
    )

    id: int | None = Field(default=None, primary_key=True)
    scope: str = Field(sa_column=Column(String(200), nullable=False))
    kind: str = Field(sa_column=Column(String(32), nullable=False))
    uri: str | None = Field(default=None, sa_column=Column(Text))
    title: str | None = Field(default=None, sa_column=Column(Text))
    author: str | None = Field(default=None, sa_column=Column(Text))
    publisher: str | None = Field(default=None, sa_column=Column(Text))
    published_at: datetime | None = _time()
    retrieved_at: datetime | None = _time()
    content_hash: str = Field(sa_column=Column(String(64), nullable=False))
    text_hash: str = Field(sa_column=Column(String(64), nullable=False))
    text: str = Field(sa_column=Column(Text, nullable=False))
    trust: str = Field(sa_column=Column(String(16), nullable=False))
    revision_of: int | None = Field(default=None, sa_column=Column(Integer, ForeignKey("sources.id")))
    meta: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON))
    recorded_at: datetime = _time(nullable=False)


class SourceRetrieval(Table, table=True):
    """One time a source's bytes were fetched or read: when, from which URI as given, by whom."""

    __tablename__ = "source_retrievals"
    __table_args__ = (Index("ix_source_retrievals_source_id", "source_id"),)

    id: int | None = Field(default=None, primary_key=True)
    source_id: int = Field(sa_column=Column(Integer, ForeignKey("sources.id"), nullable=False))
    #: As given (``retrieved_at``), else when the ledger stored it: the time it was read.
    retrieved_at: datetime = _time(nullable=False)
    uri: str | None = Field(default=None, sa_column=Column(Text))
    actor: str | None = Field(default=None, sa_column=Column(Text))
    recorded_at: datetime = _time(nullable=False)


class Passage(Table, table=True):
    """A located unit of a source's text: page, bbox and char range, paragraph index."""

    __tablename__ = "passages"
    __table_args__ = (UniqueConstraint("source_id", "ordinal"),)

    id: int | None = Field(default=None, primary_key=True)
    source_id: int = Field(sa_column=Column(Integer, ForeignKey("sources.id"), nullable=False))
    ordinal: int = Field(sa_column=Column(Integer, nullable=False))
    page: int | None = Field(default=None, sa_column=Column(Integer))
    bbox: list[float] | None = Field(default=None, sa_column=Column(JSON))
    char_start: int = Field(sa_column=Column(Integer, nullable=False))
    char_end: int = Field(sa_column=Column(Integer, nullable=False))
    paragraph: int | None = Field(default=None, sa_column=Column(Integer))


class Claim(Table, table=True):
    """The immutable identity of an assertion; its states live in ClaimVersion."""

    __tablename__ = "claims"
    __table_args__ = (
        Index("ix_claims_scope_subject_predicate", "scope", "subject_id", "predicate"),
        Index("ix_claims_scope_predicate_subject", "scope", "predicate", "subject_id"),  # claims(predicate=…)
        Index("ix_claims_object_id", "object_id"),
        # the graph walk (queries/neighbourhood.sql, paths.sql): a node's claims, covered
        Index("ix_claims_entity_subject", "subject_id", "object_id", "scope", "predicate"),
        Index("ix_claims_entity_object", "object_id", "subject_id", "scope", "predicate",
              sqlite_where=text("object_id IS NOT NULL"), postgresql_where=text("object_id IS NOT NULL")),
    )

    id: int | None = Field(default=None, primary_key=True)
    scope: str = Field(sa_column=Column(String(200), nullable=False))
    subject_id: int = Field(sa_column=Column(Integer, ForeignKey("entities.id"), nullable=False))
    predicate: str = Field(sa_column=Column(String(200), nullable=False))
    object_id: int | None = Field(default=None, sa_column=Column(Integer, ForeignKey("entities.id")))
    value: str | None = Field(default=None, sa_column=Column(Text))
    datatype: str | None = Field(default=None, sa_column=Column(String(32)))
    qualifiers: str = Field(sa_column=Column(Text, nullable=False, server_default=text("'{}'")))
    recorded_at: datetime = _time(nullable=False)
    actor: str | None = Field(default=None, sa_column=Column(Text))


class ClaimVersion(Table, table=True):
    """One state of a claim in system time: status, confidence and valid interval."""

    __tablename__ = "claim_versions"
    __table_args__ = (
        Index("ix_claim_versions_claim_id_recorded_at", "claim_id", "recorded_at"),
        # a claim's version in a time slice, with what a graph edge carries, without the row
        Index("ix_claim_versions_slice", "claim_id", "recorded_at", "invalidated_at", "valid_from", "valid_until",
              "status", "confidence"),
        # the disputed versions only: contradictions() reads these, not every version
        Index("ix_claim_versions_disputed", "claim_id", "recorded_at", "invalidated_at",
              sqlite_where=text("status = 'disputed'"), postgresql_where=text("status = 'disputed'")),
    )

    id: int | None = Field(default=None, primary_key=True)
    claim_id: int = Field(sa_column=Column(Integer, ForeignKey("claims.id"), nullable=False))
    status: str = Field(sa_column=Column(String(16), nullable=False))
    confidence: float = Field(sa_column=Column(Float, nullable=False))
    valid_from: datetime | None = _time()
    valid_until: datetime | None = _time()
    valid_from_precision: str | None = Field(default=None, sa_column=Column(String(8)))
    valid_until_precision: str | None = Field(default=None, sa_column=Column(String(8)))
    recorded_at: datetime = _time(nullable=False)
    invalidated_at: datetime | None = _time()
    reason: str | None = Field(default=None, sa_column=Column(Text))
    actor: str | None = Field(default=None, sa_column=Column(Text))
    #: Why this version exists (records.CauseKind), the claim that caused it, and the rest of the
    #: structured cause ({"effects": [[kind, claim], ...], "sources": n}); rendered, never parsed.
    cause: str | None = Field(default=None, sa_column=Column(String(32)))
    cause_claim_id: int | None = Field(default=None, sa_column=Column(Integer, ForeignKey("claims.id")))
    cause_detail: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON))


class Evidence(Table, table=True):
    """An exact excerpt of a source that supports or contradicts a claim, with its locator."""

    __tablename__ = "evidence"
    __table_args__ = (
        Index("ix_evidence_claim_id", "claim_id"),
        Index("ix_evidence_source_id", "source_id"),
        # which rows a newer revision carried forward: looked up for every row a revision may carry
        Index("ix_evidence_reanchored_from", "reanchored_from", sqlite_where=text("reanchored_from IS NOT NULL"),
              postgresql_where=text("reanchored_from IS NOT NULL")),
        # the rows flagged stale, by claim: stale_evidence() reads these, not the scope's evidence
        Index("ix_evidence_stale_claim_id", "claim_id", sqlite_where=text("stale_at IS NOT NULL"),
              postgresql_where=text("stale_at IS NOT NULL")),
    )

    id: int | None = Field(default=None, primary_key=True)
    claim_id: int = Field(sa_column=Column(Integer, ForeignKey("claims.id"), nullable=False))
    source_id: int = Field(sa_column=Column(Integer, ForeignKey("sources.id"), nullable=False))
    relation: str = Field(sa_column=Column(String(16), nullable=False))
    excerpt: str = Field(sa_column=Column(Text, nullable=False))
    char_start: int = Field(sa_column=Column(Integer, nullable=False))
    char_end: int = Field(sa_column=Column(Integer, nullable=False))
    page: int | None = Field(default=None, sa_column=Column(Integer))
    locator: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    anchor_method: str = Field(sa_column=Column(String(16), nullable=False))
    anchor_score: float = Field(sa_column=Column(Float, nullable=False))
    reanchored_from: int | None = Field(default=None, sa_column=Column(Integer, ForeignKey("evidence.id")))
    stale_at: datetime | None = _time()
    recorded_at: datetime = _time(nullable=False)
    actor: str | None = Field(default=None, sa_column=Column(Text))


class ClaimLink(Table, table=True):
    """A typed edge between two claims: supersedes, contradicts or derived_from."""

    __tablename__ = "claim_links"
    __table_args__ = (
        Index("ix_claim_links_from_claim_id", "from_claim_id"),
        Index("ix_claim_links_to_claim_id", "to_claim_id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    scope: str = Field(sa_column=Column(String(200), nullable=False))
    kind: str = Field(sa_column=Column(String(16), nullable=False))
    from_claim_id: int = Field(sa_column=Column(Integer, ForeignKey("claims.id"), nullable=False))
    to_claim_id: int = Field(sa_column=Column(Integer, ForeignKey("claims.id"), nullable=False))
    recorded_at: datetime = _time(nullable=False)
    reason: str | None = Field(default=None, sa_column=Column(Text))
    actor: str | None = Field(default=None, sa_column=Column(Text))


class Predicate(Table, table=True):
    """A declared predicate: cardinality, object kind, datatype, inverse."""

    __tablename__ = "predicates"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(sa_column=Column(String(200), nullable=False, unique=True))
    cardinality: str = Field(sa_column=Column(String(8), nullable=False))
    object_kind: str = Field(sa_column=Column(String(8), nullable=False))
    datatype: str | None = Field(default=None, sa_column=Column(String(32)))
    inverse: str | None = Field(default=None, sa_column=Column(String(200)))
    description: str | None = Field(default=None, sa_column=Column(Text))
    recorded_at: datetime = _time(nullable=False)


class PredicateDefinition(Table, table=True):
    """A predicate declared for one scope (by define_predicate or an imported Wikidata property);
    it overrides the shipped vocabulary and the declarations for every scope."""

    __tablename__ = "predicate_definitions"
    __table_args__ = (UniqueConstraint("scope", "name"),)

    id: int | None = Field(default=None, primary_key=True)
    scope: str = Field(sa_column=Column(String(200), nullable=False))
    name: str = Field(sa_column=Column(String(200), nullable=False))
    cardinality: str = Field(sa_column=Column(String(8), nullable=False))
    object_kind: str = Field(sa_column=Column(String(8), nullable=False))
    datatype: str | None = Field(default=None, sa_column=Column(String(32)))
    inverse: str | None = Field(default=None, sa_column=Column(String(200)))
    description: str | None = Field(default=None, sa_column=Column(Text))
    separators: str | None = Field(default=None, sa_column=Column(Text))
    wikidata: str | None = Field(default=None, sa_column=Column(String(32)))
    origin: str = Field(sa_column=Column(String(8), nullable=False))
    recorded_at: datetime = _time(nullable=False)


class PredicateAlias(Table, table=True):
    """Another name of a predicate, unique per scope in its normalized form ('' : every scope)."""

    __tablename__ = "predicate_aliases"
    __table_args__ = (UniqueConstraint("scope", "normalized"),)

    id: int | None = Field(default=None, primary_key=True)
    scope: str = Field(sa_column=Column(String(200), nullable=False))
    predicate: str = Field(sa_column=Column(String(200), nullable=False))
    alias: str = Field(sa_column=Column(String(200), nullable=False))
    normalized: str = Field(sa_column=Column(String(200), nullable=False))
    recorded_at: datetime = _time(nullable=False)


class Tombstone(Table, table=True):
    """What erasure removed: kind, id, reason and time, never the content."""

    __tablename__ = "tombstones"

    id: int | None = Field(default=None, primary_key=True)
    scope: str = Field(sa_column=Column(String(200), nullable=False))
    kind: str = Field(sa_column=Column(String(32), nullable=False))
    ref_id: int = Field(sa_column=Column(Integer, nullable=False))
    reason: str = Field(sa_column=Column(Text, nullable=False))
    recorded_at: datetime = _time(nullable=False)
    actor: str | None = Field(default=None, sa_column=Column(Text))
    #: the erasure it belongs to (the id of its first tombstone): one erase() leaves several
    erasure_id: int | None = Field(default=None, sa_column=Column(Integer))


class PolicySetting(Table, table=True):
    """A layer of write-policy settings for a scope (``*``: the whole ledger); the newest row per scope holds."""

    __tablename__ = "policy_settings"
    __table_args__ = (Index("ix_policy_settings_scope", "scope", "id"),)

    id: int | None = Field(default=None, primary_key=True)
    scope: str = Field(sa_column=Column(String(200), nullable=False))
    settings: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    actor: str | None = Field(default=None, sa_column=Column(Text))
    recorded_at: datetime = _time(nullable=False)


class PolicyDecisionRow(Table, table=True):
    """A logged decision of the write policy: what, which rule, action, actor, time; never the text."""

    __tablename__ = "policy_decisions"
    __table_args__ = (Index("ix_policy_decisions_scope", "scope", "id"),)

    id: int | None = Field(default=None, primary_key=True)
    scope: str = Field(sa_column=Column(String(200), nullable=False))
    field: str = Field(sa_column=Column(String(64), nullable=False))
    rule: str = Field(sa_column=Column(String(64), nullable=False))
    action: str = Field(sa_column=Column(String(16), nullable=False))
    span_start: int = Field(sa_column=Column(Integer, nullable=False))
    span_end: int = Field(sa_column=Column(Integer, nullable=False))
    actor: str | None = Field(default=None, sa_column=Column(Text))
    recorded_at: datetime = _time(nullable=False)


class Grant(Table, table=True):
    """A role an actor holds in a scope (owner or reviewer); a scope with grants is protected."""

    __tablename__ = "grants"
    __table_args__ = (Index("ix_grants_scope", "scope"),)

    id: int | None = Field(default=None, primary_key=True)
    scope: str = Field(sa_column=Column(String(200), nullable=False))
    actor: str = Field(sa_column=Column(Text, nullable=False))
    role: str = Field(sa_column=Column(String(16), nullable=False))
    granted_by: str | None = Field(default=None, sa_column=Column(Text))
    recorded_at: datetime = _time(nullable=False)


class Challenge(Table, table=True):
    """A retraction or supersession asked for by an actor without authority in a protected scope,
    waiting for an owner or reviewer; the claim keeps its status meanwhile."""

    __tablename__ = "challenges"
    __table_args__ = (Index("ix_challenges_scope", "scope", "id"),)

    id: int | None = Field(default=None, primary_key=True)
    scope: str = Field(sa_column=Column(String(200), nullable=False))
    claim_id: int = Field(sa_column=Column(Integer, ForeignKey("claims.id"), nullable=False))
    status: str = Field(sa_column=Column(String(16), nullable=False))  #: the status asked for
    superseded_by: int | None = Field(default=None, sa_column=Column(Integer, ForeignKey("claims.id")))
    reason: str | None = Field(default=None, sa_column=Column(Text))
    actor: str | None = Field(default=None, sa_column=Column(Text))
    recorded_at: datetime = _time(nullable=False)
    resolved_at: datetime | None = _time()
    resolved_by: str | None = Field(default=None, sa_column=Column(Text))
    outcome: str | None = Field(default=None, sa_column=Column(String(16)))


class Reliability(Table, table=True):
    """How far a source or a publisher is to be believed (0 to 1); the newest rating holds."""

    __tablename__ = "reliability"
    __table_args__ = (Index("ix_reliability_scope", "scope", "id"),)

    id: int | None = Field(default=None, primary_key=True)
    scope: str = Field(sa_column=Column(String(200), nullable=False))
    source_id: int | None = Field(default=None, sa_column=Column(Integer, ForeignKey("sources.id")))
    publisher: str | None = Field(default=None, sa_column=Column(Text))
    rating: float = Field(sa_column=Column(Float, nullable=False))
    actor: str | None = Field(default=None, sa_column=Column(Text))
    recorded_at: datetime = _time(nullable=False)


class ClockState(Table, table=True):
    """One row: the last system time written, so the clock never runs backwards.

    Write transactions lock this row first, which also serializes writers on PostgreSQL.
    """

    __tablename__ = "ledger_clock"

    id: int = Field(default=1, primary_key=True)
    last_recorded_at: datetime | None = _time()


class AgentEvent(Table, table=True):
    """One tool call an agent made: the tool, its arguments, the outcome, when and by whom."""

    __tablename__ = "agent_events"
    __table_args__ = (Index("ix_agent_events_scope_recorded_at", "scope", "recorded_at"),)

    id: int | None = Field(default=None, primary_key=True)
    scope: str = Field(sa_column=Column(String(200), nullable=False))
    tool: str = Field(sa_column=Column(String(64), nullable=False))
    arguments: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    #: "ok" or the error's class name (NotFound, InvalidInput, …).
    outcome: str = Field(sa_column=Column(String(64), nullable=False))
    #: The error's message, or a short summary of what the call returned.
    detail: str | None = Field(default=None, sa_column=Column(Text))
    actor: str | None = Field(default=None, sa_column=Column(Text))
    recorded_at: datetime = _time(nullable=False)


class WorkingNote(Table, table=True):
    """A note one agent run keeps for itself: never in durable reads, gone after ``expires_at``."""

    __tablename__ = "working_notes"
    __table_args__ = (
        Index("ix_working_notes_scope_run_id", "scope", "run_id"),
        Index("ix_working_notes_expires_at", "expires_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    scope: str = Field(sa_column=Column(String(200), nullable=False))
    run_id: str = Field(sa_column=Column(String(200), nullable=False))
    #: The note's position in its run (1, 2, …): the conversation turn it came from.
    turn: int = Field(sa_column=Column(Integer, nullable=False))
    text: str = Field(sa_column=Column(Text, nullable=False))
    actor: str | None = Field(default=None, sa_column=Column(Text))
    recorded_at: datetime = _time(nullable=False)
    expires_at: datetime = _time(nullable=False)
