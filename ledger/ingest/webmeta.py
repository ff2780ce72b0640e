"""A web page's metadata (title, author, site, dates, canonical URL, …) from its parsed tree.

The fields, their rules and their order of trust are trafilatura's
(``trafilatura.metadata.extract_metadata``): meta tags and OpenGraph first, JSON-LD (schema.org)
over them, then the page itself: its one ``<h1>`` or ``<title>``, the byline, the canonical
link, category and tag links, a licence link. trafilatura's readers are used as they are except
where they cost it about half of the time it takes to read a page:

* JSON-LD is parsed by the ``json`` module as written, HTML tags and entities then taken out of
  its values (trafilatura rewrites the text character by character first); only JSON that does
  not parse goes to trafilatura's lenient reader.
* The byline: trafilatura runs three tiers of regular-expression XPaths (a Python callback per
  element) over a deep copy of the page from which comments, sidebars, hidden and print-only
  parts, dates and figures were cut. Here one XPath collects the marking attributes, a regular
  expression over them finds the candidates, and only those are checked against the same tiers
  and cuts.
* Category and tag links: trafilatura walks the page once per XPath of its lists (ten); here
  the same tests are made on the ancestors of the few links whose href can qualify. Of the
  footer links, only those whose URL or letters could name a licence are read (reading one
  copies it).

Three of trafilatura's values are checked, which costs nothing where they are sound: author
names that name nobody (a month or weekday, a number, an interface word) are dropped, the byline
search then going on to its next candidate; a title from the page's headings that names a
section of any page ("See also") gives way to the declared one; a numeric date htmldate read day
first is read month first where the page says so (:func:`_month_first`).

The publication date is the one the page declares (``article:published_time``, or a
``datePublished`` in JSON-LD or other script data), with its time of day; only a page that
declares none is searched by htmldate, as trafilatura searches it, except that a year alone
(htmldate reads "© 2024" as 2024-01-01) is believed only where the date markup or the text
names that day.
``modified_at`` is only ever what the page declares (``article:modified_time``,
``og:updated_time``, ``dateModified``).
Declared times before 1995 (placeholders such as 1970-01-01) or more than a day ahead are not
believed.
"""

from __future__ import annotations

import contextlib
import functools
import html
import json
import re
from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from itertools import accumulate, islice
from typing import TYPE_CHECKING, Any

from ledger.evidence import UNSPACED_SCRIPTS

if TYPE_CHECKING:
    from lxml.html import HtmlElement
    from trafilatura.settings import Document

__all__ = ["PageMetadata", "read_metadata"]


@dataclass(frozen=True, slots=True)
class PageMetadata:
    """What a page says about itself; ``extra`` holds the fields without a source column."""

    title: str | None = None
    author: str | None = None
    publisher: str | None = None
    published_at: datetime | None = None
    modified_at: datetime | None = None
    extra: dict[str, str] = field(default_factory=dict)


def read_metadata(tree: HtmlElement, markup: bytes, *, url: str | None, encoding: str) -> PageMetadata:
    """The metadata of a page: ``tree`` is its parse; ``markup`` its bytes in an ASCII-compatible
    encoding (only ever searched for ASCII words, to skip searches that cannot find anything)."""
    scripts = [element for element in tree.iter("script") if element.text]
    json_ld = [element.text for element in scripts if (element.get("type") or "").lower() in _JSON_LD_TYPES]
    head = _head_meta(tree, markup)
    found = _document(tree, markup.lower(), json_ld, url, head)
    published, modified = _declared_times(head, [element.text for element in scripts])
    published_at, day = _first_believable(published)
    if published_at is None and _searchable(tree) and (day := _searched_date(tree, found.url)) is not None:
        day = _month_first(day, markup, head, found.url or url)
        published_at = datetime(day.year, day.month, day.day, tzinfo=UTC)
    extra = {
        "sitename": found.sitename,
        "description": found.description,
        "canonical_url": found.url if found.url and found.url != url else None,
        "hostname": found.hostname,
        "language": head.get("html:lang") or head.get("content-language"),
        "date": day.isoformat() if day else None,
        "categories": ", ".join(found.categories) if found.categories else None,
        "tags": ", ".join(found.tags) if found.tags else None,
        "license": found.license,
        "image": found.image,
        "pagetype": found.pagetype,
        "encoding": encoding,
    }
    return PageMetadata(
        title=clean(found.title),
        author=clean(found.author),
        publisher=clean(found.sitename),
        published_at=published_at,
        modified_at=_first_believable(modified)[0],
        extra={key: cleaned for key, value in extra.items() if (cleaned := clean(value))},
    )


