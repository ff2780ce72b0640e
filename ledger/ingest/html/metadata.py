"""A web page's metadata: what trafilatura's ``bare_extraction`` found (``with_metadata``), then
checked and completed by the page's own declarations.

trafilatura reads the fields (meta tags, OpenGraph, JSON-LD, the byline, the canonical link,
category and tag links, a licence link) and htmldate, within it, the date. What they return is
post-processed:

* authors: a value naming nobody is dropped, what a byline writes around a name is cut
  (:mod:`ledger.ingest.html.authors`); a one-word meta author in a script written without
  spaces (王小明) is a name, not the handle trafilatura takes it for;
* the title: a heading naming a section of any page ("See also") gives way to what the page
  declares; a declared title in bytes of another charset gives way to the page's ``<title>``;
* the publisher: a site name written as a copyright notice is its holder; else the host;
* dates: the publication date is the one the page declares (``article:published_time``, or a
  ``datePublished`` in JSON-LD or other script data), with its time of day; only a page that
  declares none takes htmldate's, except that a year alone (htmldate reads "© 2024" as
  2024-01-01) is believed only where the date markup or the text names that day, and a
  numeric date read day first is read month first where the page says so (:func:`_month_first`).
  ``modified_at`` is only ever what the page declares (``article:modified_time``,
  ``og:updated_time``, ``dateModified``). Declared times before 1995 (placeholders such as
  1970-01-01) or more than a day ahead are not believed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Any

from ledger.ingest.html.authors import one_word_name, persons

if TYPE_CHECKING:
    from lxml.html import HtmlElement

__all__ = ["Declared", "PageMetadata", "clean", "declared", "page_metadata"]


@dataclass(frozen=True, slots=True)
class PageMetadata:
    """What a page says about itself; ``extra`` holds the fields without a source column."""

    title: str | None = None
    author: str | None = None
    publisher: str | None = None
    published_at: datetime | None = None
    modified_at: datetime | None = None
    extra: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Declared:
    """What the page declares about itself, read before its tree is mended: its meta tags (name,
    property, itemprop or http-equiv in lower case → content; "html:lang" → the root's language),
    the times its scripts state, and its ``<title>``."""

    meta: dict[str, str]
    published: list[str]
    modified: list[str]
    title: str | None


def declared(tree: HtmlElement, markup: bytes) -> Declared:
    """What the page declares (``markup``: its bytes in an ASCII-compatible encoding)."""
    meta = _head_meta(tree, markup)
    published, modified = _declared_times(meta, [element.text for element in tree.iter("script") if element.text])
    title = tree.find(".//title")
    return Declared(meta, published, modified, clean(title.text_content()) if title is not None else None)


def page_metadata(
    found: dict[str, Any], page: Declared, tree: HtmlElement, markup: bytes, *, url: str | None, encoding: str
) -> PageMetadata:
    """The metadata of a page from trafilatura's fields (``found``: ``bare_extraction``'s, as a
    dict) and what the page declares; ``tree`` and ``markup`` are searched only to check a date."""
    canonical = found.get("url") or None
    host = _host(canonical or url)  # the page's own (canonical) host: a copy may be read elsewhere
    published_at, day = _first_believable(page.published)
    if published_at is None and (day := _searched_date(found.get("date"), tree, canonical or url)) is not None:
        day = _month_first(day, markup, page.meta, canonical or url)
        published_at = datetime(day.year, day.month, day.day, tzinfo=UTC)
    publisher = _publisher(found.get("sitename"), canonical or url)
    extra = {
        "sitename": publisher,
        "description": found.get("description"),
        "canonical_url": canonical if canonical and canonical != url else None,
        "hostname": found.get("hostname"),
        "language": page.meta.get("html:lang") or page.meta.get("content-language"),
        "date": day.isoformat() if day else None,
        "categories": ", ".join(found["categories"]) if found.get("categories") else None,
        "tags": ", ".join(found["tags"]) if found.get("tags") else None,
        "license": found.get("license"),
        "image": found.get("image"),
        "pagetype": found.get("pagetype"),
        "encoding": encoding,
    }
    return PageMetadata(
        title=clean(_title(found.get("title"), page)),
        author=clean(_author(found.get("author"), page, tree, canonical or url, host)),
        publisher=clean(publisher),
        published_at=published_at,
        modified_at=_first_believable(page.modified)[0],
        extra={key: cleaned for key, value in extra.items() if (cleaned := clean(value))},
    )


def clean(value: str | None) -> str | None:
    """One line of text: whitespace runs become one space; None for nothing."""
    if not value:
        return None
    return " ".join(value.split()) or None


def _author(found: str | None, page: Declared, tree: HtmlElement, url: str | None, host: str | None) -> str | None:
    """trafilatura's author, cleaned; where it names nobody ("Username", a job title alone), the
    next one trafilatura finds once it is taken out of the page; else a one-word meta author
    that is a name (trafilatura drops every one-word author as a handle)."""
    for _ in range(_BYLINES_TRIED):
        if not found:
            break
        if name := persons(found, host):
            return name
        if (tree := _without(tree, found)) is None:
            break
        import trafilatura

        found = trafilatura.extract_metadata(tree, default_url=url, extensive=False).author
    written = clean(page.meta.get("author"))
    return written if written and " " not in written and one_word_name(written) else None


_BYLINES_TRIED = 4
_NOT_LETTERS = re.compile(r"[\W\d_]+")


def _without(tree: HtmlElement, author: str) -> HtmlElement | None:
    """A copy of the page without the meta tags and innermost elements whose letters hold those
    of ``author`` (the byline it was read from); None if there is none."""
    from copy import deepcopy

    def holds(text: str) -> bool:
        return wanted in _NOT_LETTERS.sub("", text).casefold()

    wanted = _NOT_LETTERS.sub("", author).casefold()
    if not wanted:
        return None
    copied = deepcopy(tree)
    doomed = [meta for meta in copied.iter("meta") if holds(meta.get("content") or "")]
    body = copied.find("body")
    stack = [body] if body is not None and holds(body.text_content()) else []
    while stack:  # down the elements that hold the name, to the innermost ones (the bylines)
        element = stack.pop()
        inner = [child for child in element if isinstance(child.tag, str) and holds(child.text_content())]
        if inner:
            stack.extend(reversed(inner))
        elif element is not body:
            doomed.append(element)
    for element in doomed:
        element.drop_tree()
    return copied if doomed else None


def _title(found: str | None, page: Declared) -> str | None:
    """trafilatura's title, unless it names a section of any page ("See also", "Comments") or
    holds bytes of another charset (U+FFFD) where the page's ``<title>`` does not."""
    if not found:
        return page.title
    if "\ufffd" in found and page.title and "\ufffd" not in page.title:
        return page.title
    if _SECTION_HEADING.fullmatch(" ".join(found.lower().split()).strip(" :.!?")):
        if declared_title := clean(page.meta.get("og:title")):
            return declared_title  # trafilatura reads og:title only from property=
        if page.title:
            # the <title>'s first or last part without a dot ("Harbour plan | Tide Times")
            parts = [part for part in _TITLE_PARTS.split(page.title) if part]
            return next((part for part in (parts[0], parts[-1]) if "." not in part), page.title)
    return found


