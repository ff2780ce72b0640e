"""A page's bytes as text: its charset found as browsers find it, and what is not HTML refused."""

from __future__ import annotations

import codecs
import functools
import re

from ledger.errors import IngestError
from ledger.ingest.html.mend import HTML_ELEMENTS

__all__ = ["ascii_compatible", "as_bytes", "decode", "refuse_known_binary", "refuse_non_html"]


def as_bytes(html: str | bytes) -> bytes:
    """The page's bytes as hashed: a str as its UTF-8 (lone surrogates as given)."""
    if isinstance(html, bytes):
        return html
    if isinstance(html, str):
        try:
            return html.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates: hash them as given
            return html.encode("utf-8", "surrogatepass")
    raise IngestError(f"read_html takes the page as str or bytes, not {type(html).__name__}")


_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"%PDF-", "a PDF document; read it with the PDF ingester"),
    (b"PK\x03\x04", "a ZIP archive (or an office document)"),
    (b"\x1f\x8b", "gzip-compressed data; decompress it first"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed data; decompress it first"),
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
)


def refuse_known_binary(raw: bytes, where: str) -> None:
    """Refuse, naming it, a format known by its magic number (PDF, ZIP, gzip, images)."""
    start = raw[:1024].lstrip()
    for magic, what in _MAGIC:
        if start.startswith(magic):
            raise IngestError(f"{where} is not HTML: it is {what}")


_TAG = re.compile(r"<(?:!doctype|[a-z][a-z0-9-]*)[\s>/]", re.IGNORECASE)
_BINARY_CHARS = re.compile(r"[\x00-\x08\x0e-\x1a\x1c-\x1f]")


# The first element of a document, after any XML declaration, doctype, comments and
# processing instructions; group 1 is the declaration if there is one. Possessive throughout: a
# prolog that leads to no element fails in one pass (backtracking would take exponential time).
_FIRST_ELEMENT = re.compile(
    r"\s*+(<\?xml\s.*?\?>)?+(?:<\?.*?\?>|<!--.*?-->|<![^>]*+>|\s++)*+<([a-z][\w:.-]*+)", re.IGNORECASE | re.DOTALL
)
_EMBEDDABLE = frozenset({"svg", "math"})
# XML vocabularies that parse as HTML (libxml2 reads any tag) but are not pages.
_FEED = "a news feed ({}); ingest the pages its entries link to"
_NOT_PAGES = {
    "rss": _FEED.format("RSS"),
    "rdf:rdf": _FEED.format("RSS 1.0"),
    "feed": _FEED.format("Atom"),
    "svg": "an SVG image",
    "math": "a MathML formula",
}


def refuse_non_html(text: str, where: str) -> None:
    """Refuse text that is not HTML: binary, without tags, a feed, an SVG or another XML document."""
    sample = text[:8192]
    binary = len(_BINARY_CHARS.findall(sample))
    if binary > len(sample) // 10:
        raise IngestError(f"{where} is not HTML: {binary} of its first {len(sample)} characters are control characters")
    if _TAG.search(text) is None:
        raise IngestError(f"{where} is not HTML: it has no tags (use the text ingester for plain text)")
    if (first := _FIRST_ELEMENT.match(sample)) is not None:
        root = first.group(2).lower()
        # a feed is never a fragment; an <svg> or <math> is the document only if it ends it
        # (a fragment may start with an inline icon or formula)
        if root in _NOT_PAGES and (root not in _EMBEDDABLE or text.rstrip().lower().endswith(f"</{root}>")):
            raise IngestError(f"{where} is not HTML: its root element <{first.group(2)}> makes it {_NOT_PAGES[root]}")
        if first.group(1) and root.rpartition(":")[2] not in HTML_ELEMENTS:  # XHTML declares itself XML
            raise IngestError(f"{where} is not HTML: it is an XML document with root element <{first.group(2)}>")



