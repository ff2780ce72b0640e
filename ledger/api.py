"""``Ledger``: the thin facade agents and people use. It validates little and decides
nothing; every call is one transaction in the modules below it.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, TypeVar

from sqlalchemy import Connection, Engine, insert, select, update

from ledger import db, files, queries, reads, sources, stats, store, validate
from ledger.claims.draft import ClaimDraft
from ledger.claims.status import change_status, refuse_functional_overlaps, supersession_reaches
from ledger.claims.write import write_claims
from ledger.validate import EntityRef, check_scope
from ledger.check import CheckReport
from ledger.claims.values import DATATYPES
from ledger.entities import check_name, check_text, normalize_name
from ledger.errors import (
    Conflict,
    IngestError,
    InvalidInput,
    NeedsOCR,
    NotFound,
    ScopeMismatch,
    StoreError,
)
from ledger.ingest.base import SourceDraft
from ledger.records import (
    STATUSES,
    VISIBLE_STATUSES,
    Audit,
    Citation,
    Claim,
    ClaimId,
    Entity,
    EntityId,
    EvidenceTrail,
    Explanation,
    Passage,
    PredicateInfo,
    Relation,
    Source,
    SourceId,
    StaleEvidence,
    Trust,
)
from ledger.timeline import Clock, LedgerClock, TimeInput, parse_time

T = TypeVar("T")
ClaimRef = Claim | ClaimId | int
SourceRef = Source | SourceId | int


class Ledger:
    """A claim ledger on one database. Open with ``Ledger.open()``; use as a context manager."""

    def __init__(self, engine: Engine, *, clock: Clock | None = None) -> None:
        self._clock = LedgerClock(clock)
        self._engine = engine
        # a read at a "now" before the database's last write would answer about the past
        self._clock.seen(self._read(lambda connection: store.last_recorded(connection, lock=False)))

    @classmethod
    def open(
        cls, url_or_path: str | os.PathLike[str] | None = None, *, clock: Clock | None = None, create: bool = True
    ) -> Ledger:
        """Open (creating or upgrading to the newest schema) a ledger.

        Args:
            url_or_path: a SQLite file path, ``":memory:"``, a SQLAlchemy URL (``postgresql://…``),
                or None for ``$LEDGER_URL`` or else ``./ledger.db``.
            clock: a zero-argument callable returning an aware datetime, used for all system time.
            create: whether a missing file or empty database becomes a new ledger; if False, it is
                refused (``InvalidInput``) and no file is created.

        Raises:
            InvalidInput: the path or URL is malformed, or names something that is not a ledger.
            StoreError: the database cannot be reached or read.
        """
        from ledger import migrate  # alembic loads only when a database is opened

        LedgerClock(clock)  # a bad clock is refused before anything is opened
        url = db.resolve_url(url_or_path)
        db.check_sqlite_file(url, create=create)  # before SQLite creates or touches the file
        engine = db.make_engine(url)
        try:
            migrate.upgrade(engine, create=create)
        except Exception as exc:
            engine.dispose()
            if isinstance(exc, (InvalidInput, NotFound)):
                raise
            raise StoreError(f"cannot open the ledger at {db.describe(url)}: {db.reason(exc)}") from exc
        return cls(engine, clock=clock)

    @property
    def url(self) -> str:
        """The database URL (password hidden)."""
        return self._engine.url.render_as_string(hide_password=True)

    @property
    def location(self) -> str:
        """The database as messages name it: its file, "the in-memory database", or the URL (password hidden)."""
        return db.describe(self._engine.url)

    def close(self) -> None:
        """Release the database connections."""
        self._engine.dispose()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    # -------------------------------------------------------------- plumbing

    def _write(self, work: Callable[[Connection, datetime, store.Ids], T]) -> T:
        def transaction(connection: Connection) -> T:
            now = self._clock.read(not_before=store.last_recorded(connection), for_write=True)
            result = work(connection, now, store.Ids(connection))
            store.advance_clock(connection, now)
            return result

        return db.run_write(self._engine, transaction)

    def _read(self, work: Callable[[Connection], T], *, single_statement: bool = False) -> T:
        with db.read_transaction(self._engine, single_statement=single_statement) as connection:
            return work(connection)

    def now(self) -> datetime:
        """The ledger clock's current reading (the default for valid_at and known_at)."""
        return self._clock.read(not_before=None)

    # -------------------------------------------------------------- entities

    def entity(
        self, name: str, *, kind: str | None = None, aliases: Iterable[str] = (), scope: str = "default"
    ) -> Entity:
        """Get the entity a name or alias resolves to in ``scope``, or create it.

        Raises:
            Conflict: the name resolves to an entity of a different kind.
            AliasConflict: one of ``aliases`` already names another entity.
        """
        name, scope = check_name(name), check_scope(scope)
        kind = validate.check_label(kind, what="kind", limit=validate.MAX_KIND_LENGTH)
        if isinstance(aliases, (str, bytes)) or not isinstance(aliases, Iterable):
            raise InvalidInput(f"aliases must be a list of names, not a {type(aliases).__name__}; "
                               f"pass aliases=[...] even for one alias")
        extra = [check_name(a, what="alias") for a in aliases]

        def work(connection: Connection, now: datetime, ids: store.Ids) -> Entity:
            found = store.root_entity_ids(connection, [normalize_name(name)], scope)
            if found:
                entity_id = next(iter(found.values()))
                row = store.entity_row(connection, entity_id)
                if kind is not None and row["kind"] not in (None, kind):
                    raise Conflict(
                        f"{name!r} already names entity {entity_id}, a {row['kind']}, not a {kind}; "
                        f"use a more specific name for the {kind}"
                    )
                if kind is not None and row["kind"] is None:
                    connection.execute(update(store.entities).where(store.entities.c.id == entity_id)
                                       .values(kind=kind))
            else:
                entity_id = store.create_entity(connection, ids, scope=scope, name=name, kind=kind, now=now)
            if extra:
                store.add_aliases(connection, ids, entity_id, extra, scope=scope, now=now)
            return _entity(connection, entity_id)

        return self._write(work)

    def resolve(self, name_or_alias: str, *, scope: str = "default") -> Entity | None:
        """The entity a name or alias names in ``scope`` (after merges), or None when unknown."""
        check_text(name_or_alias, what="name", one_line=False)
        scope = check_scope(scope)
        if not normalize_name(name_or_alias):
            return None

        def work(connection: Connection) -> Entity | None:
            found = store.root_entity_ids(connection, [normalize_name(name_or_alias)], scope)
            return _entity(connection, next(iter(found.values()))) if found else None

        return self._read(work)

    def get_entity(self, entity: EntityRef, *, scope: str = "default") -> Entity:
        """An entity by record, id or name; NotFound when it does not exist in ``scope``."""
        if isinstance(entity, str):
            found = self.resolve(entity, scope=scope)
            if found is None:
                raise NotFound(f"no entity is named {entity!r} in scope {scope!r}")
            return found
        entity_id = validate.entity_id_of(entity)
        return self._read(lambda connection: _entity(connection, entity_id))

    def add_alias(self, entity: EntityRef, alias: str, *, language: str | None = None,
                  scope: str = "default") -> Entity:
        """Add another name for an entity; AliasConflict when it already names another."""
        alias = check_name(alias, what="alias")
        language = validate.check_label(language, what="language", limit=validate.MAX_LANGUAGE_LENGTH)
        target = self.get_entity(entity, scope=scope)

        def work(connection: Connection, now: datetime, ids: store.Ids) -> Entity:
            root = target.merged_into or target.id
            store.add_aliases(connection, ids, EntityId(root), [alias], scope=target.scope, now=now,
                              language=language)
            return _entity(connection, root)

        return self._write(work)

    def merge_entities(self, keep: EntityRef, other: EntityRef, *, scope: str = "default") -> Entity:
        """Merge ``other`` into ``keep``: its aliases and claims now resolve to ``keep``.

        Entities of different kinds (a person and a place) are refused with Conflict; an entity
        without a kind merges with any. Nothing is rewritten: ``other`` keeps its row (with ``merged_into``), its claims keep
        their subject, and reads about ``keep`` include them.
        """
        kept, merged = self.get_entity(keep, scope=scope), self.get_entity(other, scope=scope)
        if kept.scope != merged.scope:
            raise ScopeMismatch(f"entities {kept.id} (scope {kept.scope!r}) and {merged.id} (scope "
                                f"{merged.scope!r}) belong to different scopes; only entities of one scope merge")
        keep_id = kept.merged_into or kept.id
        other_id = merged.merged_into or merged.id
        if keep_id == other_id:
            raise Conflict(
                f"{_label(keep)} and {_label(other)} already resolve to the same entity {keep_id} (merged "
                f"before, or one name); an entity cannot be merged into itself, so there is nothing to merge"
            )
        if kept.kind and merged.kind and kept.kind.casefold() != merged.kind.casefold():
            raise Conflict(
                f"entity {kept.id} {kept.name!r} is a {kept.kind} and entity {merged.id} {merged.name!r} a "
                f"{merged.kind}; entities of different kinds do not merge"
            )

        def work(connection: Connection, now: datetime, ids: store.Ids) -> Entity:
            store.merge_entities(connection, keep_id, other_id, now)
            refuse_functional_overlaps(connection, scope=kept.scope,
                                                  subjects=store.merged_ids(connection, keep_id),
                                                  because=f"merging entity {other_id} into {keep_id}")
            return _entity(connection, keep_id)

        return self._write(work)

    # -------------------------------------------------------------- sources and evidence

    def add_source(
        self, *, text: str, uri: str | None = None, title: str | None = None, kind: str = "text",
        published_at: TimeInput | None = None, retrieved_at: TimeInput | None = None,
        trust: Trust = "trusted", scope: str = "default", author: str | None = None,
        publisher: str | None = None, actor: str | None = None,
    ) -> Source:
        """Store a text source (idempotent by content hash); untrusted ones go to quarantine."""
        draft = sources.text_draft(text, kind=kind, uri=uri, title=title, author=author, publisher=publisher,
                                   published_at=published_at, retrieved_at=retrieved_at)
        return self.add_draft(draft, trust=trust, scope=scope, actor=actor)

    def add_draft(self, draft: SourceDraft, *, trust: Trust = "trusted", scope: str = "default",
                  actor: str | None = None) -> Source:
        """Store a source draft made by an ingester (idempotent by content hash); every call
        records a retrieval (``Source.retrievals``) by ``actor``."""
        scope = sources.quarantine_scope(check_scope(scope), trust)
        sources.check_draft(draft)
        actor = validate.check_actor(actor)

        def work(connection: Connection, now: datetime, ids: store.Ids) -> Source:
            return sources.store_draft(connection, ids, draft, scope=scope, trust=trust, now=now, actor=actor)

        return self._write(work)

    def ingest_pdf(
        self, path_or_bytes: str | os.PathLike[str] | bytes, *, uri: str | None = None,
        password: str | None = None, trust: Trust = "trusted", scope: str = "default",
        max_pages: int | None = None, max_bytes: int | None = None, retrieved_at: TimeInput | None = None,
    ) -> Source:
        """Read a PDF (text in reading order, passages with page and bbox) into a source.

        The same bytes again return the existing source; the same ``uri`` with other bytes than its
        newest revision's (even those of an earlier one) makes a revision and re-anchors the older
        revisions' evidence. ``max_pages`` (default 5,000) and ``max_bytes`` (default 200 MiB)
        refuse documents claiming more pages or holding more bytes, a guard against hostile files.
        ``retrieved_at``: when it was downloaded, if it was (``ingest_url`` sets it).

        Raises:
            IngestError: unreadable, encrypted without the right password, too large, …
            NeedsOCR: no page has a usable text layer; the source is recorded (``error.source_id``).
        """
        from ledger.ingest.pdf import (
            DEFAULT_MAX_BYTES,
            DEFAULT_MAX_PAGES,
            read_pdf,
            read_pdf_file,
        )

        sources.check_metadata(uri=uri)
        max_pages = _limit(max_pages, "max_pages", DEFAULT_MAX_PAGES)
        max_bytes = _limit(max_bytes, "max_bytes", DEFAULT_MAX_BYTES)
        sources.quarantine_scope(check_scope(scope), trust)
        if password is not None and not isinstance(password, str):
            raise InvalidInput(f"password must be a string or None, not {type(password).__name__}")
        retrieved = _time(retrieved_at, "retrieved_at")
        with store.paused_gc():  # a book is tens of thousands of lines and passages
            if isinstance(path_or_bytes, (bytes, bytearray)):
                draft = read_pdf(bytes(path_or_bytes), uri=uri, password=password, max_pages=max_pages,
                                 max_bytes=max_bytes)
            elif isinstance(path_or_bytes, (str, os.PathLike)):
                if "\x00" in str(os.fspath(path_or_bytes)):
                    raise IngestError(f"the path {str(path_or_bytes)[:80]!r} contains a NUL byte; no file has such a name")
                draft = read_pdf_file(path_or_bytes, uri=uri, password=password, max_pages=max_pages,
                                      max_bytes=max_bytes)
            else:
                raise IngestError(f"ingest_pdf takes a file path or the PDF's bytes, not {type(path_or_bytes).__name__}")
            if retrieved is not None:
                draft = dataclasses.replace(draft, retrieved_at=retrieved)
            source = self.add_draft(draft, trust=trust, scope=scope)
        if draft.page_count and len(draft.pages_without_text) == draft.page_count:
            pages = ", ".join(map(str, draft.pages_without_text))
            raise NeedsOCR(
                f"{draft.uri or 'the PDF'} has no readable text layer on any page ({pages}); it is recorded as source "
                f"{source.id}, but nothing in it can be cited until it is OCRed (e.g. with ocrmypdf) and ingested again",
                pages=draft.pages_without_text, source_id=source.id)
        return source

    def ingest_html(
        self, html: str | bytes | os.PathLike[str], *, url: str | None = None, retrieved_at: TimeInput | None = None,
        encoding: str | None = None, trust: Trust = "trusted", scope: str = "default", max_bytes: int | None = None,
    ) -> Source:
        """Read a web page's main text (no boilerplate) and metadata into a source; paragraphs
        become passages. ``html`` is the page's bytes, its text (a str is always HTML, never a
        path) or a file's path (a ``pathlib.Path``); ``url`` is where it came from, for a path by
        default its ``file:`` URI. Revisions by ``url`` work as for ``ingest_pdf``. ``max_bytes``
        (default 20 MiB) refuses larger pages, a file before it is read."""
        from ledger.ingest.base import check_url, document_url
        from ledger.ingest.html import DEFAULT_MAX_BYTES, read_html

        if not isinstance(html, (str, bytes, os.PathLike)):
            raise IngestError(f"ingest_html takes the page's bytes, its HTML as str or a file's Path, "
                              f"not {type(html).__name__}")
        path = files.checked_path(html, what="ingest_html") if isinstance(html, os.PathLike) else None
        url = files.file_uri(path) if url is None and path is not None else url
        if url is None:
            raise InvalidInput("url is required for a page given as text or bytes; pass where it came from, "
                               "such as 'https://example.org/news/article'")
        sources.check_metadata(url=url)
        check_url(url)
        sources.check_stored_uri(document_url(url), what="url", given=url)
        max_bytes = _limit(max_bytes, "max_bytes", DEFAULT_MAX_BYTES)
        sources.quarantine_scope(check_scope(scope), trust)
        if encoding is not None and not isinstance(encoding, str):
            raise InvalidInput(f"encoding must be a charset name or None, not {type(encoding).__name__}")
        retrieved = _time(retrieved_at, "retrieved_at")
        with store.paused_gc():  # reading a page makes a few hundred thousand short-lived objects
            page = files.read_limited(Path(html), max_bytes=max_bytes) if isinstance(html, os.PathLike) else html
            draft = read_html(page, url=url, retrieved_at=retrieved, encoding=encoding, max_bytes=max_bytes)
        return self.add_draft(draft, trust=trust, scope=scope)

    def ingest_file(
        self, path: str | os.PathLike[str], *, password: str | None = None, max_pages: int | None = None,
        max_bytes: int | None = None, trust: Trust = "trusted", scope: str = "default",
    ) -> Source:
        """Ingest a PDF or HTML file, told apart by its name (.pdf, .html, .htm, .xhtml) or else by its
        first bytes, as ``ingest_pdf`` (``password`` and ``max_pages`` apply to PDFs) or ``ingest_html`` do.

        Raises:
            IngestError: neither a PDF nor a web page, unreadable, or refused by the ingester.
            NeedsOCR: as for ``ingest_pdf``.
        """
        checked = files.checked_path(path, what="ingest_file")
        if files.document_kind(checked) == "pdf":
            return self.ingest_pdf(checked, password=password, max_pages=max_pages, max_bytes=max_bytes, trust=trust,
                                   scope=scope)
        return self.ingest_html(checked, max_bytes=max_bytes, trust=trust, scope=scope)

    def ingest_url(
        self, url: str, *, timeout: float = 20.0, max_bytes: int | None = None, trust: Trust = "trusted",
        scope: str = "default",
    ) -> Source:
        """Fetch a URL (one GET, with a timeout and a size limit) and ingest it as HTML or PDF.

        ``timeout`` (seconds) bounds the whole fetch; ``max_bytes`` (default 20 MiB) what is read
        and ingested, a web page or a PDF alike."""
        from ledger.ingest.base import check_url, document_url
        from ledger.ingest.html import DEFAULT_MAX_BYTES, fetch

        max_bytes = _limit(max_bytes, "max_bytes", DEFAULT_MAX_BYTES)
        sources.quarantine_scope(check_scope(scope), trust)  # refused before the download, not after it
        if isinstance(url, str) and len(url) > sources.MAX_URI_BYTES // 4:  # (shorter ones fit in any case)
            check_url(url)
            sources.check_stored_uri(document_url(url), what="url", given=url)
        fetched = fetch(url, timeout=timeout, max_bytes=max_bytes)
        # the ingesters take the same limit: their own defaults differ from the fetch's
        if fetched.content_type == "application/pdf":
            return self.ingest_pdf(fetched.data, uri=document_url(fetched.url), trust=trust, scope=scope,
                                   retrieved_at=fetched.retrieved_at, max_bytes=max_bytes)
        return self.ingest_html(fetched.data, url=fetched.url, retrieved_at=fetched.retrieved_at,
                                encoding=fetched.charset, trust=trust, scope=scope, max_bytes=max_bytes)

    def stale_evidence(self, *, scope: str = "default") -> list[StaleEvidence]:
        """Evidence whose quote vanished from a newer revision of its source, with the claims
        that lost their support (``claim_supported`` False)."""
        scope = check_scope(scope)

        def work(connection: Connection) -> list[StaleEvidence]:
            rows = queries.run(connection, "stale_evidence", scope=scope).mappings()
            return [StaleEvidence(
                evidence_id=r["evidence_id"], claim_id=r["claim_id"], source_id=r["source_id"],
                newer_source_id=r["newer_source_id"], relation=r["relation"], excerpt=r["excerpt"],
                stale_at=r["stale_at"], claim_supported=bool(r["claim_supported"]),
            ) for r in rows]

        return self._read(work)

    def source(self, source: SourceRef) -> Source:
        """A stored source by record or id."""
        source_id = _source_id(source)
        return self._read(lambda connection: reads.source_record(connection, store.source_row(connection, source_id)))

    def passages(self, source: SourceRef, *, page: int | None = None) -> list[Passage]:
        """A stored source's passages in text order, each with its text, page, bbox and
        paragraph (only those of ``page``, 1-based, if given)."""
        source_id = _source_id(source)
        sources.check_page(page)

        def work(connection: Connection) -> list[Passage]:
            row = store.source_row(connection, source_id)
            return reads.passages(connection, source_id, row["text"], page)

        return self._read(work)

    def cite(
        self, source: SourceRef, quote: str, *, relation: Relation = "supports", prefix: str | None = None,
        suffix: str | None = None, page: int | None = None,
    ) -> Citation:
        """Locate ``quote`` in a stored source; the citation is evidence for assert_claim.

        Raises:
            QuoteNotFound: the quote does not occur in the source (the message shows the
                closest text when there is one).
        """
        source_id = _source_id(source)
        return self._read(lambda connection: sources.cite(
            connection, SourceId(source_id), quote, relation=relation, prefix=prefix, suffix=suffix, page=page,
            scope=None))

    # -------------------------------------------------------------- claims

    def assert_claim(
        self, subject: EntityRef, predicate: str, object: EntityRef | None = None, *, value: Any = None,
        valid_from: TimeInput | None = None, valid_until: TimeInput | None = None,
        evidence: Sequence[Citation] | Citation, status: str = "reported", confidence: float | None = None,
        qualifiers: Mapping[str, Any] | None = None, supersedes: ClaimRef | Sequence[ClaimRef] | None = None,
        actor: str | None = None, scope: str = "default",
    ) -> Claim:
        """Assert a claim backed by evidence; the lifecycle rules decide what it changes.

        Returns the claim as it stands afterwards: a new claim, or the existing one it
        corroborated. ``Claim.cause`` is the cause of its current version (asserted, updates
        claim N, conflicts with claim N, corroborated by 2 independent sources, …); evidence
        from a source the claim already cites adds a row but no version, so the cause stays.
        """
        draft = ClaimDraft(
            subject=subject, predicate=predicate, object=object, value=value, valid_from=valid_from,
            valid_until=valid_until, evidence=evidence,
            status=status, confidence=confidence, qualifiers=qualifiers, supersedes=supersedes, actor=actor,
            scope=scope,
        )

        def work(connection: Connection, now: datetime, ids: store.Ids) -> Claim:
            [claim_id] = write_claims(connection, [draft], now=now, ids=ids)
            return _claim_at(connection, claim_id, now)

        return self._write(work)

    def assert_claims(self, drafts: Iterable[ClaimDraft | Mapping[str, Any]]) -> list[ClaimId]:
        """Assert many claims in one transaction (all or nothing); returns their ids in order.

        Each item is a ``ClaimDraft`` or a dict with the same keys. This is the fast path for
        imports and extractors: set-based checks, executemany inserts.
        """
        if isinstance(drafts, (str, bytes, Mapping, ClaimDraft)) or not isinstance(drafts, Iterable):
            raise InvalidInput(f"assert_claims takes a list of ClaimDrafts or dicts, not {type(drafts).__name__}; "
                               "for one claim, use assert_claim or pass [draft]")
        batch = [d if isinstance(d, ClaimDraft) else _draft_from_mapping(d) for d in drafts]
        if not batch:
            return []
        return self._write(lambda connection, now, ids: write_claims(connection, batch, now=now, ids=ids))

    def confirm(self, claim: ClaimRef, *, evidence: Sequence[Citation] | Citation | None = None,
                reason: str | None = None, actor: str | None = None) -> Claim:
        """Mark a claim confirmed (a new version), optionally with more supporting evidence.

        A claim closed by a newer value stays "superseded" (it held only until then); the
        confirmation is recorded in its history and counts if the newer value is retracted."""
        citations = _citations(evidence)
        if any(c.relation != "supports" for c in citations):
            raise InvalidInput("confirm() takes supporting evidence; cite it with relation='supports'")
        return self._status(claim, "confirmed", reason=reason, citations=citations, actor=actor)

    def dispute(self, claim: ClaimRef, *, evidence: Sequence[Citation] | Citation | None = None,
                reason: str | None = None, actor: str | None = None) -> Claim:
        """Mark a claim disputed, optionally recording the contradicting evidence."""
        citations = _citations(evidence)
        if any(c.relation != "contradicts" for c in citations):
            raise InvalidInput("dispute() takes contradicting evidence; cite it with relation='contradicts'")
        if not citations and not reason:
            raise InvalidInput("dispute() needs contradicting evidence or a reason")
        return self._status(claim, "disputed", reason=reason, citations=citations, actor=actor)

    def retract(self, claim: ClaimRef, *, reason: str, actor: str | None = None) -> Claim:
        """Withdraw a claim: it leaves every view but the audit, with the reason kept."""
        if not isinstance(reason, str) or not reason.strip():
            raise InvalidInput("retract() needs a reason saying why the claim is withdrawn")
        return self._status(claim, "retracted", reason=reason, citations=(), actor=actor)

    def supersede(self, old: ClaimRef, new: ClaimRef, *, reason: str | None = None,
                  actor: str | None = None) -> Claim:
        """Mark ``old`` as replaced by ``new`` as a whole (it then holds at no time)."""
        old_id, new_id = validate.claim_id(old), validate.claim_id(new)
        if old_id == new_id:
            raise InvalidInput(f"claim {old_id} cannot supersede itself")

        def check(connection: Connection) -> None:
            newer, older = store.current_version(connection, new_id), store.current_version(connection, old_id)
            if newer["scope"] != older["scope"]:
                raise ScopeMismatch(f"claims {old_id} (scope {older['scope']!r}) and {new_id} (scope "
                                    f"{newer['scope']!r}) belong to different scopes; nothing crosses scopes")
            if newer["status"] == "retracted":
                raise Conflict(f"claim {new_id} is retracted and cannot supersede anything")
            if supersession_reaches(connection, old_id, new_id):
                raise Conflict(f"claim {old_id} already supersedes claim {new_id}; a cycle is not allowed")

        return self._status(old, "superseded", reason=reason, citations=(), actor=actor,
                            superseded_by=new_id, check=check)

    def _status(self, claim: ClaimRef, status: str, *, reason: str | None, citations: Sequence[Citation],
                actor: str | None, superseded_by: int | None = None,
                check: Callable[[Connection], None] | None = None) -> Claim:
        claim_id = validate.claim_id(claim)
        actor = validate.check_actor(actor)
        reason = validate.check_reason(reason)

        def work(connection: Connection, now: datetime, ids: store.Ids) -> Claim:
            if check is not None:
                check(connection)
            change_status(connection, claim_id, status=status, now=now, ids=ids, reason=reason,
                                     citations=citations, actor=actor, superseded_by=superseded_by)
            return _claim_at(connection, claim_id, now)

        return self._write(work)

    # -------------------------------------------------------------- reads

    def claims(
        self, subject: EntityRef | None = None, predicate: str | None = None, *, object: EntityRef | None = None,
        valid_at: TimeInput | None = None, known_at: TimeInput | None = None,
        during: tuple[TimeInput, TimeInput] | None = None, statuses: Iterable[str] | None = None,
        scope: str = "default",
    ) -> list[Claim]:
        """Claims true at ``valid_at`` as the ledger held them at ``known_at`` (both default to now).

        ``during=(a, b)`` instead returns claims whose valid interval overlaps [a, b).
        Retracted claims appear only when ``statuses`` asks for them.
        """
        query = reads.Filter(
            scope=check_scope(scope), subject=_ref(subject), predicate=_predicate(predicate), object=_ref(object),
            statuses=_statuses(statuses), valid_at=_time(valid_at, "valid_at"), known_at=_time(known_at, "known_at"),
            during=_during(during),
        )
        if query.valid_at is not None and query.during is not None:
            raise InvalidInput("pass either valid_at= or during=, not both")
        # with both times given the clock is not read (a historical query needs no "now")
        now = query.known_at if query.known_at is not None and (query.valid_at or query.during) else self.now()
        return self._read(lambda connection: reads.find_claims(connection, query, now=now), single_statement=True)

    def claim(self, claim: ClaimRef, *, known_at: TimeInput | None = None) -> Claim:
        """One claim in the version the ledger held at ``known_at`` (default now)."""
        claim_id = validate.claim_id(claim)
        at = _time(known_at, "known_at") or self.now()
        return self._read(lambda connection: _claim_at(connection, claim_id, at))

    def history(self, subject: EntityRef, predicate: str, *, scope: str = "default") -> list[Claim]:
        """Every version of every claim on (subject, predicate), oldest first, with all four times."""
        if subject is None or predicate is None:
            raise InvalidInput("history() needs a subject and a predicate; use audit() for every claim")
        query = reads.Filter(scope=check_scope(scope), subject=_ref(subject), predicate=_predicate(predicate),
                             statuses=STATUSES, all_versions=True)
        return self._read(lambda connection: reads.find_claims(connection, query, now=self.now()))

    def audit(self, subject: EntityRef | None = None, predicate: str | None = None, *,
              statuses: Iterable[str] | None = None, scope: str = "default") -> list[Audit]:
        """Claims in every status (retracted and superseded included) with their version history
        and the links that explain each change."""
        wanted = set(_statuses(statuses) if statuses is not None else STATUSES)
        query = reads.Filter(scope=check_scope(scope), subject=_ref(subject), predicate=_predicate(predicate),
                             statuses=STATUSES, all_versions=True)

        def work(connection: Connection) -> list[Audit]:
            versions = reads.find_claims(connection, query, now=self.now())
            by_claim: dict[int, list[Claim]] = {}
            for version in versions:
                by_claim.setdefault(version.id, []).append(version)
            links = reads.claim_links(connection, list(by_claim))
            audits = []
            for claim_id, claim_versions in sorted(by_claim.items()):
                current = claim_versions[-1]
                if current.status not in wanted:
                    continue
                touching = tuple(l for l in links if claim_id in (l.from_claim_id, l.to_claim_id))
                audits.append(Audit(claim=current, versions=tuple(claim_versions), links=touching))
            return audits

        return self._read(work)

    def explain(self, claim: ClaimRef) -> Explanation:
        """Why the ledger holds a claim: versions, links, and evidence → source → locator."""
        claim_id = validate.claim_id(claim)

        def work(connection: Connection) -> Explanation:
            current = _claim_at(connection, claim_id, None)
            versions = reads.claim_versions(connection, [claim_id], current.scope)
            evidence = reads.evidence_rows(connection, [claim_id], known_at=None)
            source_rows = {e.source_id: store.source_row(connection, e.source_id) for e in evidence}
            trails = tuple(EvidenceTrail(e, reads.source_record(connection, source_rows[e.source_id]))
                           for e in evidence)
            return Explanation(claim=current, versions=tuple(versions),
                               links=tuple(reads.claim_links(connection, [claim_id])), evidence=trails)

        return self._read(work)

    def backup(self, path: str | os.PathLike[str]) -> Path:
        """Copy a SQLite ledger to ``path`` with SQLite's online backup API.

        The copy is one consistent snapshot even while other processes write. PostgreSQL
        ledgers are backed up with ``pg_dump`` instead.
        """
        target = Path(path).expanduser().resolve()
        db.backup_sqlite(self._engine, target)
        return target

    @staticmethod
    def restore(backup: str | os.PathLike[str], path: str | os.PathLike[str] | None = None, *,
                overwrite: bool = False) -> Path:
        """Restore a backup made by ``backup()`` into ``path`` (None: ``$LEDGER_URL``, else ``./ledger.db``);
        refused if it exists, unless ``overwrite``."""
        path = db.default_sqlite_file() if path is None else path
        for name, value in (("backup", backup), ("path", path)):
            if not isinstance(value, (str, os.PathLike)) or os.fspath(value) in ("", db.MEMORY):
                raise InvalidInput(f"{name} must be the path of a SQLite file, not {value!r:.60}")
        source, target = Path(backup).expanduser().resolve(), Path(path).expanduser().resolve()
        db.restore_sqlite(source, target, overwrite=overwrite)
        return target

    def rows_besides(self, *, actor: str, source_uri: str, entity: str) -> dict[str, int]:
        """Counts by kind ("sources", "claim versions", …), in every scope, of the rows other than
        ``actor``'s claims and versions and, in the default scope, the source at ``source_uri`` and the
        entity named ``entity`` with its alias; kinds with none are left out (``{}``: nothing else)."""
        for name, value in (("actor", actor), ("source_uri", source_uri), ("entity", entity)):
            check_text(value, what=name)
        return self._read(lambda connection: stats.rows_besides(connection, actor=actor, source_uri=source_uri,
                                                                entity=entity))

    def check(self) -> CheckReport:
        """Check every invariant (integrity, evidence, versions, functional overlaps, scopes)."""
        from ledger.check import run_checks

        return self._read(run_checks)

    # -------------------------------------------------------------- predicates

    def define_predicate(
        self, name: str, *, cardinality: Literal["one", "many"] = "one",
        object_kind: Literal["entity", "value"] = "value", datatype: str | None = None,
        inverse: str | None = None, description: str | None = None,
    ) -> PredicateInfo:
        """Declare a predicate's cardinality and object kind (redefining it replaces the declaration)."""
        name = validate.check_predicate(name)
        if cardinality not in ("one", "many"):
            raise InvalidInput(f"cardinality must be 'one' or 'many'; got {cardinality!r}")
        if object_kind not in ("entity", "value"):
            raise InvalidInput(f"object_kind must be 'entity' or 'value'; got {object_kind!r}")
        if datatype is not None and object_kind == "entity":
            raise InvalidInput("datatype applies to value predicates only")
        if datatype is not None and datatype not in DATATYPES:
            raise InvalidInput(f"datatype must be one of {DATATYPES} or None; got {datatype!r:.60}")
        inverse = None if inverse is None else validate.check_predicate(inverse, what="inverse")
        if description is not None:
            check_text(description, what="description", limit=validate.MAX_REASON_LENGTH, one_line=False)
        row = {"name": name, "cardinality": cardinality, "object_kind": object_kind, "datatype": datatype,
               "inverse": inverse, "description": description}

        def work(connection: Connection, now: datetime, ids: store.Ids) -> PredicateInfo:
            existing = store.predicate_rows(connection, [name]).get(name)
            if existing is None:
                connection.execute(insert(store.predicates), {**row, "id": ids.take(store.predicates),
                                                               "recorded_at": now})
            else:
                connection.execute(update(store.predicates).where(store.predicates.c.name == name).values(**row))
            if cardinality == "one":
                refuse_functional_overlaps(
                    connection, predicate=name, because=f"declaring {name!r} functional (cardinality one)")
            return PredicateInfo(**row)  # type: ignore[arg-type]

        return self._write(work)

    def predicate(self, name: str) -> PredicateInfo | None:
        """The declaration of a predicate, or None when undeclared."""
        name = validate.check_predicate(name)
        row = self._read(lambda connection: store.predicate_rows(connection, [name]).get(name))
        if row is None:
            return None
        return PredicateInfo(name=row["name"], cardinality=row["cardinality"], object_kind=row["object_kind"],
                             datatype=row["datatype"], inverse=row["inverse"], description=row["description"])


# ------------------------------------------------------------------ helpers

def _entity(connection: Connection, entity_id: int) -> Entity:
    row = store.entity_row(connection, entity_id)
    members = store.merged_ids(connection, entity_id)
    return Entity(
        id=EntityId(row["id"]), scope=row["scope"], name=row["name"], kind=row["kind"],
        aliases=store.entity_aliases(connection, members or [entity_id]),
        merged_into=None if row["merged_into"] is None else EntityId(row["merged_into"]),
    )


def _claim_at(connection: Connection, claim_id: int, known_at: datetime | None) -> Claim:
    scope = connection.execute(select(store.claims.c.scope).where(store.claims.c.id == claim_id)).scalar()
    if scope is None:
        raise NotFound(f"claim {claim_id} does not exist")
    versions = reads.claim_versions(connection, [claim_id], scope)
    for version in reversed(versions):
        if known_at is None or (version.recorded_at <= known_at and (
                version.invalidated_at is None or version.invalidated_at > known_at)):
            return version
    raise NotFound(f"claim {claim_id} was not yet recorded at {known_at}")


def _source_id(source: SourceRef) -> int:
    if isinstance(source, Source):
        return int(source.id)
    if isinstance(source, int) and not isinstance(source, bool):
        return validate.check_id(source, what="source id")
    raise InvalidInput(f"expected a source or source id, got {type(source).__name__}")


def _ref(entity: EntityRef | None) -> int | str | None:
    if entity is None:
        return None
    if isinstance(entity, str):
        return check_text(entity, what="entity name", one_line=False)
    return validate.entity_id_of(entity)


def _label(entity: EntityRef) -> str:
    return repr(entity) if isinstance(entity, str) else f"entity {validate.entity_id_of(entity)}"


def _predicate(predicate: str | None) -> str | None:
    return None if predicate is None else validate.check_predicate(predicate)


def _limit(value: int | None, name: str, default: int) -> int:
    """A size limit given to an ingester: ``default`` for None, else a whole number >= 1."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidInput(f"{name} must be a whole number >= 1, not {value!r:.40}")
    return value


def _time(value: TimeInput | None, what: str) -> datetime | None:
    return None if value is None else parse_time(value, what=what).at


def _during(during: tuple[TimeInput, TimeInput] | None) -> tuple[datetime, datetime] | None:
    if during is None:
        return None
    if not isinstance(during, (tuple, list)) or len(during) != 2:
        raise InvalidInput("during must be a pair (start, end)")
    start, end = parse_time(during[0], what="during start").at, parse_time(during[1], what="during end").at
    if end <= start:
        raise InvalidInput("during=(start, end) needs end later than start")
    return start, end


def _statuses(statuses: Iterable[str] | None) -> tuple[str, ...]:
    if statuses is None:
        return VISIBLE_STATUSES
    if isinstance(statuses, str):
        statuses = [statuses]
    if not isinstance(statuses, Iterable):
        raise InvalidInput(f"statuses must be a list of statuses, not {type(statuses).__name__}; "
                           f"use some of {STATUSES}")
    chosen = tuple(statuses)
    unknown = [s for s in chosen if s not in STATUSES]
    if unknown or not chosen:
        raise InvalidInput(f"unknown status {unknown or chosen!r}; use some of {STATUSES}")
    return chosen


def _citations(evidence: Sequence[Citation] | Citation | None) -> tuple[Citation, ...]:
    if evidence is None:
        return ()
    items = validate.citation_tuple(evidence)
    for item in items:
        if not isinstance(item, Citation):
            raise InvalidInput(f"evidence must be citations made by cite(); got {type(item).__name__}")
    return items


_DRAFT_FIELDS = frozenset(ClaimDraft._fields)


def _draft_from_mapping(data: Mapping[str, Any]) -> ClaimDraft:
    if type(data) is not dict and not isinstance(data, Mapping):
        raise InvalidInput(f"each claim must be a ClaimDraft or a dict; got {type(data).__name__}")
    if not _DRAFT_FIELDS.issuperset(data):
        unknown = set(data) - _DRAFT_FIELDS
        raise InvalidInput(f"unknown claim field(s) {sorted(unknown, key=str)}; known: {sorted(_DRAFT_FIELDS)}")
    if "subject" not in data or "predicate" not in data:
        raise InvalidInput("each claim needs 'subject' and 'predicate'")
    return ClaimDraft(**data)