_TITLE_PARTS = re.compile(r"\s+[-|–—•·:]\s+")


def _publisher(sitename: str | None, url: str | None) -> str | None:
    """The site's name: written as a copyright notice, its holder; a lower-case word title-cased;
    else the page's host."""
    if sitename:
        sitename = _copyright_holder(sitename.lstrip("@"))  # (a Twitter handle)
        if sitename and "." not in sitename and not sitename[0].isupper():
            sitename = sitename.title()
    if not sitename and url and (site := _HOST.match(url)):
        sitename = site[1]
    return sitename or None


def _copyright_holder(name: str) -> str:
    """A site name written as a copyright notice ("Copyright © 2014 by Camden. All rights
    reserved."), as its holder ("Camden"), or "" where it names none ("Copyright by", "© 2024");
    other names as they are."""
    if len(name) > _LONGEST_NAME or not _COPYRIGHT_MARK.search(name):
        return name
    holder = _COPYRIGHT_TRAIL.sub("", _COPYRIGHT_LEAD.sub("", name))
    return holder if any(ch.isalnum() for ch in holder) and holder.casefold() != "by" else ""


_LONGEST_NAME = 200  # longer values are left as they are (the patterns would take quadratic time)
_COPYRIGHT_MARK = re.compile(r"\(c\)|©|all rights reserved|copyright\s+(?:\d{4}|by\b)", re.IGNORECASE)
_YEARS = r"(?:19|20)\d\d(?:\s*[-–]\s*(?:19|20)\d\d)?\b"  # not "1843 Magazine"
_COPYRIGHT_LEAD = re.compile(rf"^(?:\s*(?:copyright\b|\(c\)|©|{_YEARS}|,))+\s*(?:by\b\s*(?=\S))?", re.IGNORECASE)
_COPYRIGHT_TRAIL = re.compile(rf"(?:[\s,]*(?:{_YEARS}|all rights reserved|copyright|\(c\)|©)\.?)*\s*$", re.IGNORECASE)


