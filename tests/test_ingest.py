"""Documents through the ledger: ingest, cite with locators, revisions and re-anchoring, bad input."""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from ledger import FetchError, IngestError, InvalidInput, Ledger, NeedsOCR, NotFound, QuoteNotFound, Source
from ledger.ingest.base import PassageDraft, SourceDraft, content_hash
from ledger.ingest.html import read_html

PDF = Path(__file__).resolve().parents[1] / "fixtures" / "pdf"
HTML = Path(__file__).resolve().parents[1] / "fixtures" / "html"
ARTICLE_URL = "https://marrowby.example/news/tidal-barrier"

from .conftest import table_dump


def test_a_turned_page_is_read_as_shown_and_located_in_pymupdfs_coordinates(ledger: Ledger) -> None:
    import pymupdf

    source = ledger.ingest_pdf(PDF / "landscape.pdf")
    citation = ledger.cite(source, "and a word bro-\nken at the end of a line is joined again")
    assert citation.excerpt == "and a word broken at the end of a line is joined again"
    with pymupdf.open(PDF / "landscape.pdf") as doc:
        assert doc[0].rotation == 90
        [word] = doc[0].search_for("joined")
    x0, y0, x1, y1 = citation.locator["bbox"]
    assert x0 <= word.x0 and y0 <= word.y0 and word.x1 <= x1 and word.y1 <= y1


def test_page_narrows_a_quote_to_that_page_even_across_its_lines(ledger: Ledger) -> None:
    source = ledger.ingest_pdf(PDF / "multi-page.pdf")
    two_lines = "seventeen barrels of salt.\nA clerk copies the tally"
    citation = ledger.cite(source, two_lines, page=2)
    assert citation.page == 2 and citation.excerpt == "seventeen barrels of salt.\n\nA clerk copies the tally"
    with pytest.raises(QuoteNotFound, match="outside"):
        ledger.cite(source, two_lines, page=3)
    with pytest.raises(QuoteNotFound):  # the page break is not inside any one page
        ledger.cite(source, "with a note about", page=3)
    across = ledger.cite(source, "finished.\n\nPage four closes")
    assert across.page == 3  # a quote over a page break starts on its first page
    with pytest.raises(QuoteNotFound):
        ledger.cite(source, "finished.\n\nPage four closes", page=3)


def test_a_quote_across_a_hyphen_break_a_ligature_and_curly_quotes_is_found_with_page_and_bbox(ledger: Ledger) -> None:
    source = ledger.ingest_pdf(PDF / "typography.pdf")
    assert source.kind == "pdf" and source.passage_count > 0
    # As copied from a rendered PDF: the break hyphen kept, ligature glyphs, straight quotes.
    quote = "reviewed the hyphen-\nated records"
    citation = ledger.cite(source, quote)
    assert citation.excerpt == "reviewed the hyphenated records"
    assert citation.page == 1 and citation.locator["page"] == 1
    assert ledger.cite(source, "the ﬁnal ﬂight").excerpt == "the final flight"
    curly = ledger.cite(source, "'single' and \"double\" marks")
    assert curly.excerpt == "‘single’ and “double” marks"
    x0, y0, x1, y1 = citation.locator["bbox"]
    assert x0 < x1 and y0 < y1
    fragment = next(s for s in citation.locator["selectors"] if s["type"] == "FragmentSelector")
    assert fragment["value"].startswith("page=1&viewrect=")
    claim = ledger.assert_claim("committee", "reviewed", value="hyphenated records", evidence=[citation])
    trail = ledger.explain(claim).evidence[0]
    assert trail.evidence.page == 1 and trail.evidence.locator["bbox"] == [x0, y0, x1, y1]
    assert trail.source.text[citation.char_start:citation.char_end] == citation.excerpt


def test_the_bbox_contains_the_quoted_words(ledger: Ledger) -> None:
    import pymupdf

    source = ledger.ingest_pdf(PDF / "multi-page.pdf")
    passages_text = source.text
    # A quote from the second page: restrict the search to that page and check the box.
    second_page = [line for line in passages_text.split("\n") if line.strip()][-1]
    citation = ledger.cite(source, second_page[:40])
    with pymupdf.open(PDF / "multi-page.pdf") as document:
        page = document[citation.page - 1]  # type: ignore[operator]
        hits = page.search_for(second_page[:20])
    bx0, by0, bx1, by1 = citation.locator["bbox"]
    assert any(bx0 - 1 <= r.x0 and by0 - 1 <= r.y0 and r.x1 <= bx1 + 1 and r.y1 <= by1 + 1 for r in hits)


def test_same_bytes_return_the_same_source(ledger: Ledger) -> None:
    first = ledger.ingest_pdf(PDF / "two-column.pdf")
    again = ledger.ingest_pdf((PDF / "two-column.pdf").read_bytes())
    assert again.id == first.id and not again.created


def test_a_revised_page_keeps_its_evidence_anchored_or_reports_it_stale(ledger: Ledger, clock) -> None:
    original = ledger.ingest_html((HTML / "article.html").read_bytes(), url=ARTICLE_URL)
    cite = lambda quote: ledger.cite(original, quote)  # noqa: E731
    moved = ledger.assert_claim("River Quell", "floods 2014-2023", value=4,
                                evidence=[cite("burst its banks four times between 2014 and 2023")])
    changed = ledger.assert_claim("tidal barrier", "construction time", value="three years",
                                  evidence=[cite("Construction is due to begin in September 2025 and should take three years")])
    deleted = ledger.assert_claim("Margaret Oduya", "lives on", "Ferry Lane",
                                  evidence=[cite("Margaret Oduya, who has lived there since 1987")])
    clock.tick(days=3)
    revised = ledger.ingest_html((HTML / "article-revised.html").read_bytes(), url=ARTICLE_URL)
    assert revised.revision_of == original.id

    def newest(claim_id: int) -> tuple[str, float, str]:
        trails = [t for t in ledger.explain(claim_id).evidence if t.source.id == revised.id]
        assert len(trails) <= 1
        if not trails:
            return ("", 0.0, "")
        e = trails[0].evidence
        assert trails[0].source.text[e.locator["selectors"][1]["start"]:e.locator["selectors"][1]["end"]] == e.excerpt
        return e.anchor_method, e.anchor_score, e.excerpt

    method, score, excerpt = newest(moved.id)
    assert method in ("quote", "exact", "normalized") and score == 1.0
    assert excerpt == "burst its banks four times between 2014 and 2023"
    method, score, excerpt = newest(changed.id)
    assert method == "fuzzy" and 0.85 <= score < 1.0 and "four years" in excerpt
    assert newest(deleted.id) == ("", 0.0, "")
    stale = ledger.stale_evidence()
    assert [(s.claim_id, s.claim_supported, s.newer_source_id) for s in stale] == [(deleted.id, False, revised.id)]


