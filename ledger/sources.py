"""Sources and citations: store a document draft, and locate a quote in a stored source."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from functools import partial
from typing import Any

from sqlalchemy import Connection

from ledger import queries, reads, store
from ledger.claims.provenance import Stored, revision_identity
from ledger.entities import check_text, check_utf8_size, quoted
from ledger.errors import InvalidInput, NotFound
from ledger.ingest.base import SourceDraft, content_hash, paragraph_passages
from ledger.locator import build_locator, page_ranges
from ledger.records import Citation, Relation, Retrieval, Source, SourceId, Trust
from ledger.timeline import TimeInput, optional_time
from ledger.validate import MAX_LABEL_LENGTH, MAX_SCOPE_BYTES

MAX_TEXT_CHARS = 100 * 2**20
#: Limits on a caller's source metadata (a URI, a title, an author or publisher name). A source's
#: uri as stored is at most MAX_URI_BYTES of UTF-8: PostgreSQL refuses an index row over 2,704
#: bytes, and ix_sources_scope_uri holds the scope (at most validate.MAX_SCOPE_BYTES, 400) and
#: the uri. 2,048 is the length browsers, search engines and sitemaps have long kept URLs to. A web
#: page's url may be longer as given (MAX_URI_CHARS): it is stored as its document URL, without
#: #fragment and tracking parameters (ingest.base.document_url).
MAX_URI_BYTES = 2048
MAX_URI_CHARS = 8192
MAX_META_CHARS = 2000
SOURCE_KINDS = ("pdf", "web", "text", "conversation")
RELATIONS = ("supports", "contradicts")


def quarantine_scope(scope: str, trust: str) -> str:
    """Untrusted sources live in ``quarantine:<scope>`` until promoted."""
    if trust not in ("trusted", "untrusted"):
        raise InvalidInput(f"trust must be 'trusted' or 'untrusted'; got {trust!r}")
    if trust == "untrusted" and not scope.startswith("quarantine:"):
        quarantined = f"quarantine:{scope}"
        size = len(quarantined.encode("utf-8"))
        if len(quarantined) > MAX_LABEL_LENGTH or size > MAX_SCOPE_BYTES:
            raise InvalidInput(
                f"scope {quoted(scope)} is too long for untrusted sources, which are "
                f"kept in 'quarantine:<scope>': that is {len(quarantined)} characters ({size} bytes of UTF-8), over "
                f"the limit of {MAX_LABEL_LENGTH} characters ({MAX_SCOPE_BYTES} bytes); use a scope at least "
                f"{max(len(quarantined) - MAX_LABEL_LENGTH, size - MAX_SCOPE_BYTES)} characters shorter"
            )
        return quarantined
    return scope


def text_draft(
    text: str, *, kind: str = "text", uri: str | None = None, title: str | None = None,
    author: str | None = None, publisher: str | None = None, published_at: TimeInput | None = None,
    retrieved_at: TimeInput | None = None,
) -> SourceDraft:
    """A draft for a plain-text source; passages are its paragraphs."""
    if not isinstance(text, str):
        raise InvalidInput(f"text must be a string, not {type(text).__name__}")
    if not text.strip():
        raise InvalidInput("the source text is empty; a source needs the text its evidence quotes")
    if "\x00" in text:
        raise InvalidInput("the source text contains NUL bytes; remove them before adding the source")
    if len(text) > MAX_TEXT_CHARS:
        raise InvalidInput(f"the source text has {len(text)} characters; the limit is {MAX_TEXT_CHARS}")
    if kind not in SOURCE_KINDS:
        raise InvalidInput(f"source kind must be one of {SOURCE_KINDS}; got {kind!r}")
    check_metadata(uri=uri, title=title, author=author, publisher=publisher)
    published = optional_time(published_at, what="published_at")
    retrieved = optional_time(retrieved_at, what="retrieved_at")
    return SourceDraft(
        kind=kind,  # type: ignore[arg-type]
        text=text, content_hash=content_hash(utf8(text, what="the source text")), passages=paragraph_passages(text),
        uri=uri, title=title, author=author, publisher=publisher,
        published_at=published.at if published else None, retrieved_at=retrieved.at if retrieved else None,
    )


def check_metadata(**fields: object) -> None:
    """Refuse caller-given source metadata that is not one line of storable text (None passes).

    A ``uri`` is stored as given, so it is held to MAX_URI_BYTES; a ``url`` (of a web page) only to
    MAX_URI_CHARS here: ``check_stored_uri`` checks the document URL it is stored as.
    """
    for name, value in fields.items():
        if value is None:
            continue
        if name == "uri":
            check_stored_uri(check_text(value, what=name))
        else:
            check_text(value, what=name, limit=MAX_URI_CHARS if name == "url" else MAX_META_CHARS)


def check_stored_uri(uri: str, *, what: str = "uri", given: str | None = None) -> str:
    """``uri`` (storable text) unless it is over MAX_URI_BYTES of UTF-8; then InvalidInput. ``given``:
    the URL a web page's uri was made from (its document URL), named in the message instead."""
    if given is None:
        return check_utf8_size(uri, what=what, limit=MAX_URI_BYTES, hint=_SHORTER_URI)
    size = len(uri.encode("utf-8"))
    if size > MAX_URI_BYTES:
        raise InvalidInput(f"{what} {quoted(given, 60)} is stored as its document URL "
                           f"(no #fragment, no tracking parameters), {size} bytes long in UTF-8; the limit is "
                           f"{MAX_URI_BYTES} bytes; {_SHORTER_URI}")
    return uri