_HOST = re.compile(r"https?://(?:www\.|w[0-9]+\.)?([^/]+)")


def _host(url: str | None) -> str | None:
    """A URL's host in lower case, without "www." and port."""
    found = _HOST.match(url or "")
    return found[1].lower().rsplit(":", 1)[0] if found else None


_SECTION_HEADING = re.compile(
    "see also|related(?: (?:articles|posts|stories|content|links|news|videos|topics))?|"
    r"(?:\d+ )?comments?|leave a (?:comment|reply)|share(?: this(?: article| post| story)?)?|share your thoughts|"
    "you (?:may|might) also like|recommended(?: for you)?|(?:most )?popular(?: posts| articles| stories)?|"
    "trending(?: now)?|latest (?:news|posts|stories|articles)|recent (?:posts|comments|articles)|more stories|"
    "read (?:more|next)|top (?:stories|articles)|navigation|menu|search|(?:table of )?contents|newsletter|"
    "advertisement|categories|tags|archives|follow us|about the author"
)


# --- dates and language --------------------------------------------------------------------------

_JSON_DATE = re.compile(r""""(datePublished|dateModified)"\s*:\s*"([^"]{8,40})\"""")
_PUBLISHED_KEYS = ("article:published_time", "datepublished")
_MODIFIED_KEYS = ("article:modified_time", "og:updated_time", "datemodified")
_LANGUAGE_TAG = re.compile(r"[a-z]{2,3}(?:[-_][a-z0-9]{1,8})*", re.IGNORECASE)


def _head_meta(tree: HtmlElement, markup: bytes) -> dict[str, str]:
    """name/property/itemprop/http-equiv (lower case) → content of the page's meta tags (first
    wins), and "html:lang" → the root element's language tag."""
    root = tree.getroottree().getroot()
    found: dict[str, str] = {}
    # Stray text before the doctype (a server warning, say) makes libxml2 put the head's tags in
    # the body: then the first meta tags of the whole page stand in for the head's.
    head = root.find("head")
    metas = head.iter("meta") if head is not None and head.find("meta") is not None else root.iter("meta")
    for meta in metas:
        content = meta.get("content")
        if content is None:
            continue
        for key in ("property", "name", "itemprop", "http-equiv"):
            if (name := meta.get(key)) is not None:
                found.setdefault(name.strip().lower(), content.strip())
    language = (root.get("lang") or "").strip()
    if not language and (match := _HTML_LANG.search(markup, 0, 65536)):  # the <html> tag was dropped
        language = match.group(1).decode("ascii")
    if _LANGUAGE_TAG.fullmatch(language):
        found["html:lang"] = language
    return found


_HTML_LANG = re.compile(rb"""<html\b[^>]*?\blang\s*=\s*["']?\s*([a-z]{2,3}(?:[-_][a-z0-9]{1,8})*)""", re.IGNORECASE)


def _declared_times(head: dict[str, str], scripts: list[str]) -> tuple[list[str], list[str]]:
    """(published, modified) timestamps the page states: meta tags first, then the
    ``datePublished``/``dateModified`` of JSON in its scripts (JSON-LD, or a framework's page data)."""
    published = [value for key in _PUBLISHED_KEYS if (value := head.get(key))]
    modified = [value for key in _MODIFIED_KEYS if (value := head.get(key))]
    for match in _JSON_DATE.finditer("\n".join(scripts)):
        (published if match.group(1) == "datePublished" else modified).append(match.group(2))
    return published, modified


# Web pages are not older than this (htmldate's default lower bound): earlier declared dates are
# placeholders such as 1970-01-01.
_EARLIEST = datetime(1995, 1, 1, tzinfo=UTC)


def _stated_time(value: str) -> datetime | None:
    """An ISO 8601 timestamp as written (naive means UTC), None if it is not one or not believable:
    before 1995 or more than a day ahead."""
    try:
        stated = datetime.fromisoformat(value.strip())
        if stated.tzinfo is None:
            stated = stated.replace(tzinfo=UTC)
        stated.astimezone(UTC)  # near the ends of the calendar this overflows
    except (ValueError, OverflowError):
        return None
    return stated if _EARLIEST <= stated <= datetime.now(UTC) + timedelta(days=1) else None


