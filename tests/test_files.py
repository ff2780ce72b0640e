"""Documents given as files: ``ingest_html`` takes a path as ``ingest_pdf`` does, ``ingest_file``
tells the two apart, and what the command line reads about a ledger is public."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from ledger import IngestError, InvalidInput, Ledger
from ledger.cli.ingest import DOCUMENT_SUFFIXES
from ledger.files import SUFFIXES

from .conftest import FIXTURES, table_dump

ARTICLE = FIXTURES / "html" / "article.html"
PAPER = FIXTURES / "pdf" / "two-column.pdf"


def _same_document(a: Ledger, first: int, b: Ledger, second: int) -> None:
    one, other = a.source(first), b.source(second)
    assert (one.text, one.kind, one.title, one.content_hash) == \
           (other.text, other.kind, other.title, other.content_hash)
    assert [(p.char_start, p.char_end, p.page) for p in a.passages(first)] == \
           [(p.char_start, p.char_end, p.page) for p in b.passages(second)]


def test_ingest_html_reads_a_path_as_its_bytes_under_its_file_uri(ledger: Ledger,
                                                                  make_db_url: Callable[[], str]) -> None:
    from_path = ledger.ingest_html(ARTICLE)
    assert from_path.created and from_path.uri == ARTICLE.resolve().as_uri()
    assert ledger.ingest_html(ARTICLE.read_bytes(), url=ARTICLE.resolve().as_uri()).id == from_path.id
    with Ledger.open(make_db_url()) as other:
        elsewhere = other.ingest_html(ARTICLE, url="https://example.org/article")
        assert elsewhere.uri == "https://example.org/article"
        _same_document(ledger, from_path.id, other, elsewhere.id)


def test_a_str_is_html_never_a_path(ledger: Ledger) -> None:
    with pytest.raises(IngestError, match="HTML"):
        ledger.ingest_html(str(ARTICLE), url="https://example.org/a")
    with pytest.raises(InvalidInput, match="url is required for a page given as text or bytes"):
        ledger.ingest_html(ARTICLE.read_text(encoding="utf-8"))
    with pytest.raises(IngestError, match=r"^ingest_html takes the page's bytes, its HTML as str or a file's Path, "
                                          "not int$"):
        ledger.ingest_html(5, url="https://example.org/a")  # type: ignore[arg-type]


def test_a_large_file_is_refused(ledger: Ledger, db_url: str) -> None:
    before = table_dump(db_url)
    with pytest.raises(IngestError, match="over the limit of 1,000 bytes"):
        ledger.ingest_html(ARTICLE, max_bytes=1000)
    assert table_dump(db_url) == before


def test_ingest_file_reads_by_name_else_by_first_bytes(ledger: Ledger, tmp_path: Path) -> None:
    pdf, html = ledger.ingest_file(PAPER), ledger.ingest_file(str(ARTICLE))
    assert (pdf.kind, pdf.page_count) == (ledger.ingest_pdf(PAPER).kind, ledger.ingest_pdf(PAPER).page_count)
    assert html.id == ledger.ingest_html(ARTICLE).id
    (tmp_path / "paper.bin").write_bytes(PAPER.read_bytes())
    (tmp_path / "page.download").write_bytes(ARTICLE.read_bytes())
    assert ledger.ingest_file(tmp_path / "paper.bin").id == pdf.id  # same bytes, same source
    assert ledger.ingest_file(tmp_path / "page.download").text == html.text


def test_ingest_file_refuses_what_is_neither(ledger: Ledger, db_url: str, tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("Plain notes, not a document.", encoding="utf-8")
    before = table_dump(db_url)
    with pytest.raises(IngestError, match="neither a PDF nor an HTML page"):
        ledger.ingest_file(notes)
    with pytest.raises(IngestError, match="cannot read"):
        ledger.ingest_file(tmp_path / "missing")
    with pytest.raises(IngestError, match="no such file"):
        ledger.ingest_file(tmp_path / "missing.pdf")
    with pytest.raises(IngestError, match="takes a file path, not bytes"):
        ledger.ingest_file(PAPER.read_bytes())  # type: ignore[arg-type]
    assert table_dump(db_url) == before


def test_a_folder_is_searched_for_what_ingest_file_reads_by_name() -> None:
    assert set(DOCUMENT_SUFFIXES) == set(SUFFIXES)


# ---------------------------------------------------------------- what the command line reads about a ledger


def test_location_names_the_database_as_messages_do(tmp_path: Path) -> None:
    with Ledger.open(tmp_path / "research.db") as ledger:
        assert ledger.location == str(tmp_path / "research.db")
    with Ledger.open(":memory:") as ledger:
        assert ledger.location == "the in-memory database"


def test_rows_besides_counts_what_others_wrote_in_every_scope(ledger: Ledger) -> None:
    besides = {"actor": "demo", "source_uri": "demo:notes", "entity": "home"}
    assert ledger.rows_besides(**besides) == {}
    notes = ledger.add_source(text="The bill for home is PLN 245. The car is red.", uri="demo:notes")
    ledger.assert_claim("home", "bill", value="PLN 245", evidence=[ledger.cite(notes, "PLN 245")], actor="demo")
    assert ledger.rows_besides(**besides) == {}
    ledger.add_source(text="The car is red.", uri="demo:notes", scope="family")
    ledger.assert_claim("car", "colour", value="red", evidence=[ledger.cite(notes, "red")], actor="me")
    assert ledger.rows_besides(**besides) == {"sources": 1, "entities": 1, "aliases": 1, "claims": 1,
                                              "claim versions": 1}
    with pytest.raises(InvalidInput, match="actor must be a string"):
        ledger.rows_besides(actor=None, source_uri="x", entity="y")  # type: ignore[arg-type]


def test_restore_without_a_path_restores_to_the_default_ledger(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    with Ledger.open(tmp_path / "live.db") as ledger:
        ledger.add_source(text="Kept.")
        backup = ledger.backup(tmp_path / "copy.db")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("LEDGER_URL", raising=False)
    assert Ledger.restore(backup) == tmp_path / "ledger.db"
    with pytest.raises(InvalidInput, match="already exists"):
        Ledger.restore(backup)
    monkeypatch.setenv("LEDGER_URL", str(tmp_path / "named.db"))
    assert Ledger.restore(backup) == tmp_path / "named.db"
    monkeypatch.setenv("LEDGER_URL", f"sqlite:///{tmp_path / 'by-url.db'}")
    assert Ledger.restore(backup) == tmp_path / "by-url.db"
    monkeypatch.setenv("LEDGER_URL", "postgresql://someone:secret@db.example/ledger")
    with pytest.raises(InvalidInput, match=r"LEDGER_URL names postgresql\+psycopg://someone:\*\*\*@db.example/ledger, "
                                           "not a SQLite file"):
        Ledger.restore(backup)
    monkeypatch.setenv("LEDGER_URL", str(tmp_path / "named.db"))
    with Ledger.open(create=False) as restored:
        assert restored.source(1).text == "Kept."
