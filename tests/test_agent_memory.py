"""Working memory: notes of one run, recalled by that run only, gone after their TTL, promoted by hand."""

from __future__ import annotations

import pytest

from ledger import InvalidInput, Ledger, NotFound


def test_notes_belong_to_their_run_only(ledger: Ledger) -> None:
    with ledger.session("run-a", ttl="24h", actor="agent:a") as a, ledger.session("run-b") as b:
        receipt = a.note("The user is planning a move to Gdańsk in spring.")
        b.note("Looking up ferry timetables.")
        assert receipt.turn == 1 and receipt.run_id == "run-a" and receipt.id > 0
        assert receipt.expires_at - receipt.recorded_at == __import__("datetime").timedelta(hours=24)
        mine = a.recall("where is the user moving?")
        assert [n.text for n in mine.notes] == ["The user is planning a move to Gdańsk in spring."]
        assert "Working notes of this run (run-a)" in mine.to_prompt()
        theirs = b.recall("where is the user moving?")
        assert all("Gdańsk" not in n.text for n in theirs.notes)
        assert not ledger.recall("where is the user moving?").found  # no run: durable claims only
    assert ledger.claims() == [] and ledger.search("Gdańsk") == []  # durable reads never see notes
    assert [n.text for n in ledger.notes("run-a")] == ["The user is planning a move to Gdańsk in spring."]
    assert ledger.notes("run-a", scope="elsewhere") == []


def test_notes_expire_after_their_ttl(ledger: Ledger, clock) -> None:  # type: ignore[no-untyped-def]
    with ledger.session("run-a", ttl="30m") as run:
        run.note("Draft answer: ask about the deposit.")
        clock.tick(minutes=29)
        assert len(run.notes()) == 1
        clock.tick(minutes=2)
        assert run.notes() == [] and not run.recall("deposit").found
        run.note("A later note purges the expired one.", ttl="1h")
    from tests.conftest import table_dump
    notes = table_dump(ledger.url.replace("sqlite:///", "")) if ledger.url.startswith("sqlite") else None
    if notes is not None:
        assert [row[4] for row in notes["working_notes"]] == ["A later note purges the expired one."]


def test_the_whole_working_memory_comes_back_when_it_fits(ledger: Ledger) -> None:
    with ledger.session("run-a") as run:
        for city in ("Gdańsk", "Sopot", "Gdynia", "Hel", "Puck"):
            run.note(f"Checked the {city} archive for the harbour records.")
        assert len(run.recall("anything unrelated to the notes", budget_tokens=600).notes) == 5
        squeezed = run.recall("what did the Gdynia archive hold?", budget_tokens=150)
        assert 0 < len(squeezed.notes) < 5 and squeezed.tokens <= 150
        assert "Gdynia" in squeezed.notes[0].text


def test_promote_makes_a_claim_backed_by_the_conversation_turn(ledger: Ledger) -> None:
    with ledger.session("run-a", actor="agent:a") as run:
        run.note("Opened the task.")
        said = run.note("The user said: my shoe size is 43.")
        claim = run.promote(said, "me", "shoe size", value=43, quote="my shoe size is 43")
    assert claim.value == 43 and claim.actor == "agent:a"
    trail = ledger.explain(claim).evidence[0]
    assert trail.source.kind == "conversation" and trail.source.uri == "conversation:run-a#turn=2"
    assert trail.evidence.excerpt == "my shoe size is 43"
    assert trail.evidence.locator["turn"] == 2 and trail.evidence.locator["run_id"] == "run-a"
    assert ledger.recall("what is my shoe size?").items[0].value == "43"


def test_nothing_is_promoted_by_itself_and_other_runs_cannot_promote(ledger: Ledger) -> None:
    receipt = ledger.note("run-a", "The user's budget is 3000 PLN.")
    assert ledger.claims() == []
    with pytest.raises(NotFound):
        ledger.promote_note(receipt, "user", "budget", value="3000 PLN", run_id="run-b")
    with pytest.raises(NotFound):
        ledger.promote_note(receipt, "user", "budget", value="3000 PLN", scope="other")


def test_bad_arguments_are_refused(ledger: Ledger) -> None:
    for ttl in ("", "forever", 0, "400d", -5):
        with pytest.raises(InvalidInput):
            ledger.session("run-a", ttl=ttl)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        ledger.session("")
    with pytest.raises(InvalidInput):
        ledger.note("run-a", "   ")
