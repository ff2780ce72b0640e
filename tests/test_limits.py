"""Length limits on the text PostgreSQL indexes: the same values are stored, or refused, on every
backend (a btree index row holds at most 2,704 bytes there; SQLite has no such limit).

Values at a limit are random, so PostgreSQL cannot compress the index entries they make (a
repetitive string would pass whatever the limit), and they are put in a scope at its own byte
limit, the other column of those indexes. One byte or character over is refused with
InvalidInput before anything is written.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from typing import Any

import pytest

from ledger import InvalidInput, Ledger
from ledger.validate import (
    MAX_KIND_LENGTH,
    MAX_LABEL_LENGTH,
    MAX_LANGUAGE_LENGTH,
    MAX_PREDICATE_LENGTH,
    MAX_SCOPE_BYTES,
)
from ledger.entities import MAX_NAME_BYTES, MAX_NAME_LENGTH, normalize_name
from ledger.sources import MAX_URI_BYTES

from .conftest import table_dump

RNG = random.Random(48)
ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def ascii_text(size: int) -> str:
    return "".join(RNG.choice(ALNUM) for _ in range(size))


def chinese(count: int) -> str:
    """Random CJK unified ideographs: 3 bytes each, NFKC- and case-stable."""
    return "".join(chr(RNG.randint(0x4E00, 0x9FFF)) for _ in range(count))


def hangul(count: int) -> str:
    """Random Hangul syllables with a final consonant: 3 bytes each, folded (NFKD) into 3 jamo of 3 bytes each."""
    return "".join(chr(0xAC00 + RNG.randrange(19 * 21) * 28 + RNG.randint(1, 27)) for _ in range(count))


def astral(count: int) -> str:
    """Random CJK Extension B ideographs: 4 bytes each."""
    return "".join(chr(RNG.randint(0x20000, 0x2A6DF)) for _ in range(count))


def utf8_size(text: str) -> int:
    return len(text.encode("utf-8"))


def scope_of(size: int) -> str:
    """A random scope of exactly ``size`` bytes of UTF-8, mostly 4-byte characters."""
    scope = astral(size // 4) + ascii_text(size % 4)
    assert utf8_size(scope) == size and len(scope) <= MAX_LABEL_LENGTH
    return scope


def name_folding_to(size: int, letters: Callable[[int], str] = chinese, per_letter: int = 3) -> str:
    """A random name whose folded form (normalize_name) is exactly ``size`` bytes of UTF-8."""
    name = letters(size // per_letter) + ascii_text(size % per_letter).lower()
    assert utf8_size(normalize_name(name)) == size and len(name) <= MAX_NAME_LENGTH
    return name


def uri_of(size: int, letters: Callable[[int], str] = ascii_text, per_letter: int = 1) -> str:
    """A random http URI of exactly ``size`` bytes of UTF-8 that document_url leaves as it is."""
    head = "https://example.org/"
    tail = size - len(head)
    uri = head + letters(tail // per_letter) + ascii_text(tail % per_letter)
    assert utf8_size(uri) == size
    return uri


SCOPE = scope_of(MAX_SCOPE_BYTES)


def refused(ledger: Ledger, db_url: str, call: Callable[[], Any], match: str) -> None:
    """``call`` raises InvalidInput matching ``match`` and leaves every table as it was."""
    before = table_dump(db_url)
    with pytest.raises(InvalidInput, match=match):
        call()
    assert table_dump(db_url) == before


# ------------------------------------------------------------------ scopes


def test_a_scope_at_its_byte_limit_is_stored_and_one_byte_more_is_refused(ledger: Ledger, db_url: str) -> None:
    entity = ledger.entity("Alice", scope=SCOPE)
    assert ledger.resolve("alice", scope=SCOPE) == entity and entity.scope == SCOPE
    refused(ledger, db_url, lambda: ledger.entity("Bob", scope=SCOPE + "x"),
            f"scope .* is {MAX_SCOPE_BYTES + 1} bytes long in UTF-8; the limit is {MAX_SCOPE_BYTES} bytes")


def test_an_untrusted_source_needs_room_for_the_quarantine_prefix(ledger: Ledger, db_url: str) -> None:
    prefix = len("quarantine:")
    fits = scope_of(MAX_SCOPE_BYTES - prefix)
    source = ledger.add_source(text="A quarantined page.", uri=uri_of(MAX_URI_BYTES), scope=fits, trust="untrusted")
    assert ledger.source(source.id).scope == f"quarantine:{fits}"
    refused(ledger, db_url, lambda: ledger.add_source(text="Another page.", scope=fits + "x", trust="untrusted"),
            r"too long for untrusted sources.*401 bytes of UTF-8.*1 characters shorter")
    ascii_scope = "s" * (MAX_LABEL_LENGTH - prefix)
    assert ledger.add_source(text="One more.", scope=ascii_scope, trust="untrusted").scope == f"quarantine:{ascii_scope}"
    refused(ledger, db_url, lambda: ledger.add_source(text="Not this.", scope=ascii_scope + "s", trust="untrusted"),
            "that is 201 characters")
    refused(ledger, db_url, lambda: ledger.ingest_html("<p>A page long enough to be read as text.</p>",
                                                       url="https://example.org/a", scope=ascii_scope + "s",
                                                       trust="untrusted"),
            "too long for untrusted sources")


# ------------------------------------------------------------------ names and aliases


@pytest.mark.parametrize("letters, per_letter", [(chinese, 3), (hangul, 9), (astral, 4)],
                         ids=["chinese", "hangul", "astral"])
def test_a_name_folding_to_the_byte_limit_is_stored_and_one_byte_more_is_refused(
    ledger: Ledger, db_url: str, letters: Callable[[int], str], per_letter: int
) -> None:
    name = name_folding_to(MAX_NAME_BYTES, letters, per_letter)
    entity = ledger.entity(name, scope=SCOPE)
    assert entity.name == name
    assert ledger.resolve(name, scope=SCOPE) == entity
    assert ledger.get_entity(entity.id).name == name
    over = name_folding_to(MAX_NAME_BYTES + 1, letters, per_letter)
    refused(ledger, db_url, lambda: ledger.entity(over, scope=SCOPE),
            f"entity name .* folds to {MAX_NAME_BYTES + 1} bytes of UTF-8 .*the limit is {MAX_NAME_BYTES} bytes")
    source = ledger.add_source(text="A note on the name.", scope=SCOPE)
    refused(ledger, db_url, lambda: ledger.assert_claim(over, "note", value="x", scope=SCOPE,
                                                        evidence=[ledger.cite(source, "A note")]),
            f"folds to {MAX_NAME_BYTES + 1} bytes")


def test_an_alias_folding_to_the_byte_limit_is_stored_and_one_byte_more_is_refused(ledger: Ledger, db_url: str) -> None:
    alias, other = name_folding_to(MAX_NAME_BYTES), name_folding_to(MAX_NAME_BYTES)
    entity = ledger.entity("Carol", aliases=[alias], scope=SCOPE)
    entity = ledger.add_alias(entity, other, language="zh-Hant", scope=SCOPE)
    assert {alias, other} <= set(entity.aliases)
    assert ledger.resolve(alias, scope=SCOPE) == ledger.resolve(other, scope=SCOPE) == entity
    over = name_folding_to(MAX_NAME_BYTES + 1)
    refused(ledger, db_url, lambda: ledger.add_alias(entity, over, scope=SCOPE),
            f"alias .* folds to {MAX_NAME_BYTES + 1} bytes")
    refused(ledger, db_url, lambda: ledger.entity("Dave", aliases=[over], scope=SCOPE),
            f"alias .* folds to {MAX_NAME_BYTES + 1} bytes")


def test_a_name_that_folding_lengthens_is_held_to_its_folded_size(ledger: Ledger, db_url: str) -> None:
    # Squared katakana words ("㌀" is "アパート"): 3 bytes as written, 9 to 15 once folded.
    name = ""
    while utf8_size(normalize_name(name)) <= MAX_NAME_BYTES - 40:
        name += chr(RNG.randint(0x3300, 0x3357))
    assert utf8_size(name) < MAX_NAME_BYTES // 3 < utf8_size(normalize_name(name)) <= MAX_NAME_BYTES
    assert ledger.entity(name, scope=SCOPE).name == name
    longer = name + "".join(chr(RNG.randint(0x3300, 0x3357)) for _ in range(5))
    size = utf8_size(normalize_name(longer))
    assert size > MAX_NAME_BYTES
    refused(ledger, db_url, lambda: ledger.entity(longer, scope=SCOPE), f"folds to {size} bytes")


# ------------------------------------------------------------------ source uris


@pytest.mark.parametrize("letters, per_letter", [(ascii_text, 1), (chinese, 3)], ids=["ascii", "iri"])
def test_a_uri_at_the_byte_limit_is_stored_and_one_byte_more_is_refused(
    ledger: Ledger, db_url: str, letters: Callable[[int], str], per_letter: int
) -> None:
    uri = uri_of(MAX_URI_BYTES, letters, per_letter)
    source = ledger.add_source(text="The uri is long.", uri=uri, scope=SCOPE)
    assert ledger.source(source.id).uri == uri
    over = uri_of(MAX_URI_BYTES + 1, letters, per_letter)
    message = f"uri .* is {MAX_URI_BYTES + 1} bytes long in UTF-8; the limit is {MAX_URI_BYTES} bytes"
    refused(ledger, db_url, lambda: ledger.add_source(text="Another text.", uri=over, scope=SCOPE), message)
    refused(ledger, db_url, lambda: ledger.ingest_pdf(b"%PDF-1.4 not read", uri=over, scope=SCOPE), message)


def test_a_web_page_url_is_held_to_the_size_of_the_document_url_it_is_stored_as(ledger: Ledger, db_url: str) -> None:
    html = "<html><body><article><p>" + "A paragraph of running text about the harbour. " * 8 + "</p></article></body></html>"
    uri = uri_of(MAX_URI_BYTES)
    # Tracking parameters and the fragment are dropped: the url as given may be longer.
    given = f"{uri}?utm_source={ascii_text(3000)}#{ascii_text(100)}"
    page = ledger.ingest_html(html, url=given, scope=SCOPE)
    assert ledger.source(page.id).uri == uri
    over = uri_of(MAX_URI_BYTES + 1)
    refused(ledger, db_url, lambda: ledger.ingest_html(html, url=f"{over}?utm_source=x", scope=SCOPE),
            f"is stored as its document URL .*{MAX_URI_BYTES + 1} bytes long in UTF-8; the limit is {MAX_URI_BYTES}")


def test_a_draft_with_a_uri_over_the_limit_is_refused(ledger: Ledger, db_url: str) -> None:
    from ledger.sources import text_draft

    draft = dataclasses.replace(text_draft("Made by hand."), uri=uri_of(MAX_URI_BYTES + 1))
    refused(ledger, db_url, lambda: ledger.add_draft(draft, scope=SCOPE),
            f"the source's uri .* is {MAX_URI_BYTES + 1} bytes long")


# ------------------------------------------------------------------ predicates and labels


def test_a_predicate_at_its_limit_is_stored_and_one_lengthened_by_nfc_is_refused(ledger: Ledger, db_url: str) -> None:
    predicate = astral(MAX_PREDICATE_LENGTH)  # 800 bytes, beside a 400-byte scope in the claims index
    source = ledger.add_source(text="Alice wrote it.", scope=SCOPE)
    claim = ledger.assert_claim("Alice", predicate, value="x", scope=SCOPE, evidence=[ledger.cite(source, "Alice")])
    assert claim.predicate == predicate
    assert ledger.define_predicate(predicate, cardinality="many").name == predicate
    # U+0958 is two characters in NFC (U+0915 U+093C): 101 of them are 202 characters stored.
    lengthened = "\u0958" * 101
    refused(ledger, db_url, lambda: ledger.define_predicate(lengthened),
            f"is 202 characters long in NFC, the form it is stored in; the limit is {MAX_PREDICATE_LENGTH}")
    refused(ledger, db_url, lambda: ledger.assert_claim("Alice", lengthened, value="x", scope=SCOPE,
                                                        evidence=[ledger.cite(source, "Alice")]),
            "202 characters long in NFC")


def test_kind_and_language_fit_their_columns(ledger: Ledger, db_url: str) -> None:
    entity = ledger.entity("Eve", kind="k" * MAX_KIND_LENGTH)
    assert entity.kind == "k" * MAX_KIND_LENGTH
    ledger.add_alias(entity, "Evie", language="l" * MAX_LANGUAGE_LENGTH)
    refused(ledger, db_url, lambda: ledger.entity("Frank", kind="k" * (MAX_KIND_LENGTH + 1)),
            f"kind is {MAX_KIND_LENGTH + 1} characters long; the limit is {MAX_KIND_LENGTH}")
    refused(ledger, db_url, lambda: ledger.add_alias(entity, "Evita", language="l" * (MAX_LANGUAGE_LENGTH + 1)),
            f"language is {MAX_LANGUAGE_LENGTH + 1} characters long; the limit is {MAX_LANGUAGE_LENGTH}")
