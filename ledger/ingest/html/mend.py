"""Mending a page's tree before trafilatura reads it: parsing with repairs, and inline markup
that trafilatura would misread rewritten as browsers show it (lxml's public API only)."""

from __future__ import annotations

import re
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lxml.html import HtmlElement, HTMLParser

__all__ = ["HTML_ELEMENTS", "mend_inline_markup", "parse"]


def mend_inline_markup(tree: HtmlElement) -> None:
    """Mend, in one walk, the markup trafilatura would misread: a <time> or a <q> inside a
    sentence, a <pre> without <code>, and text that runs on after an image's block or a
    paragraph holding a line break or code."""
    found: dict[str, list[HtmlElement]] = {"time": [], "q": [], "pre": [], "img": [], "p": []}
    for element in tree.iter("time", "q", "pre", "img", "p"):
        if element.tag == "p" and not _has_word(element.tail) and not _inline_after(element):
            continue  # nothing runs on after the paragraph: the common case
        found[element.tag].append(element)
    _unwrap_times_in_sentences(found["time"])
    _inline_quotes(tree, found["q"])
    for pre in found["pre"]:  # trafilatura reads a <pre> holding one <span> as code, keeping its lines
        if pre.find("code") is None and (len(pre) != 1 or pre[0].tag != "span"):
            _wrap_children(pre)
    _wrap_runs_after_figures(found["img"])
    _wrap_runs_after_paragraphs(found["p"])
    _wrap_runs_after_code(found["pre"])


# Blocks holding an image that trafilatura drops with their tail: a <div> (or the like) when it
# does not take it for text, which it does not whenever the page has paragraphs enough, and a <p>,
# which it rebuilds without its tail once the paragraph has a child (here the image).
_TAIL_DROPPING = frozenset({"p", "div", "figure", "picture", "section", "article", "main", "header", "center"})
# Containers in which a run of text beside blocks is a paragraph of its own (in an <li>, say,
# trafilatura keeps the text as it is).
_RUN_HOSTS = frozenset({"div", "section", "article", "main", "body", "center", "form", "figure", "td", "th"})
# Blocks a figure (an image with its caption or credit) does not hold: above them, or above the
# paragraph, list item or cell an image stands in, its ancestors are sections of the page.
_NOT_IN_FIGURES = ("ul", "ol", "dl", "h1", "h2", "h3", "h4", "h5", "h6", "table", "blockquote", "pre")
_ABOVE_FIGURES = frozenset({*_NOT_IN_FIGURES, "p", "li", "dd", "dt", "td", "th", "caption", "figcaption", "body"})
# What ends a run of inline content: a line break (trafilatura keeps the text after a <br> as a
# paragraph) and block-level or embedded elements (not <address>: trafilatura unwraps it).
_RUN_ENDS = frozenset({
    "br", "article", "aside", "audio", "blockquote", "button", "canvas", "caption", "center", "dd", "details",
    "dialog", "div", "dl", "dt", "embed", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3",
    "h4", "h5", "h6", "header", "hgroup", "hr", "iframe", "label", "li", "main", "menu", "nav", "noscript",
    "object", "ol", "p", "picture", "pre", "script", "section", "select", "style", "svg", "table", "tbody", "td",
    "template", "textarea", "tfoot", "th", "thead", "tr", "ul", "video",
})  # fmt: skip
_RUN_BLOCKS = _RUN_ENDS - {"br"}  # what an inline element of a run may not hold (it may a <br>)


def _wrap_runs_after_figures(images: list[HtmlElement]) -> None:
    """Make a <p> of the text that runs on after the block holding an image (its figure), up to
    the next block or line break: "<div><img ...><div>caption</div></div>Lead <em>sentence</em>."
    Browsers show that text as a paragraph of its own; trafilatura, told to keep images, keeps
    the figure and drops the text after it with it (without images it would drop the emptied
    figure alone). A run that is itself an image caption (a class or id with "caption", as
    trafilatura knows them) is left as it is."""
    seen: set[HtmlElement] = set()
    for image in images:
        for block in image.iterancestors():
            if block in seen:
                break  # climbed from an earlier image already
            seen.add(block)
            if block.tag in _TAIL_DROPPING and (run := _run_after(block)) is not None:
                if next(block.iter(_NOT_IN_FIGURES), None) is not None:
                    break  # a section of the page with an image in it, not a figure
                if (parent := block.getparent()) is not None and parent.tag in _RUN_HOSTS:
                    _wrap_run(block, run)
            if block.tag in _ABOVE_FIGURES:
                break


