"""The renderers on hand-made report values, without a database: whatever text a claim, an
excerpt or a source carries, HTML gets no tag or attribute from it, Markdown no markup, and JSON
gives it back exactly."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from html.parser import HTMLParser

from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.records import Audit, Claim, ClaimId, EntityId, Evidence, EvidenceId, SourceId
from ledger.report import render
from ledger.report.markdown import md
from ledger.report.model import (
    EntitySection,
    Fact,
    Report,
    ReportEvidence,
    ReportSource,
    safe_link,
    source_link,
)

#: Every element the HTML renderer writes; nothing else may appear, whatever the text.
ELEMENTS = {"html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "h3", "h4", "p", "nav", "ol",
            "ul", "li", "a", "main", "section", "article", "span", "div", "figure", "figcaption", "svg", "text",
            "rect", "polygon", "line", "circle", "path", "blockquote", "cite", "table", "tr", "th", "td", "br"}
WHEN = datetime(2026, 5, 1, tzinfo=UTC)


def claim(value: str, subject: str, predicate: str, claim_id: int = 1) -> Claim:
    return Claim(id=ClaimId(claim_id), scope="default", subject_id=EntityId(1), subject=subject, predicate=predicate,
                 object_id=None, object=None, value=value, datatype="string", qualifiers={"k": value},
                 status="disputed", confidence=0.5, valid_from=datetime(2020, 1, 1, tzinfo=UTC), valid_until=None,
                 valid_from_precision="year", valid_until_precision=None, recorded_at=WHEN, invalidated_at=None,
                 version_id=claim_id, cause=None, reason=value, actor=value)


def report(text: str, uri: str | None = "https://example.org/a") -> Report:
    held = claim(text, text, text)
    evidence = Evidence(id=EvidenceId(1), claim_id=held.id, source_id=SourceId(1), relation="supports",
                        excerpt=text, locator={}, page=3, recorded_at=WHEN, anchor_method="exact", anchor_score=1.0)
    source = ReportSource(id=SourceId(1), kind="pdf", title=text, uri=uri, publisher=text, author=text,
                          published_at=None, trust="untrusted")
    fact = Fact(anchor="fact-1", subject_id=EntityId(1), subject=text, predicate=text, qualifiers=held.qualifiers,
                claims=(Audit(held, (held,), ()),), evidence=(ReportEvidence(evidence, source, source_link(source, 3)),),
                why=text)
    return Report(kind="timeline", scope="default", known_at=WHEN, entity=text, predicate=text,
                  sections=(EntitySection("entity-1", EntityId(1), text, (fact,)),))


class Parsed(HTMLParser):
    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.data: list[str] = []
        self.feed(page)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))

    def handle_data(self, data: str) -> None:
        self.data.append(data)


hostile = st.one_of(
    st.text(min_size=1, max_size=60),
    st.sampled_from(["<script>alert(1)</script>", '"><img src=x onerror=alert(1)>', "</title><script>x</script>",
                     "]]><svg onload=alert(1)>", "[click](javascript:alert(1))", "**bold** _it_ `code` | cell",
                     "<!-- c -->", "&lt;already&gt;", "~~gone~~", "# heading"]),
).filter(lambda t: t.strip() != "")


@settings(max_examples=150, deadline=None)
@given(hostile)
def test_html_takes_no_markup_from_the_text(text: str) -> None:
    parsed = Parsed(render(report(text), "html"))
    assert {tag for tag, _ in parsed.tags} <= ELEMENTS
    assert not any(name.startswith("on") for _, attrs in parsed.tags for name, _ in attrs)
    assert text in "".join(parsed.data)  # shown as written, in the excerpt's quote


@settings(max_examples=150, deadline=None)
@given(hostile)
def test_markdown_takes_no_markup_from_the_text(text: str) -> None:
    escaped = md(text)
    assert "<" not in escaped and ">" not in escaped and "\n" not in escaped
    assert not re.search(r"(?<!\\)[\[\]`*_|]", escaped)
    document = render(report(text), "markdown")
    assert "<script" not in document and "javascript:" not in document.replace(md("javascript:"), "")


@settings(max_examples=100, deadline=None)
@given(hostile)
def test_json_gives_the_text_back_exactly(text: str) -> None:
    document = json.loads(render(report(text), "json"))
    [fact] = document["entities"][0]["facts"]
    assert fact["evidence"][0]["excerpt"] == text and fact["claims"][0]["label"] == text
    assert fact["evidence"][0]["link"] == "https://example.org/a#page=3"  # a PDF page


def test_only_safe_uris_become_links() -> None:
    for uri in ("javascript:alert(1)", "JAVASCRIPT:alert(1)", "data:text/html,<b>x</b>", "vbscript:x",
                " javascript:x", "java\tscript:x", "mailbox:rent", "notes:berlin", ""):
        assert safe_link(uri) is None, uri
        page = render(report("x", uri), "html")
        assert "href=\"java" not in page.lower() and "href=\"data" not in page and "href=\"mailbox" not in page
    for uri in ("https://example.org/a?b=1&c=<2>", "http://x.example/", "file:///tmp/a.pdf", "ftp://x.example/f"):
        assert safe_link(uri) == uri
    page = render(report("x", 'https://example.org/"><script>alert(1)</script>'), "html")
    assert "<script>" not in page and "&quot;&gt;&lt;script&gt;" in page