def _first_believable(stamps: list[str]) -> tuple[datetime | None, date | None]:
    """The first believable declared time in UTC and its day as written (in the page's own
    time zone), or (None, None)."""
    for value in stamps:
        if (stated := _stated_time(value)) is not None:
            return stated.astimezone(UTC), stated.date()
    return None, None


#: htmldate's search takes time growing with the square of the page (3 s at 33,000 elements, 15 s
#: at 52,000, minutes beyond): larger pages, source listings and manuals rather than articles,


def _month_first(day: date, markup: bytes, head: dict[str, str], url: str | None) -> date:
    """htmldate reads a numeric date whose day and month could be swapped ("10/04/16") day first;
    the page's own writing decides instead where it says: unless the page or its URL also writes
    the date as read unambiguously (:func:`_written`), the other reading so written, or else a US
    English locale. Only a date written so counts ("1/2/16", the same separator twice), not a
    version ("1.2.16.min.js" still can: hence the written forms first)."""
    if day.day > 12 or day.day == day.month:
        return day
    swapped = date(day.year, day.day, day.month)
    # a date written so, the same separator twice: not a version ("1.2.16") or part of a path
    as_read = rb"(?<![\w.])0?%d([-/.])0?%d\1(?:%d|%02d)(?!\.?\d)" % (day.day, day.month, day.year, day.year % 100)
    address = (url or "").encode("utf-8", "replace")
    if re.search(as_read, markup) is None or _written(day, markup) or _written(day, address):
        return day  # not read from such a date, or the page (or its URL) also writes it as read
    if _written(swapped, markup):
        return swapped
    locale = (head.get("html:lang") or head.get("content-language") or head.get("og:locale") or "").lower()
    return swapped if locale.replace("_", "-") == "en-us" else day


def _written(day: date, markup: bytes) -> bool:
    """Whether the markup writes this day unambiguously: in ISO form (a ``<time datetime>``), in a
    URL path ("/2016/02/01/"), or with the month's English name ("February 1", "1st Feb")."""
    if day.isoformat().encode() in markup or day.strftime("/%Y/%m/%d/").encode() in markup:
        return True
    month = rb"(?:%s|%s)" % (_MONTHS[day.month - 1].encode(), _MONTHS[day.month - 1][:3].encode())
    named = rb"\b%s\.?\s+0?%d(?!\d)|(?<!\d)0?%d(?:st|nd|rd|th)?\s+(?:of\s+)?%s\b" % (month, day.day, day.day, month)
    return re.search(named, markup, re.IGNORECASE) is not None


_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")


def _searched_date(found: str | None, tree: HtmlElement, url: str | None) -> date | None:
    """The date htmldate found within trafilatura (``found``, ISO), except a year alone taken
    for 1 January: htmldate's last resort reads "© 2024" (a copyright line) so. Such a day is
    believed only if the page's date markup (``htmldate.find_date`` without its free-text
    search) or its text names it."""
    if not found:
        return None
    if found.endswith("-01-01"):
        from htmldate import find_date

        if find_date(tree, extensive_search=False, original_date=True, url=url) != found and \
                not _new_year_written(tree.text_content(), found[:4]):
            return None
    try:
        return date.fromisoformat(found)
    except ValueError:
        return None


# 1 January written out: "January 1, 2024", "Jan. 1st 2024", "1 January 2024", "1. Januar 2024",
# "1er janvier 2024", "1 de enero de 2024"
_NEW_YEAR_WORDS = (r"(?:jan(?:uary|uar|\.)?|janvier|enero|gennaio|janeiro)\.?\s+0?1(?:st)?(?!\d),?\s+(?:de\s+)?{y}|"
                   r"(?<!\d)0?1(?:st|er|º|\.)?\s+(?:of\s+|de\s+)?"
                   r"(?:jan(?:uary|uar|\.)?|janvier|enero|gennaio|janeiro)\.?,?\s+(?:de\s+)?{y}")


def _new_year_written(text: str, year: str) -> bool:
    """Whether ``text`` writes out 1 January of ``year`` ("January 1, 2024", "1. Januar 2024",
    "2024-01-01", "01/01/2024"), not just the year."""
    numeric = rf"(?<!\d)(?:{year}[-/.]0?1[-/.]0?1|0?1[-/.]0?1[-/.]{year})(?!\d)"
    pattern = re.compile(f"{numeric}|{_NEW_YEAR_WORDS.format(y=year)}", re.IGNORECASE)
    return pattern.search(text) is not None
