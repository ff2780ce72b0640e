"""Recall's pure decisions: time words, token estimates, question words, packing, validity in words, TTLs."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger import InvalidInput
from ledger.agent.memory import parse_ttl
from ledger.agent.packing import duplicate_key, pack, pack_notes, shown_time
from ledger.agent.period import period_in, without_period
from ledger.agent.records import PacketItem, WorkingNote
from ledger.agent.tokens import content_terms, estimate_tokens
from ledger.records import ClaimId

NOW = datetime(2026, 8, 10, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(("question", "start", "end"), [
    ("how much did I pay in April?", "2026-04-01", "2026-05-01"),
    ("how much did I pay in December?", "2025-12-01", "2026-01-01"),  # the latest December begun by now
    ("what was it in August", "2026-08-01", "2026-09-01"),
    ("and during Sept. 2025?", "2025-09-01", "2025-10-01"),
    ("the rent for 2026-02", "2026-02-01", "2026-03-01"),
    ("what did it cost in 2024?", "2024-01-01", "2025-01-01"),
    ("in March of 2023", "2023-03-01", "2023-04-01"),
])
def test_time_words_name_a_period(question: str, start: str, end: str) -> None:
    found = period_in(question, NOW)
    assert found is not None
    assert (found.start.date().isoformat(), found.end.date().isoformat()) == (start, end)
    assert found.words not in without_period(question, found)


@pytest.mark.parametrize("question", ["how much do I pay?", "may I ask the price?", "who won 3 to 2?",
                                      "the 2026-04-15 invoice"])
def test_other_questions_name_no_period(question: str) -> None:
    assert period_in(question, NOW) is None


def test_question_words_leave_out_how_it_is_asked() -> None:
    assert content_terms("How much do I pay for electricity? For ELECTRICITY!") == ["pay", "electricity"]
    assert content_terms("what is my shoe size?") == ["shoe", "size"]
    assert content_terms("北京大学在哪里") == ["北京大学在哪里"]


@given(st.text(max_size=300))
def test_token_estimates_grow_with_text(text: str) -> None:
    assert estimate_tokens(text) >= 0
    assert estimate_tokens(text + " word") >= estimate_tokens(text) + 1


def test_token_estimates_are_near_a_tokenizer_on_prose() -> None:
    prose = "The quick brown fox jumps over the lazy dog, and the electricity bill is PLN 245 per month."
    assert 18 <= estimate_tokens(prose) <= 30  # cl100k: 23 tokens


@given(st.text(alphabet=st.characters(codec="ascii"), max_size=80), st.text(max_size=3))
def test_ascii_text_counts_as_the_same_pieces_would_in_any_text(ascii_text: str, other: str) -> None:
    """The ASCII fast path counts like the general rule: adding non-ASCII text after a space adds
    exactly what that text counts on its own."""
    assert estimate_tokens(ascii_text + " " + other) == estimate_tokens(ascii_text) + estimate_tokens(other)


def _item(n: int, value: str, words: int) -> PacketItem:
    return PacketItem(claim_id=ClaimId(n), subject=f"s{n % 3}", predicate="p", value=value,
                      validity=f"{value} " + "word " * words, status="reported", confidence=0.6, score=1.0)


@given(st.lists(st.tuples(st.sampled_from(["a", "b", "c", "d"]), st.integers(0, 30)), max_size=25),
       st.integers(0, 400))
def test_packing_keeps_the_budget_the_order_and_no_duplicates(specs: list[tuple[str, int]], budget: int) -> None:
    items = [_item(n, value, words) for n, (value, words) in enumerate(specs)]
    kept, used, omitted = pack(items, budget, estimate_tokens)
    assert used <= budget
    assert used == sum(estimate_tokens(i.to_text()) + 1 for i in kept)
    assert [items.index(i) for i in kept] == sorted(items.index(i) for i in kept)
    assert len({duplicate_key(i) for i in kept}) == len(kept)
    assert omitted + len(kept) <= len(items)


@given(st.lists(st.text(min_size=1, max_size=80), max_size=12), st.integers(0, 300))
def test_notes_fit_whole_or_within_the_budget(texts: list[str], budget: int) -> None:
    notes = [WorkingNote(id=n, run_id="r", turn=n + 1, text=t, recorded_at=NOW, expires_at=NOW) for n, t in
             enumerate(texts)]
    kept, used = pack_notes(notes, ["word"], budget, estimate_tokens)
    assert used <= budget
    total = sum(estimate_tokens(n.to_text()) + 1 for n in notes)
    assert (kept == notes) == (total <= budget) or (not notes)
    assert kept == notes or used <= budget // 2
    assert [n.turn for n in kept] == sorted(n.turn for n in kept)


def test_times_are_shown_as_precisely_as_known() -> None:
    at = datetime(2026, 3, 1, tzinfo=UTC)
    assert [shown_time(at, p) for p in ("year", "month", "day", None)] == ["2026", "2026-03", "2026-03-01",
                                                                           "2026-03-01"]
    assert shown_time(at.replace(hour=10, minute=30), "second") == "2026-03-01T10:30:00Z"
    assert shown_time(None, None) == "an unknown time"


def test_ttls() -> None:
    assert parse_ttl("24h") == timedelta(hours=24)
    assert parse_ttl("1h30m") == timedelta(minutes=90)
    assert parse_ttl(" 7d ") == timedelta(days=7)
    assert parse_ttl(90) == timedelta(seconds=90)
    assert parse_ttl(timedelta(minutes=5)) == timedelta(minutes=5)
    for bad in ("", "1x", "24", "h", True, -1, "367d", None):
        with pytest.raises(InvalidInput):
            parse_ttl(bad)  # type: ignore[arg-type]