def clean(value: str | None) -> str | None:
    """One line of text: whitespace runs become one space; None for nothing."""
    if not value:
        return None
    return " ".join(value.split()) or None


# --- trafilatura's fields ------------------------------------------------------------------------


def _document(
    tree: HtmlElement, lowered: bytes, json_ld: list[str], url: str | None, head: dict[str, str]
) -> Document:
    """trafilatura's metadata fields (no date), found as the module docstring says. The page's
    markup in lower case (``lowered``) tells which searches cannot find anything; ``head`` is
    :func:`_head_meta`."""
    from courlan import extract_domain
    from trafilatura.metadata import examine_meta, extract_sitename, extract_url

    found = examine_meta(tree)
    if found.author and " " not in found.author and not _unspaced_name(found.author):
        found.author = None  # trafilatura: a single word is a handle, not a name
    # As in trafilatura: a schema it cannot map costs that block, not the page.
    with contextlib.suppress(ArithmeticError, AttributeError, LookupError, RecursionError, TypeError, ValueError):
        _json_ld(json_ld, found)
    if not found.title:
        found.title = _page_title(tree, head)
    elif "\ufffd" in found.title and (own := _page_title(tree, head)) and "\ufffd" not in own:
        found.title = own  # the declared title was in bytes of another charset than the page's
    if not found.url:
        found.url = extract_url(tree, url)
    host = _host(found.url or url)  # the page's own (canonical) host: a copy may be read elsewhere
    found.author = _persons(found.author, host)
    if not found.author and any(hint in lowered for hint in _BYLINE_HINTS):
        found.author = _byline(tree, host)
    if found.url:
        found.hostname = extract_domain(found.url, fast=True)
    if not found.sitename:
        found.sitename = extract_sitename(tree)
    if found.sitename:
        found.sitename = _copyright_holder(found.sitename.lstrip("@"))  # (a Twitter handle)
        if found.sitename and "." not in found.sitename and not found.sitename[0].isupper():
            found.sitename = found.sitename.title()
    if not found.sitename and found.url and (site := _HOST.match(found.url)):
        found.sitename = site[1]
    links = _document_links(tree)
    if not found.categories:
        found.categories = _grouped_links(links, _CATEGORY_PATH, _CATEGORY_GROUPS)
        if found.categories is None:
            found.categories = _sections(tree)
    if not found.tags:
        found.tags = _grouped_links(links, _TAG_PATH, _TAG_GROUPS) or []
    found.license = _license(tree, lowered)
    found.clean_and_trim()
    return found


def _copyright_holder(name: str) -> str:
    """A site name written as a copyright notice ("Copyright © 2014 by Camden. All rights
    reserved."), as its holder ("Camden"), or "" where it names none ("Copyright by", "© 2024");
    other names as they are."""
    if len(name) > _LONGEST_NAME or not _COPYRIGHT_MARK.search(name):
        return name
    holder = _COPYRIGHT_TRAIL.sub("", _COPYRIGHT_LEAD.sub("", name))
    return holder if any(ch.isalnum() for ch in holder) and holder.casefold() != "by" else ""


_COPYRIGHT_MARK = re.compile(r"\(c\)|©|all rights reserved|copyright\s+(?:\d{4}|by\b)", re.IGNORECASE)
_YEARS = r"(?:19|20)\d\d(?:\s*[-–]\s*(?:19|20)\d\d)?\b"  # not "1843 Magazine"
_COPYRIGHT_LEAD = re.compile(rf"^(?:\s*(?:copyright\b|\(c\)|©|{_YEARS}|,))+\s*(?:by\b\s*(?=\S))?", re.IGNORECASE)
_COPYRIGHT_TRAIL = re.compile(rf"(?:[\s,]*(?:{_YEARS}|all rights reserved|copyright|\(c\)|©)\.?)*\s*$", re.IGNORECASE)