_SHORTER_URI = "pass a shorter address of the document (without session or tracking parameters)"


def check_draft(draft: SourceDraft) -> None:
    """Refuse a draft the database cannot store (wrong types, NUL bytes, lone surrogates)."""
    if not isinstance(draft, SourceDraft):
        raise InvalidInput(f"expected a SourceDraft made by an ingester, got {type(draft).__name__}")
    if draft.kind not in SOURCE_KINDS:
        raise InvalidInput(f"source kind must be one of {SOURCE_KINDS}; got {draft.kind!r}")
    for name in ("uri", "title", "author", "publisher"):
        value = getattr(draft, name)
        if value is not None:
            check_text(value, what=f"the source's {name}", one_line=False)
    if draft.uri is not None:
        check_stored_uri(draft.uri, what="the source's uri")
    if not isinstance(draft.text, str):
        raise InvalidInput(f"the source text must be a string, not {type(draft.text).__name__}")
    if draft.kind == "web" and isinstance(draft.metadata.get("url"), str):
        check_text(draft.metadata["url"], what="the source's metadata url", one_line=False)
    if "modified_at" in draft.metadata:
        raise InvalidInput("the draft's metadata has a 'modified_at' key; set SourceDraft.modified_at instead")
    if "\x00" in draft.text:
        raise InvalidInput("the source text contains NUL bytes; remove them before adding the source")
    for name in ("published_at", "modified_at", "retrieved_at"):
        value = getattr(draft, name)
        if value is None:
            continue
        if not isinstance(value, datetime) or value.utcoffset() is None:
            raise InvalidInput(f"the source's {name} must be a timezone-aware datetime or None, not {value!r:.60}")
        try:
            value.astimezone(UTC)
        except OverflowError as exc:
            raise InvalidInput(f"the source's {name} {value.isoformat()} is out of range in UTC") from exc


def check_page(page: int | None) -> None:
    """InvalidInput unless ``page`` is None or a page number from 1."""
    if page is not None and (isinstance(page, bool) or not isinstance(page, int) or page < 1):
        raise InvalidInput(f"page must be a page number from 1, or None; got {page!r:.40}")