SCANNED = [PDF / "image-only.pdf", PDF.parents[2] / "shared" / "realworld" / "pdf" / "scanned-image-only-two-column.pdf"]


@pytest.mark.parametrize("scan", SCANNED, ids=[path.name for path in SCANNED])
def test_a_pdf_with_no_text_layer_is_refused_before_anything_is_written(ledger: Ledger, scan: Path) -> None:
    """Nothing of a scan can be cited, so nothing of it is stored: the error says to OCR it."""
    if not scan.is_file():
        pytest.skip(f"{scan} is absent: the real-world PDFs are read from the shared checkout")
    first = ledger.ingest_pdf(PDF / "two-column.pdf")
    before = table_dump(ledger.url)
    for attempt in (scan, scan.read_bytes()):  # the same again: refused again, not "already stored"
        with pytest.raises(NeedsOCR, match="no readable text layer on any page.*nothing was stored.*ocrmypdf") as caught:
            ledger.ingest_pdf(attempt)
        assert caught.value.pages == tuple(range(1, len(caught.value.pages) + 1)) and caught.value.pages
        assert table_dump(ledger.url) == before
    with pytest.raises(NotFound):
        ledger.source(first.id + 1)  # no id was taken either
    assert ledger.ingest_pdf(PDF / "multi-page.pdf").id == first.id + 1


def test_a_pdf_with_some_pages_without_text_is_stored_and_lists_them(ledger: Ledger) -> None:
    mixed = ledger.ingest_pdf(PDF / "mixed-ocr.pdf")
    assert mixed.created and mixed.pages_without_text == (2,)
    assert ledger.source(mixed.id).pages_without_text == (2,)  # stored and read back
    assert {passage.page for passage in ledger.passages(mixed)} == {1}


def test_pages_of_glyphs_without_unicode_mapping_ask_for_ocr(ledger: Ledger) -> None:
    """A font embedded without its ToUnicode map reads as U+FFFD: such a page is not text."""
    import pymupdf

    source = ledger.ingest_pdf(PDF / "unmapped-glyphs.pdf")
    assert source.pages_without_text == (2,)
    assert "set in a font that maps" in source.text
    assert "The third page reads fine" in source.text  # an unreadable line does not make a page unreadable
    assert source.pages_partly_unreadable == (3,) and "\ufffd" not in source.text  # the formula's line left out
    assert ledger.source(source.id).pages_partly_unreadable == (3,)  # stored and read back
    with pymupdf.open(PDF / "unmapped-glyphs.pdf") as doc:
        doc.select([1])  # the unreadable page alone
        only = doc.tobytes()
    with pytest.raises(NeedsOCR, match="no readable text layer on any page \\(1\\)") as caught:
        ledger.ingest_pdf(only, uri="https://x.example/unmapped.pdf")
    assert caught.value.pages == (1,)


def test_unmapped_glyphs_of_a_simple_font_are_read_by_their_codes(ledger: Ledger) -> None:
    """A simple TrueType font without ToUnicode map or glyph names, in Windows-1252 codes: its
    codes are its characters. Codes that /Differences renamed are not: that line is left out."""
    source = ledger.ingest_pdf(PDF / "coded-glyphs.pdf")
    assert "The harbour café “opens” at noon, said the board." in source.text
    assert "Renamed codes" not in source.text and "\ufffd" not in source.text
    assert (source.pages_without_text, source.pages_partly_unreadable) == ((), (2,))
    ledger.cite(source.id, "café “opens” at noon")



@pytest.mark.parametrize(("header", "copies", "kept"), [
    ("The harbour board met on Tuesday to discuss the quay.", 2, True),
    ("Page 7", 12, False),
])
def test_a_page_that_would_keep_a_running_head_alone_needs_ocr(header: str, copies: int, kept: bool) -> None:
    """Lines in a broken font are left out; a page left with less than a tenth of its characters
    (a running head over text only OCR can read) has no text layer to speak of."""
    import pymupdf

    from ledger.ingest.pdf import read_pdf

    with pymupdf.open(PDF / "coded-glyphs.pdf") as source, pymupdf.open() as doc:
        broken = source[1]  # a line in Times, then a line whose codes /Differences renamed
        readable = next(pymupdf.Rect(line["bbox"]) for block in broken.get_text("dict")["blocks"]
                        for line in block.get("lines", []) if "\ufffd" not in line["spans"][0]["text"])
        broken.add_redact_annot(readable)
        broken.apply_redactions()
        page = doc.new_page()
        page.insert_text((72, 40), header, fontname="helv", fontsize=11)
        for copy in range(copies):
            page.show_pdf_page(page.rect + (0, 40 + 50 * copy, 0, 40 + 50 * copy), source, 1)
        draft = read_pdf(doc.tobytes())
    if kept:
        assert (draft.text, draft.pages_partly_unreadable, draft.pages_without_text) == (header, (1,), ())
    else:
        assert (draft.text, draft.pages_partly_unreadable, draft.pages_without_text) == ("", (), (1,))


@pytest.mark.parametrize("base_font", ["/ABCDEF+CodedSansWithAVeryLongFamilyName-BoldItalic", "/ABCDEF+Wingdings-Regular"])
def test_codes_are_read_whatever_the_fonts_name_length_but_never_a_pi_fonts(base_font: str) -> None:
    """mupdf keeps 31 characters of a font's name: a longer subset name is still matched. A
    symbol font's codes stand for bullets and arrows ("l" is a bullet in Wingdings): never read."""
    import pymupdf

    from ledger.ingest.pdf import read_pdf

    with pymupdf.open(PDF / "coded-glyphs.pdf") as doc:
        for xref, *_ in doc[0].get_fonts(full=True):
            doc.xref_set_key(xref, "BaseFont", base_font)
        draft = read_pdf(doc.tobytes())
    if "Wingdings" in base_font:
        assert "harbour" not in draft.text and 1 in draft.pages_without_text
    else:
        assert "The harbour café “opens” at noon, said the board." in draft.text


