"""ledger.text.reanchor: find evidence again in a new revision; tell a changed meaning."""

from __future__ import annotations

from typing import TypedDict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.errors import InvalidInput
from ledger.text.matchtext import Anchor, MatchText
from ledger.text.quotes import locate_quote, quote_context
from ledger.text.reanchor import changes_meaning, reanchor

from .test_quotes import everywhere, norm, texts

def test_reanchor_does_not_cut_a_word_the_evidence_did_not_cut() -> None:
    old = "Report. The budget is 10 euros. Chair: Anna Smith. Done."
    new = old.replace("is 10 ", "is 100 ").replace("Anna ", "Annabelle ")
    for quote in ("budget is 10", "Chair: Anna"):
        start = old.index(quote)
        prefix, suffix = quote_context(old, start, start + len(quote))
        assert reanchor(new, exact=quote, start=start, end=start + len(quote), prefix=prefix, suffix=suffix) is None
    # evidence that began inside a word (at a line join) may do so again
    old, new = "a highlevel tool", "so a highlevel tool"
    assert reanchor(new, exact="level tool", start=6, end=16, prefix="a high", suffix="") == Anchor(9, 19, "quote", 1.0)


# --------------------------------------------------------------------------- reanchor


def doc(*paragraphs: str) -> str:
    return "\n\n".join(paragraphs)


P1 = "The company was founded in 1990 in Oslo by two engineers."
P2 = "Company A holds 62% of ordinary shares as of March 2024, according to the filing."
P3 = "Its headquarters moved to Bergen in 2005 after a merger with a rival firm."
P4 = "Revenue for the year was 1.2 billion kroner, up from 1.1 billion."
OLD = doc(P1, P2, P3, P4)
QUOTE = "holds 62% of ordinary shares as of March 2024"


class Evidence(TypedDict):
    exact: str
    start: int
    end: int
    prefix: str
    suffix: str


def _evidence(text: str = OLD, quote: str = QUOTE) -> Evidence:
    a = locate_quote(text, quote)
    prefix, suffix = quote_context(text, a.start, a.end)
    return {
        "exact": text[a.start : a.end],
        "start": a.start,
        "end": a.end,
        "prefix": prefix,
        "suffix": suffix,
    }


def test_reanchor_unchanged_is_position() -> None:
    ev = _evidence()
    a = reanchor(OLD, **ev)
    assert a == Anchor(ev["start"], ev["end"], "position", 1.0)


def test_reanchor_moved_paragraph_is_quote() -> None:
    ev = _evidence()
    new = doc(P1, P3, P4, P2)
    a = reanchor(new, **ev)
    assert a is not None and a.method == "quote" and a.score == 1.0
    assert new[a.start : a.end] == QUOTE
    assert a.start != ev["start"]


def test_reanchor_reflowed_paragraph_is_quote() -> None:
    ev = _evidence()
    new = OLD.replace("ordinary shares as", "ordinary\nshares  as").replace("Oslo", "Oslo, Norway,")
    a = reanchor(MatchText(new), **ev)
    assert a is not None and a.method == "quote"
    assert new[a.start : a.end] == "holds 62% of ordinary\nshares  as of March 2024"


def test_reanchor_changed_word_is_fuzzy() -> None:
    ev = _evidence()
    new = doc(P1, P3, P2.replace("62%", "64%"), P4)
    a = reanchor(new, **ev)
    assert a is not None and a.method == "fuzzy"
    assert 0.85 <= a.score < 1.0
    assert new[a.start : a.end] == "holds 64% of ordinary shares as of March 2024"


@pytest.mark.parametrize("place", [0, 1, 2, 3])
def test_reanchor_changed_paragraph_moved_anywhere_keeps_its_whole_quote(place: int) -> None:
    """Moved to the end of the text too, where nothing follows it to agree with the suffix."""
    ev = _evidence(quote="of March 2024, according to the filing")  # ends where its paragraph ends
    others = [P1, P3, P4]
    new = doc(*others[:place], P2.replace("the filing", "the annual filing"), *others[place:])
    a = reanchor(new, **ev)
    assert a is not None and a.method == "fuzzy"
    assert new[a.start : a.end] == "of March 2024, according to the annual filing"


def test_reanchor_changed_word_at_the_edge_uses_context() -> None:
    ev = _evidence()
    new = OLD.replace("March 2024", "March 2025")
    a = reanchor(new, **ev)
    assert a is not None and a.method == "fuzzy"
    assert new[a.start : a.end] == "holds 62% of ordinary shares as of March 2025"


@pytest.mark.parametrize(("old_word", "new_word"), [("approved", "rejected"), ("line", "route")])
def test_reanchor_keeps_a_changed_first_or_last_word_in_the_excerpt(old_word: str, new_word: str) -> None:
    """Dropping the changed word looks more like the quote, but would hide the change."""
    old = "Minutes of the meeting. The council approved the northern route for the new tram line. Adjourned."
    quote = "approved the northern route for the new tram line"
    ev = _evidence(old, quote=quote)
    new = old.replace(old_word, new_word)
    a = reanchor(new, **ev)
    assert a is not None and a.method == "fuzzy"
    assert new[a.start : a.end] == quote.replace(old_word, new_word)


_MINUTES = "Minutes of the meeting. The council approved the northern route for the new tram line. Adjourned."
_ROUTE = "approved the northern route for the new tram line"


