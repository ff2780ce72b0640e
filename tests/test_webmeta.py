"""ledger.ingest.html.metadata: what a page says about itself, read from its parsed tree.

Each page here is a small article written for the test; the realworld pages (test_ingest_html)
check the same reader against trafilatura-eval's expected titles, authors and dates.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from ledger.ingest.base import SourceDraft
from ledger.ingest.html import read_html

ROOT = Path(__file__).resolve().parents[1]
PROSE = (
    "The committee met on Tuesday to discuss the harbour renovation plan in detail. "
    "Members agreed that the eastern quay needs new pilings before the winter storms arrive, "
    "and that the budget must be settled at the next meeting of the full council."
)


def _page(head: str = "", before: str = "", after: str = "", *, title: str = "Harbour plan advances") -> str:
    return (
        f"<!DOCTYPE html><html lang='en'><head><title>{title}</title>{head}</head><body>"
        f"<nav><a href='/'>Home</a> <a href='/news'>News</a></nav>"
        f"<article><h1>{title}</h1>{before}<p>{PROSE}</p><p>{PROSE}</p>{after}</article>"
        "<footer><p>Contact us</p></footer></body></html>"
    )


def _with_json_ld(ld: str) -> SourceDraft:
    return read_html(_page(f"<script type='application/ld+json'>{ld}</script>"))


# --- author ---------------------------------------------------------------------------------------


def test_meta_author_wins_over_a_byline() -> None:
    draft = read_html(_page("<meta name='author' content='Ana Lima'>", "<p class='byline'>By Rui Costa</p>"))
    assert draft.author == "Ana Lima"


@pytest.mark.parametrize("name", ["王小明", "정덕현", "山田太郎", "สมชาย"])
def test_a_one_word_author_is_a_name_in_scripts_written_without_spaces(name: str) -> None:
    """trafilatura takes a one-word meta author for a handle; CJK, Hangul and Thai names are one word."""
    assert read_html(_page(f"<meta name='author' content='{name}'>")).author == name
    assert read_html(_page("<meta name='author' content='jsmith'>")).author is None  # a handle
    assert read_html(_page("<meta name='author' content='jsmith王'>")).author is None  # not all of one script


def test_json_ld_author_is_read() -> None:
    ld = '{"@context": "https://schema.org", "@type": "NewsArticle", "author": {"@type": "Person", "name": "Mei Chen"}}'
    draft = _with_json_ld(ld)
    assert draft.author == "Mei Chen"


def test_json_ld_with_escapes_and_raw_newlines_is_read() -> None:
    ld = '{"@context": "https://schema.org", "@type": "NewsArticle",\n "author": {"name": "Jos\\u00e9\n Ortega"}}'
    draft = _with_json_ld(ld)
    assert draft.author == "José Ortega"


def test_json_ld_values_lose_their_markup_and_entities() -> None:
    ld = ('{"@context": "https://schema.org", "@type": "NewsArticle", "headline": "<span>Tagged</span> headline",'
          ' "publisher": {"@type": "Organization", "name": "Ben &amp; Jerry"}}')
    draft = _with_json_ld(ld)
    assert draft.title == "Tagged headline"
    assert draft.publisher == "Ben & Jerry"


def test_broken_json_ld_still_yields_its_author() -> None:
    ld = '{"@context": "https://schema.org", "@type": "NewsArticle", "author": {"name": "Mei Chen"},}'
    draft = _with_json_ld(ld)
    assert draft.author == "Mei Chen"


def test_byline_without_the_by_and_the_date_inside_it() -> None:
    byline = "<p class='byline'>By Rui Costa <time datetime='2024-03-01'>1 March 2024</time></p>"
    assert read_html(_page(before=byline)).author == "Rui Costa"


def test_specific_author_mark_wins_over_an_earlier_loose_one() -> None:
    before = "<div class='post-authorbox'>Written by staff</div><span rel='author'>Ines Duarte</span>"
    assert read_html(_page(before=before)).author == "Ines Duarte"


@pytest.mark.parametrize(
    "region",
    [
        "<div class='comments'>{}</div>", "<div id='comment-list'>{}</div>", "<div class='sidebar-right'>{}</div>",
        "<figure>{}</figure>", "<span class='is-hidden'>{}</span>", "<div class='print-only'>{}</div>",
    ],
)
def test_byline_in_comments_sidebars_hidden_parts_and_figures_is_not_the_author(region: str) -> None:
    draft = read_html(_page(after=region.format("<span class='author'>Some Commenter</span>")))
    assert draft.author is None


def test_a_page_wide_class_naming_a_sidebar_does_not_hide_the_byline() -> None:
    page = _page(before="<p class='byline'>By Grace Press</p>").replace("<body>", "<body class='no-sidebar comments-open'>")
    assert read_html(page).author == "Grace Press"


def test_byline_words_in_separate_elements_stay_apart() -> None:
    assert read_html(_page(before="<a class='author'><span>John</span><span>Smith</span></a>")).author == "John Smith"
    assert "RoeReuters" not in (read_html(_page(before="<p class='byline'>Jane Roe<br>Reuters</p>")).author or "")


@pytest.mark.parametrize("tag", ["cite", "em", "small", "h2", "td", "header"])
def test_any_element_with_an_author_class_can_be_the_byline(tag: str) -> None:
    body = f"<{tag} class='entry-author'>Lena Berg</{tag}>"
    if tag == "td":
        body = f"<table><tr>{body}</tr></table>"
    assert read_html(_page(before=body)).author == "Lena Berg"


def test_drupal_and_forum_marks() -> None:
    assert read_html(_page(before="<span class='submitted-by'>Omar Haddad</span>")).author == "Omar Haddad"
    assert read_html(_page(before="<div data-testid='AuthorCard'>Ruth Klein</div>")).author == "Ruth Klein"


def test_an_author_link_with_a_too_long_text_is_skipped() -> None:
    long = "<a class='author'>" + "word " * 40 + "</a><span class='author-name'>Lea Roth</span>"
    assert read_html(_page(before=long)).author == "Lea Roth"


@pytest.mark.parametrize(
    ("byline", "author"),
    [
        ("Cindy Mangomini December 21, 2016", "Cindy Mangomini"),  # the month's name is the date's
        ("October 14, 2009 | Marc Lifsher", "Marc Lifsher"),
        ("Theresa May, 3 hours ago", "Theresa May"),  # a month name not before a number stays
    ],
)
def test_a_date_in_the_byline_leaves_no_month_name_in_the_author(byline: str, author: str) -> None:
    assert read_html(_page(before=f"<p class='byline'>{byline}</p>")).author == author


@pytest.mark.parametrize("first", ["Username", "Sign In", "By", "January 17, 2017 at 6:08 PM ET"])
def test_a_byline_naming_nobody_gives_way_to_the_next(first: str) -> None:
    before = f"<span class='username'>{first}</span><span class='author-name'>Erin Cunningham</span>"
    assert read_html(_page(before=before)).author == "Erin Cunningham"


@pytest.mark.parametrize("value", ["September", "Dec 2021", "By", "null", "2016", "Autor", "Author", "Autor:in"])
def test_a_calendar_word_number_or_interface_word_is_not_an_author(value: str) -> None:
    assert read_html(_page(f"<meta name='author' content='{value}'>")).author is None



@pytest.mark.parametrize(
    ("written", "author"),
    [
        ("View all posts by Daniel Lemire", "Daniel Lemire"),
        ("Author: Jozsef Gegeny", "Jozsef Gegeny"),
        ("Alyssa Newcomb Twitter Email", "Alyssa Newcomb"),
        ("Oli Coleman View author archive Get author RSS feed", "Oli Coleman"),
        ("Jeremy Herron More stories by Jeremy Herron", "Jeremy Herron"),
        ("Jakob Ulbrich Blocked Unblock Follow Following", "Jakob Ulbrich"),
        ("Margaret Talev margarettalev", "Margaret Talev"),
        ("Jack Mirkinson Jack Mirkinson is an editor", "Jack Mirkinson"),
        ("Andrea Stone Senior Washington Correspondent", "Andrea Stone"),
        ("Jane Doe Staff Writer; Sam Stein Senior Politics Editor", "Jane Doe; Sam Stein"),
        ("Steve Gillman Contributor", "Steve Gillman"),
        ("Magen Gicinto; Chief People Officer", "Magen Gicinto"),
        ("Mike Cason; Mcason Com", "Mike Cason"),
        ("Par LILIAN ALEMAGNA", "LILIAN ALEMAGNA"),
        ("Autor:in Korinna Hennig", "Korinna Hennig"),  # German gender-inclusive forms
        ("Autor*innen: Anna Berg; Eva Kern", "Anna Berg; Eva Kern"),
        ("Verfasserin Anna Berg", "Anna Berg"),
        ("Auteure : Marie Dupont", "Marie Dupont"),
        ("AutorInnen Anna Berg", "Anna Berg"),
        ("Authors: Jane Doe", "Jane Doe"),
        # names that only look like what is cut
        ("Tom Writer", "Tom Writer"),
        ("Authors Guild", "Authors Guild"),  # a plural: a lead-in only before a colon or a two-word name
        ("Autoren Verlag", "Autoren Verlag"),
        ("Auteurs Associés", "Auteurs Associés"),
        ("Mary Ann Writer", "Mary Ann Writer"),
        ("John Q. Officer", "John Q Officer"),  # (trafilatura drops the initial's dot)
        ("Par Lagerkvist", "Par Lagerkvist"),
        ("Zhu De; Wang Ru", "Zhu De; Wang Ru"),
        ("Ford Motor Co", "Ford Motor Co"),
        ("World's Editorial Writers", "World's Editorial Writers"),
        ("The Editorial Board", "The Editorial Board"),
        ("Justus von Daniels", "Justus von Daniels"),
        ("Marcus De Guzman", "Marcus De Guzman"),
    ],
)
def test_what_a_byline_writes_around_a_name_is_cut(written: str, author: str) -> None:
    assert read_html(_page(f"<meta name='author' content=\"{written}\">")).author == author


@pytest.mark.parametrize("value", ["Speicherguide De", "Mcason Com", "Username o Email", "Editor", "Senior Editor"])
def test_a_domain_a_login_form_or_a_job_title_is_no_author(value: str) -> None:
    url = "https://www.speicherguide.de/news/page"
    assert read_html(_page(f"<meta name='author' content='{value}'>"), url=url).author is None
    byline = f"<span class='author'>{value}</span><span class='author-name'>Erin Cunningham</span>"
    assert read_html(_page(before=byline), url=url).author == "Erin Cunningham"  # the byline search goes on


def test_a_name_is_taken_for_a_domain_only_on_that_domains_pages() -> None:
    head = "<meta name='author' content='Speicherguide De'>"
    assert read_html(_page(head), url="https://news.example.de/page").author == "Speicherguide De"


@pytest.mark.parametrize("cleaner", ["name_only", "_copyright_holder"])
def test_metadata_cleaning_leaves_values_longer_than_any_name(cleaner: str) -> None:
    """The patterns backtrack quadratically on long values (a second for these, hours for a
    page's worth); no name is that long, so such values are left as they are."""
    from ledger.ingest.html import authors, metadata

    clean = getattr(authors, cleaner, None) or getattr(metadata, cleaner)
    for value in ("© " + "." * 5_000 + "x", "x " + "senior " * 700 + "y", "Ann Lee" + " twitter" * 700):
        assert clean(value) == value


@pytest.mark.parametrize("name", ["Sun Jun", "April May", "Jan Smith"])
def test_names_made_of_calendar_words_are_names(name: str) -> None:
    assert read_html(_page(f"<meta name='author' content='{name}'>")).author == name


def test_a_relative_time_after_a_name_is_not_a_date() -> None:
    assert read_html(_page(before="<p class='byline'>By Theresa May 3 hours ago</p>")).author == "Theresa May"


def test_a_name_written_twice_in_different_case_is_one_author() -> None:
    head = "<meta name='author' content='MEG WAGNER'><meta name='author' content='Meg Wagner'>"
    assert read_html(_page(head)).author == "Meg Wagner"


def test_page_without_any_author_mark_has_no_author() -> None:
    assert read_html(_page()).author is None


# --- dates ------------------------------------------------------------------------------------------


def test_declared_time_is_kept_with_its_day_as_written() -> None:
    # 23:30 in New York is the next day in UTC; the page's own day is what "date" records.
    draft = read_html(_page("<meta property='article:published_time' content='2024-03-01T23:30:00-05:00'>"))
    assert draft.published_at == datetime(2024, 3, 2, 4, 30, tzinfo=UTC)
    assert draft.metadata["date"] == "2024-03-01"


def test_json_ld_date_published_when_no_meta_tag_states_it() -> None:
    ld = '{"@context": "https://schema.org", "@type": "NewsArticle", "datePublished": "2023-10-05T08:00:00Z"}'
    draft = _with_json_ld(ld)
    assert draft.published_at == datetime(2023, 10, 5, 8, tzinfo=UTC)


def test_undeclared_date_is_searched_for_in_the_page() -> None:
    draft = read_html(_page(before="<p class='date'>Published 14 February 2022</p>"),
                      url="https://news.example/2022/02/14/harbour-plan")
    assert draft.metadata["date"] == "2022-02-14"
    assert draft.published_at == datetime(2022, 2, 14, tzinfo=UTC)


@pytest.mark.parametrize(
    ("page_says", "day"),
    [
        ("", "2016-04-10"),  # htmldate reads day first
        ("<time datetime='2016-10-04T05:07-0400'>10/04/16 05:07 PM EDT</time>", "2016-10-04"),
        ("<a href='/archive/2016-10-04/'>that day</a>", "2016-10-04"),
    ],
)
def test_a_numeric_date_is_read_month_first_where_the_page_writes_it_so(page_says: str, day: str) -> None:
    before = f"<p class='timestamp'>10/04/16 05:07 PM EDT</p>{page_says}"
    page = _page(before=before).replace("lang='en'", "lang='en-GB'")
    assert read_html(page).metadata.get("date") == day
    assert read_html(_page(before=before).replace("lang='en'", "lang='en-US'")).metadata.get("date") == "2016-10-04"



@pytest.mark.parametrize(("page_says", "url"), [
    ("<p class='date'>Published February 1, 2016</p><p>Requires plugin 1.2.16 or later.</p>", None),
    ("<p class='date'><time datetime='2016-02-01'>1/2/16</time></p><p>Version 1.2.16</p>", None),
    ("<p>Read with <code>jquery-1.2.16.min.js</code> loaded.</p>", "https://news.example/2016/02/01/harbour-plan"),
])
def test_a_date_the_page_writes_unambiguously_is_not_swapped(page_says: str, url: str | None) -> None:
    """A version number or file name that reads like the date day first ("1.2.16") does not make
    an en-US page's date month first where the page or its URL writes the date as read."""
    page = _page(before=page_says).replace("lang='en'", "lang='en-US'")
    assert read_html(page, url=url).metadata.get("date") == "2016-02-01"


def test_a_copyright_year_is_not_a_publication_date() -> None:
    """htmldate reads "© 2024" as 2024-01-01; a 1 January only the free text suggests is not believed."""
    footer = "<footer><p>\u00a9 2024 Harbour Times. All rights reserved.</p></footer>"
    draft = read_html(_page(after=footer))
    assert draft.published_at is None and "date" not in draft.metadata
    marked = read_html(_page(before="<p class='date'><time datetime='2024-01-01'>1 January 2024</time></p>",
                             after=footer))
    assert marked.metadata["date"] == "2024-01-01"  # the page's date markup says that very day
    for written in ("Posted January 1, 2024 by Ann", "Published 1 January 2024", "Stand: 01.01.2024"):
        assert read_html(_page(before=f"<p>{written}</p>", after=footer)).metadata.get("date") == "2024-01-01"


@pytest.mark.parametrize("stamp", ["0001-01-01T00:00:00+01:00", "0001-01-01T00:00:00-01:00", "1970-01-01T00:00:00Z",
                                   "9999-12-31T23:00:00-05:00", "2999-01-01T00:00:00Z"])
def test_impossible_or_placeholder_declared_dates_are_not_believed(stamp: str) -> None:
    head = f"<meta property='article:published_time' content='{stamp}'>" \
           f"<meta property='article:modified_time' content='{stamp}'>"
    draft = read_html(_page(head), url="https://news.example/2021/06/30/harbour-plan")
    assert draft.metadata["date"] == "2021-06-30"
    assert draft.modified_at is None


def test_stray_text_before_the_doctype_does_not_lose_the_head() -> None:
    head = "<meta property='article:published_time' content='2024-03-01T08:00:00Z'>"
    page = "Warning: session_start() failed in /var/www/index.php on line 3\n" + _page(head).replace(
        "<html lang='en'>", "<html lang='de'>")
    draft = read_html(page)
    assert draft.published_at == datetime(2024, 3, 1, 8, tzinfo=UTC)
    assert draft.metadata["language"] == "de"


def test_a_declared_date_in_the_future_is_not_believed() -> None:
    ahead = (datetime.now(UTC) + timedelta(days=30)).isoformat(timespec="seconds")
    draft = read_html(_page(f"<meta property='article:published_time' content='{ahead}'>"),
                      url="https://news.example/2021/06/30/harbour-plan")
    assert draft.metadata["date"] == "2021-06-30"


def test_modified_time_is_only_what_the_page_declares() -> None:
    assert read_html(_page()).modified_at is None
    draft = read_html(_page("<meta property='article:modified_time' content='2024-05-06T10:00:00+02:00'>"))
    assert draft.modified_at == datetime(2024, 5, 6, 8, tzinfo=UTC)


# --- the other fields ----------------------------------------------------------------------------------


@pytest.mark.parametrize("heading", ["See Also", "Share Your Thoughts", "Most Popular", "12 Comments"])
def test_a_section_heading_is_not_the_title_where_the_page_declares_one(heading: str) -> None:
    heading_tag = f"<h3 class='section-title'>{heading}</h3>"
    page = _page(after=heading_tag, title="Harbour plan advances").replace("<h1>Harbour plan advances</h1>", "")
    assert read_html(page).title == "Harbour plan advances"  # the <title>
    og = "<meta name='og:title' content='Harbour plan advances, council says'>"
    page = _page(og, after=heading_tag).replace("<h1>Harbour plan advances</h1>", "")
    assert read_html(page).title == "Harbour plan advances, council says"  # og:title written with name=
    assert read_html(_page()).title == "Harbour plan advances"


def test_a_title_in_bytes_of_another_charset_gives_way_to_the_pages_own() -> None:
    """An old page declares UTF-8 but its meta title was written in Latin-1 ("naturgr\\xfcn")."""
    page = _page("<meta charset='utf-8'><meta name='title' content='naturgr\xfcn gmbh'>", title="Über uns")
    draft = read_html(page.encode().replace("naturgr\xfcn".encode(), b"naturgr\xfcn"))
    assert draft.title == "Über uns"


def test_title_site_description_and_canonical_url() -> None:
    head = (
        "<meta property='og:title' content='Harbour plan advances (updated)'>"
        "<meta property='og:site_name' content='Coast Courier'>"
        "<meta name='description' content='The council moves on the quay.'>"
        "<link rel='canonical' href='https://courier.example/harbour-plan'>"
    )
    draft = read_html(_page(head), url="https://courier.example/harbour-plan?utm_source=feed")
    assert draft.title == "Harbour plan advances (updated)"
    assert draft.publisher == "Coast Courier"
    assert draft.metadata["description"] == "The council moves on the quay."
    assert draft.metadata["canonical_url"] == "https://courier.example/harbour-plan"
    assert draft.metadata["language"] == "en"


@pytest.mark.parametrize(
    ("site", "publisher"),
    [
        ("Copyright (c) Camden All Rights Reserved.", "Camden"),
        ("G DATA CyberDefense AG, 2026. All rights reserved.", "G DATA CyberDefense AG"),
        ("Copyright © 2014 by California Community Colleges Chancellor's Office",
         "California Community Colleges Chancellor's Office"),
        ("Copyright Clearance Center", "Copyright Clearance Center"),  # a name, not a notice
        ("Example News © 2024", "Example News"),
        ("24/7 Wall St. (c) 2024", "24/7 Wall St."),
        ("© 1843 Magazine", "1843 Magazine"),  # a number, not a year
    ],
)
def test_a_site_name_written_as_a_copyright_notice_is_its_holder(site: str, publisher: str) -> None:
    assert read_html(_page(f"<meta property='og:site_name' content=\"{site}\">")).publisher == publisher


@pytest.mark.parametrize("site", ["Copyright by", "© 2024", "Copyright 2024 by. All rights reserved."])
def test_a_copyright_notice_naming_no_holder_gives_way_to_the_host(site: str) -> None:
    head = f"<meta property='og:site_name' content=\"{site}\">"
    assert read_html(_page(head), url="https://www.courier.example/harbour").publisher == "courier.example"


def test_section_and_tags_from_meta_tags() -> None:
    head = (
        "<meta property='article:section' content='Local news'>"
        "<meta property='article:tag' content='harbour'><meta property='article:tag' content='council'>"
    )
    draft = read_html(_page(head))
    assert draft.metadata["categories"] == "Local news"
    assert draft.metadata["tags"] == "harbour, council"


def test_licence_from_a_rel_license_link_or_a_creative_commons_footer_link() -> None:
    cc = "https://creativecommons.org/licenses/by-sa/4.0/"
    assert read_html(_page(after=f"<p><a rel='license' href='{cc}'>CC BY-SA</a></p>")).metadata["license"] == "CC BY-SA 4.0"
    footer = _page().replace("<p>Contact us</p>", f"<p>Text under <a href='{cc}'>CC BY-SA 4.0</a></p>")
    assert read_html(footer).metadata["license"] == "CC BY-SA 4.0"
    assert "license" not in read_html(_page()).metadata


def test_category_and_tag_links_in_the_post_meta() -> None:
    meta = ("<div class='entry-meta'><a href='/category/harbours/'>Harbours</a></div>"
            "<div class='tags'><a href='/tag/quay/'>quay</a> <a href='/tag/council/'>council</a></div>")
    draft = read_html(_page(after=meta))
    assert draft.metadata["categories"] == "Harbours"
    assert draft.metadata["tags"] == "quay, council"


def test_links_after_the_end_of_the_document_still_count() -> None:
    page = _page() + "\n<div class='tags'><a href='/tag/harbour/'>Harbour</a></div>"
    assert read_html(page).metadata["tags"] == "Harbour"


@pytest.mark.parametrize("link", [
    "<a href='https://creativecommons.org/licenses/by&#47;4.0/'>Licence</a>",
    "<a href='/legal'>CC&nbsp;BY 4.0</a>",
    "<a href='/legal'>C<b></b>C BY 4.0</a>",
])
def test_licence_link_written_with_entities_or_markup(link: str) -> None:
    footer = _page().replace("<p>Contact us</p>", f"<p>Text under {link}</p>")
    assert read_html(footer).metadata["license"] == "CC BY 4.0"


def test_licence_named_by_a_footer_link_text() -> None:
    footer = _page().replace("<p>Contact us</p>", "<p>Text is available under the <a href='https://wiki.example/"
                                                   "Licensing'>CC BY-SA 4.0</a> licence.</p>")
    assert read_html(footer).metadata["license"] == "CC BY-SA 4.0"


def test_only_pages_of_a_bounded_size_are_searched_for_an_undeclared_date() -> None:
    """htmldate's search grows with the square of the page: a huge page gets only a declared date."""
    from ledger.ingest.html.read import MAX_SEARCHED_ELEMENTS

    def page(cells: int) -> str:
        filler = "<span>cell</span>" * cells
        return (f"<html><head><title>Station log</title></head><body><article><h1>Station log</h1>"
                f"<p>Published on 5 March 2024 by the harbour office, which keeps the log of every tide.</p>"
                f"<p>{'The gauge at the north pier recorded a high water mark above the chart datum. ' * 3}</p>"
                f"<div>{filler}</div></article></body></html>")

    small = read_html(page(100), url="https://port.example/log")
    assert small.published_at is not None and small.published_at.date().isoformat() == "2024-03-05"
    huge = read_html(page(MAX_SEARCHED_ELEMENTS), url="https://port.example/log")
    assert huge.published_at is None
