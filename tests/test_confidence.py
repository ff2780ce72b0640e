"""Confidence from independent sources: one formula, copies counted once, explained (issue 20)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger import Ledger
from ledger.claims.confidence import from_sources, noisy_or
from ledger.ingest.base import content_hash
from ledger.sources import text_draft

weights = st.floats(0.0, 1.0, allow_nan=False)


@given(st.lists(weights, max_size=8))
def test_noisy_or_stays_in_range_and_never_drops(ws: list[float]) -> None:
    value = noisy_or(ws)
    assert 0.0 <= value <= 1.0 and value >= max(ws, default=0.0) - 1e-12


@given(st.dictionaries(st.integers(1, 50), weights, min_size=1, max_size=6), st.integers(0, 5))
def test_copies_count_once_with_their_greatest_weight(sources: dict[int, float], copies: int) -> None:
    keys = {s: frozenset({f"family:{s}"}) for s in sources}
    alone, _ = from_sources(keys, sources)
    first = min(sources)
    with_copies = dict(sources)
    copied = dict(keys)
    for n in range(copies):  # copies of the first source, no more reliable than it
        copy = 100 + n
        with_copies[copy] = sources[first] * 0.5
        copied[copy] = frozenset({f"bytes:{first}-{n}", *keys[first]} if n % 2 else {f"text:A|{first}", f"bytes:{copy}"})
        copied[first] = copied[first] | {f"text:A|{first}"}
    value, contributions = from_sources(copied, with_copies)
    assert value == pytest.approx(alone)
    assert sum(c.counted for c in contributions) == len(sources)
    assert sum(c.gain for c in contributions) == pytest.approx(value)
    assert all(c.copy_of == first and c.gain == 0.0 for c in contributions if not c.counted)


def test_the_worked_example_of_the_docs() -> None:
    """docs/contradictions.md: two independent trusted sources and a mirror of the first."""
    keys = {1: frozenset({"family:1", "bytes:aa", "text:Reuters|t1"}), 2: frozenset({"family:2", "bytes:bb"}),
            3: frozenset({"family:3", "bytes:cc", "text:Reuters|t1"})}
    value, (one, two, three) = from_sources(keys, {1: 0.6, 2: 0.6, 3: 0.6})
    assert value == pytest.approx(0.84)
    assert (one.counted, one.gain, two.counted, two.gain) == (True, pytest.approx(0.6), True, pytest.approx(0.24))
    assert (three.counted, three.copy_of, three.folded_because) == (False, 1, "same-publisher-and-text")


def test_explain_says_which_sources_counted_and_which_were_copies(ledger: Ledger, clock) -> None:
    text = "Marie Curie won the Nobel Prize in Physics in 1903."
    original = ledger.add_source(text=text, publisher="Nobel Foundation", uri="https://nobelprize.example/curie")
    # the same text and publisher in other bytes (the page saved as HTML elsewhere): a copy
    mirror = ledger.add_draft(replace(text_draft(text, publisher="Nobel Foundation", uri="https://mirror.example"),
                                      content_hash=content_hash(b"<html>" + text.encode())))
    revised = ledger.add_source(text=text + " She shared it.", publisher="Nobel Foundation",
                                uri="https://nobelprize.example/curie")  # a revision: the same document
    other = ledger.add_source(text="In 1903 Curie shared the Nobel Prize in Physics.", publisher="Britannica")
    assert len({original.id, mirror.id, revised.id, other.id}) == 4 and revised.revision_of == original.id
    claim = ledger.assert_claim("Marie Curie", "award", value="Nobel Prize in Physics 1903", evidence=[
        ledger.cite(s, "Nobel Prize in Physics") for s in (original, mirror, revised, other)])
    why = ledger.explain(claim).confidence
    assert why is not None
    assert why.independent == 2 and why.matches and why.stored == pytest.approx(0.84) == claim.confidence
    by_source = {c.source_id: c for c in why.sources}
    assert (by_source[original.id].counted, by_source[other.id].counted) == (True, True)
    assert by_source[mirror.id].folded_because == "same-publisher-and-text"
    assert by_source[revised.id].folded_because == "same-document"
    assert {by_source[mirror.id].copy_of, by_source[revised.id].copy_of} == {original.id}
    assert [round(c.gain, 6) for c in why.sources if c.counted] == [0.6, 0.24]


def test_a_confidence_given_by_the_caller_is_kept_and_shown_beside_the_formula(ledger: Ledger) -> None:
    doc = ledger.add_source(text="The bridge is 1,200 m long.", publisher="A")
    claim = ledger.assert_claim("bridge", "length", value="1200 m", confidence=0.95,
                                evidence=[ledger.cite(doc, "1,200 m")])
    why = ledger.explain(claim).confidence
    assert why is not None and (why.stored, why.from_sources, why.matches) == (0.95, pytest.approx(0.6), False)


def test_untrusted_sources_weigh_less(ledger: Ledger) -> None:
    doc = ledger.add_source(text="Tip: the bridge is 1,300 m long.", trust="untrusted", publisher="forum")
    claim = ledger.assert_claim("bridge", "length", value="1300 m", evidence=[ledger.cite(doc, "1,300 m")],
                                scope="quarantine:default")
    why = ledger.explain(claim).confidence
    assert why is not None and [c.weight for c in why.sources] == [0.2] and why.matches
