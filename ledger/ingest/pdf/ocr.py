"""Lines only OCR can read, and glyphs without a Unicode mapping read by their codes.

What only OCR can read
    A line only OCR can read is left out: one where more than half of the characters that are
    not spaces, and at least three, are glyphs without a Unicode mapping (U+FFFD: a font
    embedded without its ToUnicode map) or ASCII letters with their two bytes swapped; a line with fewer
    (a formula's lone symbol) keeps them as U+FFFD. A page that would keep less than a tenth of
    its characters keeps none.

Glyphs without a Unicode mapping
    Before a line is judged, such a glyph is read as its character code where the code is a
    character: its font is a simple font (Type1, TrueType) with a standard encoding or none
    (Windows-1252, what producers put there; Mac Roman; StandardEncoding's ASCII) and no
    /Differences, none of its unmapped codes on the page is a control code, and they spell a
    word somewhere on the page (three letters in a row: not the arrows and boxes of a pi font;
    nor ever a known symbol font's, Wingdings, Symbol, ZapfDingbats and the like).
    A Type0 (CID) font's codes are glyph numbers under Identity-H and are never read; nor are
    Type3 fonts'. Characters mupdf mapped never change.
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections.abc import Sequence
from typing import Any, Final

from ledger.ingest.pdf.text import Line, box_key, normalize_line


def has_unmapped(lines: Sequence[Line]) -> bool:
    """Whether some character of a page is a glyph without a Unicode mapping (U+FFFD) or has
    its two bytes swapped (see :func:`_unmapped`)."""
    text = "".join([line[1] for line in lines])
    return "\ufffd" in text or (not text.isascii() and _BYTE_SWAPPED.search(text) is not None)


def _unmapped(text: str) -> int:
    """How many of a line's characters are glyphs that have no Unicode mapping, or letters whose
    two bytes were swapped, if they are more than half of its characters (spaces aside): only OCR
    can read it; else 0."""
    bad = text.count("\ufffd")
    if not text.isascii():
        bad += len(_BYTE_SWAPPED.findall(text))
    return bad if bad * 2 > _characters(text) else 0


def readable(lines: list[Line]) -> list[Line]:
    """A page's lines without those only OCR can read (see :func:`_unmapped`): a line that is
    mostly glyphs without a Unicode mapping, at least _UNREAD_WORD of them (a word's worth of
    text), is left out; one with fewer (a formula's symbol, a note of music alone on its line)
    keeps them as U+FFFD, as a line with a few among its letters does. A page that keeps less
    than a tenth of its characters (a running head above a page in a broken font, or what a
    broken encoding made look like text) has no text layer to speak of: none is kept."""
    unreadable = [_unmapped(line[1]) for line in lines]
    kept = [line for line, bad in zip(lines, unreadable) if bad < _UNREAD_WORD]
    if len(kept) < len(lines) and _glyphs(kept) * _LEAST_READABLE < _glyphs(lines):
        return []
    return kept


#: a line of mostly unmapped glyphs is left out when it has at least this many
_UNREAD_WORD: Final = 3
#: a page that keeps less than one in this many of its characters (spaces aside) keeps none
_LEAST_READABLE: Final = 10


def _glyphs(lines: Sequence[Line]) -> int:
    """How many characters the lines hold, spaces aside."""
    return sum(_characters(line[1]) for line in lines)


def _characters(text: str) -> int:
    """How many characters ``text`` holds, spaces aside."""
    return len(text) - text.count(" ")


def coded(doc: Any, page: Any, lines: list[Line], turn: Any, pymupdf: Any) -> list[Line]:
    """The lines with each glyph that has no Unicode mapping read as its character code where
    the code is a character: the glyph's font is a simple font (Type1, TrueType: one byte a
    glyph) whose encoding is a standard one or none (which producers fill with Windows-1252
    codes), with no /Differences renaming codes; none of its unmapped codes on the page is a
    control code (a font numbering its glyphs 1, 2, 3 as it uses them); and its codes spell a
    word on the page (three letters in a row: the arrows and boxes of a pi font, one here and
    there, are not read as the letters their codes stand for). Type3 and Type0 (CID) fonts are
    never read so: a CID under Identity-H is a glyph index, not a character.

    Only U+FFFD changes, only where mupdf's text page read with TEXT_USE_CID_FOR_UNKNOWN_UNICODE
    has a line with the same bbox and, spaces and unmapped glyphs aside, the same text; every
    character mupdf mapped stays as it is.
    """
    mupdf = pymupdf.mupdf
    is_code = getattr(mupdf, "FZ_STEXT_UNICODE_IS_CID", None)  # an older mupdf does not mark such characters
    wanted = {box_key(line[0]) for line in lines if "\ufffd" in line[1]}  # where codes can be read
    if is_code is None or not wanted or not (tables := _code_tables(doc, page)):
        return lines
    font_name = mupdf.ll_fz_font_name
    textpage = page.get_textpage(flags=pymupdf.TEXT_USE_CID_FOR_UNKNOWN_UNICODE, matrix=turn)
    coded: dict[tuple[float, ...], list[tuple[str, str | None]]] = {}
    spelling: set[str] = set()  # fonts whose codes spell a word
    controls: set[str] = set()  # fonts with a control code among their unmapped codes, or no table
    for block in textpage.this:  # textpage is kept alive while its blocks are walked
        if block.m_internal.type != 0:
            continue
        for line in block:
            box = line.m_internal.bbox
            if (key := box_key((box.x0, box.y0, box.x1, box.y1))) not in wanted:
                continue  # every glyph mapped: no character of it is read from its code
            chars: list[tuple[str, str | None]] = []
            run, last = 0, None
            for char in (item.m_internal for item in line):
                code, font = char.c, font_name(char.font) if char.flags & is_code else None
                if font is None:  # mupdf's own character; a broken font's can lie outside Unicode
                    chars.append((chr(code) if 0 <= code <= 0x10FFFF else "\ufffd", None))
                    run = 0
                    continue
                table = tables.get(font)
                if table is None or code < 0x20 or code == 0x7F or code > 0xFF:
                    controls.add(font)
                    chars.append(("\ufffd", font))
                    run = 0
                    continue
                chars.append((table[code], font))
                if not table[code].isalpha():
                    run = 0
                elif font == last:
                    run += 1
                else:
                    run, last = 1, font
                if run >= 3:
                    spelling.add(font)
            if any(font is not None for _, font in chars):
                coded[key] = chars
    readers = spelling - controls
    if not readers:
        return lines
    fixed: list[Line] = []
    for line in lines:
        found = coded.get(box_key(line[0])) if "\ufffd" in line[1] else None
        if found is not None:
            raw = "".join([char if font is None or font in readers else "\ufffd" for char, font in found])
            mapped = "".join([char for char, font in found if font is None])
            if normalize_line(mapped.strip())[0].translate(_UNREAD) == line[1].translate(_UNREAD):
                text, soft_break = normalize_line(raw.strip())
                if text:
                    line = (line[0], text, line[2], soft_break, line[4], raw[:1].isspace(), raw[-1:].isspace())
        fixed.append(line)
    return fixed


#: what a line read with character codes may differ in from the line read without
_UNREAD: Final = {0x20: None, 0xFFFD: None}


def _code_tables(doc: Any, page: Any) -> dict[str, str]:
    """For each font of the page whose character codes are characters (see :func:`coded`), by
    the name mupdf gives its glyphs, the 256 characters its codes stand for (U+FFFD where a code
    stands for none). A name that another font of the page bears too is left out."""
    tables: dict[str, str] = {}
    others: set[str] = set()
    for xref, _, kind, base_font, *_ in page.get_fonts(full=True):
        name = base_font[:_FONT_NAME_LENGTH]
        table = _font_table(doc, xref) if kind in ("Type1", "MMType1", "TrueType") else None
        if table is None or tables.get(name, table) != table or _PI_FONTS.match(name.partition("+")[2] or name):
            others.add(name)
            found_kind, found = doc.xref_get_key(xref, "Name")  # the name mupdf may give it instead
            if found_kind == "name":
                others.add(found[1:_FONT_NAME_LENGTH + 1])
        else:
            tables[name] = table
    return {name: table for name, table in tables.items() if name not in others}


#: how much of a font's name mupdf keeps (``char name[32]``)
_FONT_NAME_LENGTH: Final = 31
#: symbol fonts whose codes stand for arrows, bullets and boxes, never for the letters of their
#: code points ("l" is a bullet in Wingdings)
_PI_FONTS: Final = re.compile(r"(?:Wingdings|Webdings|Symbol|ZapfDingbats|Dingbats|MT-?Extra|Marlett)", re.IGNORECASE)


def _font_table(doc: Any, xref: int) -> str | None:
    """The characters a simple font's codes stand for, from its /Encoding; None if it renames
    codes (/Differences) or names an encoding of no standard characters."""
    kind, value = doc.xref_get_key(xref, "Encoding")
    if kind in ("xref", "dict"):
        if doc.xref_get_key(xref, "Encoding/Differences")[0] != "null":
            return None
        kind, value = doc.xref_get_key(xref, "Encoding/BaseEncoding")
    if kind == "null":
        return _CODE_TABLES["WinAnsiEncoding"]
    return _CODE_TABLES.get(value[1:]) if kind == "name" else None


def _decoded(codec: str) -> str:
    """The 256 characters of a one-byte code page, U+FFFD where it has none or a control code."""
    chars = [bytes([code]).decode(codec, "replace") for code in range(256)]
    return "".join("\ufffd" if unicodedata.category(char) == "Cc" else char for char in chars)


#: standard encodings of simple fonts: StandardEncoding agrees with ASCII but for its quotes and
#: is read there only
_CODE_TABLES: Final = {
    "WinAnsiEncoding": _decoded("cp1252"),
    # PDF's MacRomanEncoding predates the euro and Apple's logo: ¤ at 0xDB, nothing at 0xF0
    "MacRomanEncoding": _decoded("mac_roman").replace("\u20ac", "\u00a4").replace("\uf8ff", "\ufffd"),
    "StandardEncoding": _decoded("ascii").replace("'", "\u2019").replace("`", "\u2018"),
}
#: ASCII letters with their two bytes swapped ("M" U+004D as U+4D00), as a font whose ToUnicode
#: map was written the wrong way round reads; such characters make no more than a sliver of
#: real CJK text ("一" U+4E00 is the commonest). Not punctuation: swapped, "%" is "─" (U+2500),
#: and a line of those is a rule drawn in text.
_BYTE_SWAPPED: Final = re.compile("[" + "".join(chr(ord(c) << 8) for c in string.ascii_letters) + "]")