def test_a_rule_drawn_in_box_characters_is_text() -> None:
    """"─" is "%" with its bytes swapped, but a line of them is a rule, not a broken font."""
    import pymupdf

    from ledger.ingest.pdf import read_pdf

    with pymupdf.open() as doc:
        page = doc.new_page()
        page.insert_font(fontname="F0", fontbuffer=pymupdf.Font("cjk").buffer)
        for y, line in ((72, "Quarterly results of the harbour survey."), (90, "─" * 20), (108, "Total cargo: 42,000 t.")):
            page.insert_text((72, y), line, fontname="F0", fontsize=11)
        draft = read_pdf(doc.tobytes())
    assert "─" * 20 in draft.text and draft.pages_partly_unreadable == ()


@pytest.mark.parametrize(("name", "password", "message"), [
    ("empty.pdf", None, "empty"),
    ("not-a-pdf.pdf", None, "not a PDF"),
    ("truncated.pdf", None, "damaged|truncated|corrupt"),
    ("encrypted.pdf", None, "password"),
    ("encrypted.pdf", "wrong", "password"),
    ("huge-page-count.pdf", None, "pages"),
    ("missing.pdf", None, "missing.pdf"),
])
def test_bad_pdfs_are_refused_and_write_nothing(ledger: Ledger, name: str, password: str | None, message: str) -> None:
    before = table_dump(ledger.url)
    with pytest.raises(IngestError, match=message):
        ledger.ingest_pdf(PDF / name, password=password)
    assert table_dump(ledger.url) == before


def test_an_encrypted_pdf_opens_with_its_password(ledger: Ledger) -> None:
    assert ledger.ingest_pdf(PDF / "encrypted.pdf", password="open-sesame").passage_count > 0


def test_html_without_main_text_is_refused_and_writes_nothing(ledger: Ledger) -> None:
    before = table_dump(ledger.url)
    with pytest.raises(IngestError, match="no main text"):
        ledger.ingest_html((HTML / "no-main-content.html").read_bytes(), url="https://x.example/login")
    assert table_dump(ledger.url) == before


# An article followed by 21 MiB of comment: over read_html's own 20 MiB default.
LONG_PAGE = (HTML / "article.html").read_bytes() + b"<!-- " + b"x" * (21 * 2**20) + b" -->"


class _Pages(BaseHTTPRequestHandler):
    asked: list[str] = []  # noqa: RUF012  (every path requested, in order)

    def do_GET(self) -> None:  # noqa: N802  (http.server's name)
        self.asked.append(self.path)
        routes = {"/article": ("text/html; charset=utf-8", (HTML / "article.html").read_bytes()),
                  "/paper.pdf": ("application/pdf", (PDF / "multi-page.pdf").read_bytes()),
                  "/archive.zip": ("application/zip", b"PK\x03\x04"),
                  "/long-page": ("text/html; charset=utf-8", LONG_PAGE)}
        if self.path == "/loop":
            self.send_response(302)
            self.send_header("Location", "/loop")
            self.end_headers()
            return
        redirects = {"/to-a-space": "/a b" + "z" * 3000, "/to-spaced": "/spaced page",
                     "/to-utf8": "/caf\u00c3\u00a9"}  # (sent as ISO-8859-1: the bytes of UTF-8 "café")
        if self.path in redirects:
            self.send_response(302)
            self.send_header("Location", redirects[self.path])
            self.end_headers()
            return
        if self.path in ("/spaced%20page", "/caf%C3%A9"):
            self.path = "/article"
        if self.path not in routes:
            self.send_error(404)
            return
        kind, body = routes[self.path]
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Pages)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_ingest_url_takes_html_and_pdf_and_refuses_the_rest(ledger: Ledger, server: str) -> None:
    page = ledger.ingest_url(f"{server}/article", allow_private=True)
    assert page.kind == "web" and "tidal barrier" in page.text
    paper = ledger.ingest_url(f"{server}/paper.pdf", allow_private=True)
    assert paper.kind == "pdf" and page.retrieved_at is not None and paper.retrieved_at is not None
    assert abs(paper.retrieved_at - datetime.now(UTC)) < timedelta(minutes=5)  # when it was downloaded
    before = table_dump(ledger.url)
    # a document ledger does not read is an IngestError; bytes that could not be had, a FetchError
    for path, message, error in (("/archive.zip", "application/zip", IngestError), ("/nothing", "404", FetchError),
                                 ("/loop", "redirect", FetchError)):
        with pytest.raises(error, match=message):
            ledger.ingest_url(f"{server}{path}", timeout=5, allow_private=True)
    with pytest.raises(FetchError):
        ledger.ingest_url("http://127.0.0.1:9/unreachable", timeout=2, allow_private=True)
    assert table_dump(ledger.url) == before


def test_ingest_url_refuses_what_it_could_not_store_before_downloading(ledger: Ledger, server: str) -> None:
    before, asked = table_dump(ledger.url), len(_Pages.asked)
    with pytest.raises(InvalidInput, match="the limit is 2048 bytes"):
        ledger.ingest_url(f"{server}/article?q={'x' * 3000}", allow_private=True)
    with pytest.raises(InvalidInput, match="scope"):
        ledger.ingest_url(f"{server}/article", scope=" ", allow_private=True)
    assert len(_Pages.asked) == asked  # nothing was downloaded
    assert table_dump(ledger.url) == before


def test_errors_show_a_long_url_cut_short(ledger: Ledger, server: str) -> None:
    """A URL can be 8,000 characters long (tracking parameters aside, 2,048 bytes are stored);
    the error names it by its first 200."""
    long_path = "/nothing/" + "x" * 1900
    with pytest.raises(FetchError, match="404") as refused:
        ledger.ingest_url(f"{server}{long_path}?utm_source=" + "y" * 5000, timeout=5, allow_private=True)
    assert f"{server}/nothing/xxx" in str(refused.value) and len(str(refused.value)) < 400
    with pytest.raises(IngestError, match="no main text") as empty:
        ledger.ingest_html((HTML / "no-main-content.html").read_bytes(), url=f"https://x.example{long_path}")
    assert "https://x.example/nothing/xxx" in str(empty.value) and len(str(empty.value)) < 400


