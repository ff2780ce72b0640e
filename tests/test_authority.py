"""Authority between actors: in a scope with grants one agent cannot silently undo another's work."""

from __future__ import annotations

import pytest

from ledger import Conflict, Ledger, PolicyViolation
from ledger.authority import may_change
from ledger.errors import InvalidInput


def _claim(ledger: Ledger, actor: str, value: str = "Lisbon"):  # type: ignore[no-untyped-def]
    page = ledger.add_source(text=f"The Zephyr Corporation is based in {value}, its filing says.")
    return ledger.assert_claim("Zephyr", "headquarters", value=value, evidence=ledger.cite(page, f"based in {value}"),
                               actor=actor)


def test_who_may_change_a_claim() -> None:
    assert may_change("b", "a", {})  # no grants: today's behaviour
    grants = {"rita": {"reviewer"}, "olga": {"owner"}}
    assert may_change("a", "a", grants) and may_change("rita", "a", grants) and may_change("olga", "a", grants)
    assert not may_change("b", "a", grants) and not may_change(None, None, grants)


def test_agent_b_retracting_agent_as_claim_in_a_protected_scope_waits_for_a_reviewer(ledger: Ledger) -> None:
    claim = _claim(ledger, "agent-a")
    ledger.grant("rita", "reviewer", granted_by="admin")
    after = ledger.retract(claim, reason="I think it moved", actor="agent-b")
    assert after.status == claim.status == "reported"  # the original keeps its status
    (waiting,) = ledger.challenges()
    assert (waiting.claim_id, waiting.status, waiting.actor, waiting.reason, waiting.outcome) == (
        claim.id, "retracted", "agent-b", "I think it moved", None)
    with pytest.raises(PolicyViolation, match="only an owner or reviewer"):
        ledger.resolve_challenge(waiting.id, accept=True, actor="agent-b")
    resolved = ledger.resolve_challenge(waiting.id, accept=True, actor="rita", reason="the registry agrees")
    assert (resolved.outcome, resolved.resolved_by) == ("accepted", "rita")
    retracted = ledger.claim(claim)
    assert retracted.status == "retracted" and retracted.actor == "rita"
    assert "accepted challenge" in (retracted.reason or "") and "agent-b" in (retracted.reason or "")
    with pytest.raises(Conflict, match="accepted already"):
        ledger.resolve_challenge(waiting.id, accept=False, actor="rita")


def test_a_rejected_challenge_changes_nothing_and_the_asserter_keeps_authority(ledger: Ledger) -> None:
    claim = _claim(ledger, "agent-a")
    newer = _claim(ledger, "agent-b", "Porto")  # a conflict: both disputed
    before = ledger.claim(claim).status
    ledger.grant("olga", "owner")
    ledger.supersede(claim, newer, reason="mine is newer", actor="agent-b")
    (waiting,) = ledger.challenges()
    assert waiting.status == "superseded" and waiting.superseded_by == newer.id
    assert ledger.resolve_challenge(waiting.id, accept=False, actor="olga").outcome == "rejected"
    assert ledger.claim(claim).status == before
    assert ledger.retract(claim, reason="my own mistake", actor="agent-a").status == "retracted"


def test_scopes_without_grants_keep_todays_behaviour(ledger: Ledger) -> None:
    claim = _claim(ledger, "agent-a")
    ledger.grant("rita", "reviewer", scope="other")
    assert ledger.retract(claim, reason="gone", actor="agent-b").status == "retracted"
    assert ledger.challenges() == []
    with pytest.raises(InvalidInput, match="role"):
        ledger.grant("rita", "admin")