_HOST = re.compile(r"https?://(?:www\.|w[0-9]+\.)?([^/]+)")


def _host(url: str | None) -> str | None:
    """A URL's host in lower case, without "www." and port."""
    found = _HOST.match(url or "")
    return found[1].lower().rsplit(":", 1)[0] if found else None


def _unspaced_name(word: str) -> bool:
    """Whether every letter of a one-word author is of a script whose names are written as one
    word (王小明, 山田太郎, 정덕현): a name there, where "jsmith" or "jsmith王" is a handle."""
    letters = [ch for ch in word if ch.isalpha()]
    return bool(letters) and all(UNSPACED_SCRIPTS.match(ch) for ch in letters)


def _page_title(tree: HtmlElement, head: dict[str, str]) -> str | None:
    """trafilatura's extract_title, except that a heading naming a section of any page ("See
    also", "Comments", "Share your thoughts") gives way to what the page declares: an og:title
    trafilatura does not read (written with name=), else the ``<title>`` element."""
    from trafilatura.metadata import examine_title_element, extract_title

    title = extract_title(tree)
    if title and _SECTION_HEADING.fullmatch(" ".join(title.lower().split()).strip(" :.!?")):
        if declared := clean(head.get("og:title")):
            return declared
        whole, first, second = examine_title_element(tree)
        # trafilatura's own choice among the <title>'s parts: one without a dot
        return next((part for part in (first, second, whole) if part and "." not in part), None) or whole or title
    return title


_SECTION_HEADING = re.compile(
    "see also|related(?: (?:articles|posts|stories|content|links|news|videos|topics))?|"
    r"(?:\d+ )?comments?|leave a (?:comment|reply)|share(?: this(?: article| post| story)?)?|share your thoughts|"
    "you (?:may|might) also like|recommended(?: for you)?|(?:most )?popular(?: posts| articles| stories)?|"
    "trending(?: now)?|latest (?:news|posts|stories|articles)|recent (?:posts|comments|articles)|more stories|"
    "read (?:more|next)|top (?:stories|articles)|navigation|menu|search|(?:table of )?contents|newsletter|"
    "advertisement|categories|tags|archives|follow us|about the author"
)


def _persons(authors: str | None, host: str | None = None) -> str | None:
    """The names of an author value ("A; B") that can be a person's or a desk's: not a month or
    weekday name alone, a number, a word of the page's interface ("Username", "Sign in", a lone "By")
    or a placeholder ("Author"); of names written twice in different case, the first not in capitals. What
    a byline adds to a name is cut (:func:`_name_only`; ``host``: the page's)."""
    if not authors:
        return authors
    kept: dict[str, str] = {}
    for written in authors.split("; "):
        if not (name := _name_only(written, host)):
            continue
        words = name.lower().replace(".", " ").split()
        letters = [word for word in words if not word.isdigit()]
        if not letters or " ".join(words) in _NOT_NAMES or (len(letters) == 1 and letters[0] in _CALENDAR):
            continue  # "December", "Dec 2021", "Username"; "Sun Jun" and "April May" are names
        key = name.casefold()
        if key not in kept or (kept[key].isupper() and not name.isupper()):
            kept[key] = name
    return "; ".join(kept.values()) or None