@pytest.mark.parametrize(("old", "quote", "edit", "found"), [
    (_MINUTES, _ROUTE, ("approved ", ""), "the northern route for the new tram line"),
    (_MINUTES, _ROUTE, (" line.", "."), "approved the northern route for the new tram"),
    (_MINUTES, _ROUTE, ("new tram line", "new tram line yesterday"), _ROUTE),
    ("The council approved the northern route for the new tram line on Monday evening.", _ROUTE,
     (" line on", " on"), "approved the northern route for the new tram"),
    ("The budget for the tram line was approved by Dr. Smith on Monday.", "The budget for the tram line was "
     "approved by Dr. Smith", ("Smith", "Jones"), "The budget for the tram line was approved by Dr. Jones"),
    ("The council approved the budget. Later it met again.", "The council approved the budget. Later",
     ("Later", "Afterwards"), "The council approved the budget. Afterwards"),
])
def test_reanchor_does_not_reach_into_the_context_for_a_deleted_edge_word(
    old: str, quote: str, edit: tuple[str, str], found: str
) -> None:
    """... nor drops a changed one after an abbreviation or a sentence end the quote had."""
    ev = _evidence(old, quote=quote)
    new = old.replace(*edit)
    a = reanchor(new, **ev)
    assert a is not None and new[a.start : a.end] == found


def test_reanchor_passes_over_a_near_match_the_old_text_already_held() -> None:
    weekdays = "Visitors must register at the front desk before entering the laboratory on weekdays."
    weekends = weekdays.replace("weekdays", "weekends")
    badges = "The east wing is reserved for staff members who hold a valid access badge."
    old = doc(weekdays, badges, weekends)
    ev = _evidence(old, quote=weekdays.rstrip("."))
    deleted = doc(badges, weekends)
    assert reanchor(deleted, **ev) is not None  # without the old text: the sentence next to it
    assert reanchor(deleted, **ev, old_text=old) is None
    rewrapped = doc(badges, weekends.replace("entering the", "entering\nthe"))  # as a PDF reflows lines
    assert reanchor(rewrapped, **ev, old_text=MatchText(old)) is None
    edited = doc(badges, weekends, weekdays.replace("front desk", "main desk"))  # changed and moved
    a = reanchor(edited, **ev, old_text=old)
    assert a is not None and a.method == "fuzzy"
    assert edited[a.start : a.end] == weekdays.replace("front desk", "main desk").rstrip(".")


def test_reanchor_changed_word_below_min_score_is_none() -> None:
    ev = _evidence()
    new = OLD.replace("62%", "64%")
    a = reanchor(new, **ev, min_score=0.99)
    assert a is None


def test_reanchor_deleted_paragraph_is_none() -> None:
    ev = _evidence()
    new = doc(P1, P3, P4)
    assert reanchor(new, **ev) is None
    assert reanchor(MatchText(new), **ev) is None


def test_reanchor_repeated_quote_prefers_context_then_nearness() -> None:
    para = "Sales rose 4% in the quarter."
    old = "North region. " + para + " South region. " + para
    a = locate_quote(old, "Sales rose 4%", prefix="South region. ")
    prefix, suffix = quote_context(old, a.start, a.end)
    new = "Preface added. " + old
    b = reanchor(new, exact="Sales rose 4%", start=a.start, end=a.end, prefix=prefix, suffix=suffix)
    assert b is not None and b.method == "quote"
    assert b.start == new.rindex("Sales rose 4%")
    # without usable context, the occurrence nearest the old position wins
    c = reanchor(new, exact="Sales rose 4%", start=a.start, end=a.end, prefix="", suffix="")
    assert c is not None and c.start == new.rindex("Sales rose 4%")


def test_reanchor_validates_arguments() -> None:
    with pytest.raises(InvalidInput):
        reanchor(OLD, exact="  ", start=0, end=2, prefix="", suffix="")
    with pytest.raises(InvalidInput):
        reanchor(OLD, exact="x", start=0, end=1, prefix="", suffix="", min_score=1.5)


def test_reanchor_fuzzy_in_a_long_text_stays_near_the_evidence() -> None:
    filler = " ".join(f"word{i}" for i in range(20000))
    old = filler + "\n\n" + OLD + "\n\n" + filler
    ev = _evidence(old)
    new = filler + " extra words here\n\n" + OLD.replace("ordinary", "common") + "\n\n" + filler
    a = reanchor(MatchText(new), **ev)
    assert a is not None and a.method == "fuzzy"
    assert new[a.start : a.end] == "holds 62% of common shares as of March 2024"


@settings(max_examples=100, deadline=None)
@given(texts, st.data())
def test_reanchor_in_an_unchanged_text_is_position(text: str, data: st.DataObject) -> None:
    i = data.draw(st.integers(0, len(text) - 1))
    j = data.draw(st.integers(i + 1, len(text)))
    if not norm(text[i:j]):
        return
    a = locate_quote(text, text[i:j], breaks=everywhere(text))
    prefix, suffix = quote_context(text, a.start, a.end)
    got = reanchor(text, exact=text[a.start : a.end], start=a.start, end=a.end, prefix=prefix, suffix=suffix)
    assert got == Anchor(a.start, a.end, "position", 1.0)


@pytest.mark.parametrize(
    ("old", "new", "changed"),
    [
        ("costs 10 euros", "costs 19 euros", True),
        ("costs 1,000 euros", "costs 1.000 euros", True),
        ("the bridge is safe", "the bridge is not safe", True),
        ("it isn't safe", "it is safe", True),
        ("es ist keine Gefahr", "es ist eine Gefahr", True),
        ("costs 10 euros", "costs 10 Euro", False),
        ("the bridge is safe", "the bridges are safe", False),
        ("it isn\u2019t safe", "it isn't safe", False),
    ],
)
def test_a_near_match_changes_meaning_when_a_number_or_negation_differs(old: str, new: str, changed: bool) -> None:
    assert changes_meaning(old, new) is changed
