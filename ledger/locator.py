"""W3C Web Annotation style locators for evidence, as plain JSON-able values (pure).

A locator says where an excerpt sits in its source: the page and bounding box for PDFs, and
selectors any annotation tool understands: TextQuoteSelector (exact + prefix/suffix),
TextPositionSelector (character offsets in the stored text) and, for PDFs, a
FragmentSelector per RFC 3778 (``page=4&viewrect=x,y,w,h``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

CONTEXT_WIDTH = 32
RFC3778 = "http://tools.ietf.org/rfc/rfc3778"


def quote_context(text: str, start: int, end: int, *, width: int = CONTEXT_WIDTH) -> tuple[str, str]:
    """(prefix, suffix): up to ``width`` characters on either side of ``text[start:end]``."""
    return text[max(0, start - width):start], text[end:end + width]


def build_locator(
    text: str, start: int, end: int, passages: Sequence[Mapping[Any, Any]]
) -> tuple[dict[str, Any], int | None]:
    """The locator for ``text[start:end]`` and the (1-based) page it starts on, if paged.

    ``passages`` are the source's passages (page, bbox, char_start, char_end) in order.
    """
    prefix, suffix = quote_context(text, start, end)
    selectors: list[dict[str, Any]] = [
        {"type": "TextQuoteSelector", "exact": text[start:end], "prefix": prefix, "suffix": suffix},
        {"type": "TextPositionSelector", "start": start, "end": end},
    ]
    locator: dict[str, Any] = {}
    touched = [p for p in passages if p["char_start"] < end and p["char_end"] > start]
    page = next((p["page"] for p in touched if p["page"] is not None), None)
    if page is not None:
        locator["page"] = page
        box = _union([p["bbox"] for p in touched if p["page"] == page and p["bbox"]])
        if box:
            locator["bbox"] = box
            x0, y0, x1, y1 = box
            selectors.append({"type": "FragmentSelector", "conformsTo": RFC3778,
                              "value": f"page={page}&viewrect={x0:g},{y0:g},{x1 - x0:.1f},{y1 - y0:.1f}"})
        else:
            selectors.append({"type": "FragmentSelector", "conformsTo": RFC3778, "value": f"page={page}"})
        pages = sorted({p["page"] for p in touched if p["page"] is not None})
        if len(pages) > 1:  # an excerpt running over a page break: where it lies on each page
            locator["pages"] = [
                {"page": n, "bbox": _union([p["bbox"] for p in touched if p["page"] == n and p["bbox"]])}
                for n in pages
            ]
    paragraph = next((p.get("paragraph") for p in touched if p.get("paragraph") is not None), None)
    if paragraph is not None:
        locator["paragraph"] = paragraph
    locator["selectors"] = selectors
    return locator, page


def page_ranges(passages: Sequence[Mapping[Any, Any]], page: int) -> list[tuple[int, int]]:
    """The character range one page's text spans (from its first passage to its last), for
    restricting a quote search; empty if no passage is on that page. One range, not one per
    passage: a quote may run over several lines of the page."""
    on_page = [(p["char_start"], p["char_end"]) for p in passages if p["page"] == page]
    return [(min(start for start, _ in on_page), max(end for _, end in on_page))] if on_page else []


def _union(boxes: Sequence[Sequence[float]]) -> list[float] | None:
    """The smallest box holding all ``boxes`` (rounded to 0.1 pt), or None for none."""
    if not boxes:
        return None
    return [round(v, 1) for v in (min(b[0] for b in boxes), min(b[1] for b in boxes),
                                  max(b[2] for b in boxes), max(b[3] for b in boxes))]