def _name_only(name: str, host: str | None = None) -> str:
    """A name without what bylines write around it: a lead-in ("View all posts by", "Author:"), the
    links after it ("Twitter Email", "View author archive", "Follow"), a job title ("Senior
    Politics Editor", "Contributor", "is an editor"), the name again or as a handle ("Margaret
    Talev margarettalev"); "" for what is no person's name: the page's domain ("Speicherguide
    De" on speicherguide.de) or an e-mail address's ("Mcason Com"), a login form's words
    ("Username o Email"), a job title alone ("Chief People Officer"). Values longer than any
    name are left as they are (the patterns would take quadratic time on them)."""
    if len(name) > _LONGEST_NAME:
        return name
    name = _LEAD_IN.sub("", name)
    if repeated := _REPEATED.match(name):
        name = repeated[1]
    before = None
    while before != name:
        before, name = name, _TRAILING.sub("", name)
    if (role := _ROLE_TITLE.search(name)) and len(name[:role.start()].split()) != 1:
        name = name[:role.start()]  # a job title after a name, or alone ("Tom Writer" is a name)
    words = name.split()
    if len(words) > 1 and words[-1].islower() and words[-1] == "".join(words[:-1]).lower():
        words.pop()  # the name once more as a handle
    lowered = [word.lower() for word in words]
    if not words or not _NOT_NAME_WORDS.isdisjoint(lowered):
        return ""
    domain = ".".join(lowered)
    if len(words) <= 3 and (lowered[-1] in _MAIL_DOMAINS or (host is not None and f".{host}".endswith(f".{domain}"))):
        return ""  # "Mcason Com"; "Lefigaro Fr" on lefigaro.fr ("Zhu De" is a name)
    return " ".join(words)


_LONGEST_NAME = 200
_ROLE = r"(?:correspondent|editor|writer|reporter|contributor|columnist|journalist|producer|officer)"  # one person's
# Roles that are no one's surname, cut without a modifier ("Steve Gillman Contributor"; "Mary Ann Writer" stays).
_BARE_ROLE = r"(?:correspondent|editor|reporter|contributor|columnist|journalist)"
_ROLE_MODIFIER = (r"(?:senior|chief|staff|contributing|managing|executive|deputy|associate|special|guest|"
                  r"national|foreign|political|politics|general|assistant)")
_LEAD_IN = re.compile(
    r"^(?:(?:(?:view|see) )?all (?:posts|articles|stories)|more (?:posts|articles|stories)|posted|written|"
    r"published|reported|story|text|words|photos?)\s+by\b[:\s]*|"
    r"^(?:author|auteure?|autore|autora|autor(?:in|[:*_/]in(?:nen)?|(?-i:In)nen)?|verfasser(?:in|[:*_/]in(?:nen)?)?)\b[:\s]+|"
    # a plural in plain letters before a colon or a name of two words or more (trafilatura drops the
    # colon of a meta tag's value): "Authors Guild", "Autoren Verlag" are names
    r"^(?:authors|auteure?s|autoren|autorinnen|verfasserinnen)(?:\s*:\s*|\s+(?=\S+\s+\S))|"
    r"^par\s+(?=\S+\s+\S)",  # French "by" before a name of two words or more ("Par Lagerkvist" is a name)
    re.IGNORECASE,
)
_REPEATED = re.compile(r"^(\w[\w'.-]*(?: \w[\w'.-]*)+) \1\b", re.IGNORECASE)  # "Jack Mirkinson Jack Mirkinson is …"
_TRAILING = re.compile(
    r"(?:^|\s+)(?:twitter|email|e-mail|facebook|linkedin|instagram|rss|follow|following|blocked|unblock|"
    r"view author archive|get author rss feed|(?:more|all) (?:posts|articles|stories) by\b.*|"
    r"(?:view|see) all (?:posts|articles|stories)\b.*|is an? \w.*)$",
    re.IGNORECASE,
)
# A job title: modifiers, up to two words of its own ("Washington"), then the role; or a bare role.
_ROLE_TITLE = re.compile(rf"(?:^|\s+)(?:(?:{_ROLE_MODIFIER} )+(?:\w+ ){{0,2}}{_ROLE}|{_BARE_ROLE})$", re.IGNORECASE)
# The last word of a name made from an e-mail address ("Mcason Com"): no name ends so.
_MAIL_DOMAINS = frozenset({"com", "net", "org", "info"})
# Words no name holds: a web address's, a login form's.
_NOT_NAME_WORDS = frozenset({
    "www", "username", "password", "login", "logged", "logout", "passwort", "benutzername", "anmelden", "identifiant",
    "connexion", "usuario", "contraseña", "регистрация", "вход", "логин", "пароль",
})