# What trafilatura keeps inside a paragraph (without formatting and links), which makes it rebuild
# the paragraph, without its tail: a line break, code, deleted text (an image: see above).
_KEPT_IN_PARAGRAPHS = ("br", "code", "del", "s", "strike")


def _wrap_runs_after_paragraphs(paragraphs: list[HtmlElement]) -> None:
    """Make a <p> of the text that runs on after a paragraph holding a line break or code
    ("<p>First line<br>second</p>More text."), up to the next block or line break, as after a
    figure (see _wrap_runs_after_figures): trafilatura rebuilds such a paragraph without its
    tail, so loose text after it is lost."""
    for paragraph in paragraphs:
        if next(paragraph.iter(_KEPT_IN_PARAGRAPHS), None) is not None:  # else kept with its tail
            _wrap_run_after(paragraph)


def _wrap_runs_after_code(blocks: list[HtmlElement]) -> None:
    """Make a <p> of the text that runs on after a code block ("<pre>make</pre>Then run it."), up
    to the next block or line break: trafilatura keeps it as a paragraph, except where it drops a
    code block that repeats an earlier one, which takes the text after it along."""
    for block in blocks:
        _wrap_run_after(block)


def _wrap_run_after(block: HtmlElement) -> None:
    """Wrap the run after the block (see :func:`_run_after`) in a <p>, where its parent is a
    container in which such a run is a paragraph of its own."""
    if (parent := block.getparent()) is not None and parent.tag in _RUN_HOSTS and (run := _run_after(block)) is not None:
        _wrap_run(block, run)


def _wrap_run(block: HtmlElement, run: list[HtmlElement]) -> None:
    """Move the block's tail and the run after it into a new <p> right after the block."""
    from lxml.html import Element

    paragraph = Element("p")
    paragraph.text, block.tail = block.tail, None
    for element in run:
        paragraph.append(element)  # moves it, with its tail
    block.addnext(paragraph)


def _inline_after(block: HtmlElement) -> bool:
    """Whether an inline element (or the like: not a block, not a line break) follows the block."""
    return (after := block.getnext()) is not None and after.tag not in _RUN_ENDS


def _run_after(block: HtmlElement) -> list[HtmlElement] | None:
    """The inline elements after a block up to the next block or <br> (or inline element
    holding one, such as a <span> around the article's paragraphs), if they or the block's tail
    hold a word (not punctuation alone) and none is a caption; None otherwise."""
    run: list[HtmlElement] = []
    words = _has_word(block.tail)
    sibling = block.getnext()
    while sibling is not None and sibling.tag not in _RUN_ENDS:
        if isinstance(sibling.tag, str):
            if next(sibling.iter(_RUN_BLOCKS), None) is not None:
                break  # a <p> moved into the new <p> would be lost or out of order
            if "caption" in (sibling.get("class") or "").lower() or "caption" in (sibling.get("id") or "").lower():
                return None
            words = words or any(_has_word(piece) for piece in sibling.itertext())
        words = words or _has_word(sibling.tail)
        run.append(sibling)
        sibling = sibling.getnext()
    return run if words else None


_WORD_CHARACTER = re.compile(r"[^\W_]")  # a letter or digit


def _has_word(text: str | None) -> bool:
    return text is not None and _WORD_CHARACTER.search(text) is not None


def _unwrap_times_in_sentences(times: list[HtmlElement]) -> None:
    """Keep the text of a <time> that stands inside a sentence ("resigned on <time>Tuesday</time>
    after a vote"): trafilatura deletes every <time> with its text, which is right for a
    dateline of its own but cuts words out of running text. The <time> stays, emptied, for
    htmldate to read its ``datetime``."""
    for time in times:
        parent = time.getparent()
        if parent is None:
            continue
        # the text beside it in the same run of text (not inside other elements such as a heading)
        around = (parent.text or "") + "".join((child.tail or "") for child in parent)
        if any(c.isalpha() for c in around):
            _empty_in_place(time)


def _empty_in_place(element: HtmlElement) -> None:
    """Move an element's text and children out, right after it, leaving it empty."""
    children = list(element)
    tail, element.tail, element.text = element.tail, element.text, None
    for child in reversed(children):
        element.addnext(child)  # moves it, with its tail
    last = children[-1] if children else element
    last.tail = (last.tail or "") + (tail or "") or None