_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))
_META_CHARSET = re.compile(rb"""<meta\s[^>]*?charset\s*=\s*["']?\s*([a-z0-9_.:-]+)""", re.IGNORECASE)
_XML_ENCODING = re.compile(rb"""^\s*<\?xml[^>]*?encoding\s*=\s*["']([a-z0-9_.:-]+)""", re.IGNORECASE)
# WHATWG Encoding Standard: codecs browsers decode as a superset of what they are named (applied
# to Python's codec name, so every label of one, "latin1", "cp819", "iso-ir-100" …, is covered) …
_SUPERSETS = {
    "ascii": "cp1252",
    "iso8859-1": "cp1252",
    "iso8859-9": "cp1254",
    "iso8859-11": "cp874",
    "tis-620": "cp874",
    "gb2312": "gbk",
    "euc_kr": "cp949",
    "shift_jis": "cp932",
    "big5": "big5hkscs",
}
# … and labels of the standard that Python does not know.
_LABEL_ALIASES = {
    "x-cp1252": "cp1252",
    "windows-874": "cp874",
    "x-gbk": "gbk",
    "csgb2312": "gbk",
    "gb_2312-80": "gbk",
    "x-sjis": "cp932",
    "windows-31j": "cp932",
    "x-euc-jp": "euc_jp",
    "cseuckr": "cp949",
    "iso-ir-149": "cp949",
    "x-mac-roman": "mac_roman",
    "macintosh": "mac_roman",
    "x-mac-cyrillic": "mac_cyrillic",
}
# A document cannot declare these about itself in ASCII; browsers ignore such a declaration.
_NOT_DECLARABLE = ("utf-16", "utf-32", "utf-7")


def _codec(label: str | None) -> str | None:
    """Python codec name for a charset label, None for an unknown label."""
    if not label:
        return None
    name = label.strip().strip("\"'").lower()
    name = _LABEL_ALIASES.get(name, name)
    try:
        codec = codecs.lookup(name).name
    except LookupError:
        return None
    return _SUPERSETS.get(codec, codec)


def _declared(raw: bytes) -> str | None:
    """The charset the document declares in its first 16 KiB (meta charset, http-equiv, XML)."""
    head = raw[:16384]
    match = _XML_ENCODING.match(head) or _META_CHARSET.search(head)
    codec = _codec(match.group(1).decode("ascii")) if match else None
    if codec is None or codec.startswith(_NOT_DECLARABLE):
        return None
    return codec


def decode(raw: bytes, encoding: str | None) -> tuple[str, str]:
    """Decode page bytes: BOM, then HTTP charset, then the page's declaration, then UTF-8, then a guess."""
    for bom, codec in _BOMS:
        if raw.startswith(bom):
            return raw[len(bom) :].decode(codec, "replace"), codec
    for label in (_codec(encoding), _declared(raw)):
        if label is None:
            continue
        if label != "utf-8" and not raw.isascii() and _is_utf8(raw):
            # Valid multi-byte UTF-8 read as a legacy charset is mojibake: the label is wrong
            # (servers that default to ISO-8859-1 are the usual cause).
            return raw.decode("utf-8"), "utf-8"
        return raw.decode(label, "replace"), label
    wide = _utf16_without_bom(raw)
    if wide is not None:
        return raw.decode(wide, "replace"), wide
    try:
        return raw.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes  # only for undeclared legacy pages

    guess = from_bytes(raw).best()
    guessed = _codec(guess.encoding) if guess is not None else None
    if guessed is None:
        return raw.decode("utf-8", "replace"), "utf-8"
    return raw.decode(guessed, "replace"), guessed


@functools.cache
def ascii_compatible(codec: str) -> bool:
    """Whether ASCII text has the same bytes in this codec (not so in UTF-16 or EBCDIC)."""
    sample = "<meta content=author>"
    try:
        return sample.encode(codec) == sample.encode("ascii")
    except (LookupError, UnicodeError):
        return False


def _is_utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _utf16_without_bom(raw: bytes) -> str | None:
    """UTF-16 without a BOM shows as ASCII with a NUL in every other byte."""
    sample = raw[:1024]
    if len(sample) < 16 or sample.count(0) < len(sample) // 3:
        return None
    even, odd = sample[0::2], sample[1::2]
    if odd.count(0) > 0.9 * len(odd) and even.count(0) < 0.1 * len(even):
        return "utf-16-le"
    if even.count(0) > 0.9 * len(even) and odd.count(0) < 0.1 * len(odd):
        return "utf-16-be"
    return None