def test_a_url_with_a_space_or_control_character_is_refused_by_a_short_message(server: str) -> None:
    """http.client would refuse it with InvalidURL, whose message repeats the whole URL."""
    from ledger.ingest.fetch import fetch

    with pytest.raises(IngestError, match="space or control character") as refused:
        fetch(f"{server}/q/\x01" + "x" * 3000, timeout=5, allow_private=True)
    assert len(str(refused.value)) < 600
    with pytest.raises(FetchError, match="404") as missing:  # a redirect's target is escaped, as browsers do
        fetch(f"{server}/to-a-space", timeout=5, allow_private=True)
    assert f"{server}/a%20bzzz" in str(missing.value) and len(str(missing.value)) < 600


def test_a_redirect_to_a_target_with_spaces_or_raw_utf8_is_followed_escaped(server: str) -> None:
    """Browsers and urllib percent-encode a Location's spaces and raw bytes; so does fetch."""
    from ledger.ingest.fetch import fetch

    assert fetch(f"{server}/to-spaced", timeout=5, allow_private=True).url == f"{server}/spaced%20page"
    assert fetch(f"{server}/to-utf8", timeout=5, allow_private=True).url == f"{server}/caf%C3%A9"


def test_ingest_url_reads_whatever_its_max_bytes_allows(ledger: Ledger, server: str) -> None:
    before = table_dump(ledger.url)
    with pytest.raises(IngestError, match="over the limit of 20,971,520 bytes; pass a larger max_bytes"):
        ledger.ingest_url(f"{server}/long-page", allow_private=True)
    with pytest.raises(IngestError, match="over the limit of 16,087 bytes; pass a larger max_bytes"):
        ledger.ingest_url(f"{server}/paper.pdf", max_bytes=(PDF / "multi-page.pdf").stat().st_size - 1, allow_private=True)
    assert table_dump(ledger.url) == before
    assert "tidal barrier" in ledger.ingest_url(f"{server}/long-page", max_bytes=22 * 2**20, allow_private=True).text


def test_max_bytes_bounds_what_ingest_pdf_and_ingest_html_read(ledger: Ledger) -> None:
    paper, page = (PDF / "multi-page.pdf").read_bytes(), (HTML / "article.html").read_bytes()
    before = table_dump(ledger.url)
    with pytest.raises(IngestError, match=f"is {len(paper):,} bytes, over the limit of 1,000 bytes; pass a larger"):
        ledger.ingest_pdf(paper, max_bytes=1000)
    with pytest.raises(IngestError, match=f"is {len(paper):,} bytes, over the limit of 1,000 bytes; pass a larger"):
        ledger.ingest_pdf(PDF / "multi-page.pdf", max_bytes=1000)
    with pytest.raises(IngestError, match=f"is {len(page):,} bytes, over the limit of 1,000 bytes; pass a larger"):
        ledger.ingest_html(page, url="https://example.org/a", max_bytes=1000)
    for bad in (0, -1, True, 2.5, "1000"):
        with pytest.raises(InvalidInput, match="max_bytes must be a whole number >= 1"):
            ledger.ingest_pdf(paper, max_bytes=bad)  # type: ignore[arg-type]
        with pytest.raises(InvalidInput, match="max_bytes must be a whole number >= 1"):
            ledger.ingest_html(page, url="https://example.org/a", max_bytes=bad)  # type: ignore[arg-type]
    assert table_dump(ledger.url) == before
    assert ledger.ingest_pdf(paper, max_bytes=len(paper)).created
    assert ledger.ingest_html(page, url="https://example.org/a", max_bytes=len(page)).created


def test_looking_up_a_document_by_its_bytes_or_url_reads_only_its_own_rows(tmp_path: Path) -> None:
    """Every ingest asks whether its bytes or its URL are stored already: with an index for each
    question, not a scan of the scope's sources, which made ingesting into a large ledger slow."""
    from ledger.store import driver, source_rows

    with Ledger.open(tmp_path / "ledger.db") as ledger:
        for page in range(3):
            ledger.add_source(text=f"page {page}", uri="https://example.org/page")  # revisions
        with ledger._db.engine.connect() as connection:
            sql, names, *_ = driver._plan(source_rows._BY_HASH_OR_URI, connection.dialect)
            given = {"scope": "default", "hash": "0" * 64, "uri": "https://example.org/page", "param_1": 1}
            plan = [row[3] for row in connection.exec_driver_sql(
                f"EXPLAIN QUERY PLAN {sql}", tuple(given.get(name, 0) for name in names))]
    searches = [step for step in plan if "sources" in step]
    assert searches and all(step.startswith("SEARCH sources USING INDEX") for step in searches), plan
    assert sum("content_hash=?" in step for step in searches) == 2, plan  # first and later revisions
    assert any("uri=?" in step for step in searches), plan


def test_a_pdf_revision_reanchors_with_page_and_bbox(ledger: Ledger, clock) -> None:
    import pymupdf

    uri = "https://example.org/paper.pdf"
    first = ledger.ingest_pdf(PDF / "typography.pdf", uri=uri)
    claim = ledger.assert_claim("fleet", "flight", value="final", evidence=[ledger.cite(first, "the final flight")])
    with pymupdf.open(PDF / "typography.pdf") as document:  # same text, new bytes: a re-export
        document.set_metadata({"title": "Typography, re-exported"})
        reexported = document.tobytes()
    clock.tick()
    second = ledger.ingest_pdf(reexported, uri=uri)
    assert second.revision_of == first.id
    [carried] = [t.evidence for t in ledger.explain(claim).evidence if t.source.id == second.id]
    assert (carried.anchor_method, carried.anchor_score, carried.page) == ("position", 1.0, 1)
    assert len(carried.locator["bbox"]) == 4
    clock.tick()
    third = ledger.ingest_pdf(PDF / "multi-page.pdf", uri=uri)
    assert third.revision_of == second.id
    assert [s.claim_id for s in ledger.stale_evidence()] == [claim.id]
    assert not ledger.stale_evidence()[0].claim_supported


@pytest.mark.parametrize(("quote", "revised"), [
    ("burst its banks four times between 2014 and 2023", b"between 2014 and 2024"),  # a near match, a number changed
    ("between 2014 and 2023", b"between 2014 and 20231"),  # found only inside a longer number
])
def test_a_changed_number_in_a_revision_makes_the_evidence_stale(ledger: Ledger, clock, quote: str,
                                                                  revised: bytes) -> None:
    page = (HTML / "article.html").read_bytes()
    original = ledger.ingest_html(page, url=ARTICLE_URL)
    claim = ledger.assert_claim("River Quell", "floods 2014-2023", value=4, evidence=[ledger.cite(original, quote)])
    clock.tick()
    ledger.ingest_html(page.replace(b"between 2014 and 2023", revised), url=ARTICLE_URL)
    assert [(s.claim_id, s.claim_supported) for s in ledger.stale_evidence()] == [(claim.id, False)]