def _inline_quotes(tree: HtmlElement, quotes: list[HtmlElement]) -> None:
    """Read a <q> as browsers render it: its words inside quotation marks (“ ”, ‘ ’ when nested),
    in the sentence. trafilatura takes it for a block quote and breaks the paragraph around it.
    A <q> that is all the words of its block (a pull quote alone in its <div>) stays a quote:
    as bare text trafilatura would drop it as too short."""
    from lxml.etree import strip_tags

    letters_of: dict[HtmlElement, str] = {}  # each block's letters and digits, read once
    depths = [sum(1 for _ in quote.iterancestors("q")) for quote in quotes]  # before any is renamed
    for quote, depth in zip(quotes, depths, strict=True):
        lone = False
        if depth == 0:
            block = _block_of(quote)
            if block not in letters_of:
                letters_of[block] = _letters(block)
            lone = _letters(quote) == letters_of[block]
        opening, closing = ("\u2018", "\u2019") if depth % 2 else ("\u201c", "\u201d")
        quote.text = opening + (quote.text or "")
        if len(quote):
            quote[-1].tail = (quote[-1].tail or "") + closing
        else:
            quote.text += closing
        if not lone:
            quote.tag = _INLINED_QUOTE
    if quotes:
        strip_tags(tree, _INLINED_QUOTE)  # one pass, however many quotes


_INLINED_QUOTE = "ledger-inline-q"
_NOT_LETTERS = re.compile(r"[\W_]+")


def _letters(element: HtmlElement) -> str:
    return _NOT_LETTERS.sub("", element.text_content())


def _block_of(element: HtmlElement) -> HtmlElement:
    """The nearest ancestor that is not inline markup (the paragraph or block a <q> is in)."""
    for ancestor in element.iterancestors():
        if ancestor.tag not in _INLINE:
            return ancestor
    return element


_INLINE = frozenset({
    "a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "dfn", "em", "font", "i", "kbd", "mark", "q", "s",
    "samp", "small", "span", "strong", "sub", "sup", "time", "u", "var",
})  # fmt: skip
# what an XML document may have on top and still be (X)HTML: a page or a fragment of one
HTML_ELEMENTS = _INLINE | _RUN_ENDS | {"html", "head", "body", "title", "address", "img"}


def _wrap_children(element: HtmlElement) -> None:
    """Move an element's text and children into one <span> child."""
    from lxml.html import Element

    span = Element("span")
    span.text, element.text = element.text, None
    for child in list(element):
        span.append(child)  # moves it, with its tail
    element.append(span)



# --- parsing -------------------------------------------------------------------------------------


def parse(text: str, markup: bytes | None = None) -> HtmlElement | None:
    """The page's document element, parsed after the repairs libxml2 needs; None where libxml2
    finds no tree.

    Unlike trafilatura's ``load_html``, a fragment is read whole, as the ``<html>`` and ``<body>``
    libxml2 puts around it: a "<p>…</p>" alone, or a filing wrapped in SGML ``<DOCUMENT>`` tags,
    is not refused as "dubious" (``charset.refuse_non_html`` has told HTML from the rest), nor
    reduced to its top element. ``markup``: the text's bytes in an ASCII-compatible encoding."""
    from lxml.etree import LxmlError
    from lxml.html import document_fromstring

    beginning = text[:50].lower()
    if _may_need_repair(text, beginning, markup):
        text = _repaired(text, beginning)
    parser = _parser()
    tree: HtmlElement | None = None
    try:
        tree = document_fromstring(text, parser=parser)
    except ValueError:  # "Unicode strings with encoding declaration are not supported"
        pass
    except LxmlError:  # "Document is empty" and the like
        return None
    if tree is None or len(tree) < 1:
        try:
            tree = document_fromstring(text.encode("utf-8", "surrogatepass"), parser=parser)
        except (LxmlError, ValueError):
            return None
    if tree is not None:
        _adopt_trailing_markup(tree)
    return tree


def _adopt_trailing_markup(tree: HtmlElement) -> None:
    """Move markup after ``</html>`` (libxml2 makes it top-level elements beside the root) to the
    end of the body, where browsers show it: a copy of the root, as trafilatura reads it, would
    leave it out."""
    trailing = [element for element in tree.itersiblings() if isinstance(element.tag, str)]
    if trailing:
        body = tree.find("body")
        for element in trailing:
            (tree if body is None else body).append(element)


