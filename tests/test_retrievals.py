"""Every store of a source records a retrieval: the same bytes again keep their date, URI as given and actor."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import inspect

from ledger import IngestError, InvalidInput, Ledger, NeedsOCR, Retrieval
from ledger.db import make_engine, resolve_url
from ledger.ingest.html import read_html
from ledger.migrate import alembic_config

from .conftest import table_dump

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
HTML = FIXTURES / "html"
PDF = FIXTURES / "pdf"
ARTICLE_URL = "https://marrowby.example/news/tidal-barrier"
NOTICE = "The ferry to Marrowby leaves at 7:40 on weekdays."


def at(day: str) -> datetime:
    return datetime.fromisoformat(day).replace(tzinfo=UTC)


def test_the_same_bytes_again_keep_their_retrieval_date_on_the_same_source(ledger: Ledger, clock) -> None:
    first = ledger.add_source(text=NOTICE, uri="https://port.example/ferry", retrieved_at="2025-11-03")
    stored_at = clock.now
    clock.tick(days=1)
    again = ledger.add_source(text=NOTICE, uri="https://port.example/ferry", retrieved_at="2026-01-02",
                              actor="crawler-7")
    assert again.id == first.id and not again.created
    assert again.retrievals == (
        Retrieval(retrieved_at=at("2025-11-03"), uri="https://port.example/ferry", actor=None, recorded_at=stored_at),
        Retrieval(retrieved_at=at("2026-01-02"), uri="https://port.example/ferry", actor="crawler-7",
                  recorded_at=clock.now),
    )
    assert again.last_retrieved_at == at("2026-01-02")
    assert again.retrieved_at == at("2025-11-03")  # the source's own date stays that of its first retrieval
    assert ledger.source(first.id).retrievals == again.retrievals


def test_retrievals_are_listed_by_when_they_were_retrieved_not_when_they_were_recorded(ledger: Ledger, clock) -> None:
    ledger.add_source(text=NOTICE, retrieved_at="2025-12-01")
    clock.tick()
    older = ledger.add_source(text=NOTICE, retrieved_at="2025-06-01")  # an older copy, added later
    assert [r.retrieved_at for r in older.retrievals] == [at("2025-06-01"), at("2025-12-01")]
    assert older.last_retrieved_at == at("2025-12-01")


def test_a_retrieval_without_a_date_is_dated_when_the_ledger_stored_it(ledger: Ledger, clock) -> None:
    source = ledger.add_source(text=NOTICE)
    [retrieval] = source.retrievals
    assert source.retrieved_at is None
    assert retrieval.retrieved_at == retrieval.recorded_at == clock.now and retrieval.uri is None
    clock.tick(hours=5)
    assert ledger.add_source(text=NOTICE).last_retrieved_at == clock.now


def test_a_web_page_retrieval_keeps_the_url_as_given(ledger: Ledger, clock) -> None:
    page = (HTML / "article.html").read_bytes()
    first = ledger.ingest_html(page, url=ARTICLE_URL)
    clock.tick(days=2)
    shared = f"{ARTICLE_URL}?utm_source=newsletter&utm_medium=email#comments"
    again = ledger.ingest_html(page, url=shared, retrieved_at="2026-01-03T08:00:00Z")
    assert again.id == first.id and again.uri == ARTICLE_URL
    assert [(r.uri, r.retrieved_at) for r in again.retrievals] == [
        (ARTICLE_URL, at("2026-01-01")), (shared, at("2026-01-03T08:00:00"))]


def test_a_revision_gets_its_own_retrieval(ledger: Ledger, clock) -> None:
    original = ledger.ingest_html((HTML / "article.html").read_bytes(), url=ARTICLE_URL, retrieved_at="2026-01-01")
    clock.tick(days=3)
    revised = ledger.ingest_html((HTML / "article-revised.html").read_bytes(), url=ARTICLE_URL,
                                 retrieved_at="2026-01-04")
    assert revised.created and revised.revision_of == original.id
    assert [r.retrieved_at for r in revised.retrievals] == [at("2026-01-04")]
    assert [r.retrieved_at for r in ledger.source(original.id).retrievals] == [at("2026-01-01")]


def test_explain_lists_the_retrievals_of_each_source(ledger: Ledger, clock) -> None:
    source = ledger.add_source(text=NOTICE, uri="https://port.example/ferry", retrieved_at="2025-11-03")
    claim = ledger.assert_claim("Marrowby ferry", "departs at", value="7:40",
                                evidence=[ledger.cite(source, "leaves at 7:40 on weekdays")])
    clock.tick()
    ledger.add_source(text=NOTICE, uri="https://port.example/ferry", retrieved_at="2025-12-24")
    [trail] = ledger.explain(claim).evidence
    assert [r.retrieved_at for r in trail.source.retrievals] == [at("2025-11-03"), at("2025-12-24")]
    assert trail.source.last_retrieved_at == at("2025-12-24")


def test_a_refused_ingest_records_no_retrieval(ledger: Ledger, db_url: str) -> None:
    page = (HTML / "article.html").read_bytes()
    ledger.ingest_html(page, url=ARTICLE_URL)
    before = table_dump(db_url)
    with pytest.raises(IngestError):
        ledger.ingest_html(page, url=ARTICLE_URL, max_bytes=1000)
    with pytest.raises(IngestError):
        ledger.ingest_pdf(b"%PDF-1.7 not really a PDF")
    with pytest.raises(InvalidInput, match="actor"):
        ledger.add_source(text=NOTICE, actor="two\nlines")
    draft = read_html(page, url=ARTICLE_URL)
    with pytest.raises(InvalidInput, match="metadata url"):  # the URL as given is stored with the retrieval
        ledger.add_draft(dataclasses.replace(draft, metadata={**draft.metadata, "url": f"{ARTICLE_URL}\x00"}))
    assert table_dump(db_url) == before


def test_a_pdf_that_needs_ocr_is_refused_and_records_no_retrieval(ledger: Ledger, clock) -> None:
    with pytest.raises(NeedsOCR):
        ledger.ingest_pdf(PDF / "image-only.pdf")
    clock.tick()
    mixed = ledger.ingest_pdf(PDF / "mixed-ocr.pdf")  # some pages have text: stored, with one retrieval
    assert mixed.id == 1 and len(ledger.source(mixed).retrievals) == 1


def test_the_upgrade_gives_each_existing_source_its_first_retrieval(db_url: str, clock) -> None:
    shared = f"{ARTICLE_URL}?utm_campaign=spring"
    with Ledger.open(db_url, clock=clock) as ledger:
        dated = ledger.add_source(text=NOTICE, uri="https://port.example/ferry", retrieved_at="2025-11-03")
        clock.tick()
        undated = ledger.add_source(text="The pier opens at 8.")
        clock.tick()
        page = ledger.ingest_html((HTML / "article.html").read_bytes(), url=shared, retrieved_at="2025-12-30")
    engine = make_engine(resolve_url(db_url))
    with engine.connect() as connection, connection.begin():
        command.downgrade(alembic_config(connection), "0005")
    with engine.connect() as connection:
        assert "source_retrievals" not in inspect(connection).get_table_names()
    engine.dispose()
    clock.tick()
    with Ledger.open(db_url, clock=clock) as ledger:  # opening upgrades to the newest schema
        assert ledger.source(dated.id).retrievals == (
            Retrieval(at("2025-11-03"), "https://port.example/ferry", None, dated.recorded_at),)
        assert ledger.source(undated.id).retrievals == (
            Retrieval(undated.recorded_at, None, None, undated.recorded_at),)
        assert ledger.source(page.id).uri == ARTICLE_URL
        assert ledger.source(page.id).retrievals == (Retrieval(at("2025-12-30"), shared, None, page.recorded_at),)
        again = ledger.add_source(text=NOTICE, uri="https://port.example/ferry", retrieved_at="2026-01-01")
        assert [r.retrieved_at for r in again.retrievals] == [at("2025-11-03"), at("2026-01-01")]
        assert ledger.check().ok