_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_CALENDAR = frozenset((*_MONTHS, *_WEEKDAYS, *(word[:3] for word in (*_MONTHS, *_WEEKDAYS)), "sept", "tues", "thurs"))
_NOT_NAMES = frozenset({
    "by", "username", "user name", "user", "sign in", "sign up", "log in", "login", "log out", "logout", "register",
    "subscribe", "follow", "share", "email", "e-mail", "print", "comment", "comments", "reply", "menu", "search",
    "home", "more", "read more", "profile", "account", "my account", "null", "none", "undefined", "unknown", "n/a",
    "author", "authors", "autor", "autorin", "autoren", "auteur", "autore", "autora", "verfasser",
    "autor:in", "autor*in", "autor_in", "autor/in", "autorinnen", "verfasserin", "auteure", "auteurs",
})
# A month or weekday name just before a number starts a date: trafilatura cuts a byline from its
# first digit ("Cindy Mangomini December 21, 2016"), which leaves the name of the month.
_CALENDAR_WORD = rf"\b(?:{'|'.join(sorted(_CALENDAR, key=len, reverse=True))})\b\.?"
_DATE_WORDS = re.compile(
    rf"(?:{_CALENDAR_WORD},?\s+)*{_CALENDAR_WORD}\s*"
    r"(?=\d{4}(?!\d)|\d{1,2}(?:st|nd|rd|th)?\b(?!\s*(?:hours?|hrs?|minutes?|mins?|days?|weeks?|months?|years?|ago)\b))",
    re.IGNORECASE,
)  # a day or a year follows: "December 21, 2016", not "Theresa May 3 hours ago"


_JSON_LD_TYPES = frozenset({"application/ld+json", "application/settings+json"})


def _json_ld(scripts: list[str], found: Document) -> None:
    from trafilatura.json_metadata import (
        extract_json,
        extract_json_parse_error,
        normalize_json,
    )
    from trafilatura.metadata import JSON_MINIFY

    for text in scripts:
        try:
            schema = json.loads(text, strict=False)
        except json.JSONDecodeError:  # trafilatura's lenient reader, on the text as it prepares it
            extract_json_parse_error(normalize_json(JSON_MINIFY.sub(r"\1", text)), found)
        else:
            extract_json(_markup_free(schema), found)


_MARKUP = re.compile(r"<!--.*?-->|<[^>]*>")


def _markup_free(node: Any) -> Any:
    """JSON-LD values without HTML tags and entities, as trafilatura's text normalization leaves them."""
    if isinstance(node, str):
        if "<" in node:
            node = _MARKUP.sub("", node)
        return html.unescape(node) if "&" in node else node
    if isinstance(node, list):
        return [_markup_free(item) for item in node]
    if isinstance(node, dict):
        return {key: _markup_free(value) for key, value in node.items()}
    return node


def _sections(tree: HtmlElement) -> list[str]:
    """trafilatura's fallback categories: ``article:section`` (or ``*subject*``) meta tags."""
    from trafilatura.utils import line_processing

    found = [
        content
        for head in tree.iterfind(".//head")
        for meta in head.iterdescendants("meta")
        if (meta.get("property") == "article:section" or "subject" in (meta.get("name") or ""))
        and (content := meta.get("content")) is not None
    ]
    return [line for line in dict.fromkeys(line_processing(value) for value in found if value) if line]


# The byline, by trafilatura's rules (``AUTHOR_XPATHS``, three tiers of marks from specific to
# loose, looked for in a copy of the page without ``AUTHOR_DISCARD_XPATHS``: comment sections,
# sidebars, hidden and print-only parts, dates and figures): the first element in document order,
# tier by tier, whose text is 3 to 119 characters. trafilatura runs regular-expression XPaths,
# a Python callback per element, over a deep copy of the whole page; here one XPath collects the
# marking attributes, one regular expression over them finds the candidates, and only those are
# checked against the rules.
_BYLINE_HINTS = (b"author", b"byl", b"bbl", b"username", b"screenname", b"writer", b"zuozhe", b"bianji",
                 b"xiaobian", b"channel-name", b"submitted-by", b"posted-by", b"journalist-name")
