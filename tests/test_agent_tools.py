"""The tools: schemas, argument checks, every call logged, structured errors, one scope per caller."""

from __future__ import annotations

import json

from ledger import Ledger
from ledger.agent import call_tool, tool_schemas
from tests.agent_scenario import MARCH_BILL, record_bills

TOOL_NAMES = {"remember", "recall", "search", "suggest", "forget", "cite", "ingest", "history", "explain",
              "contradictions", "note", "promote"}


def test_the_schemas_are_json_schema_function_definitions() -> None:
    schemas = tool_schemas()
    assert {s["name"] for s in schemas} == TOOL_NAMES
    for schema in schemas:
        assert schema["description"] and schema["parameters"]["type"] == "object"
        assert set(schema["parameters"].get("required", ())) <= set(schema["parameters"]["properties"])
        assert "scope" not in schema["parameters"]["properties"]  # the caller's scope is fixed by the server
    json.dumps(schemas)
    schemas[0]["name"] = "changed"
    assert tool_schemas()[0]["name"] == "remember"  # a copy each time


def test_remember_then_recall(ledger: Ledger) -> None:
    stored = call_tool(ledger, "remember", {
        "subject": "electricity bill", "predicate": "monthly amount", "value": "PLN 280", "valid_from": "2026-03-01",
        "quote": "you pay PLN 280 per month", "source": {"text": MARCH_BILL, "title": "March bill"},
        "create_entities": True}, actor="agent:x")
    assert stored["ok"], stored
    claim = stored["result"]["claim"]
    assert claim["value"] == "PLN 280" and claim["actor"] == "agent:x" and stored["result"]["cause"] == "asserted"
    again = call_tool(ledger, "remember", {
        "subject": "Electricity Bill", "predicate": "monthly amount", "value": "PLN 280",
        "quote": "PLN 280", "source": {"source_id": stored["result"]["source_id"]}})
    assert again["ok"] and again["result"]["claim"]["id"] == claim["id"]  # a known name needs no creating
    recalled = call_tool(ledger, "recall", {"question": "electricity bill amount", "valid_at": "2026-04-01"})
    assert recalled["result"]["packet"]["items"][0]["value"] == "PLN 280"


def test_a_typo_gives_a_suggestion_never_a_new_entity(ledger: Ledger, clock) -> None:  # type: ignore[no-untyped-def]
    record_bills(ledger, between=clock.tick)
    entities_before = ledger.search("bill", kinds=["entity"])
    reply = call_tool(ledger, "remember", {
        "subject": "electricty bil", "predicate": "monthly amount", "value": "PLN 250", "quote": "PLN 250",
        "source": {"text": "Bill: PLN 250."}})
    assert reply["ok"] is False and reply["error"]["type"] == "UnknownName"
    assert any(s["name"] == "electricity bill" for s in reply["error"]["suggestions"])
    assert "create_entities" in reply["error"]["message"] or reply["error"]["hint"]
    assert ledger.resolve("electricty bil") is None
    assert ledger.search("bill", kinds=["entity"]) == entities_before
    suggested = call_tool(ledger, "suggest", {"name": "electricty bil"})
    assert suggested["result"][0]["name"] == "electricity bill"
    recalled = call_tool(ledger, "recall", {"question": "electricty bil?"})["result"]["packet"]
    assert recalled["found"] is False and "electricity bill" in recalled["suggestions"]
    assert "did you mean 'electricity bill'" in recalled["nothing"]


def test_forget_closes_validity_and_keeps_history(ledger: Ledger, clock) -> None:  # type: ignore[no-untyped-def]
    clock.set("2026-08-10T09:00:00")
    _, july = record_bills(ledger, between=clock.tick)
    clock.tick()
    reply = call_tool(ledger, "forget", {"claim_id": july, "reason": "moved out", "at": "2026-09-01"})
    assert reply["ok"], reply
    assert reply["result"]["valid_until"].startswith("2026-09-01") and reply["result"]["reason"] == "moved out"
    assert reply["result"]["cause"]["kind"] == "ended"
    assert ledger.claims("electricity bill", "monthly amount", valid_at="2026-10-01") == []
    assert ledger.claims("electricity bill", "monthly amount", valid_at="2026-08-01")[0].value == "PLN 245"
    assert len(ledger.history("electricity bill", "monthly amount")) >= 3
    twice = call_tool(ledger, "forget", {"claim_id": july, "reason": "again", "at": "2026-10-01"})
    assert twice["error"]["type"] == "Conflict"


def test_every_call_is_logged_with_its_outcome(ledger: Ledger) -> None:
    call_tool(ledger, "recall", {"question": "ferries?"}, actor="agent:x")
    call_tool(ledger, "recall", {"question": "ferries?", "budget": 3}, actor="agent:x")
    call_tool(ledger, "nope", {"a": 1})
    events = ledger.tool_events()
    assert [(e.tool, e.outcome) for e in events] == [("nope", "InvalidInput"), ("recall", "InvalidInput"),
                                                      ("recall", "ok")]
    assert events[1].arguments == {"question": "ferries?", "budget": 3} and events[1].actor == "agent:x"
    assert "takes no budget" in (events[1].detail or "")