# What libxml2 stumbles over: characters XML refuses (it stops reading at one), a doctype with a
# slash in the first line (it then drops the page: lxml bug 1955915), a self-closing <html/>.
_INVALID_XML_CHARACTERS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_DOCTYPE_TAG = re.compile("^< ?! ?DOCTYPE[^>]*/[^<>]*>", re.IGNORECASE)
_SELF_CLOSING_HTML = re.compile(r"(<html.*?)\s*/>", re.IGNORECASE)
# A character reference to such a character ("&#12;"): lxml then refuses to copy the text, and
# trafilatura, which copies the page to measure it, gives it up. A vertical tab or form feed is
# whitespace as browsers show it; the others show as nothing.
_CONTROL_REFERENCE = re.compile(r"&#(?:0*(1[12])|0*(?:[0-8]|1[4-9]|2\d|3[01])|[xX]0*(?:([bBcC])|[0-8eEfF]|1[0-9a-fA-F]));",
                                re.IGNORECASE)
_CONTROL_BYTES = bytes([*range(0x09), 0x0B, 0x0C, *range(0x0E, 0x20)])
_DOCTYPE_WITH_SLASH = re.compile(r"^< ?! ?doctype[^>]*/", re.IGNORECASE)


def _repaired(text: str, beginning: str) -> str:
    """The page with what libxml2 stumbles over taken out (``beginning``: its first 50
    characters in lower case)."""
    text = _INVALID_XML_CHARACTERS.sub("", text)
    if "&#" in text:
        text = _CONTROL_REFERENCE.sub(lambda found: " " if found[1] or found[2] else "", text)
    if "doctype" in beginning:
        first_line, _, rest = text.partition("\n")
        text = _DOCTYPE_TAG.sub("", first_line, count=1) + "\n" + rest
    for line in text[:4096].splitlines()[:4]:
        if "<html" in line and line.endswith("/>"):
            return _SELF_CLOSING_HTML.sub(r"\1>", text, count=1)
    return text


def _may_need_repair(text: str, beginning: str, markup: bytes | None = None) -> bool:
    """Whether :func:`_repaired` could change the text (its regular expression over the whole page
    costs more than this check; most pages need no repair). ``markup``: the text's bytes in an
    ASCII-compatible encoding (its UTF-8 if not given), where a control character is that byte
    below 0x20 (in a stateful charset, ISO-2022, such a byte may also be an escape: the repair
    then runs for nothing)."""
    data = text.encode("utf-8", "surrogatepass") if markup is None else markup
    if len(data.translate(None, _CONTROL_BYTES)) != len(data) or "\ufffe" in text or "\uffff" in text:
        return True  # U+0000-U+001F but tab and newlines, U+FFFE, U+FFFF
    if "doctype" in beginning and ("\n" not in text or _DOCTYPE_WITH_SLASH.match(text)):
        return True
    if b"&#" in data and _CONTROL_REFERENCE.search(text):
        return True
    return any("<html" in line and line.endswith("/>") for line in text[:4096].splitlines()[:4])


_PARSERS = threading.local()


def _parser() -> HTMLParser:
    """An HTML parser as trafilatura sets its own (no comments or processing instructions, ids
    not collected), with the element class chosen in C.

    lxml.html's default lookup calls back into Python for every element proxy it creates (and
    trafilatura creates them by the ten thousand) only to pick form-specific classes, which
    trafilatura does not use. One parser per thread: lxml parsers are not thread-safe.
    """
    parser: HTMLParser | None = getattr(_PARSERS, "parser", None)
    if parser is None:
        from lxml import etree
        from lxml.html import (
            HtmlComment,
            HtmlElement,
            HtmlEntity,
            HTMLParser,
            HtmlProcessingInstruction,
        )

        parser = HTMLParser(collect_ids=False, default_doctype=False, encoding="utf-8", remove_comments=True,
                            remove_pis=True)
        parser.set_element_class_lookup(etree.ElementDefaultClassLookup(
            element=HtmlElement, comment=HtmlComment, pi=HtmlProcessingInstruction, entity=HtmlEntity))
        _PARSERS.parser = parser
    return parser