def test_a_drafted_passage_bbox_is_four_numbers_or_nothing(ledger: Ledger) -> None:
    text = "Alpha beta gamma. Delta epsilon."

    def draft(*boxes: object) -> SourceDraft:
        passages = tuple(PassageDraft(0, 5, 1, box, 0) for box in boxes)  # type: ignore[arg-type]
        return SourceDraft(kind="pdf", text=text + str(boxes), content_hash=content_hash(str(boxes).encode()),
                           passages=passages)

    def stored_boxes(source: Source) -> list[object]:
        rows = sorted((ordinal, bbox) for _, owner, ordinal, _, bbox, *_ in table_dump(ledger.url)["passages"]
                      if owner == source.id)
        return [json.loads(bbox) if isinstance(bbox, str) else bbox for _, bbox in rows]  # PostgreSQL parses JSON

    assert stored_boxes(ledger.add_draft(draft((1.0, 2.0, 3.5, 4.25), None, ()))) == [[1.0, 2.0, 3.5, 4.25], None, None]
    assert stored_boxes(ledger.add_draft(draft(None, (0, 1, 2, 3)))) == [None, [0, 1, 2, 3]]
    # NaN and infinity are not JSON: such a box is left out, the others kept
    nan, inf = float("nan"), float("inf")
    assert stored_boxes(ledger.add_draft(draft((nan, 1, 2, 3), (1, 2, 3, 4), (0, 0, inf, 1)))) == [None, [1, 2, 3, 4], None]
    assert stored_boxes(ledger.add_draft(draft(None, None))) == [None, None]
    before = table_dump(ledger.url)
    with pytest.raises(InvalidInput, match="four numbers"):
        ledger.add_draft(draft((1.0, 2.0, 3.0)))
    assert table_dump(ledger.url) == before


def test_a_stored_source_is_returned_as_it_reads_back(ledger: Ledger, clock) -> None:
    """add_draft builds a new source's record from what it wrote; it must equal a later read."""

    def same_as_read(stored: Source) -> Source:
        read = ledger.source(stored.id)
        assert dataclasses.replace(read, created=stored.created) == stored
        for field in dataclasses.fields(Source):
            mine, theirs = getattr(stored, field.name), getattr(read, field.name)
            assert type(mine) is type(theirs), field.name
            if isinstance(mine, datetime):
                assert mine.tzinfo is theirs.tzinfo is UTC, field.name
        return stored

    india = timezone(timedelta(hours=5, minutes=30))
    text = same_as_read(ledger.add_source(
        text="First paragraph.\n\nSecond paragraph.", uri="https://example.org/a", title="A", author="B",
        publisher="C", published_at=datetime(2024, 3, 14, 9, 30, 0, 123456, tzinfo=india),
        retrieved_at="2026-01-01T08:00:00-05:00"))
    assert text.created and text.passage_count == 2
    assert text.published_at == datetime(2024, 3, 14, 4, 0, 0, 123456, tzinfo=UTC)
    assert not same_as_read(ledger.add_source(text=text.text, uri="https://example.org/a")).created
    untrusted = same_as_read(ledger.add_source(text="Told by someone.", trust="untrusted", scope="team"))
    assert untrusted.scope == "quarantine:team"
    ocr = same_as_read(ledger.ingest_pdf(PDF / "mixed-ocr.pdf"))
    assert (ocr.page_count, ocr.pages_without_text) == (2, (2,))
    same_as_read(ledger.ingest_pdf(PDF / "metadata.pdf"))
    original = same_as_read(ledger.ingest_html((HTML / "article.html").read_bytes(), url=ARTICLE_URL))
    ledger.assert_claim("River Quell", "floods 2014-2023", value=4,
                        evidence=[ledger.cite(original, "burst its banks four times between 2014 and 2023")])
    clock.tick(days=1)
    revised = same_as_read(ledger.ingest_html((HTML / "article-revised.html").read_bytes(), url=ARTICLE_URL))
    assert revised.revision_of == original.id and revised.recorded_at == clock.now
    clock.tick(days=1)
    back = same_as_read(ledger.ingest_html((HTML / "article.html").read_bytes(), url=ARTICLE_URL))
    assert back.created and back.revision_of == revised.id and back.content_hash == original.content_hash
    again = same_as_read(ledger.ingest_html((HTML / "article.html").read_bytes(), url=ARTICLE_URL))
    assert again.retrievals[:-1] == back.retrievals and again.retrievals[-1].recorded_at == clock.now
    assert again == dataclasses.replace(back, created=False, retrievals=again.retrievals)
    # A hand-made draft: no passages, page_count only in its metadata, times not in UTC.
    bare = SourceDraft(kind="web", text="No passages here.", content_hash=content_hash(b"bare"), passages=(),
                       metadata={"sitename": "Example", "page_count": "7"},
                       published_at=datetime(2024, 1, 1, 23, 30, 0, 5, tzinfo=timezone(timedelta(hours=-3))),
                       retrieved_at=datetime(2025, 6, 1, 12, tzinfo=timezone(timedelta(hours=2))))
    stored = same_as_read(ledger.add_draft(bare))
    assert stored.passage_count == 0 and stored.page_count == "7"
    assert stored.published_at == datetime(2024, 1, 2, 2, 30, 0, 5, tzinfo=UTC)


@pytest.mark.parametrize("when", [datetime(2024, 1, 1, 12), "2024-01-01", datetime.max.replace(tzinfo=timezone(timedelta(hours=-5)))])
def test_a_drafted_time_must_be_aware_and_in_range(ledger: Ledger, when: object) -> None:
    draft = SourceDraft(kind="web", text="Some text.", content_hash=content_hash(b"times"), passages=(),
                        published_at=when)  # type: ignore[arg-type]
    before = table_dump(ledger.url)
    with pytest.raises(InvalidInput, match="published_at"):
        ledger.add_draft(draft)
    assert table_dump(ledger.url) == before


def test_a_drafted_modification_time_is_a_field_not_metadata(ledger: Ledger) -> None:
    draft = SourceDraft(kind="web", text="Some text.", content_hash=content_hash(b"modified"), passages=(),
                        metadata={"modified_at": "last week"})
    with pytest.raises(InvalidInput, match="set SourceDraft.modified_at instead"):
        ledger.add_draft(draft)