def utf8(text: str, *, what: str) -> bytes:
    """``text`` as UTF-8, or InvalidInput naming the lone surrogate that cannot be encoded."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInput(
            f"{what} contains the lone surrogate {text[exc.start]!r} at position {exc.start}, which is not "
            f"valid Unicode; decode the original bytes properly (or with errors='replace')"
        ) from exc


def store_draft(
    connection: Connection, ids: store.Ids, draft: SourceDraft, *, scope: str, trust: Trust, now: datetime,
    actor: str | None = None,
) -> Source:
    """Store a draft unless its bytes are stored already (see :func:`_stored_or_previous`);
    returns its record (``created`` says which). Either way the retrieval is recorded.

    A new source's record is built from the rows just written, as reading them back would give it.
    The write policy (``ledger.policy``) screens the draft first.
    """
    from ledger.policy.apply import screen_source

    draft = screen_source(connection, draft, scope=scope, now=now, ids=ids, actor=actor)
    recorded = now.astimezone(UTC)
    retrieval = Retrieval(retrieved_at=_utc(draft.retrieved_at) or recorded, uri=_given_uri(draft), actor=actor,
                          recorded_at=recorded)
    stored, previous = _stored_or_previous(connection, draft, scope)
    if stored is not None:
        _insert_retrieval(connection, ids, stored, retrieval)
        return reads.source_record(connection, store.source_row(connection, stored), created=False)
    meta: dict[str, Any] = dict(draft.metadata)
    if draft.pages_without_text:
        meta["pages_without_text"] = list(draft.pages_without_text)
    if draft.pages_partly_unreadable:
        meta["pages_partly_unreadable"] = list(draft.pages_partly_unreadable)
    if draft.page_count is not None:
        meta["page_count"] = draft.page_count
    if draft.modified_at is not None:
        meta["modified_at"] = draft.modified_at.isoformat()
    row = {
        "scope": scope, "kind": draft.kind, "uri": draft.uri, "title": draft.title, "author": draft.author,
        "publisher": draft.publisher, "published_at": draft.published_at, "retrieved_at": draft.retrieved_at,
        "content_hash": draft.content_hash,
        "text_hash": hashlib.sha256(utf8(draft.text, what="the source text")).hexdigest(),
        "text": draft.text, "trust": trust, "revision_of": previous,
        "meta": meta or None, "recorded_at": now,
    }
    starts, ends, pages, boxes, paragraphs = zip(*draft.passages) if draft.passages else ((),) * 5
    passage_columns = {
        "char_start": starts, "char_end": ends, "page": pages, "bbox": _bbox_texts(boxes), "paragraph": paragraphs,
    }
    source_id = store.insert_source(connection, ids, row, passage_columns)
    _insert_retrieval(connection, ids, source_id, retrieval)
    if previous is not None:
        located = [{"page": p.page, "bbox": p.bbox, "char_start": p.char_start, "char_end": p.char_end,
                    "paragraph": p.paragraph} for p in draft.passages]
        reanchor_evidence(connection, ids, previous_id=previous, source_id=source_id, text=draft.text,
                          passages=located, now=now)
    # The record of what was just written, as reading it back would give it (times in UTC).
    written = {**row, "id": source_id, "published_at": _utc(draft.published_at),
               "retrieved_at": _utc(draft.retrieved_at), "recorded_at": _utc(now)}
    return reads.source_record(connection, written, created=True, passage_count=len(draft.passages),
                               retrievals=(retrieval,))


def _utc(value: datetime | None) -> datetime | None:
    return None if value is None else value.astimezone(UTC)


def _given_uri(draft: SourceDraft) -> str | None:
    """The URI a draft was read from as given: a web page's URL before it became its document URL."""
    given = draft.metadata.get("url") if draft.kind == "web" else None
    return given if isinstance(given, str) else draft.uri


def _insert_retrieval(connection: Connection, ids: store.Ids, source_id: int, retrieval: Retrieval) -> None:
    store.insert_retrieval(connection, ids, source_id, retrieved_at=retrieval.retrieved_at, uri=retrieval.uri,
                           actor=retrieval.actor, now=retrieval.recorded_at)


def _stored_or_previous(connection: Connection, draft: SourceDraft, scope: str) -> tuple[int | None, int | None]:
    """(the source these bytes are stored as, or else the revision a new source follows): load,
    then ``rules.revision_identity`` decides."""
    found = [Stored(*row) for row in store.sources_by_hash_or_uri(connection, scope, draft.content_hash,
                                                                    draft.uri or None)]
    return revision_identity(found, content_hash=draft.content_hash, uri=draft.uri or None,
                             retrieved_at=draft.retrieved_at)