_MARK_ATTRIBUTES = frozenset({"class", "id", "itemprop", "rel", "data-testid", "data-component"})
_ANY_MARK = re.compile("|".join(hint.decode() for hint in _BYLINE_HINTS))  # on lower-cased text
_TIER_1_TAGS = frozenset({"a", "address", "div", "link", "p", "span", "strong"})
_TIER_2_TAGS = frozenset({"a", "div", "h3", "h4", "p", "span"})
_TIER_1_CLASS = re.compile("author-?name|AuthorName|authorName")
_TIER_2_CLASSES = frozenset({"byline", "username", "byl", "BBL"})
_TIER_2_ID = re.compile("author|zuozhe|bianji|xiaobian")
_TIER_2_CLASS = re.compile("author|channel-name|zuozhe|bianji|xiaobian|submitted-by|posted-by|journalist-name")
_TIER_3_ID = re.compile("[Aa]uthor")
_TIER_3_CLASS = re.compile("[Aa]uthor|screenname|writer|[Bb]yline")
_DISCARD_TAGS = frozenset({"a", "div", "section", "span"})
_DISCARD_ID = re.compile("^comments|comment-?list|ProductReviews")
_DISCARD_CLASS = re.compile(
    "^[Cc]omments|commentlist|comments-list|sidebar|is-hidden|quote|embedly-instagram|article-(?:share|support)|"
    "print|category|meta-date|meta-reviewer"
)


def _byline(tree: HtmlElement, host: str | None) -> str | None:
    from trafilatura.json_metadata import normalize_authors

    found: list[Any] = []  # <author> elements and the marking attributes' values, in document order
    values: list[str] = []
    for element in _document_elements(tree):
        if element.tag == "author":
            found.append(element)
            values.append("author")
        for name, value in element.items():  # one call: most elements have no attributes
            if name in _MARK_ATTRIBUTES:
                found.append(element)
                values.append(value.lower())
    tiers: tuple[dict[Any, None], ...] = ({}, {}, {})
    starts = list(accumulate((len(value) + 1 for value in values), initial=0))
    for match in _ANY_MARK.finditer("\x00".join(values)):
        element = found[bisect_right(starts, match.start()) - 1]
        level = _tier(element)
        if level is not None:
            tiers[level][element] = None
    for candidates in tiers:
        for element in candidates:
            if any(_discarded(node) for node in (element, *element.iterancestors())):
                continue
            pieces: list[str] = []
            _byline_text(element, pieces)
            text = " ".join(" ".join(pieces).split())
            # A candidate whose text names nobody ("Sign in", a date) gives way to the next one.
            if 2 < len(text) < 120 and (name := _persons(normalize_authors(None, _DATE_WORDS.sub("", text)), host)):
                return name
    return None


@functools.cache
def _xpath(expression: str) -> Any:
    """An XPath compiled once (lxml loads on first use: `import ledger` stays light)."""
    from lxml.etree import XPath

    return XPath(expression)


def _tier(element: HtmlElement) -> int | None:
    """0, 1 or 2: the most specific of trafilatura's byline tiers this element is in, if any."""
    tag, get = element.tag, element.get
    if tag == "author":
        return 0
    cls, ident, prop = get("class") or "", get("id") or "", get("itemprop") or ""
    if tag in _TIER_1_TAGS and (
        get("rel") == "author" or ident == "author" or cls == "author" or prop == "author name"
        or get("data-testid") in ("AuthorCard", "AuthorURL") or _TIER_1_CLASS.search(cls)
    ):
        return 0
    if tag in _TIER_2_TAGS and (
        cls in _TIER_2_CLASSES or "author" in prop or _TIER_2_ID.search(ident) or _TIER_2_CLASS.search(cls)
    ):
        return 1
    if (
        "Byline" in (get("data-component") or "") or "author" in prop
        or _TIER_3_ID.search(ident) or _TIER_3_CLASS.search(cls)
    ):
        return 2
    return None


def _discarded(element: HtmlElement) -> bool:
    """Whether trafilatura leaves this element out of its byline search (with what is inside it)."""
    tag = element.tag
    if tag in ("time", "figure"):
        return True
    if tag not in _DISCARD_TAGS:
        return False
    get = element.get
    cls, ident = get("class"), get("id")
    return bool(
        (ident and _DISCARD_ID.search(ident))
        or (cls and (cls in ("title", "date") or _DISCARD_CLASS.search(cls)))
        or "Figure" in (get("data-component") or "")
    )