def test_a_quote_copied_from_the_line_after_a_break_hyphen_is_found(ledger: Ledger) -> None:
    """The ingester joins "hyphen-" / "ated": a quote copied from the second line begins inside the word."""
    source = ledger.ingest_pdf(PDF / "typography.pdf")
    citation = ledger.cite(source, "ated records")
    assert citation.excerpt == "ated records" and citation.page == 1
    with pytest.raises(QuoteNotFound, match="only inside a longer word"):
        ledger.cite(source, "reviewed the hyph")  # not at the line end: cuts "hyphenated"


def test_max_pages_bounds_what_ingest_pdf_reads(ledger: Ledger) -> None:
    with pytest.raises(IngestError, match="claims 4 pages; the limit is 3"):
        ledger.ingest_pdf(PDF / "multi-page.pdf", max_pages=3)
    assert ledger.ingest_pdf(PDF / "multi-page.pdf", max_pages=4).created


def test_a_quote_over_a_page_break_locates_each_page(ledger: Ledger) -> None:
    source = ledger.ingest_pdf(PDF / "multi-page.pdf")
    citation = ledger.cite(source, "shortly after six o'clock. On the second page the harbour master")
    assert citation.page == 1 and citation.locator["page"] == 1
    spans = citation.locator["pages"]
    assert [span["page"] for span in spans] == [1, 2]
    assert spans[0]["bbox"] == citation.locator["bbox"]
    x0, y0, x1, y1 = spans[1]["bbox"]
    assert x0 < x1 and y0 < y1
    assert "pages" not in ledger.cite(source, "four passing ships").locator  # one page: no list


def test_a_near_match_that_negates_the_evidence_makes_it_stale(ledger: Ledger, clock) -> None:
    text = "Safety report. After two years of trials the harbour crane is safe to operate in high winds. Signed."
    first = ledger.add_source(text=text, uri="https://port.example/crane")
    claim = ledger.assert_claim("harbour crane", "safe in high winds", value=True,
                                evidence=[ledger.cite(first, "the harbour crane is safe to operate in high winds")])
    clock.tick()
    ledger.add_source(text=text.replace("is safe", "is not safe"), uri="https://port.example/crane")
    assert [(s.claim_id, s.claim_supported) for s in ledger.stale_evidence()] == [(claim.id, False)]
    clock.tick()  # a changed word that keeps the sense still re-anchors, as a fuzzy match
    other = ledger.add_source(text=text.replace("trials", "tests"), uri="https://port.example/crane-2")
    ledger.assert_claim("harbour crane", "tested for", value="two years",
                        evidence=[ledger.cite(other, "After two years of tests the harbour crane is safe")])
    clock.tick()
    ledger.add_source(text=text.replace("trials", "testing"), uri="https://port.example/crane-2")
    assert len(ledger.stale_evidence()) == 1


def test_a_deleted_paragraph_does_not_move_its_evidence_to_a_similar_one(ledger: Ledger, clock) -> None:
    rules = ["Visitors must register at the front desk before entering the laboratory on weekdays.",
             "The east wing is reserved for staff members who hold a valid access badge.",
             "Visitors must register at the front desk before entering the laboratory on weekends."]
    url = "https://lab.example/rules"
    first = ledger.ingest_html(_rules_page(rules), url=url)
    claim = ledger.assert_claim("laboratory", "weekday visitors", value="register at the front desk",
                                evidence=[ledger.cite(first, rules[0].rstrip("."))])
    clock.tick()
    ledger.ingest_html(_rules_page(rules[1:]), url=url)
    assert [(s.claim_id, s.claim_supported) for s in ledger.stale_evidence()] == [(claim.id, False)]
    carried = [e for e in ledger.explain(claim).evidence if e.evidence.anchor_method == "fuzzy"]
    assert carried == []


def _rules_page(paragraphs: list[str]) -> str:
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return f"<html><head><title>Rules</title></head><body><article><h1>Rules</h1>{body}</article></body></html>"


def test_passages_and_metadata_are_read_through_the_api(ledger: Ledger) -> None:
    paper = ledger.ingest_pdf(PDF / "multi-page.pdf")
    passages = ledger.passages(paper)
    assert len(passages) == paper.passage_count and [p.ordinal for p in passages] == list(range(len(passages)))
    assert all(p.text == paper.text[p.char_start : p.char_end] and p.source_id == paper.id for p in passages)
    second = ledger.passages(paper.id, page=2)
    assert second and {p.page for p in second} == {2} and all(len(p.bbox or ()) == 4 for p in second)
    assert second == [p for p in passages if p.page == 2]  # ordinals count the whole source's passages
    assert ledger.passages(paper, page=99) == []
    with pytest.raises(InvalidInput, match="page must be a page number from 1"):
        ledger.passages(paper, page=0)
    dated = ledger.ingest_pdf(PDF / "metadata.pdf")
    assert dated.modified_at == datetime(2024, 3, 15, 14, 0, tzinfo=UTC) == ledger.source(dated).modified_at
    page = ledger.ingest_html((HTML / "article-revised.html").read_bytes(), url=ARTICLE_URL + "?utm_source=x")
    assert page.modified_at == datetime(2024, 3, 15, 8, 0, tzinfo=UTC)
    assert page.metadata["sitename"] == "The Harbour Gazette" and page.metadata["url"] == ARTICLE_URL + "?utm_source=x"
    assert page.metadata == ledger.source(page.id).metadata
    assert [p.paragraph for p in ledger.passages(page)] == list(range(page.passage_count))


def test_evidence_cited_on_an_older_revision_is_carried_into_the_next_one(ledger: Ledger, clock) -> None:
    url = "https://port.example/notice"
    v1 = ledger.add_source(text="Notice. The pier opens at 8. Ferries run hourly. End.", uri=url)
    clock.tick()
    ledger.add_source(text="Notice (updated). The pier opens at 8. Ferries run hourly. End.", uri=url)
    clock.tick()  # an agent still reading the first version cites it
    pier = ledger.assert_claim("pier", "opens at", value=8, evidence=[ledger.cite(v1, "The pier opens at 8")])
    ferries = ledger.assert_claim("ferries", "run", value="hourly", evidence=[ledger.cite(v1, "Ferries run hourly")])
    clock.tick()
    v3 = ledger.add_source(text="Notice (final). The pier opens at 9. Ferries run hourly. End.", uri=url)
    assert [(s.claim_id, s.excerpt) for s in ledger.stale_evidence()] == [(pier.id, "The pier opens at 8")]
    carried = [trail.evidence for trail in ledger.explain(ferries).evidence if trail.evidence.source_id == v3.id]
    assert [e.excerpt for e in carried] == ["Ferries run hourly"]


