"""``Ledger``: the thin facade agents and people use. It checks arguments and delegates; every
call is one transaction in the modules below it. docs/api.md describes each call in full.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from ledger import db, documents, files, naming, reads, sources, stats, store, validate, views
from ledger.authority import apply_or_challenge
from ledger.check import CheckReport
from ledger.claims import status as lifecycle
from ledger.claims.draft import ClaimDraft, drafts
from ledger.claims.write import write_claims
from ledger.entities import check_name, check_text, normalize_name
from ledger.errors import InvalidInput, NotFound
from ledger.facets.agent import AgentCalls
from ledger.facets.base import Facet
from ledger.facets.contradictions import ContradictionCalls
from ledger.facets.export import ExportCalls
from ledger.facets.graph import GraphCalls
from ledger.facets.predicates import PredicateCalls
from ledger.facets.report import ReportCalls
from ledger.facets.safety import SafetyCalls
from ledger.facets.search import SearchCalls
from ledger.facets.wikidata import WikidataCalls
from ledger.ingest.base import SourceDraft
from ledger.records import (STATUSES, Audit, Citation, Claim, ClaimId, Entity, Explanation, Passage, Relation, Source,
    SourceId, StaleEvidence, Trust)
from ledger.timeline import Clock, LedgerClock, TimeInput
from ledger.validate import ClaimRef, EntityRef, SourceRef, check_scope


class Ledger(GraphCalls, AgentCalls, SearchCalls, ContradictionCalls, ReportCalls, WikidataCalls,
             PredicateCalls, ExportCalls, SafetyCalls, Facet):
    """A claim ledger on one database. Open with ``Ledger.open()``; use as a context manager."""

    @classmethod
    def open(cls, url_or_path: str | os.PathLike[str] | None = None, *, clock: Clock | None = None,
             create: bool = True, allow_private: bool | Iterable[str] = False) -> Ledger:
        """Open a ledger (a SQLite path, ``":memory:"``, a URL; None: ``$LEDGER_URL`` or ``./ledger.db``)."""
        from ledger import migrate  # alembic loads only when a database is opened
        from ledger.ingest.addresses import address_rule

        LedgerClock(clock)  # a bad clock is refused before anything is opened
        address_rule(allow_private)  # (and a bad allow_private)
        return cls(migrate.open_engine(url_or_path, create=create), clock=clock, allow_private=allow_private)

    @property
    def url(self) -> str:
        """The database URL (password hidden)."""
        return self._db.engine.url.render_as_string(hide_password=True)

    @property
    def location(self) -> str:
        """The database as messages name it: its file, "the in-memory database", or its URL."""
        return db.describe(self._db.engine.url)

    def close(self) -> None:
        """Release the database connections."""
        self._db.engine.dispose()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def entity(self, name: str, *, kind: str | None = None, aliases: Iterable[str] = (),
               scope: str = "default") -> Entity:
        """Get the entity a name or alias resolves to in ``scope``, or create it."""
        name, scope, extra = check_name(name), check_scope(scope), naming.check_aliases(aliases)
        kind = validate.check_label(kind, what="kind", limit=validate.MAX_KIND_LENGTH)
        return self._write(lambda connection, now, ids: naming.get_or_create(
            connection, ids, now, name=name, kind=kind, aliases=extra, scope=scope))

    def resolve(self, name_or_alias: str, *, scope: str = "default") -> Entity | None:
        """The entity a name or alias names in ``scope`` (after merges), or None when unknown."""
        check_text(name_or_alias, what="name", one_line=False)
        scope = check_scope(scope)
        if not normalize_name(name_or_alias):
            return None
        return self._read(lambda connection: naming.resolve(connection, name_or_alias, scope))

    def get_entity(self, entity: EntityRef, *, scope: str = "default") -> Entity:
        """An entity by record, id or name; NotFound when it does not exist in ``scope``."""
        if not isinstance(entity, str):
            entity_id = validate.entity_id_of(entity)
            return self._read(lambda connection: naming.entity_record(connection, entity_id))
        if (found := self.resolve(entity, scope=scope)) is None:
            raise NotFound(f"no entity is named {entity!r} in scope {scope!r}")
        return found

    def add_alias(self, entity: EntityRef, alias: str, *, language: str | None = None,
                  scope: str = "default") -> Entity:
        """Add another name for an entity; AliasConflict when it already names another."""
        alias = check_name(alias, what="alias")
        language = validate.check_label(language, what="language", limit=validate.MAX_LANGUAGE_LENGTH)
        target = self.get_entity(entity, scope=scope)
        return self._write(lambda connection, now, ids: naming.add_alias(connection, ids, now, target, alias, language))

    def merge_entities(self, keep: EntityRef, other: EntityRef, *, scope: str = "default") -> Entity:
        """Merge ``other`` into ``keep``: its aliases and claims now resolve to ``keep``; nothing is rewritten."""
        kept, merged = self.get_entity(keep, scope=scope), self.get_entity(other, scope=scope)
        keep_id, other_id = naming.merge_plan(kept, merged, validate.entity_label(keep), validate.entity_label(other))
        return self._write(lambda connection, now, ids: naming.merge(
            connection, now, keep=keep_id, other=other_id, scope=kept.scope))

    def add_source(self, *, text: str, uri: str | None = None, title: str | None = None, kind: str = "text",
                   published_at: TimeInput | None = None, retrieved_at: TimeInput | None = None,
                   trust: Trust = "trusted", scope: str = "default", author: str | None = None,
                   publisher: str | None = None, actor: str | None = None) -> Source:
        """Store a text source (idempotent by content hash); untrusted ones go to quarantine."""
        draft = sources.text_draft(text, kind=kind, uri=uri, title=title, author=author, publisher=publisher,
                                   published_at=published_at, retrieved_at=retrieved_at)
        return self.add_draft(draft, trust=trust, scope=scope, actor=actor)

    def add_draft(self, draft: SourceDraft, *, trust: Trust = "trusted", scope: str = "default",
                  actor: str | None = None) -> Source:
        """Store an ingester's draft (idempotent by content hash), recording a retrieval by ``actor``."""
        scope = sources.quarantine_scope(check_scope(scope), trust)
        sources.check_draft(draft)
        actor = validate.check_actor(actor)
        return self._write(lambda connection, now, ids: sources.store_draft(
            connection, ids, draft, scope=scope, trust=trust, now=now, actor=actor))

    def ingest_pdf(self, path_or_bytes: str | os.PathLike[str] | bytes, *, uri: str | None = None,
                   password: str | None = None, trust: Trust = "trusted", scope: str = "default",
                   max_pages: int | None = None, max_bytes: int | None = None,
                   retrieved_at: TimeInput | None = None) -> Source:
        """Read a PDF into a source; NeedsOCR, with nothing stored, when no page has a text layer."""
        sources.quarantine_scope(check_scope(scope), trust)
        with store.paused_gc():  # a book is tens of thousands of lines and passages
            draft = documents.pdf_draft(path_or_bytes, uri=uri, password=password, max_pages=max_pages,
                                        max_bytes=max_bytes, retrieved_at=retrieved_at)
            return self.add_draft(draft, trust=trust, scope=scope)

    def ingest_html(self, html: str | bytes | os.PathLike[str], *, url: str | None = None,
                    retrieved_at: TimeInput | None = None, encoding: str | None = None, trust: Trust = "trusted",
                    scope: str = "default", max_bytes: int | None = None) -> Source:
        """Read a web page (bytes, HTML as a str, or a file's Path) into a source."""
        sources.quarantine_scope(check_scope(scope), trust)
        with store.paused_gc():  # reading a page makes a few hundred thousand short-lived objects
            draft = documents.html_draft(html, url=url, retrieved_at=retrieved_at, encoding=encoding,
                                         max_bytes=max_bytes)
        return self.add_draft(draft, trust=trust, scope=scope)

    def ingest_file(self, path: str | os.PathLike[str], *, password: str | None = None, max_pages: int | None = None,
                    max_bytes: int | None = None, trust: Trust = "trusted", scope: str = "default") -> Source:
        """Ingest a PDF or HTML file, told apart by its name or else its first bytes."""
        checked = files.checked_path(path, what="ingest_file")
        if files.document_kind(checked) == "pdf":
            return self.ingest_pdf(checked, password=password, max_pages=max_pages, max_bytes=max_bytes,
                                   trust=trust, scope=scope)
        return self.ingest_html(checked, max_bytes=max_bytes, trust=trust, scope=scope)

    def ingest_url(self, url: str, *, timeout: float = 20.0, max_bytes: int | None = None, trust: Trust = "trusted",
                   scope: str = "default", allow_private: bool | Iterable[str] | None = None) -> Source:
        """Fetch a public URL (one GET, a timeout, a size limit; private addresses only if allowed) as HTML or PDF."""
        sources.quarantine_scope(check_scope(scope), trust)  # refused before the download, not after it
        with store.paused_gc():
            draft = documents.url_draft(url, timeout=timeout, max_bytes=max_bytes,
                                        allow_private=self._allow_private if allow_private is None else allow_private)
        return self.add_draft(draft, trust=trust, scope=scope)

    def stale_evidence(self, *, scope: str = "default") -> list[StaleEvidence]:
        """Evidence whose quote vanished from a newer revision of its source, with the claims that lost support."""
        scope = check_scope(scope)
        return self._read(lambda connection: views.stale_evidence(connection, scope))

    def source(self, source: SourceRef) -> Source:
        """A stored source by record or id."""
        source_id = validate.source_id(source)
        return self._read(lambda connection: views.source(connection, source_id))

    def passages(self, source: SourceRef, *, page: int | None = None) -> list[Passage]:
        """A stored source's passages in text order (only those of ``page``, 1-based, if given)."""
        source_id = validate.source_id(source)
        sources.check_page(page)
        return self._read(lambda connection: views.passages(connection, source_id, page))

    def cite(self, source: SourceRef, quote: str, *, relation: Relation = "supports", prefix: str | None = None,
             suffix: str | None = None, page: int | None = None) -> Citation:
        """Locate ``quote`` in a stored source as evidence for assert_claim (QuoteNotFound if absent)."""
        source_id = SourceId(validate.source_id(source))
        return self._read(lambda connection: sources.cite(
            connection, source_id, quote, relation=relation, prefix=prefix, suffix=suffix, page=page, scope=None))

    def assert_claim(self, subject: EntityRef, predicate: str, object: EntityRef | None = None, *, value: Any = None,
                     valid_from: TimeInput | None = None, valid_until: TimeInput | None = None,
                     evidence: Sequence[Citation] | Citation, status: str = "reported", confidence: float | None = None,
                     qualifiers: Mapping[str, Any] | None = None,
                     supersedes: ClaimRef | Sequence[ClaimRef] | None = None, actor: str | None = None,
                     scope: str = "default", create_entities: bool = True) -> Claim:
        """Assert a claim backed by evidence; returns it as the lifecycle rules leave it (see ``Claim.cause``)."""
        draft = ClaimDraft(subject, predicate, object, value, valid_from, valid_until, evidence, status, confidence,
                           qualifiers, supersedes, actor, scope, create_entities)
        return self._write(lambda connection, now, ids: views.claim_at(
            connection, write_claims(connection, [draft], now=now, ids=ids)[0], now))

    def assert_claims(self, items: Iterable[ClaimDraft | Mapping[str, Any]]) -> list[ClaimId]:
        """Assert many claims (ClaimDrafts or dicts) in one transaction, all or nothing; their ids in order."""
        batch = drafts(items)
        if not batch:
            return []
        return self._write(lambda connection, now, ids: write_claims(connection, batch, now=now, ids=ids))

    def confirm(self, claim: ClaimRef, *, evidence: Sequence[Citation] | Citation | None = None,
                reason: str | None = None, actor: str | None = None) -> Claim:
        """Mark a claim confirmed (a new version), optionally with more supporting evidence."""
        return self._status(lifecycle.confirmation(claim, evidence=evidence, reason=reason, actor=actor))

    def dispute(self, claim: ClaimRef, *, evidence: Sequence[Citation] | Citation | None = None,
                reason: str | None = None, actor: str | None = None) -> Claim:
        """Mark a claim disputed, with the contradicting evidence or a reason."""
        return self._status(lifecycle.dispute(claim, evidence=evidence, reason=reason, actor=actor))

    def retract(self, claim: ClaimRef, *, reason: str, actor: str | None = None) -> Claim:
        """Withdraw a claim: it leaves every view but the audit, with the reason kept."""
        return self._status(lifecycle.retraction(claim, reason=reason, actor=actor))

    def supersede(self, old: ClaimRef, new: ClaimRef, *, reason: str | None = None,
                  actor: str | None = None) -> Claim:
        """Mark ``old`` as replaced by ``new`` as a whole (it then holds at no time)."""
        return self._status(lifecycle.supersession(old, new, reason=reason, actor=actor))

    def _status(self, change: lifecycle.StatusChange) -> Claim:
        return self._write(lambda connection, now, ids: views.claim_at(  # with grants, a change may wait
            connection, apply_or_challenge(connection, change, now=now, ids=ids), now))

    def claims(self, subject: EntityRef | None = None, predicate: str | None = None, *, object: EntityRef | None = None,
               valid_at: TimeInput | None = None, known_at: TimeInput | None = None,
               during: tuple[TimeInput, TimeInput] | None = None, statuses: Iterable[str] | None = None,
               scope: str = "default") -> list[Claim]:
        """Claims true at ``valid_at`` (or during ``(a, b)``) as held at ``known_at``; both default to now."""
        query = views.claims_query(scope=scope, subject=subject, predicate=predicate, object=object,
                                   valid_at=valid_at, known_at=known_at, during=during, statuses=statuses)
        # with both times given the clock is not read (a historical query needs no "now")
        now = query.known_at if query.known_at is not None and (query.valid_at or query.during) else self.now()
        return self._read(lambda connection: reads.find_claims(connection, query, now=now), single_statement=True)

    def claim(self, claim: ClaimRef, *, known_at: TimeInput | None = None) -> Claim:
        """One claim in the version the ledger held at ``known_at`` (default now)."""
        claim_id = validate.claim_id(claim)
        at = validate.moment(known_at, "known_at") or self.now()
        return self._read(lambda connection: views.claim_at(connection, claim_id, at))

    def history(self, subject: EntityRef, predicate: str, *, scope: str = "default") -> list[Claim]:
        """Every version of every claim on (subject, predicate), oldest first, with all four times."""
        if subject is None or predicate is None:
            raise InvalidInput("history() needs a subject and a predicate; use audit() for every claim")
        query = views.versions_query(scope=scope, subject=subject, predicate=predicate)
        return self._read(lambda connection: reads.find_claims(connection, query, now=self.now()))

    def audit(self, subject: EntityRef | None = None, predicate: str | None = None, *,
              statuses: Iterable[str] | None = None, scope: str = "default") -> list[Audit]:
        """Claims in every status with their version history and the links that explain each change."""
        wanted = set(validate.statuses(statuses) if statuses is not None else STATUSES)
        query = views.versions_query(scope=scope, subject=subject, predicate=predicate)
        return self._read(lambda connection: views.audit(connection, query, wanted=wanted, now=self.now()))

    def explain(self, claim: ClaimRef) -> Explanation:
        """Why the ledger holds a claim: versions, links, and evidence → source → locator."""
        claim_id = validate.claim_id(claim)
        return self._read(lambda connection: views.explain(connection, claim_id))

    def backup(self, path: str | os.PathLike[str]) -> Path:
        """Copy a SQLite ledger to ``path`` as one consistent snapshot (PostgreSQL: use pg_dump)."""
        return db.backup_to(self._db.engine, path)

    @staticmethod
    def restore(backup: str | os.PathLike[str], path: str | os.PathLike[str] | None = None, *,
                overwrite: bool = False) -> Path:
        """Restore a backup into ``path`` (None: ``$LEDGER_URL``, else ``./ledger.db``) unless it exists."""
        return db.restore_to(backup, db.default_sqlite_file() if path is None else path, overwrite=overwrite)

    def rows_besides(self, *, actor: str, source_uri: str, entity: str) -> dict[str, int]:
        """Counts by kind of the rows besides ``actor``'s claims, ``source_uri``'s source and ``entity``."""
        return self._read(stats.rows_besides_reader(actor=actor, source_uri=source_uri, entity=entity))

    def check(self) -> CheckReport:
        """Check every invariant (integrity, evidence, versions, functional overlaps, scopes)."""
        from ledger.check import run_checks

        return self._read(run_checks)
