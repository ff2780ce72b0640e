"""ledger.ingest.pdf: PDFs into drafts, checked against fixtures/pdf and the shared real-world PDFs.

Expectations live in fixtures/pdf/expected.json (written by fixtures/build_pdfs.py). The line
texts, bboxes and words the drafts are checked against come from pymupdf's own "dict" and
"words" outputs, normalized here by an independent implementation of the documented rules.
"""

from __future__ import annotations

import json
import re
import struct
import subprocess
import sys
import unicodedata
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from functools import cache
from itertools import pairwise
from pathlib import Path
from types import ModuleType
from typing import Any

import pymupdf
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.errors import IngestError, InvalidInput
from ledger.ingest.base import PassageDraft, SourceDraft, content_hash
from ledger.ingest.pdf import columns as pdf_columns
from ledger.ingest.pdf import layout as pdf_layout
from ledger.ingest.pdf import ocr as pdf_ocr
from ledger.ingest.pdf import parse_pdf_date, read_pdf, read_pdf_file
from ledger.ingest.pdf import text as pdf_text
from ledger.ingest.pdf.assemble import assemble

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "pdf"
EXPECTED: dict[str, Any] = json.loads((FIXTURES / "expected.json").read_text(encoding="utf-8"))
REALWORLD = ROOT.parent / "shared" / "realworld" / "pdf"
REALWORLD_PDFS = sorted(p.name for p in REALWORLD.glob("*.pdf")) if REALWORLD.is_dir() else []
NO_REALWORLD = f"{REALWORLD} is absent: the real-world PDFs are read from the shared checkout, not copied"

GOOD_FIXTURES = sorted(name for name, spec in EXPECTED["fixtures"].items() if "error" not in spec)
BAD_FIXTURES = sorted(name for name, spec in EXPECTED["fixtures"].items() if "error" in spec)
ENCRYPTED = [("fixtures", name) for name, spec in EXPECTED["fixtures"].items() if "password" in spec] + [
    ("realworld", name) for name, spec in EXPECTED["realworld"].items() if "password" in spec
]

LIGATURES = {0xFB00: "ff", 0xFB01: "fi", 0xFB02: "fl", 0xFB03: "ffi", 0xFB04: "ffl", 0xFB05: "st", 0xFB06: "st"}
FORBIDDEN = "".join(map(chr, range(0xFB00, 0xFB07))) + "\u00ad"
HYPHENS = "-\u2010"
#: "words" without TEXT_USE_CID_FOR_UNKNOWN_UNICODE: the ingester gives U+FFFD for glyphs
#: without a Unicode mapping instead of their raw character ids (which read as garbage, e.g.
#: "$IE 2EDAKTION" for "Die Redaktion" in the German magazine). Ligatures expanded, as the
#: ingester reads them: kept, mupdf makes no space from the gap after one ("staﬀarrived").
WORD_FLAGS = pymupdf.TEXTFLAGS_WORDS & ~pymupdf.TEXT_USE_CID_FOR_UNKNOWN_UNICODE & ~pymupdf.TEXT_PRESERVE_LIGATURES
#: lines are read unclipped; lines wholly off the page are dropped, partly off kept whole
LINE_FLAGS = (
    pymupdf.TEXTFLAGS_DICT
    & ~pymupdf.TEXT_USE_CID_FOR_UNKNOWN_UNICODE
    & ~pymupdf.TEXT_MEDIABOX_CLIP
    & ~pymupdf.TEXT_PRESERVE_LIGATURES
)
BBOX_TOLERANCE = 0.5  # points; line bboxes come from mupdf's XML with 8 significant digits


# --- helpers ----------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def mupdf_line_boxes() -> Iterator[None]:
    """pymupdf's "dict" and "words" give line and word boxes as mupdf computes them, like the
    passages' bboxes: without pymupdf's quad corrections (pymupdf4llm, installed with the full
    pymupdf, switches them off for good on import; pymupdf-lite leaves them on)."""
    before = pymupdf.TOOLS.unset_quad_corrections()
    pymupdf.TOOLS.unset_quad_corrections(True)
    yield
    pymupdf.TOOLS.unset_quad_corrections(before)


def _path(origin: str, name: str) -> Path:
    if origin == "realworld":
        if not REALWORLD_PDFS:
            pytest.skip(NO_REALWORLD)
        return REALWORLD / name
    return FIXTURES / name


def _spec(origin: str, name: str) -> dict[str, Any]:
    section: dict[str, dict[str, Any]] = EXPECTED["fixtures" if origin == "fixtures" else "realworld"]
    return section.get(name, {})


@cache
def _draft(origin: str, name: str) -> SourceDraft:
    return read_pdf(_path(origin, name).read_bytes(), password=_spec(origin, name).get("password"))


def _squash(text: str) -> str:
    return " ".join(text.split())


def normalize(text: str) -> str:
    """The documented line normalization, written independently of the ingester."""
    text = text.translate(LIGATURES).replace("\u00ad", "")
    text = "".join(" " if c.isspace() else "\ufffd" if unicodedata.category(c) == "Cc" else c for c in text)
    return unicodedata.normalize("NFC", text).strip()


def _open(origin: str, name: str) -> pymupdf.Document:
    doc = pymupdf.open(_path(origin, name))
    password = _spec(origin, name).get("password")
    if password:
        assert doc.authenticate(password)
    return doc


def _reference_lines(page: pymupdf.Page) -> Iterator[tuple[tuple[float, ...], str, str]]:
    """(bbox, raw text, normalized text) of each non-blank line on the page, from "dict"."""
    area = page.rect * page.derotation_matrix  # text coordinates are unrotated
    for block in page.get_text("dict", flags=LINE_FLAGS, clip=pymupdf.INFINITE_RECT())["blocks"]:
        if block["type"] != 0:
            continue
        for line in block["lines"]:
            raw = "".join(span["text"] for span in line["spans"])
            text = normalize(raw)
            if text and pymupdf.Rect(line["bbox"]).intersects(area):
                yield tuple(line["bbox"]), raw, text


def _page_text(draft: SourceDraft, page: int) -> str:
    on_page = [p for p in draft.passages if p.page == page]
    if not on_page:
        return ""
    return draft.text[on_page[0].char_start : on_page[-1].char_end]