def test_a_page_that_comes_back_to_earlier_content_is_a_new_revision(ledger: Ledger, clock) -> None:
    """A page A, B, then A again: the third is a revision of B with A's bytes, and A's quotes support again."""
    page = (HTML / "article.html").read_bytes()
    edited = page.replace(b"Margaret Oduya, who has lived there since 1987", b"A resident")
    first = ledger.ingest_html(page, url=ARTICLE_URL)
    lives = ledger.assert_claim("Margaret Oduya", "lives on", "Ferry Lane",
                                evidence=[ledger.cite(first, "Margaret Oduya, who has lived there since 1987")])
    clock.tick()
    second = ledger.ingest_html(edited, url=ARTICLE_URL)
    resident = ledger.assert_claim("a resident", "quoted in", "tidal barrier",
                                   evidence=[ledger.cite(second, "A resident")])
    assert [(s.claim_id, s.claim_supported) for s in ledger.stale_evidence()] == [(lives.id, False)]
    clock.tick()
    back = ledger.ingest_html(page, url=ARTICLE_URL)
    assert back.created and back.revision_of == second.id and back.id not in (first.id, second.id)
    assert (back.content_hash, back.text) == (first.content_hash, first.text)
    # The quote that had gone is found again; the one only the edit had is gone now.
    assert [(s.claim_id, s.source_id, s.newer_source_id) for s in ledger.stale_evidence()] == [
        (resident.id, second.id, back.id)]
    trails = [t.evidence for t in ledger.explain(lives).evidence if t.source.id == back.id]
    assert [(e.excerpt, e.anchor_method, e.stale_at) for e in trails] == [
        ("Margaret Oduya, who has lived there since 1987", "position", None)]  # the same text as first
    assert ledger.check().ok
    # Now the newest revision: the same bytes again are that revision.
    again = ledger.ingest_html(page, url=ARTICLE_URL)
    assert again.id == back.id and not again.created


def test_a_quote_that_returns_in_a_later_revision_supports_its_claim_again(ledger: Ledger, clock) -> None:
    url = "https://port.example/notice"
    v1 = ledger.add_source(text="Notice. The pier opens at 8. Ferries run hourly.", uri=url)
    pier = ledger.assert_claim("pier", "opens at", value=8, evidence=[ledger.cite(v1, "The pier opens at 8")])
    clock.tick()
    ledger.add_source(text="Notice. Ferries run hourly.", uri=url)
    clock.tick()
    ledger.add_source(text="Notice (updated). Ferries run hourly.", uri=url)
    assert [s.claim_id for s in ledger.stale_evidence()] == [pier.id]
    clock.tick()
    ledger.add_source(text="Notice (final). The pier then opens at 8. Ferries run hourly.", uri=url)
    assert [s.claim_id for s in ledger.stale_evidence()] == [pier.id]  # back only as written, not near
    clock.tick()
    v4 = ledger.add_source(text="Notice (final). The pier opens at 8. Ferries run hourly.", uri=url)
    assert ledger.stale_evidence() == []
    assert [t.source.id for t in ledger.explain(pier).evidence if t.evidence.stale_at is None] == [v4.id]


def test_citing_a_stale_span_again_adds_no_row_and_a_revert_carries_it_once(ledger: Ledger, clock) -> None:
    url = "https://port.example/pier"
    first = ledger.add_source(text="Notice. The pier opens at 8.", uri=url)
    claim = ledger.assert_claim("pier", "opens at", value=8, evidence=[ledger.cite(first, "The pier opens at 8")])
    clock.tick()
    ledger.add_source(text="Notice. Closed.", uri=url)
    clock.tick()  # the same span of the same old revision, again: still the one stale row
    again = ledger.assert_claim("pier", "opens at", value=8, evidence=[ledger.cite(first, "The pier opens at 8")])
    assert again.evidence_ids == claim.evidence_ids and len(ledger.stale_evidence()) == 1
    clock.tick()
    back = ledger.add_source(text="Notice. The pier opens at 8.", uri=url)
    assert [t.source.id for t in ledger.explain(claim).evidence if t.evidence.stale_at is None] == [back.id]
    assert ledger.stale_evidence() == []


def test_a_page_flipping_between_two_states_carries_each_quote_once_per_revision(ledger: Ledger, clock) -> None:
    url = "https://status.example/ferry"
    running, suspended = "Ferry status. The ferry is running.", "Ferry status. The ferry is suspended."
    first = ledger.add_source(text=running, uri=url)
    claim = ledger.assert_claim("ferry", "status", value="running",
                                evidence=[ledger.cite(first, "The ferry is running")])
    for flip in range(1, 21):
        clock.tick()
        latest = ledger.add_source(text=suspended if flip % 2 else running, uri=url)
    assert latest.created and latest.content_hash == first.content_hash
    trails = ledger.explain(claim).evidence
    # one row per revision that had the quote, each carried from the previous one that had it
    assert [t.source.id for t in trails] == [first.id, *range(first.id + 2, latest.id + 1, 2)]
    assert [t.evidence.stale_at is None for t in trails] == [False] * 10 + [True]
    assert ledger.stale_evidence() == [] and ledger.check().ok


def test_an_older_copy_retrieved_before_the_newest_revision_is_not_a_revision(ledger: Ledger, clock) -> None:
    page = (HTML / "article.html").read_bytes()
    monday, wednesday = datetime(2026, 3, 2, tzinfo=UTC), datetime(2026, 3, 4, tzinfo=UTC)
    first = ledger.ingest_html(page, url=ARTICLE_URL, retrieved_at=monday)
    clock.tick()
    second = ledger.ingest_html((HTML / "article-revised.html").read_bytes(), url=ARTICLE_URL, retrieved_at=wednesday)
    clock.tick()  # an archive of Monday's copy is read in later: the page did not change back
    archived = ledger.ingest_html(page, url=ARTICLE_URL, retrieved_at=monday + timedelta(hours=1))
    assert archived.id == first.id and not archived.created
    back = ledger.ingest_html(page, url=ARTICLE_URL, retrieved_at=wednesday + timedelta(days=1))
    assert back.created and back.revision_of == second.id
    # A newest revision stored without a retrieval time was read when it was stored.
    clock.tick()
    without = ledger.ingest_html((HTML / "article-revised.html").read_bytes(), url=ARTICLE_URL)
    assert without.created and without.retrieved_at is None
    older = ledger.ingest_html(page, url=ARTICLE_URL, retrieved_at=without.recorded_at - timedelta(hours=1))
    assert older.id == back.id and not older.created