def reanchor_evidence(
    connection: Connection, ids: store.Ids, *, previous_id: int, source_id: int, text: str,
    passages: Sequence[Mapping[Any, Any]], now: datetime,
) -> None:
    """Carry the evidence of earlier revisions (``queries/evidence_to_carry.sql``) into a new one,
    or flag it stale.

    Each evidence row is looked for by position, then by its exact quote, then by a fuzzy
    match guided by its prefix and suffix; the method and score are recorded on the new row,
    which points back at the old one. Evidence whose quote is gone gets ``stale_at``; evidence
    flagged stale before whose quote is back as written (position or quote, not fuzzy) is
    carried like any other.
    """
    from ledger.text.matchtext import MatchText  # the matcher loads on first use
    from ledger.text.reanchor import changes_meaning, reanchor

    rows = queries.run(connection, "evidence_to_carry", source_id=previous_id).mappings().all()
    if not rows:
        return
    prepared = MatchText(text)
    # The texts the quotes were found in (a near match they held already is another passage),
    # read and prepared only when a fuzzy search needs one.
    old_texts: dict[int, MatchText] = {}

    def old_text(cited_in: int) -> MatchText:
        if cited_in not in old_texts:
            old_texts[cited_in] = MatchText(store.source_texts(connection, [cited_in])[cited_in])
        return old_texts[cited_in]

    moved: list[dict[str, Any]] = []
    stale: list[int] = []
    for row in rows:
        quote: dict[str, Any] = next(
            (s for s in row["locator"].get("selectors", ()) if s.get("type") == "TextQuoteSelector"), {})
        # A quote flagged stale counts again only as written: an approximate search for every
        # quote a page ever lost, in every later revision, would grow without end.
        anchor = reanchor(prepared, exact=row["excerpt"], start=row["char_start"], end=row["char_end"],
                          prefix=quote.get("prefix", ""), suffix=quote.get("suffix", ""),
                          fuzzy=row["stale_at"] is None, old_text=partial(old_text, row["source_id"]))
        if anchor is None or (anchor.method == "fuzzy" and changes_meaning(row["excerpt"], text[anchor.start:anchor.end])):
            # Gone, or only a near match that changed a number or a negation: "10 euros" is not
            # "19 euros", "is safe" is not "is not safe".
            if row["stale_at"] is None:  # flagged once, when it went
                stale.append(row["id"])
            continue
        locator, page = build_locator(text, anchor.start, anchor.end, passages)
        moved.append({
            "id": ids.take(store.evidence), "claim_id": row["claim_id"], "source_id": source_id,
            "relation": row["relation"], "excerpt": text[anchor.start:anchor.end], "char_start": anchor.start,
            "char_end": anchor.end, "page": page, "locator": locator, "anchor_method": anchor.method,
            "anchor_score": anchor.score, "reanchored_from": row["id"], "stale_at": None, "recorded_at": now,
            "actor": "ledger:reanchor",
        })
    store.insert_rows(connection, store.evidence, moved)
    store.mark_stale(connection, stale, now)


def _bbox_texts(boxes: Sequence[tuple[float, float, float, float] | None]) -> store.JsonTexts:
    """Passage bboxes as JSON arrays (None stays None).

    Ten thousand lines per book: C-level formatting instead of a json.dumps round trip each.
    """
    if not all(boxes):  # some passage has no box (None, or an empty one)
        return store.JsonTexts(_bbox_texts([box])[0] if box else None for box in boxes)
    try:
        texts: list[str] = list(map(_BBOX.__mod__, boxes))
    except TypeError as exc:
        raise InvalidInput(f"a passage bbox must be four numbers (x0, y0, x1, y1) or None: {exc}") from exc
    if "n" in "".join(texts):  # "nan" or "inf" are not JSON: such a box is left out
        return store.JsonTexts(None if "n" in text else text for text in texts)
    return store.JsonTexts(texts)


_BBOX = "[%.2f,%.2f,%.2f,%.2f]"


def cite(
    connection: Connection, source_id: SourceId, quote: str, *, relation: Relation, prefix: str | None,
    suffix: str | None, page: int | None, scope: str | None,
) -> Citation:
    """Locate ``quote`` in a stored source and return a citation with its W3C locator."""
    from ledger.text.quotes import (
        locate_quote,  # the matcher's tables load on first use
    )

    if relation not in RELATIONS:
        raise InvalidInput(f"relation must be 'supports' or 'contradicts'; got {relation!r}")
    check_text(quote, what="quote", one_line=False)
    for name, context in (("prefix", prefix), ("suffix", suffix)):
        if context is not None:
            check_text(context, what=name, one_line=False)
    check_page(page)
    row = store.source_row(connection, source_id)
    if scope is not None and row["scope"] != scope:
        raise NotFound(f"source {source_id} does not exist in scope {scope!r}")
    passages = store.source_passages(connection, source_id)
    within = None
    if page is not None:
        within = page_ranges(passages, page)
        if not within:
            raise InvalidInput(f"source {source_id} has no page {page}")
    # A passage may begin or end inside a word the ingester joined across a line break.
    breaks = {p["char_start"] for p in passages} | {p["char_end"] for p in passages}
    anchor = locate_quote(row["text"], quote, prefix=prefix, suffix=suffix, within=within, breaks=breaks)
    locator, found_page = build_locator(row["text"], anchor.start, anchor.end, passages)
    return Citation(
        source_id=SourceId(row["id"]), scope=row["scope"], relation=relation,
        excerpt=row["text"][anchor.start:anchor.end], char_start=anchor.start, char_end=anchor.end,
        locator=locator, page=found_page, occurrences=anchor.occurrences,
    )
