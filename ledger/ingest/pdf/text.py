"""The lines of a page, from mupdf: their boxes, normalized texts and blocks.

Extraction
    Lines and their bboxes come from mupdf's structured-text XML (one C call per page,
    parsed with a regular expression), which costs about what ``page.get_text()`` does;
    pymupdf's "dict" output gives the same lines more slowly and is used where the XML
    does not parse (another mupdf), read with pymupdf's quad corrections off so that its line
    boxes are mupdf's, as in the XML. Text is read unclipped: lines wholly outside the page (hidden
    off-page text) are dropped, a line reaching over the page edge is kept whole with
    its bbox (clipping each character would cost a tenth of the extraction time).

Normalization of each line
    Ligatures expanded (pymupdf runs without ``TEXT_PRESERVE_LIGATURES``, which also folds
    presentation forms, and any remaining U+FB00..U+FB06 is mapped: "ﬁ" -> "fi", "ﬅ"/"ﬆ" ->
    "st"), and a space that a producer drew back inside an ff/fi/fl/ffi/ffl ligature dropped
    ("Erﬁ nder" -> "Erfinder": the space starts before the ligature ends and the next letter
    less than 0.1 em after it; "staﬀ arrived" keeps its space); soft hyphens
    (U+00AD) removed; whitespace, including U+2028/U+2029 and the control codes that are
    whitespace (tab, line breaks, separators), becomes plain spaces (pymupdf also runs without
    ``TEXT_PRESERVE_WHITESPACE``); other control codes, which only a font's broken encoding
    yields, become U+FFFD like glyphs without a Unicode mapping; NFC.
    Curly quotes, dashes and every other character are kept as written.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import accumulate, compress, repeat
from operator import itemgetter, not_
from typing import Any, Final

from ledger.ingest.base import BBox

#: a line: bbox, normalized text, pymupdf block number, whether it ended in a soft hyphen,
#: whether it runs left to right (within about 6 degrees; rotated lines are set apart), whether
#: it starts and whether it ends with a space glyph (which its bbox covers and its text leaves out)
Line = tuple[BBox, str, int, bool, bool, bool, bool]


_SOFT_HYPHEN: Final = "\u00ad"

_LIGATURES: Final = {
    0xFB00: "ff",
    0xFB01: "fi",
    0xFB02: "fl",
    0xFB03: "ffi",
    0xFB04: "ffl",
    0xFB05: "st",
    0xFB06: "st",
}
#: C0 and C1 control codes: the whitespace ones a space, the others (a font's broken encoding) U+FFFD
_CONTROL_CODES: Final = {c: " " if chr(c).isspace() else "\ufffd" for c in (*range(0x20), *range(0x7F, 0xA0))}
_TRANSLATION: Final[dict[int, str | None]] = {
    **_CONTROL_CODES,
    **{c: " " for c in (0xA0, 0x1680, *range(0x2000, 0x200B), 0x2028, 0x2029, 0x202F)},
    **{c: " " for c in (0x205F, 0x3000)},
    **_LIGATURES,
    0x00AD: None,
}
#: the same for lines joined by newlines: the newlines stay
_BLOCK_TRANSLATION: Final = {k: v for k, v in _TRANSLATION.items() if k != 0x0A}
#: a character _BLOCK_TRANSLATION changes: substituting the few there are is cheaper than
#: str.translate over a whole page
_TRANSLATED: Final = re.compile("[" + "".join(re.escape(chr(c)) for c in sorted(_BLOCK_TRANSLATION)) + "]")


#: the start of a <block> or a whole <line bbox="x0 y0 x1 y1" ... dir="dx dy" ...
#: text="..."/> element of mupdf's stext XML
_XML_ITEM: Final = re.compile(
    r'<(b)lock |<line bbox="([^"]*)"[^>]*? dir="([^"]*)"[^>]*? text="([^"]*)"'
)
_UPRIGHT: Final = "1 0"
#: the largest |dy| of a line's unit direction still read as a horizontal line
_SKEW: Final = 0.1
_XML_ENTITY: Final = re.compile(r"&(?:#x([0-9a-fA-F]+)|#([0-9]+)|([a-z]+));")
_XML_NAMED: Final = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'"}

#: tests set this to False to check the XML fast path against pymupdf's "dict" output
_PREFER_XML = True


def page_lines(page: Any, turn: Any, pymupdf: Any) -> tuple[list[Line], tuple[float, ...]]:
    """The page's lines, read through ``turn`` (its rotation, or None), and the area their
    coordinates lie in (the page's rectangle)."""
    # flags 0: ligatures expanded (and presentation forms folded), whitespace normalized, no
    # images. Not TEXT_MEDIABOX_CLIP: clipping every character costs about 10% of the
    # extraction; lines wholly off the page are dropped in on_page instead.
    if _PREFER_XML and hasattr(pymupdf.mupdf, "fz_print_stext_page_as_xml_with_flags"):
        textpage = page.get_textpage(flags=0, matrix=turn)
        lines = _xml_lines(textpage, pymupdf)
        if lines is not None:
            return lines, tuple(page.rect if turn else textpage.rect)  # where the lines' coordinates are
    # pymupdf clips characters itself unless told not to
    lines = _dict_lines(page.get_textpage(clip=pymupdf.INFINITE_RECT(), flags=0, matrix=turn), pymupdf)
    return lines, tuple(page.rect if turn else page.rect * page.derotation_matrix)


def on_page(lines: list[Line], area: Sequence[float]) -> list[Line]:
    """Drop lines that lie wholly outside the page (hidden off-page text).

    A line that reaches over the page edge is kept whole, characters beyond the edge
    included: pymupdf's own clipping works per character, at a tenth of its time.
    """
    if not lines:
        return lines
    x0s, y0s, x1s, y1s = zip(*map(itemgetter(0), lines))
    left, top, right, bottom = area
    if min(x0s) >= left and min(y0s) >= top and max(x1s) <= right and max(y1s) <= bottom:
        return lines
    return [
        line
        for line in lines
        if line[0][2] > left and line[0][0] < right and line[0][3] > top and line[0][1] < bottom
    ]


def _xml_lines(textpage: Any, pymupdf: Any) -> list[Line] | None:
    """Lines of a page from mupdf's stext XML (lines and bboxes only): the fast path.

    The page is parsed and normalized as a whole with C-level helpers (one regular
    expression, ``zip``, ``map``, ``compress``, substitutions over the joined lines),
    because per-line Python work is most of what this ingester adds to pymupdf's own
    cost. None if some ``<line>`` element does not parse (a future mupdf writing other
    attributes): the caller then reads the page through pymupdf's "dict" output.
    """
    mupdf = pymupdf.mupdf
    buffer = mupdf.fz_new_buffer(16384)
    out = mupdf.FzOutput(buffer)
    mupdf.fz_print_stext_page_as_xml_with_flags(out, textpage.this, 0, 0)
    out.fz_close_output()
    xml = mupdf.fz_buffer_extract_copy(buffer).decode("utf-8", "replace")
    found = _XML_ITEM.findall(xml)
    if not found:
        return [] if "<line " not in xml else None
    starts, bboxes, directions, raws = zip(*found)
    blocks: Iterable[int] = accumulate(map(len, starts))  # blocks started so far
    if starts.count("") < len(starts):  # drop the block markers, keep the lines
        is_line = list(map(not_, starts))
        blocks = compress(blocks, is_line)
        bboxes, directions, raws = (tuple(compress(c, is_line)) for c in (bboxes, directions, raws))
    if len(raws) != xml.count("<line "):
        return None
    if _LIGATURE_END_SPACE.search(xml):
        boxes_of = [tuple(map(float, box.split())) for box in bboxes]
        raws = tuple(_real_spaces(raws, boxes_of, [d == _UPRIGHT or _upright(d.split()) for d in directions], textpage))
    numbers = iter(map(float, " ".join(bboxes).split()))
    boxes = zip(numbers, numbers, numbers, numbers)
    texts, soft_breaks = _line_texts(raws)
    upright: Iterable[bool] = repeat(True)
    if directions.count(_UPRIGHT) != len(directions):
        upright = [d == _UPRIGHT or _upright(d.split()) for d in directions]
    spaced_starts, spaced_ends = [raw[:1].isspace() for raw in raws], [raw[-1:].isspace() for raw in raws]
    rows = zip(boxes, texts, blocks, soft_breaks, upright, spaced_starts, spaced_ends)
    return list(rows) if "" not in texts else [row for row in rows if row[1]]


def _line_texts(raws: Sequence[str]) -> tuple[list[str], Iterable[bool]]:
    """The normalized texts of XML-escaped lines, and whether each ended in a soft hyphen."""
    flat = "".join(raws)
    if flat.isascii() and flat.isprintable() and "&" not in flat:
        return list(map(str.strip, raws)), repeat(False)
    joined = "\n".join(raws)
    if "&" in joined:
        joined = _XML_ENTITY.sub(_xml_char, joined)  # never yields a newline
    soft_breaks: Iterable[bool] = repeat(False)
    if _SOFT_HYPHEN in joined:
        soft_breaks = [piece.rstrip().endswith(_SOFT_HYPHEN) for piece in joined.split("\n")]
    joined = _TRANSLATED.sub(_translated_char, joined)
    if not unicodedata.is_normalized("NFC", joined):
        joined = unicodedata.normalize("NFC", joined)
    texts = list(map(str.strip, joined.split("\n")))
    if len(texts) != len(raws):  # a raw newline inside a line: normalize line by line
        pairs = [normalize_line(_XML_ENTITY.sub(_xml_char, raw).strip()) for raw in raws]
        return [text for text, _ in pairs], [soft for _, soft in pairs]
    return texts, soft_breaks


def _dict_lines(textpage: Any, pymupdf: Any) -> list[Line]:
    """Lines of a page from pymupdf's "dict" output: slower, used where the XML does not parse.

    Its line boxes are mupdf's own, as in the XML: pymupdf's quad corrections (a box's height
    taken from its font's ascender and descender) are switched off while it is read, and back
    to what they were after (pymupdf4llm, when installed, switches them off for good on import).
    """
    tools = pymupdf.TOOLS
    corrections_off = tools.unset_quad_corrections()
    tools.unset_quad_corrections(True)
    try:
        blocks = textpage.extractDICT()["blocks"]
    finally:
        tools.unset_quad_corrections(corrections_off)
    found = [
        (block_number, raw_line)
        for block_number, block in enumerate(blocks)
        if block.get("type", 0) == 0
        for raw_line in block["lines"]
    ]
    raws: Sequence[str] = ["".join(span["text"] for span in raw_line["spans"]) for _, raw_line in found]
    if any(_LIGATURE_END_SPACE.search(raw) for raw in raws):
        raws = _real_spaces(raws, [tuple(raw_line["bbox"]) for _, raw_line in found],
                            [_upright(raw_line["dir"]) for _, raw_line in found], textpage)
    lines: list[Line] = []
    for (block_number, raw_line), raw in zip(found, raws, strict=True):
        text, soft_break = normalize_line(raw.strip())
        if text:
            x0, y0, x1, y1 = (float(v) for v in raw_line["bbox"])
            upright = _upright(raw_line["dir"])
            spaced_start, spaced_end = raw[:1].isspace(), raw[-1:].isspace()
            lines.append(((x0, y0, x1, y1), text, block_number, soft_break, upright, spaced_start, spaced_end))
    return lines


#: a word ending in what may be an expanded ligature ("ff", "fi", "fl", "ffi", "ffl"), a space,
#: and more text: the only places where a space drawn inside a ligature can show
_LIGATURE_END_SPACE: Final = re.compile(r"f[fil] (?=\S)")
#: such a space is drawn inside a ligature only if the next letter starts less than this
#: (in font sizes) after the ligature's end
_WORD_GAP: Final = 0.1


def _real_spaces(
    raws: Sequence[str], boxes: Sequence[tuple[float, ...]], upright: Sequence[bool], textpage: Any
) -> list[str]:
    """The lines without the spaces some producers draw inside a ligature ("Erﬁ nder").

    mupdf expands a ligature into its letters, the first with the glyph's width and the others
    with none. Such a space is a glyph of its own placed back over the ligature (it starts
    before the ligature ends), and the next letter starts where the ligature ends. A word that
    really ends in a ligature ("staﬀ arrived") has its space, drawn or made by mupdf from a
    gap, starting at the ligature's end. The characters of just the candidate lines (up to the
    last candidate) are read from mupdf's text page, the lines found by their bboxes; a line
    that cannot be found, or whose characters do not match its text, stays as it is. Upright
    lines only.
    """
    wanted: dict[tuple[float, ...], tuple[int, str, list[int]]] = {}
    for number, raw in enumerate(raws):
        if upright[number] and _LIGATURE_END_SPACE.search(raw):
            text = _XML_ENTITY.sub(_xml_char, raw) if "&" in raw else raw
            starts = [match.start() for match in _LIGATURE_END_SPACE.finditer(text)]
            wanted[box_key(boxes[number])] = (number, text, starts)
    fixed = list(raws)
    for (number, text, starts), chars in _lines_chars(textpage, wanted):
        if "".join(chr(char.c) for char in chars) != text[: len(chars)]:
            continue
        keep = [_word_break(chars, start + 1) for start in starts]
        if all(keep) or len(keep) != len(_LIGATURE_END_SPACE.findall(raws[number])):
            continue
        verdicts = iter(keep)
        fixed[number] = _LIGATURE_END_SPACE.sub(
            lambda match: match.group(0) if next(verdicts) else match.group(0)[:-1], raws[number])
    return fixed


def box_key(box: Sequence[float]) -> tuple[float, ...]:
    """A line's box rounded to 0.1 pt, to find it again in another reading of the page."""
    return tuple(round(float(value), 1) for value in box)


_Wanted = tuple[int, str, list[int]]


def _lines_chars(textpage: Any, wanted: Mapping[tuple[float, ...], _Wanted]) -> Iterator[tuple[_Wanted, list[Any]]]:
    """Each wanted text line with mupdf's characters, up to its last candidate's next letter,
    in one walk of mupdf's text page; nothing where pymupdf does not expose it (before 1.24)."""
    blocks = getattr(textpage, "this", None)
    if not wanted or blocks is None or not hasattr(blocks, "begin"):
        return
    left = len(wanted)
    for block in blocks:
        inner = block.m_internal
        if inner.type != 0:
            continue
        area = inner.bbox
        x0, y0, x1, y1 = area.x0 - 0.1, area.y0 - 0.1, area.x1 + 0.1, area.y1 + 0.1
        if not any(x0 <= a <= c <= x1 and y0 <= b <= d <= y1 for a, b, c, d in wanted):
            continue  # walking a block's lines costs more than looking at its bbox
        for line in block:
            box = line.m_internal.bbox
            entry = wanted.get(box_key((box.x0, box.y0, box.x1, box.y1)))
            if entry is None:
                continue
            last = entry[2][-1] + 2  # the space after the last candidate
            chars: list[Any] = []
            for char in line:
                inner_char = char.m_internal
                chars.append(inner_char)
                if len(chars) > last + 1 and inner_char.c != 0x20:
                    break  # the letter after that space: enough
            yield entry, chars
            left -= 1
            if not left:
                return


def _word_break(chars: Sequence[Any], tail: int) -> bool:
    """Whether the space after ``chars[tail]`` (what may be a ligature's last letter) is a word
    break; mupdf's characters, their positions read only here."""
    tail_quad, space_quad = chars[tail].quad, chars[tail + 1].quad
    end = tail_quad.ur.x
    if tail_quad.ul.x < end - 0.01 or space_quad.ul.x >= end - 0.25 * (space_quad.ur.x - space_quad.ul.x):
        return True  # the letter has a width of its own, or the space does not reach back over it
    following = next((char for char in chars[tail + 2 :] if char.c != 0x20), None)
    return following is None or following.quad.ul.x - end >= _WORD_GAP * chars[tail].size


def _upright(direction: Sequence[str | float]) -> bool:
    """True if a line's direction vector (dx, dy) runs left to right, give or take 6°."""
    dx, dy = (float(v) for v in direction)
    return dx > 0 and abs(dy) <= _SKEW


def normalize_line(text: str) -> tuple[str, bool]:
    """Normalize a stripped line; also say whether it ended in a soft hyphen."""
    if text.isascii():
        return text.translate(_TRANSLATION).strip(), False
    soft_break = text.endswith(_SOFT_HYPHEN)
    text = text.translate(_TRANSLATION)
    if not unicodedata.is_normalized("NFC", text):
        text = unicodedata.normalize("NFC", text)
    return text.strip(), soft_break


def _translated_char(match: re.Match[str]) -> str:
    return _BLOCK_TRANSLATION[ord(match.group(0))] or ""


def _xml_char(match: re.Match[str]) -> str:
    hex_code, dec_code, name = match.groups()
    if name is not None:
        return _XML_NAMED.get(name, match.group(0))
    code = int(hex_code, 16) if hex_code is not None else int(dec_code)
    if code in _CONTROL_CODES:
        return _CONTROL_CODES[code]
    if 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
        return "\ufffd"
    return chr(code)