def test_errors_are_results_with_a_hint(ledger: Ledger) -> None:
    for name, arguments, kind in [
        ("explain", {"claim_id": 5}, "NotFound"),
        ("cite", {"source_id": 1, "quote": "x"}, "NotFound"),
        ("remember", {"subject": "a", "predicate": "b", "quote": "q", "source": {}}, "InvalidInput"),
        ("remember", {"subject": "a", "predicate": "b", "value": 1, "object": "c", "quote": "q",
                      "source": {"text": "q"}}, "InvalidInput"),
        ("ingest", {}, "InvalidInput"),
        ("recall", "not an object", "InvalidInput"),
        ("forget", {"claim_id": True, "reason": "x"}, "InvalidInput"),
    ]:
        reply = call_tool(ledger, name, arguments)  # type: ignore[arg-type]
        assert reply["ok"] is False and reply["error"]["type"] == kind, (name, reply)
        assert reply["error"]["hint"] and reply["error"]["message"]


def test_notes_and_promotion_through_the_tools(ledger: Ledger) -> None:
    noted = call_tool(ledger, "note", {"run_id": "r1", "text": "User said the ferry leaves at 9:30.",
                                       "ttl": "2h"})["result"]
    assert noted["turn"] == 1
    assert call_tool(ledger, "recall", {"question": "ferry", "run_id": "r1"})["result"]["packet"]["notes"]
    assert not call_tool(ledger, "recall", {"question": "ferry", "run_id": "r2"})["result"]["packet"]["notes"]
    arguments = {"run_id": "r1", "note_id": noted["id"], "subject": "ferry", "predicate": "departure",
                 "value": "9:30", "quote": "leaves at 9:30"}
    assert call_tool(ledger, "promote", arguments)["error"]["type"] == "UnknownName"  # no entity "ferry" yet
    promoted = call_tool(ledger, "promote", {**arguments, "create_entities": True})
    assert promoted["ok"], promoted
    assert ledger.claims("ferry", "departure")[0].value == "9:30"


def test_contradictions_ingest_search_and_history(ledger: Ledger) -> None:
    for time, title in (("9:00", "A"), ("9:30", "B")):
        call_tool(ledger, "remember", {"subject": "ferry", "predicate": "departure", "value": time, "quote": time,
                                       "source": {"text": f"The ferry leaves at {time}.", "title": title},
                                       "create_entities": True})
    found = call_tool(ledger, "contradictions", {})["result"]
    [conflict] = found  # one contradiction, both sides named, each with its quote and source
    assert conflict["kind"] == "functional-overlap" and conflict["id"].startswith("overlap:")
    assert sorted(side["claim"]["value"] for side in conflict["sides"]) == ["9:00", "9:30"]
    assert sorted(side["evidence"][0]["title"] for side in conflict["sides"]) == ["A", "B"]
    ingested = call_tool(ledger, "ingest", {"text": "Ferries stop in winter.", "title": "Notice"})["result"]
    assert ingested["title"] == "Notice" and "text" not in ingested
    assert call_tool(ledger, "search", {"text": "winter"})["result"][0]["source_id"] == ingested["id"]
    assert len(call_tool(ledger, "history", {"subject": "ferry", "predicate": "departure"})["result"]) >= 2
    cited = call_tool(ledger, "cite", {"source_id": ingested["id"], "quote": "stop in winter"})["result"]
    assert cited["excerpt"] == "stop in winter"


def test_tools_never_cross_scopes(ledger: Ledger, clock) -> None:  # type: ignore[no-untyped-def]
    first, _ = record_bills(ledger, scope="home", between=clock.tick)
    before = ledger.claim(first)
    for name, arguments in [("explain", {"claim_id": first}), ("forget", {"claim_id": first, "reason": "x"}),
                            ("cite", {"source_id": 1, "quote": "PLN 280"})]:
        reply = call_tool(ledger, name, arguments, scope="office")
        assert reply["error"]["type"] == "NotFound", (name, reply)
    assert call_tool(ledger, "search", {"text": "electricity"}, scope="office")["result"] == []
    assert call_tool(ledger, "suggest", {"name": "electricity bill"}, scope="office")["result"] == []
    assert call_tool(ledger, "history", {"subject": "electricity bill", "predicate": "monthly amount"},
                     scope="office")["result"] == []
    assert not call_tool(ledger, "recall", {"question": "electricity"}, scope="office")["result"]["packet"]["found"]
    assert call_tool(ledger, "contradictions", {}, scope="office")["result"] == []
    assert ledger.claim(first) == before  # the refused forget changed nothing
    assert call_tool(ledger, "explain", {"claim_id": first}, scope="home")["ok"]


def test_ledger_recall_on_the_command_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from typer.testing import CliRunner

    from ledger.cli import app

    db = str(tmp_path / "cli.db")
    runner = CliRunner()
    assert runner.invoke(app, ["demo", "--db", db]).exit_code == 0
    shown = runner.invoke(app, ["recall", "how much do I pay for electricity?", "--db", db])
    assert shown.exit_code == 0 and "PLN 245 since 2026-07-01; previously PLN 280" in shown.stdout
    as_json = runner.invoke(app, ["recall", "electricity in April 2026", "--json", "--db", db])
    assert [i["value"] for i in json.loads(as_json.stdout)["items"]] == ["PLN 280"]
    missing = runner.invoke(app, ["recall", "shoe size", "--db", str(tmp_path / "none.db")])
    assert missing.exit_code == 2  # no such ledger: refused, not created
