"""The lifecycle rules beyond ``decide``, table-driven and without a database: promotion,
settlement, independent sources, functional clashes and what a retraction takes back."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from ledger.claims.intervals import hull
from ledger.claims.provenance import Stored, count_independent, document_keys, independent_sources, revision_identity
from ledger.claims.restore import Competitor, Linked, Restoration, State, restore
from ledger.claims.rules import Held, first_clash, promoted, settled_status
from ledger.records import Cause, ClaimId


def d(year: int) -> datetime:
    return datetime(year, 1, 1, tzinfo=UTC)


def span(start: int | None, end: int | None) -> tuple[datetime | None, datetime | None, str | None, str | None]:
    return (None if start is None else d(start), None if end is None else d(end),
            None if start is None else "year", None if end is None else "year")


@pytest.mark.parametrize(("status", "independent", "expected"), [
    ("reported", 1, "reported"), ("reported", 2, "confirmed"), ("disputed", 3, "disputed"),
    ("confirmed", 1, "confirmed"), ("superseded", 2, "superseded"),
])
def test_promotion_by_independent_sources(status: str, independent: int, expected: str) -> None:
    assert promoted(status, independent) == expected


@pytest.mark.parametrize(("history", "independent", "expected"), [
    ([], 1, "reported"), ([], 2, "confirmed"),
    ([Cause("confirmed")], 1, "confirmed"),
    ([Cause("confirmed"), Cause("disputed")], 1, "reported"),
    ([Cause("disputed"), Cause("confirmed"), Cause("corroborated", sources=1)], 1, "confirmed"),
    ([None, Cause("asserted")], 2, "confirmed"),
])
def test_a_settled_dispute_returns_to_what_the_claim_earned(
    history: list[Cause | None], independent: int, expected: str
) -> None:
    assert settled_status(history, independent) == expected


FACTS = {
    1: {"revision_of": None, "content_hash": "a", "publisher": "P", "text_hash": "t1"},
    2: {"revision_of": 1, "content_hash": "b", "publisher": "P", "text_hash": "t2"},   # a revision of 1
    3: {"revision_of": None, "content_hash": "a", "publisher": None, "text_hash": "t1"},  # 1's bytes elsewhere
    4: {"revision_of": None, "content_hash": "c", "publisher": "P", "text_hash": "t1"},  # 1's text, same publisher
    5: {"revision_of": None, "content_hash": "d", "publisher": "Q", "text_hash": "t1"},  # another publisher
}


@pytest.mark.parametrize(("sources", "expected"), [
    ([1], 1), ([1, 1], 1), ([1, 2], 1), ([1, 3], 1), ([1, 4], 1), ([1, 5], 2), ([1, 2, 3, 4, 5], 2),
    ([2, 3, 4, 5], 4), ([], 0),
])
def test_copies_of_one_source_count_once(sources: list[int], expected: int) -> None:
    assert independent_sources(sources, FACTS) == expected
    assert count_independent([document_keys(FACTS, s) for s in set(sources)]) >= independent_sources(sources, FACTS)


def held(claim: int, value: str, start: int | None, end: int | None, key: str = "k") -> Held:
    return Held(claim, (key,), (value,), None if start is None else d(start), None if end is None else d(end))


@pytest.mark.parametrize(("claims", "expected"), [
    ([held(1, "a", 2020, 2022), held(2, "b", 2022, None)], None),            # adjacent: no clash
    ([held(1, "a", 2020, 2023), held(2, "b", 2022, None)], (1, 2)),
    ([held(1, "a", None, None), held(2, "a", 2021, None)], None),            # the same value
    ([held(1, "a", 2020, None, "x"), held(2, "b", 2020, None, "y")], None),  # other qualifiers
    ([held(2, "b", 2021, None), held(1, "a", None, 2022)], (1, 2)),           # an open start sorts first
])
def test_functional_clashes(claims: list[Held], expected: tuple[int, int] | None) -> None:
    clash = first_clash(claims)
    assert (clash[:2] if clash else None) == expected


def linked(claim: int, *history: State, rival: bool = False, independent: int = 1, functional: bool = True,
           competitors: tuple[Competitor, ...] = (), **more: object) -> Linked:
    return Linked(claim_id=claim, history=history, independent=independent, rival=rival,
                  disputed_by_others=bool(more.get("disputed_by_others", False)),
                  resumes_at=more.get("resumes_at"), functional=functional, competitors=competitors,  # type: ignore[arg-type]
                  disputed_continuations=tuple(more.get("disputed_continuations", ())))  # type: ignore[arg-type]


R = 9  # the retracted claim
BY_R = Cause("restored-after", ClaimId(R))


def test_a_claim_the_retracted_one_closed_gets_its_interval_back() -> None:
    closed = linked(1, State("reported", span(2020, None), Cause("asserted")),
                    State("superseded", span(2020, 2024), Cause("closed-by", ClaimId(R))))
    assert restore(R, [], [closed]) == [Restoration(1, "reported", span(2020, None), BY_R)]


def test_what_changed_since_the_retraction_is_kept() -> None:
    # closed by R, then closed again by another claim: what R did is no longer what it has
    closed = linked(1, State("reported", span(2020, None)), State("superseded", span(2020, 2024), Cause("closed-by", ClaimId(R))),
                    State("superseded", span(2020, 2023), Cause("closed-by", ClaimId(5))))
    assert restore(R, [], [closed]) == []


def test_a_backfilled_claim_is_reopened_and_a_confirmed_one_stays_confirmed() -> None:
    backfilled = linked(1, State("reported", span(2020, 2024), Cause("asserted", effects=(("backfilled-before", ClaimId(R)),))))
    assert restore(R, [], [backfilled]) == [Restoration(1, "reported", span(2020, None), BY_R)]  # asserted open-ended
    superseded = linked(2, State("confirmed", span(2020, None), Cause("confirmed")),
                        State("superseded", span(2020, 2020), Cause("superseded-by", ClaimId(R))))
    assert restore(R, [], [superseded]) == [Restoration(2, "confirmed", span(2020, None), BY_R)]


def test_a_rival_is_settled_unless_someone_else_still_disputes_it() -> None:
    rival = State("disputed", span(2020, None), Cause("contradicted-by", ClaimId(R)))
    assert restore(R, [], [linked(1, State("reported", span(2020, None)), rival, rival=True, independent=2)]) == [
        Restoration(1, "confirmed", span(2020, None), BY_R)]
    assert restore(R, [], [linked(1, State("reported", span(2020, None)), rival, rival=True,
                                  disputed_by_others=True)]) == []
    explicitly = State("disputed", span(2020, None), Cause("disputed"))
    assert restore(R, [], [linked(1, explicitly, rival=True)]) == []


def test_continuations_are_retracted_with_it_and_settled_with_their_claim() -> None:
    rival = State("disputed", span(2020, None), Cause("contradicted-by", ClaimId(R)))
    plan = restore(R, [7, 3], [linked(1, State("reported", span(2020, None)), rival, rival=True,
                                      disputed_continuations=(4,))])
    assert plan == [Restoration(3, "retracted", None, Cause("retracted-with", ClaimId(R))),
                    Restoration(7, "retracted", None, Cause("retracted-with", ClaimId(R))),
                    Restoration(1, "reported", span(2020, None), BY_R), Restoration(4, "reported", None, BY_R)]


def test_an_interval_given_back_never_overlaps_a_value_asserted_since() -> None:
    history = (State("reported", span(2020, None)), State("superseded", span(2020, 2024), Cause("closed-by", ClaimId(R))))
    later = Competitor(5, disputed=False, same_qualifiers=True, same_value=False, valid_from=d(2026), valid_until=None,
                       valid_from_precision="year")
    assert restore(R, [], [linked(1, *history, competitors=(later,))]) == [
        Restoration(1, "superseded", span(2020, 2026), BY_R)]  # closed where the later value starts
    earlier = Competitor(5, disputed=False, same_qualifiers=True, same_value=False, valid_from=d(2019),
                         valid_until=None, valid_from_precision="year")
    assert restore(R, [], [linked(1, *history, competitors=(earlier,))]) == []  # it holds from the start already
    assert restore(R, [], [linked(1, *history, competitors=(earlier,), functional=False)]) == [
        Restoration(1, "reported", span(2020, None), BY_R)]


def stored(source_id: int, content: str, uri: str | None, seen: int) -> Stored:
    return Stored(source_id, content, uri, d(seen))


U = "https://port.example/notice"


@pytest.mark.parametrize(("found", "content", "uri", "retrieved", "expected"), [
    ([], "a", U, None, (None, None)),                                               # a new document
    ([stored(3, "a", "other", 2020), stored(5, "a", None, 2021)], "a", U, None, (3, None)),  # bytes stored before
    ([stored(4, "a", U, 2020)], "a", U, None, (4, None)),                           # the newest revision again
    ([stored(4, "a", U, 2020)], "b", U, None, (None, 4)),                           # a new revision
    ([stored(4, "a", U, 2020), stored(6, "b", U, 2022)], "a", U, d(2023), (None, 6)),  # A, B, then A again
    ([stored(4, "a", U, 2020), stored(6, "b", U, 2022)], "a", U, d(2021), (4, None)),  # an older copy of A
    ([stored(4, "a", U, 2020), stored(6, "b", U, 2022)], "a", U, None, (None, 6)),   # undated: as new
    ([stored(2, "c", "elsewhere", 2019), stored(6, "b", U, 2022)], "c", U, None, (None, 6)),  # another uri's bytes
])
def test_revision_identity(found: list[Stored], content: str, uri: str | None, retrieved: datetime | None,
                           expected: tuple[int | None, int | None]) -> None:
    assert revision_identity(found, content_hash=content, uri=uri, retrieved_at=retrieved) == expected


def test_hull_keeps_the_finer_precision_of_one_instant_given_twice() -> None:
    assert hull((d(2000), None, "year", None), (d(2000), d(2004), "day", "day")) == (d(2000), None, "day", None)