def _byline_text(element: HtmlElement, pieces: list[str]) -> None:
    """The text pieces itertext() gives once discarded parts are cut (their tails stay, joined
    to the text before them as trafilatura's delete_element joins them)."""
    if element.text:
        pieces.append(element.text)
    for child in element:
        if isinstance(child.tag, str) and _discarded(child):
            if child.tail:
                if pieces:
                    pieces[-1] += child.tail
                else:
                    pieces.append(child.tail)
        else:
            _byline_text(child, pieces)
            if child.tail:
                pieces.append(child.tail)


# --- links: categories, tags, licence --------------------------------------------------------------
# trafilatura's CATEGORIES_XPATHS and TAGS_XPATHS (extract_catstags) are each
# "//container[test]//a[@href]": six and four walks over the whole page, some calling back into
# Python for a regular expression per element. Here the same tests are made on the ancestors of
# the page's few links whose href names a category (tag) path, group by group; the first group
# holding such a link gives the list. A test takes the ancestor's (tag, class, id).

_CATEGORY_PATH = re.compile("/categor(?:y|ies|s)?/")
_TAG_PATH = re.compile("/tag(?:y|ies|s)?/")
_META_CLASS = re.compile("post-?info|post-?meta|meta|entry-meta|entry-info|entry-utility")  # at the start
_TAG_META_CLASS = re.compile("tag|postmeta|meta")  # at the start
_Group = Callable[[str, str, str], bool]
_CATEGORY_GROUPS: tuple[_Group, ...] = (
    lambda tag, cls, ident: tag == "div" and (_META_CLASS.match(cls) is not None or ident.startswith("postpath")),
    lambda tag, cls, ident: tag == "p" and (
        cls.startswith(("postmeta", "entry-categories")) or cls == "postinfo" or ident == "filedunder"),
    lambda tag, cls, ident: tag == "footer" and cls.startswith(("entry-meta", "entry-footer")),
    lambda tag, cls, ident: tag in ("li", "span") and (
        cls in ("post-category", "postcategory", "entry-category") or "cat-links" in cls),
    lambda tag, cls, ident: tag == "header" and cls == "entry-header",
    lambda tag, cls, ident: tag == "div" and cls in ("row", "tags"),
)
_TAG_GROUPS: tuple[_Group, ...] = (
    lambda tag, cls, ident: tag == "div" and cls == "tags",
    lambda tag, cls, ident: tag == "p" and cls.startswith("entry-tags"),
    lambda tag, cls, ident: tag == "div" and (
        cls in ("row", "jp-relatedposts", "entry-utility") or _TAG_META_CLASS.match(cls) is not None),
    lambda tag, cls, ident: cls == "entry-meta" or "topics" in cls or "tags-links" in cls,
)


def _document_links(tree: HtmlElement) -> list[HtmlElement]:
    """The ``<a href>`` elements of the whole document whose href could name a category or tag
    path, in document order, as trafilatura's absolute XPaths find them (markup after
    ``</html>`` makes a second top-level element)."""
    return [link for link in _document_elements(tree, "a")
            if (href := link.get("href")) is not None and ("/categor" in href or "/tag" in href)]


def _document_elements(tree: HtmlElement, *tags: str) -> Iterator[HtmlElement]:
    """The elements (of ``tags``, or all) of the whole document in document order: what an
    absolute XPath such as "//a" finds, walked instead, as libxml2 can take minutes sorting
    such a node-set on a large page."""
    from lxml.etree import Element

    root = tree.getroottree().getroot()
    for top in (*reversed(list(root.itersiblings(preceding=True))), root, *root.itersiblings()):
        if isinstance(top.tag, str):
            yield from top.iter(*(tags or (Element,)))  # Element: elements only, no comments