def test_an_older_pdf_copy_with_its_download_time_is_not_a_revision(ledger: Ledger, clock) -> None:
    uri = "https://example.org/report.pdf"
    monday, wednesday = datetime(2026, 3, 2, tzinfo=UTC), datetime(2026, 3, 4, tzinfo=UTC)
    first = ledger.ingest_pdf(PDF / "two-column.pdf", uri=uri, retrieved_at=monday)
    clock.tick()
    second = ledger.ingest_pdf(PDF / "multi-page.pdf", uri=uri, retrieved_at=wednesday)
    assert second.revision_of == first.id and second.retrieved_at == wednesday
    clock.tick()
    cached = ledger.ingest_pdf(PDF / "two-column.pdf", uri=uri, retrieved_at=monday)  # a cached download
    assert cached.id == first.id and not cached.created
    with pytest.raises(InvalidInput, match="retrieved_at"):
        ledger.ingest_pdf(PDF / "two-column.pdf", uri=uri, retrieved_at="last Monday")


def test_a_page_changed_to_bytes_stored_under_another_address_is_a_revision_of_it(ledger: Ledger, clock) -> None:
    mirror = ledger.add_source(text="The ferry timetable for the winter.", uri="https://mirror.example/timetable")
    page = ledger.add_source(text="The ferry timetable for the summer.", uri="https://port.example/timetable")
    claim = ledger.assert_claim("ferry timetable", "season", value="summer",
                                evidence=[ledger.cite(page, "timetable for the summer")])
    clock.tick()
    changed = ledger.add_source(text="The ferry timetable for the winter.", uri="https://port.example/timetable")
    assert changed.created and changed.revision_of == page.id and changed.uri == "https://port.example/timetable"
    assert changed.id != mirror.id and changed.content_hash == mirror.content_hash
    assert [s.claim_id for s in ledger.stale_evidence()] == [claim.id]
    # Bytes stored already, without an address or with one that has no history: the first source
    # stored with them, not a later revision of some page that came to hold them.
    assert ledger.add_source(text="The ferry timetable for the winter.").id == mirror.id
    assert ledger.add_source(text="The ferry timetable for the winter.", uri="https://elsewhere.example/t").id == mirror.id
    # Identical bytes are one piece of evidence, wherever they are stored.
    clock.tick()
    winter = ledger.assert_claim("winter ferry timetable", "published", value=True,
                                 evidence=[ledger.cite(mirror, "timetable for the winter")])
    clock.tick()
    again = ledger.assert_claim("winter ferry timetable", "published", value=True,
                                evidence=[ledger.cite(changed, "timetable for the winter")])
    assert again.id == winter.id and (again.status, again.confidence) == ("reported", winter.confidence)
    # ... and one source: a second value from either unchanged copy corrects nothing; it is a
    # conflict inside that source (issue 23), both values kept and disputed.
    clock.tick()
    second = ledger.assert_claim("winter ferry timetable", "published", value=False,
                                 evidence=[ledger.cite(changed, "The ferry timetable")])
    assert str(second.cause) == f"asserted; conflicts with claim {winter.id} in the same source"
    assert (second.status, ledger.claim(winter).status) == ("disputed", "disputed")


@pytest.mark.parametrize("spelling", [
    "HTTPS://Harbour-Gazette.EXAMPLE/2024/03/tidal-barrier",  # scheme and host in any case
    "https://harbour-gazette.example:443/2024/03/tidal-barrier",  # the default port
    "https://harbour-gazette.example/2024/03/./news/../tid%61l-barrier",  # dot segments, an escaped letter
])
def test_an_equivalent_spelling_of_the_url_is_the_same_document(ledger: Ledger, clock, spelling: str) -> None:
    """RFC 3986 (6.2.2, 6.2.3): these URLs name the same resource, so the edit is a revision."""
    page = (HTML / "article.html").read_bytes()
    first = ledger.ingest_html(page, url="https://harbour-gazette.example/2024/03/tidal-barrier")
    claim = ledger.assert_claim("River Quell", "floods 2014-2023", value=4,
                                evidence=[ledger.cite(first, "burst its banks four times between 2014 and 2023")])
    clock.tick()
    revised = ledger.ingest_html(page.replace(b"between 2014 and 2023", b"between 2014 and 2024"), url=spelling)
    assert revised.revision_of == first.id and revised.uri == first.uri
    assert revised.metadata["url"] == spelling  # as given, kept
    assert [s.claim_id for s in ledger.stale_evidence()] == [claim.id]


@pytest.mark.parametrize(("url", "message"), [
    ("not a url at all", "contains whitespace"),
    ("harbour-gazette.example/tides", "not an absolute URL"),
    ("javascript:alert(1)", "names no document"),
    ("http://[::1/x", "not a valid URL"),
    ("https://", "names no host"),
    ("https://harbour.example:99999/", "not a valid URL"),
])
def test_ingest_html_refuses_a_url_that_names_no_document(ledger: Ledger, url: str, message: str) -> None:
    before = table_dump(ledger.url)
    with pytest.raises(InvalidInput, match=f"{message}.*such as 'https://example.org/news/article'"):
        ledger.ingest_html((HTML / "article.html").read_bytes(), url=url)
    assert table_dump(ledger.url) == before


def test_the_same_page_shared_with_tracking_parameters_or_a_fragment_is_one_document(ledger: Ledger, clock) -> None:
    page = (HTML / "article.html").read_bytes()
    as_shared = ARTICLE_URL + "?utm_source=newsletter&utm_medium=email#comments"
    shared = ledger.ingest_html(page, url=as_shared)
    assert shared.uri == ARTICLE_URL
    assert read_html(page, url=as_shared).metadata["url"] == as_shared  # as given, kept
    claim = ledger.assert_claim("River Quell", "floods 2014-2023", value=4,
                                evidence=[ledger.cite(shared, "burst its banks four times between 2014 and 2023")])
    clock.tick()
    revised = ledger.ingest_html(page.replace(b"between 2014 and 2023", b"between 2014 and 2024"), url=ARTICLE_URL)
    assert revised.revision_of == shared.id
    assert [s.claim_id for s in ledger.stale_evidence()] == [claim.id]