def _close(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return all(abs(x - y) <= 0.01 for x, y in zip(a, b, strict=True))


def _contains(outer: tuple[float, ...], inner: tuple[float, ...]) -> bool:
    t = BBOX_TOLERANCE
    return (
        outer[0] - t <= inner[0]
        and outer[1] - t <= inner[1]
        and inner[2] <= outer[2] + t
        and inner[3] <= outer[3] + t
    )


ALL_READABLE = [("fixtures", name) for name in GOOD_FIXTURES] + [
    ("realworld", name) for name in (REALWORLD_PDFS or ["(absent)"])
]


def _ids(cases: list[tuple[str, str]]) -> list[str]:
    return [f"{origin}/{name}" for origin, name in cases]


# --- structure of every draft -----------------------------------------------------------------


@pytest.mark.parametrize(("origin", "name"), ALL_READABLE, ids=_ids(ALL_READABLE))
def test_passages_tile_the_text_in_order(origin: str, name: str) -> None:
    draft = _draft(origin, name)
    text, passages = draft.text, draft.passages
    assert draft.kind == "pdf"
    assert text == text.strip()
    if not passages:
        assert text == ""
        return
    assert passages[0].char_start == 0
    assert passages[-1].char_end == len(text)
    for passage in passages:
        assert passage.char_start < passage.char_end
        assert passage.page is not None and 1 <= passage.page <= (draft.page_count or 0)
        assert passage.bbox is not None and passage.paragraph is not None
        assert passage.page not in draft.pages_without_text
    for before, after in pairwise(passages):
        gap = text[before.char_end : after.char_start]
        assert before.char_end <= after.char_start, "passages overlap"
        assert (after.page or 0, after.paragraph or 0) >= (before.page or 0, before.paragraph or 0)
        if after.paragraph == before.paragraph:
            assert gap in ("\n", "", " "), f"lines of one paragraph are joined by a newline: {gap!r}"
            beside = pdf_layout.same_row(before.bbox, after.bbox)  # type: ignore[arg-type]
            assert gap != " " or beside, "only pieces of one row are joined by a space"
            if gap == "" and not beside:  # a de-hyphenated line break: the next line starts in lowercase
                assert text[after.char_start].islower()
        else:
            assert gap == "\n\n", f"paragraphs and pages are separated by a blank line: {gap!r}"
    paragraphs = [p.paragraph or 0 for p in passages]
    assert paragraphs[0] == 0
    assert sorted(set(paragraphs)) == list(range(paragraphs[-1] + 1)), "paragraphs are numbered densely"


@pytest.mark.parametrize(("origin", "name"), ALL_READABLE, ids=_ids(ALL_READABLE))
def test_each_passage_is_its_lines_text(origin: str, name: str) -> None:
    """Every line pymupdf reports is one passage whose slice is the line's normalized text."""
    draft = _draft(origin, name)
    with _open(origin, name) as doc:
        for number, page in enumerate(doc, start=1):
            passages = [p for p in draft.passages if p.page == number]
            reference = list(_reference_lines(page))
            if number in draft.pages_without_text:
                assert not passages
                _assert_unreadable(number, [text for _, _, text in reference])
                continue
            kept = [line for line in reference if any(_close(p.bbox or (), line[0]) for p in passages)]
            for _, _, line_text in reference:
                if not any(line_text == text for _, _, text in kept):  # left out: only OCR can read it
                    assert number in draft.pages_partly_unreadable, f"page {number}: {line_text!r} left out"
                    _assert_unreadable(number, [line_text])
            assert len(passages) == len(kept), f"page {number}: one passage per line"
            for bbox, _, line_text in kept:
                matches = [p for p in passages if _close(p.bbox or (), bbox)]
                assert len(matches) == 1, f"page {number}: no passage for line {line_text!r}"
                passage = matches[0]
                piece = draft.text[passage.char_start : passage.char_end]
                if piece == line_text or _without_ligature_gaps(line_text).fullmatch(piece):
                    continue  # the same, or a space drawn inside a ligature ("Erﬁ nder") dropped
                if _codes_read(line_text).fullmatch(piece):
                    continue  # glyphs without a Unicode mapping read by their codes
                # joined: the line's hyphen was dropped with its break
                assert line_text[-1] in HYPHENS and _without_ligature_gaps(line_text[:-1]).fullmatch(piece), (
                    piece, line_text)
                assert draft.text[passage.char_end].islower()


def _assert_unreadable(number: int, texts: list[str]) -> None:
    """A page left out as needing OCR has no text, or mostly glyphs without a Unicode mapping or
    ASCII characters with their two bytes swapped ("M" U+004D as U+4D00)."""
    text = "".join("".join(texts).split())
    unreadable = sum(c == "\ufffd" or (ord(c) & 0xFF == 0 and 0x21 <= ord(c) >> 8 <= 0x7E) for c in text)
    assert unreadable * 2 > len(text) or not text, f"page {number} has readable text: {text[:80]!r}"


def _codes_read(line_text: str) -> re.Pattern[str]:
    """The line's text with each glyph without a Unicode mapping (U+FFFD) read as some characters
    and its spaces optional (mupdf spaces an unmapped glyph and a read code apart differently)."""
    return re.compile(".*?".join(" ?".join(map(re.escape, part.split(" "))) for part in line_text.split("\ufffd")))


def _without_ligature_gaps(line_text: str) -> re.Pattern[str]:
    """The line's text with each space after an expanded ligature optional."""
    parts = re.split("(?<=ff|fi|fl|st) ", line_text)
    return re.compile(" ?".join(map(re.escape, parts)))


@pytest.mark.parametrize(("origin", "name"), ALL_READABLE, ids=_ids(ALL_READABLE))
def test_every_word_lies_in_a_passage_and_in_the_text(origin: str, name: str) -> None:
    draft = _draft(origin, name)
    with _open(origin, name) as doc:
        for number, page in enumerate(doc, start=1):
            boxes = [p.bbox for p in draft.passages if p.page == number]
            if number in draft.pages_without_text:
                _assert_unreadable(number, [word[4] for word in page.get_text("words", flags=WORD_FLAGS)])
                continue
            for word in page.get_text("words", flags=WORD_FLAGS):
                box = tuple(word[:4])
                if "\ufffd" in word[4]:  # left out if only OCR can read its line, or read by its codes
                    continue
                assert any(_contains(outer, box) for outer in boxes if outer), (
                    f"page {number}: word {word[4]!r} at {box} lies in no passage"
                )
                for piece in normalize(word[4]).split():
                    piece = piece.rstrip(HYPHENS) or piece
                    assert piece in draft.text, f"page {number}: word {word[4]!r} not in the text"


@pytest.mark.parametrize(("origin", "name"), ALL_READABLE, ids=_ids(ALL_READABLE))
def test_no_ligatures_or_soft_hyphens_survive(origin: str, name: str) -> None:
    draft = _draft(origin, name)
    assert not set(draft.text) & set(FORBIDDEN)
    assert unicodedata.is_normalized("NFC", draft.text)


def test_xml_fast_path_equals_pymupdf_dict_output(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stext-XML parse gives the same draft as pymupdf's slower "dict" output."""
    names = [("fixtures", n) for n in GOOD_FIXTURES] + [("realworld", n) for n in REALWORLD_PDFS]
    for origin, name in names:
        fast = _draft(origin, name)
        monkeypatch.setattr(pdf_text, "_PREFER_XML", False)
        slow = read_pdf(_path(origin, name).read_bytes(), password=_spec(origin, name).get("password"))
        monkeypatch.setattr(pdf_text, "_PREFER_XML", True)
        assert slow.text == fast.text, name
        assert len(slow.passages) == len(fast.passages)
        for a, b in zip(slow.passages, fast.passages, strict=True):
            assert (a.char_start, a.char_end, a.page, a.paragraph) == (b.char_start, b.char_end, b.page, b.paragraph)
            assert _close(a.bbox or (), b.bbox or ())


def test_unparsable_xml_falls_back_to_dict_output(monkeypatch: pytest.MonkeyPatch) -> None:
    """A <line> the XML pattern misses (another mupdf) sends the page through "dict"."""
    expected = _draft("fixtures", "two-column-stamp.pdf")
    missing_attribute = r'<(b)lock |<line bbox="([^"]*)" absent="([^"]*)" text="([^"]*)"'
    monkeypatch.setattr(pdf_text, "_XML_ITEM", re.compile(missing_attribute))
    draft = read_pdf((FIXTURES / "two-column-stamp.pdf").read_bytes())
    assert draft.text == expected.text
    assert [p.char_start for p in draft.passages] == [p.char_start for p in expected.passages]


# --- what each document must contain ------------------------------------------------------------

CONTENT_CASES = [("fixtures", n) for n in GOOD_FIXTURES] + [
    ("realworld", n) for n in (sorted(EXPECTED["realworld"]) if REALWORLD_PDFS else ["(absent)"])
]


@pytest.mark.parametrize(("origin", "name"), CONTENT_CASES, ids=_ids(CONTENT_CASES))
def test_expected_content(origin: str, name: str) -> None:
    spec = _spec(origin, name)
    draft = _draft(origin, name)
    squashed = _squash(draft.text)
    assert draft.page_count == spec["page_count"]
    assert list(draft.pages_without_text) == spec["pages_without_text"]
    assert list(draft.pages_partly_unreadable) == spec.get("pages_partly_unreadable", [])
    for page, sentences in spec["pages"].items():
        on_page = _squash(_page_text(draft, int(page)))
        for sentence in sentences:
            assert _squash(sentence) in on_page, f"page {page} lacks {sentence!r}"
    for sentence in spec.get("contiguous", []):
        assert _squash(sentence) in squashed, f"{sentence!r} is not one contiguous run"
    for before, after in spec.get("order", []):
        first, second = squashed.find(_squash(before)), squashed.find(_squash(after))
        assert first >= 0 and second >= 0, (before, after)
        assert first < second, f"{before!r} must come before {after!r}"
    for fragment in spec.get("must_contain", []):
        assert fragment in draft.text
    for fragment in spec.get("must_not_contain", []):
        assert fragment not in draft.text
    for char in spec.get("must_contain_chars", ""):
        assert char in draft.text
    for key in ("title", "author"):
        if key in spec:
            assert getattr(draft, key) == spec[key]
    for key in ("published_at", "modified_at"):
        if key in spec:
            value = getattr(draft, key)
            assert value is not None and value.utcoffset() == timedelta(0)
            assert value == datetime.fromisoformat(spec[key])
    for key, value in spec.get("metadata", {}).items():
        assert draft.metadata[key] == value


def test_two_columns_read_down_each_column() -> None:
    """Left column, then right column; never a left line followed by a right line and back."""
    draft = _draft("fixtures", "two-column.pdf")
    columns = ["L" if p.bbox and p.bbox[2] < 306 else "R" if p.bbox and p.bbox[0] > 306 else "W" for p in draft.passages]
    assert "".join(columns).strip("W") == "L" * columns.count("L") + "R" * columns.count("R")
    assert columns[0] == "W" and columns[-1] == "W"  # the title first, the footer last


def test_typography_joins_hyphenated_words_with_adjacent_passages() -> None:
    draft = _draft("fixtures", "typography.pdf")
    slices = [draft.text[p.char_start : p.char_end] for p in draft.passages]
    first = slices.index("The committee reviewed the hyphen")
    assert slices[first + 1].startswith("ated records")
    assert draft.passages[first].char_end == draft.passages[first + 1].char_start
    assert "hyphenated" in draft.text and "hyphen-" not in draft.text
    assert "A soft break: inter" in slices  # soft hyphen removed, word joined
    assert "just-in-\nTime" in draft.text  # a hyphen before a capital is kept, with its break


@pytest.mark.parametrize("name", ["german-magazine-editorial-umlauts.pdf", "tracemonkey-two-column-paper.pdf"])
def test_lines_copied_as_a_viewer_shows_them_with_ligatures_are_found(name: str, tmp_path: Path) -> None:
    """A viewer copies ligatures as they are, with the spaces the producer drew: "Erﬁ nder"
    inside a word, "stuﬀbased" with the space left as a gap."""
    if name not in REALWORLD_PDFS:
        pytest.skip(NO_REALWORLD)
    from ledger import Ledger

    copied: list[tuple[int, str, pymupdf.Rect]] = []
    with pymupdf.open(REALWORLD / name) as document:
        for page in document:
            for block in page.get_text("dict")["blocks"]:
                for line in block.get("lines", ()):
                    text = "".join(span["text"] for span in line["spans"]).strip()
                    if any(ch in "\ufb00\ufb01\ufb02\ufb03\ufb04" for ch in text) and len(text.split()) >= 3 \
                            and not text.endswith("-"):
                        copied.append((page.number + 1, text, pymupdf.Rect(line["bbox"])))
    assert len(copied) >= 3
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        source = ledger.ingest_pdf(REALWORLD / name)
        for number, text, box in copied:
            citation = ledger.cite(source, text, page=number)
            found = pymupdf.Rect(citation.locator["bbox"])
            assert citation.page == number and found.intersects(box), (text, citation.excerpt)


def test_tracemonkey_reading_order() -> None:
    """The two-column paper: left column bottom before right column top, sentences whole."""
    if "tracemonkey-two-column-paper.pdf" not in REALWORLD_PDFS:
        pytest.skip(NO_REALWORLD)
    draft = _draft("realworld", "tracemonkey-two-column-paper.pdf")
    page2 = _squash(_page_text(draft, 2))
    left_bottom = "In Section 7 we evaluate our dynamic compiler based on"
    right_top = "1 for (var i = 2; i < 100; ++i) {"
    assert page2.index(left_bottom) < page2.index(right_top)
    assert page2.index(left_bottom) > page2.index("Hence, recording and compiling a trace speculates")
    page1 = _squash(_page_text(draft, 1))
    assert page1.index("is the de facto standard for client-side web programming") < page1.index(
        "and is used for the application logic of browser-based productivity"
    )
    assert "TraceMonkey always begins executing a program in the bytecode interpreter." in page2
    assert draft.text.count("ﬁ") == 0 and "efficient" in draft.text


# --- bad input ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", BAD_FIXTURES)
def test_bad_fixture_raises_with_reason(name: str) -> None:
    data = (FIXTURES / name).read_bytes()
    with pytest.raises(IngestError) as caught:
        read_pdf(data, uri=f"file:///fixtures/{name}")
    message = str(caught.value)
    for fragment in EXPECTED["fixtures"][name]["error"]:
        assert fragment in message, message
    assert not isinstance(caught.value, InvalidInput)  # a bad document is not a bad argument (issue 19)


def test_a_damaged_stream_is_told_apart_while_other_threads_read_pdfs() -> None:
    """mupdf's warnings, which reveal a damaged stream, go to one buffer for the whole process:
    a thread reading a sound PDF must not be refused for another thread's damaged one."""
    import threading

    damaged, sound = (FIXTURES / "damaged-stream.pdf").read_bytes(), (FIXTURES / "multi-page.pdf").read_bytes()
    expected_text = read_pdf(sound).text
    wrong: list[str] = []

    def read(data: bytes, rounds: int) -> None:
        for _ in range(rounds):
            try:
                outcome = read_pdf(data).text == expected_text
            except IngestError as error:
                outcome = data is damaged and "page 2 cannot be decoded" in str(error)
            if outcome is not True:
                wrong.append("damaged" if data is damaged else "sound")

    threads = [threading.Thread(target=read, args=(data, 25)) for data in (damaged, sound, damaged, sound)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []


@pytest.mark.parametrize(("origin", "name"), ENCRYPTED, ids=_ids(ENCRYPTED))
def test_encrypted_needs_the_right_password(origin: str, name: str) -> None:
    spec = _spec(origin, name)
    data = _path(origin, name).read_bytes()
    with pytest.raises(IngestError) as missing:
        read_pdf(data)
    for fragment in spec["error_without_password"]:
        assert fragment in str(missing.value)
    with pytest.raises(IngestError) as wrong:
        read_pdf(data, password="not-" + spec["password"])
    for fragment in spec["error_wrong_password"]:
        assert fragment in str(wrong.value)
    draft = read_pdf(data, password=spec["password"])
    for sentence in spec["pages"]["1"]:
        assert sentence in draft.text


def _one_page_pdf(trailer_extra: bytes, *extra_objects: bytes) -> bytes:
    """A one-page PDF written out by hand (pymupdf will not write what these tests need)."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
        *extra_objects,
    ]
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R %s >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, trailer_extra, xref)
    return bytes(out)


def test_a_pdf_encrypted_for_certificates_is_told_apart_from_a_damaged_one() -> None:
    """Public-key security (/Adobe.PubSec, as pyHanko and Acrobat write it) needs the
    recipient's key, not a password and not a new download."""
    sealed = _one_page_pdf(
        b"/Encrypt 4 0 R /ID [<01><01>]",
        b"<< /Filter /Adobe.PubSec /SubFilter /adbe.pkcs7.s5 /V 4 /R 4 /Length 128 /Recipients [<3082>] >>",
    )
    with pytest.raises(IngestError, match=r"encrypted for the holders of certificates .*decrypt it with the "
                                          r"recipient's certificate and private key first"):
        read_pdf(sealed)
    with pytest.raises(IngestError, match="damaged or truncated"):  # a handler mupdf does not know either
        read_pdf(sealed.replace(b"/Adobe.PubSec", b"/Adobe.Other"))


def test_a_page_whose_content_object_is_lost_is_damaged_not_a_scan() -> None:
    """The page's content lives in an object stream that is no stream (pyHanko's
    broken-objstream test files): mupdf reads an empty page, which is not a page to OCR."""
    out = bytearray(b"%PDF-1.7\n")
    offsets = {}
    for number, body in {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        3: b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 6 0 R >>",
        5: b"<< /Note (the object stream that should hold object 6) >>",
    }.items():
        offsets[number] = len(out)
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref_at = len(out)
    rows = [(0, 0, 255), (1, offsets[1], 0), (1, offsets[2], 0), (1, offsets[3], 0), (0, 0, 0), (1, offsets[5], 0),
            (2, 5, 0), (1, xref_at, 0)]  # object 6: the first in object stream 5
    entries = b"".join(struct.pack(">BHB", *row) for row in rows)
    out += b"7 0 obj\n<< /Type /XRef /Size 8 /W [1 2 1] /Root 1 0 R /Length %d >>\nstream\n" % len(entries)
    out += entries + b"\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n" % xref_at
    with pytest.raises(IngestError, match=r"is damaged: the content of page 1 cannot be decoded \(content stream is not"):
        read_pdf(bytes(out))


def test_too_many_bytes_and_pages() -> None:
    data = (FIXTURES / "multi-page.pdf").read_bytes()
    with pytest.raises(IngestError, match=f"is {len(data):,} bytes, over the limit of 1,000 bytes; pass a larger max_bytes"):
        read_pdf(data, max_bytes=1000)
    with pytest.raises(IngestError, match="claims 4 pages; the limit is 2"):
        read_pdf(data, max_pages=2)
    assert read_pdf(data, max_pages=4).page_count == 4


def test_not_a_pdf_says_what_it_looks_like() -> None:
    with pytest.raises(IngestError, match="not a PDF: it looks like plain text"):
        read_pdf(b"Quarterly report\nRevenue grew by 4%.\n")
    with pytest.raises(IngestError, match="not a PDF: it is binary data"):
        read_pdf(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    with pytest.raises(IngestError, match="not a PDF: it looks like HTML"):
        read_pdf(b"<html><body>hello</body></html>", uri="https://example.org/report.pdf")


def test_damaged_page_tree_or_body_fails_clearly() -> None:
    whole = (FIXTURES / "multi-page.pdf").read_bytes()
    for cut in (len(whole) // 16, len(whole) // 4, len(whole) // 2, len(whole) * 7 // 8):
        with pytest.raises(IngestError, match="damaged or truncated"):
            read_pdf(whole[:cut])


@pytest.mark.parametrize("name", ["multi-page.pdf", "two-column.pdf", "typography.pdf"])
def test_a_pdf_cut_short_near_its_end_is_refused_not_read_half(name: str) -> None:
    """mupdf repairs a file cut off near its end, but what it rebuilds can lack the fonts and
    objects written last: garbage text, or pages taken for scans."""
    whole = (FIXTURES / name).read_bytes()
    for cut in (len(whole) * 9 // 10, len(whole) * 98 // 100, len(whole) - 200, len(whole) - 10):
        with pytest.raises(IngestError, match=r"truncated.*re-download or re-export it"):
            read_pdf(whole[:cut])
    for padding in (b"\n\n", b"\0" * 4096, b"\n<html><body>saved page</body></html>" * 100):
        assert read_pdf(whole + padding).text == read_pdf(whole).text  # complete files, padded after %%EOF


def test_read_pdf_file(tmp_path: Path) -> None:
    draft = read_pdf_file(FIXTURES / "metadata.pdf")
    assert draft.uri == (FIXTURES / "metadata.pdf").resolve().as_uri()
    assert read_pdf_file(str(FIXTURES / "metadata.pdf"), uri="urn:x").uri == "urn:x"
    with pytest.raises(IngestError, match="no such file"):
        read_pdf_file(tmp_path / "missing.pdf")
    with pytest.raises(IngestError, match="is a directory"):
        read_pdf_file(tmp_path)
    big = tmp_path / "big.pdf"
    big.write_bytes(b"%PDF-1.7\n" + b"0" * 5000)
    with pytest.raises(IngestError, match="over the limit of 100 bytes; pass a larger max_bytes"):
        read_pdf_file(big, max_bytes=100)
    with pytest.raises(IngestError, match="NUL character"):
        read_pdf_file(str(tmp_path / "a\x00.pdf"))
    with pytest.raises(IngestError, match="not int"):
        read_pdf_file(123)  # type: ignore[arg-type]
    with pytest.raises(IngestError) as long_name:
        read_pdf_file(tmp_path / ("x" * 5000 + ".pdf"))
    assert len(str(long_name.value)) < 400, "messages shorten long paths"


def test_read_pdf_takes_bytes() -> None:
    with pytest.raises(IngestError, match="takes the document's bytes, not str"):
        read_pdf("%PDF-1.7")  # type: ignore[arg-type]
    data = (FIXTURES / "metadata.pdf").read_bytes()
    assert read_pdf(bytearray(data)).text == read_pdf(memoryview(data)).text == _draft("fixtures", "metadata.pdf").text


# --- metadata and dates -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("D:20240101120000+01'00'", datetime(2024, 1, 1, 11, tzinfo=UTC)),
        ("D:20240315083000-05'30'", datetime(2024, 3, 15, 14, 0, tzinfo=UTC)),
        ("D:20160119123847Z", datetime(2016, 1, 19, 12, 38, 47, tzinfo=UTC)),
        ("D:20160119123847Z00'00'", datetime(2016, 1, 19, 12, 38, 47, tzinfo=UTC)),
        ("D:20240101120000+0100", datetime(2024, 1, 1, 11, tzinfo=UTC)),
        ("D:20240101120000+01'", datetime(2024, 1, 1, 11, tzinfo=UTC)),
        ("D:20150424163928+01'00''", datetime(2015, 4, 24, 15, 39, 28, tzinfo=UTC)),  # a scanner's doubled '
        ("D:20250924071204--5'00'", datetime(2025, 9, 24, 12, 12, 4, tzinfo=UTC)),  # a one-digit hour, signed twice
        ("20240101", datetime(2024, 1, 1, tzinfo=UTC)),
        ("D:2024", datetime(2024, 1, 1, tzinfo=UTC)),
        ("D:202403", datetime(2024, 3, 1, tzinfo=UTC)),
        (" D:20240101120000 ", datetime(2024, 1, 1, 12, tzinfo=UTC)),
        ("D:20241301000000Z", None),
        ("D:20240230000000Z", None),
        ("D:20240101250000Z", None),
        ("D:20240101120000+99'00'", None),
        ("Tuesday", None),
        ("D:", None),
        ("", None),
        (None, None),
    ],
)
def test_parse_pdf_date(value: str | None, expected: datetime | None) -> None:
    parsed = parse_pdf_date(value)
    assert parsed == expected
    if parsed is not None:
        assert parsed.tzinfo is UTC or parsed.utcoffset() == timedelta(0)


@given(
    st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(2200, 1, 1)),
    st.integers(min_value=-14 * 60, max_value=14 * 60),
)
def test_parse_pdf_date_round_trips(moment: datetime, offset_minutes: int) -> None:
    zone = timezone(timedelta(minutes=offset_minutes))
    local = moment.replace(microsecond=0, tzinfo=zone)
    sign = "-" if offset_minutes < 0 else "+"
    hours, minutes = divmod(abs(offset_minutes), 60)
    text = f"D:{local:%Y%m%d%H%M%S}{sign}{hours:02d}'{minutes:02d}'"
    parsed = parse_pdf_date(text)
    assert parsed == local and parsed is not None and parsed.utcoffset() == timedelta(0)


@pytest.mark.parametrize(("created", "modified"), [
    ("D:19700101000000Z", "D:19700101000000+00'00'"),  # SOURCE_DATE_EPOCH=0 (Ghostscript, reproducible builds)
    ("D:19921231235959Z", "D:21000101000000Z"),  # before PDF existed; a clock far ahead
])
def test_placeholder_dates_are_not_believed(created: str, modified: str) -> None:
    import pymupdf

    with pymupdf.open(FIXTURES / "metadata.pdf") as document:
        document.set_metadata({**document.metadata, "creationDate": created, "modDate": modified})
        data = document.tobytes()
    draft = read_pdf(data)
    assert draft.published_at is None and draft.modified_at is None
    assert draft.metadata["creationDate"] == created and draft.metadata["modDate"] == modified  # as written
    assert read_pdf(data.replace(created.encode(), b"D:19930101000000Z")).published_at == datetime(1993, 1, 1, tzinfo=UTC)


def test_metadata_fixture() -> None:
    draft = _draft("fixtures", "metadata.pdf")
    assert draft.title == "Ledger Fixture: Metadata"
    assert draft.author == "Ada Example"
    assert draft.published_at == datetime(2024, 1, 1, 11, tzinfo=UTC)
    assert draft.modified_at == datetime(2024, 3, 15, 14, tzinfo=UTC)
    assert draft.metadata["creationDate"] == "D:20240101120000+01'00'"
    assert draft.content_hash == content_hash((FIXTURES / "metadata.pdf").read_bytes())
    assert all(value for value in draft.metadata.values())


def test_image_only_pages_are_listed_not_raised() -> None:
    assert _draft("fixtures", "image-only.pdf").pages_without_text == (1,)
    mixed = _draft("fixtures", "mixed-ocr.pdf")
    assert mixed.pages_without_text == (2,)
    assert {p.page for p in mixed.passages} == {1}


# --- the package's promises ---------------------------------------------------------------------


def test_import_does_not_load_pymupdf() -> None:
    code = "import sys, ledger.ingest.pdf; sys.exit('pymupdf' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr or "importing ledger.ingest.pdf loaded pymupdf"


def _load_builder() -> ModuleType:
    """fixtures/build_pdfs.py as a module (executed from source: no bytecode left in fixtures/)."""
    path = ROOT / "fixtures" / "build_pdfs.py"
    module = ModuleType("build_pdfs")
    module.__file__ = str(path)
    exec(compile(path.read_text(encoding="utf-8"), path, "exec"), module.__dict__)  # noqa: S102 - our own script
    return module


def test_fixtures_are_what_the_builder_writes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """fixtures/pdf is exactly build_pdfs.py's output: rebuild after editing the texts."""
    builder = _load_builder()
    builder.OUT = tmp_path
    builder.main()
    capsys.readouterr()
    built = sorted(p.name for p in tmp_path.iterdir())
    assert built == sorted(p.name for p in FIXTURES.iterdir())
    for name in built:
        if name == "encrypted.pdf":  # fresh salts on every save: compare what it decrypts to
            fresh, kept = pymupdf.open(tmp_path / name), pymupdf.open(FIXTURES / name)
            assert fresh.authenticate("open-sesame") and kept.authenticate("open-sesame")
            assert fresh[0].get_text() == kept[0].get_text()
            continue
        assert (tmp_path / name).read_bytes() == (FIXTURES / name).read_bytes(), name


def test_passage_draft_type() -> None:
    draft = _draft("fixtures", "multi-page.pdf")
    assert all(type(p) is PassageDraft for p in draft.passages)
    assert all(isinstance(v, float) for p in draft.passages for v in p.bbox or ())


# --- drop capitals ------------------------------------------------------------------------------


def _capital_page(capital: str, rest: str, *, capital_box: tuple[float, float, float, float] = (54, 117, 77, 168),
                  rest_x: float = 84, second_block: int = 1) -> str:
    """Assemble one page: a capital beside two body lines (13 pt tall)."""
    lines = [
        (capital_box, capital, 0, False, True, False, False),
        ((rest_x, 119.5, 280, 132.8), rest, 1, False, True, False, False),
        ((rest_x, 132.0, 258, 145.3), "pilots who guided ships", second_block, False, True, False, False),
    ]
    text, _, _ = assemble([lines])
    return text


def _row_text(*pieces: tuple[float, float, str, int, bool, bool], upright: bool = True) -> str:
    """Assemble one row that mupdf cut into pieces: (x0, x1, text, block, starts with a space
    glyph, ends with one), 12 pt tall."""
    lines = [((x0, 736.8, x1, 748.6), text, block, False, upright, lead, trail) for x0, x1, text, block, lead, trail in pieces]
    text, _, _ = assemble([lines])
    return text


def test_pieces_of_one_row_read_as_one_line() -> None:
    """mupdf cuts a line of a form into pieces, often in blocks of their own ("For " /
    "shipboard service" / "s please ..."): they touch, or a space glyph or gap stands between."""
    assert _row_text((36.0, 53.8, "For", 20, False, True), (53.8, 134.3, "shipboard service", 18, False, False),
                     (134.3, 351.5, "s please include a copy.", 20, False, True)) == (
        "For shipboard services please include a copy.")
    assert _row_text((76.6, 237.7, "enter only", 24, False, False), (237.6, 573.0, "the contact", 26, True, False)) == (
        "enter only the contact")  # a space glyph starts the second piece
    assert _row_text((36.0, 90.0, "Testerino", 1, False, False), (90.0, 130.0, "Date: 2021.01.11", 2, False, False)) == (
        "Testerino Date: 2021.01.11")  # touching, but a capital starts a word
    assert _row_text((36.0, 90.0, "Clause 6.", 1, False, False), (93.0, 300.0, "The safety goals", 2, False, False)) == (
        "Clause 6. The safety goals")  # a gap of a space


def test_pieces_far_apart_or_turned_stay_apart() -> None:
    assert _row_text((36.0, 90.0, "Quantity", 1, False, False), (200.0, 260.0, "Price", 2, False, False)) == (
        "Quantity\n\nPrice")  # table cells
    assert _row_text((36.0, 90.0, "axis", 1, False, False), (90.0, 130.0, "label", 2, False, False), upright=False) == (
        "axis\n\nlabel")


def test_pieces_of_a_right_to_left_row_read_right_to_left() -> None:
    """mupdf cuts a Hebrew line where a number or a Latin word starts, each piece's text in
    logical order: the pieces of a row of mostly right-to-left text read from right to left,
    a run of left-to-right pieces within it from left to right (given here left to right)."""
    assert _row_text((86.8, 133.3, "אחוזים,", 4, True, False), (133.4, 160.9, "15.5", 3, False, False),
                     (160.9, 174.1, "ו-", 3, True, False), (174.1, 299.0, "עם מספרים כמו 2024", 2, False, False)) == (
        "עם מספרים כמו 2024 ו-15.5 אחוזים,")
    assert _row_text((40.0, 80.0, "בתוך", 1, True, False), (80.0, 100.0, "Big", 2, False, False),
                     (103.0, 130.0, "Data", 3, False, False), (130.0, 300.0, "ומילים כמו", 4, False, True)) == (
        "ומילים כמו Big Data בתוך")
    # in a row of mostly left-to-right text, a run of right-to-left pieces reads right to left
    assert _row_text((36.0, 120.0, "The sign read", 1, False, True), (120.0, 150.0, "עולם", 2, False, False),
                     (153.0, 180.0, "שלום", 3, False, False), (180.0, 320.0, "by the gate of the old harbour.", 4, True, False)) == (
        "The sign read שלום עולם by the gate of the old harbour.")



@pytest.mark.parametrize("sentence", ["קניתי את ה-iPhone החדש אתמול בערב.", "חיפשתי ב-Google את המילה.",
                                      "התקנתי את Windows 10 על המחשב הישן."])
def test_a_latin_word_after_a_hebrew_prefix_stays_joined_as_written(sentence: str) -> None:
    """mupdf cuts "ה-iPhone" at the change of direction: the hyphen is no line break, and a capital
    starting the Latin piece puts no space after the prefix."""
    import pymupdf

    with pymupdf.open() as doc:
        page = doc.new_page()
        page.insert_htmlbox(pymupdf.Rect(72, 72, 572, 400), f'<div dir="rtl" style="font-size:14px"><p>{sentence}</p></div>')
        assert " ".join(read_pdf(doc.tobytes()).text.split()) == sentence


def test_columns_of_a_right_to_left_page_read_right_to_left() -> None:
    """A page whose text is mostly right to left reads its columns from the right."""
    right = [((324.0, 100.0 + 14 * row, 540.0, 113.3 + 14 * row), f"עמודה ימנית שורה {row}", 0, False, True, False, False)
             for row in range(3)]
    left = [((72.0, 100.0 + 14 * row, 288.0, 113.3 + 14 * row), f"עמודה שמאלית שורה {row}", 1, False, True, False, False)
            for row in range(3)]
    text, _, _ = assemble([left + right])
    assert text.index("עמודה ימנית שורה 2") < text.index("עמודה שמאלית שורה 0")
    # a row of code on that page, cut at a wide gap, still reads left to right
    code = [((72.0, 160.0, 150.0, 173.3), "[Script=Arabic,", 2, False, True, False, False),
            ((200.0, 160.0, 360.0, 173.3), "% arabic shaping", 2, False, True, False, False)]
    text, _, _ = assemble([left + right + code])
    assert text.index("[Script=Arabic,") < text.index("% arabic shaping")
    english = [(box, f"Column line {n}", block, *rest) for n, (box, _, block, *rest) in enumerate(left + right)]
    text, _, _ = assemble([english])
    assert text.index("Column line 2") < text.index("Column line 3")  # left to right, as ever
    # a byte order mark or a right-to-left mark alone (class BN, and invisible R) leaves a page as it was
    marked = [(box, "\ufeffColumn line\u200f", *rest) for box, _, *rest in english]
    assert pdf_layout.page_order(marked)[1] is None


VERTICAL_POEM = ("わたくしといふ現象は", "假定された有機交流電燈の", "ひとつの青い照明です", "あらゆる透明な幽霊の複合体",
                 "風景やみんなといつしよに", "せはしくせはしく明滅しながら")


def test_columns_written_vertically_read_from_the_right_each_top_down(tmp_path: Path) -> None:
    """Japanese set in vertical columns, one character at a time as a newspaper's producer draws
    it (mupdf makes each character a line): columns from right to left, each from top to bottom,
    not rows of characters from neighbouring columns; a column is cited as pymupdf shows it."""
    from ledger import Ledger

    with pymupdf.open() as doc:
        page = doc.new_page(width=300, height=300)
        for column, line in enumerate(VERTICAL_POEM):
            for row, char in enumerate(line):
                page.insert_text((250 - 12 * column, 40 + 10 * row), char, fontname="japan", fontsize=10)
        third = [tuple(line["bbox"]) for block in page.get_text("dict")["blocks"] for line in block["lines"]
                 if 226 <= line["bbox"][0] <= 228]
        data = doc.tobytes()
    text = read_pdf(data).text
    assert text.split("\n\n") == ["\n".join(line) for line in VERTICAL_POEM]
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        source = ledger.ingest_pdf(data)
        citation = ledger.cite(source, "\n".join(VERTICAL_POEM[2]), page=1)
        assert len(third) == len(VERTICAL_POEM[2]) and all(_contains(citation.locator["bbox"], box) for box in third)


def test_a_grid_of_one_character_cells_drawn_column_by_column_still_reads_in_rows() -> None:
    """A timetable of one-kanji cells, drawn column by column: its characters stand under one
    another, but rows 1.4 lines apart are a table's, not a column of vertical text."""
    days, periods = "月火水木金", ["国数英理社", "数国社英理", "英理国数体", "理社数国英", "社英理体国", "体国英数社"]
    with pymupdf.open() as doc:
        page = doc.new_page(width=300, height=300)
        for column, cells in enumerate([days, *periods]):
            for row, cell in enumerate(cells):
                page.insert_text((40 + 30 * column, 60 + 14 * row), cell, fontname="japan", fontsize=10)
        data = doc.tobytes()
    read = "".join(line.strip() for line in read_pdf(data).text.split("\n"))
    assert read == "".join(column[row] for row in range(5) for column in [days, *periods]), read


def test_control_codes_are_unmapped_glyphs_unless_they_are_whitespace() -> None:
    """A glyph a broken font encoding maps to a control code reads as U+FFFD, not as a space."""
    texts, _ = pdf_text._line_texts(["Tab&#x9;and&#x1f;unit", "glyph&#x3;&#x7f;&#x85;end"])
    assert texts == ["Tab and unit", "glyph\ufffd\ufffd end"]
    assert pdf_text.normalize_line("glyph\x03\x7f\x85end\x9f") == ("glyph\ufffd\ufffd end\ufffd", False)
    assert pdf_ocr._unmapped("\ufffd\ufffd \ufffd ab")
    assert not pdf_ocr._unmapped("x = \ufffd")


# --- reading order of labels, on line boxes as mupdf reports them (taller than the leading) ---------


def _line(x0: float, row: int, x1: float, *, top: float = 100.0, leading: float = 12.5) -> tuple[float, ...]:
    y0 = top + row * leading
    return (x0, y0, x1, y0 + 13.3)  # a 10 pt line box: taller than the leading, so lines touch


def test_two_columns_of_touching_lines_read_column_by_column() -> None:
    """The right column ends early; the left one has a paragraph gap: still left, then right."""
    title = (54.0, 60.0, 400.0, 80.0)
    left = [_line(54, row, 288) for row in (0, 1, 2, 3, 5, 6, 7, 8)]
    right = [_line(324, row, 558) for row in (0, 1, 2)]
    boxes = [title, *right, *left]  # drawn in another order than it is read
    order = pdf_columns.reading_order(boxes)
    assert [boxes[i] for i in order] == [title, *left, *right]


def test_two_columns_cut_across_by_a_wide_gap_still_read_column_by_column() -> None:
    """Both columns break at the same height, by more than the gutter (a section break set
    alike in both): columns on both sides of the gap, so the page still reads by column."""
    left = [_line(54, row, 288) for row in (0, 1, 2, 3, 10, 11, 12)]
    right = [_line(300, row, 534) for row in (0, 1, 2, 10, 11, 12, 13)]
    boxes = [*right, *left]
    order = pdf_columns.reading_order(boxes)
    assert [boxes[i] for i in order] == [*left, *right]


def test_title_page_lines_far_apart_read_top_down() -> None:
    """Title at the left, subtitle flush right below it, author alone at the foot: the gutter
    between them is no column break, the wide gap above the author is."""
    title = (72.0, 180.0, 214.0, 218.0)
    subtitle = [(364.0, 222.0, 540.0, 240.0), (460.0, 240.0, 540.0, 258.0), (514.0, 258.0, 540.0, 276.0)]
    author = (72.0, 687.0, 136.0, 703.0)
    boxes = [author, *subtitle, title]
    order = pdf_columns.reading_order(boxes)
    assert [boxes[i] for i in order] == [title, *subtitle, author]


def test_numbers_beside_touching_lines_read_row_by_row() -> None:
    """A tightly set table of contents: each section number before its title."""
    numbers = [_line(72, row, 84) for row in range(5)]
    titles = [_line(108, row, 300) for row in range(5)]
    boxes = numbers + titles
    order = pdf_columns.reading_order(boxes)
    assert [boxes[i] for i in order] == [box for pair in zip(numbers, titles, strict=True) for box in pair]


def test_a_few_words_beside_a_paragraph_do_not_label_its_lines() -> None:
    paragraph = [_line(54, row, 288) for row in range(10)]
    words = [_line(324, row, 350) for row in (0, 3, 6)]
    boxes = paragraph + words
    order = pdf_columns.reading_order(boxes)
    assert [boxes[i] for i in order] == paragraph + words


def test_a_drop_capital_is_joined_to_its_word() -> None:
    assert _capital_page("T", "he archive holds letters").startswith("The archive holds letters\npilots")


@pytest.mark.parametrize(
    ("capital", "rest", "box", "x"),
    [
        ("I", "was born by the harbour", (54, 117, 77, 168), 84),  # a word of its own
        ("T", "he archive holds letters", (54, 117, 77, 127), 84),  # not taller than a line
        ("T", "He archive holds letters", (54, 117, 77, 168), 84),  # the next line starts a sentence
        ("T", "he archive holds letters", (54, 117, 77, 168), 200),  # not beside it
    ],
)
def test_what_is_not_a_drop_capital_stays_apart(
    capital: str, rest: str, box: tuple[float, float, float, float], x: float
) -> None:
    assert _capital_page(capital, rest, capital_box=box, rest_x=x).startswith(f"{capital}\n\n{rest}")


def test_a_large_letter_beside_a_single_line_is_a_label_not_a_drop_capital() -> None:
    text = _capital_page("N", "north is up on this map", second_block=2)
    assert text.startswith("N\n\nnorth is up on this map")


BULLET_ITEMS = (
    ("If F is a record declaration, then Rep(F) is a tuple of the record name", "and the representations of its fields, each in the order written;",
     "for Rep(V), see below."),
    ("If F is a type declaration, then Rep(F) is a tuple of its name,", "the representation of its type and those of its variables."),
    ("If F is a wild attribute -A(T), then Rep(F) = {attribute,ANNO,A,T}.",),
)


def test_bullets_of_items_that_wrap_come_before_their_items() -> None:
    """An Apache FOP list: a bullet on the first line of each item, items wrapping to two or
    three lines under a hanging indent, the whole list one block. Few rows carry a bullet, yet
    each is read right before its item, after the heading above the list."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    writer = pymupdf.TextWriter(page.rect)
    font = pymupdf.Font("helv")
    writer.append((72, 80), "1.8  The Abstract Format", font=font, fontsize=14)
    y = 110.0
    for item in BULLET_ITEMS:
        writer.append((72, y), "\u2022", font=font, fontsize=10)
        for line in item:
            writer.append((90, y), line, font=font, fontsize=10)
            y += 12.0
        y += 2.5  # space between items
    writer.append((72, y + 10), "Each field in a record declaration can have an optional default.", font=font, fontsize=10)
    writer.write_text(page)
    text = read_pdf(doc.tobytes()).text
    assert text.startswith("1.8  The Abstract Format\n\n\u2022\n" + BULLET_ITEMS[0][0])
    for item in BULLET_ITEMS:
        assert "\u2022\n" + "\n".join(item) in text
    assert text.count("\u2022") == len(BULLET_ITEMS)