def _grouped_links(links: list[HtmlElement], path: re.Pattern[str], groups: tuple[_Group, ...]) -> list[str] | None:
    """extract_catstags' list for the first group holding a link to ``path``; None if none does.
    ``links`` are the document's candidate ``<a href>`` elements in document order
    (:func:`_document_links`)."""
    from trafilatura.baseline import block_text
    from trafilatura.utils import line_processing

    named = [
        (link, [(parent.tag, parent.get("class") or "", parent.get("id") or "") for parent in link.iterancestors()])
        for link in links
        if path.search(link.get("href", ""))
    ]
    for in_group in groups:
        texts = [block_text(link) for link, parents in named if any(in_group(*parent) for parent in parents)]
        if texts:
            return [line for line in dict.fromkeys(line_processing(text) for text in texts if text) if line]
    return None


def _license(tree: HtmlElement, lowered: bytes) -> str | None:
    """trafilatura's extract_license: a rel="license" link; else a Creative Commons link in a
    footer (its own XPaths). Each search only where the markup (``lowered``) names its word (as
    the byline hints: a word written as character references is not looked for);
    footer links are read only if their URL or letters could name such a licence: reading one
    copies it."""
    from trafilatura.metadata import LICENSE_REGEX, parse_license_element

    if b"license" in lowered:
        for link in _xpath("descendant::a[@rel][@href]")(tree):
            if "license" in link.get("rel", "").lower().split() and (
                found := parse_license_element(link, strict=False)
            ) is not None:
                return found
    if b"footer" not in lowered:
        return None
    for link in _xpath(_FOOTER_LINKS)(tree):
        if (
            LICENSE_REGEX.search(link.get("href")) or _CC_WORDS.search(_NOT_LETTERS.sub("", link.text_content()))
        ) and (found := parse_license_element(link, strict=True)) is not None:
            return found
    return None


# trafilatura's './/footer//a[@href]|.//div[contains(@class, "footer") or contains(@id, "footer")]//a[@href]':
# the same nodes. libxml2 evaluates ".//x[test]" as a child step from every node of the page
# (it shortens "//" to one descendant step only for a step without a test): several times slower.
_FOOTER_LINKS = (
    'descendant::footer/descendant::a[@href]'
    '|descendant::div[contains(@class, "footer") or contains(@id, "footer")]/descendant::a[@href]'
)
# trafilatura's TEXT_LICENSE_REGEX finds "CC" or "Creative Commons" (any case) in a link's text
# with its blocks spaced apart; with everything but letters taken out, the text still holds it.
_CC_WORDS = re.compile("cc|creative", re.IGNORECASE)
_NOT_LETTERS = re.compile(r"[\W\d_]+")


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
#: get only the date they declare.
MAX_SEARCHED_ELEMENTS = 30_000


def _searchable(tree: HtmlElement) -> bool:
    return sum(1 for _ in islice(tree.iter(), MAX_SEARCHED_ELEMENTS + 1)) <= MAX_SEARCHED_ELEMENTS


def _new_year_written(text: str, year: str) -> bool:
    """Whether ``text`` writes out 1 January of ``year`` ("January 1, 2024", "1. Januar 2024",
    "2024-01-01", "01/01/2024"), not just the year."""
    from htmldate.extractors import regex_parse

    new_year = datetime(int(year), 1, 1)
    numeric = re.compile(rf"(?<!\d)(?:{year}[-/.]0?1[-/.]0?1|0?1[-/.]0?1[-/.]{year})(?!\d)")
    for match in re.finditer(re.escape(year), text):
        around = text[max(0, match.start() - 40) : match.end() + 12]
        if numeric.search(around) or regex_parse(around) == new_year:
            return True
    return False


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


def _searched_date(tree: HtmlElement, url: str | None) -> date | None:
    """htmldate's publication date, searched as trafilatura searches it (extensive, original date),
    except a year alone taken for 1 January."""
    from htmldate import find_date
    from trafilatura.settings import set_date_params

    params = set_date_params(True)
    params["url"] = url
    found = find_date(tree, **params)
    # htmldate's last resort reads a year alone ("© 2024", a copyright line) as 1 January:
    # believed only if the page's date markup (the search without free text) or its text names
    # that day.
    if found and found.endswith("-01-01") and find_date(tree, **{**params, "extensive_search": False}) != found \
            and not _new_year_written(tree.text_content(), found[:4]):
        found = None
    try:
        return date.fromisoformat(found) if found else None
    except ValueError:
        return None
