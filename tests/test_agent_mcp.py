"""The MCP server end to end: the SDK's own stdio client against `ledger mcp` on a real database."""

from __future__ import annotations

import json
import sys
from typing import Any

import anyio
import pytest

from ledger import Ledger
from tests.agent_scenario import record_bills

pytest.importorskip("mcp")


def _session_calls(db_url: str, scope: str, calls: list[tuple[str, dict[str, Any]]]) -> tuple[list[str], list[Any]]:
    """Start `python -m ledger mcp`, list its tools, make ``calls``; (tool names, each call's result)."""
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    server = StdioServerParameters(command=sys.executable, args=["-m", "ledger", "mcp", "--db", db_url,
                                                                 "--scope", scope, "--actor", "test-agent"])

    async def run() -> tuple[list[str], list[Any]]:
        async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            names = [tool.name for tool in (await session.list_tools()).tools]
            results = []
            for name, arguments in calls:
                result = await session.call_tool(name, arguments)
                reply = json.loads(result.content[0].text)
                assert result.is_error == (not reply["ok"])
                results.append(reply)
            return names, results

    return anyio.run(run)


def test_the_electricity_scenario_over_mcp(db_url: str, clock) -> None:  # type: ignore[no-untyped-def]
    clock.set("2026-08-10T09:00:00")
    with Ledger.open(db_url, clock=clock) as ledger:
        record_bills(ledger, scope="home", between=clock.tick)
    names, (now, april, shoes, typo, elsewhere) = _session_calls(db_url, "home", [
        ("recall", {"question": "how much do I pay for electricity?"}),
        # the server runs on the real clock: the year keeps "April" from meaning a later April
        ("recall", {"question": "how much did I pay in April 2026?"}),
        ("recall", {"question": "what is my shoe size?"}),
        ("remember", {"subject": "electricty bill", "predicate": "monthly amount", "value": "PLN 250",
                      "quote": "PLN 250", "source": {"text": "The bill says PLN 250."}}),
        ("history", {"subject": "nowhere", "predicate": "monthly amount"}),
    ])
    assert {"remember", "recall", "search", "suggest", "forget", "cite", "ingest", "history", "explain",
            "contradictions", "note"} <= set(names)
    item = now["result"]["packet"]["items"][0]
    assert item["value"] == "PLN 245" and "previously PLN 280" in item["validity"]
    assert "previously PLN 280" in now["result"]["prompt"]
    assert [i["value"] for i in april["result"]["packet"]["items"]] == ["PLN 280"]
    assert shoes["result"]["packet"]["found"] is False
    assert shoes["result"]["packet"]["nothing"].startswith("nothing recorded about 'shoe size'")
    assert typo["ok"] is False and typo["error"]["type"] == "UnknownName"
    assert "electricity bill" in json.dumps(typo["error"]["suggestions"])
    assert elsewhere["ok"] is True and elsewhere["result"] == []
    with Ledger.open(db_url) as ledger:
        assert ledger.resolve("electricty bill", scope="home") is None  # no near-duplicate was created
        logged = ledger.tool_events(scope="home")
        assert [e.tool for e in logged] == ["history", "remember", "recall", "recall", "recall"]
        assert logged[1].outcome == "UnknownName" and logged[1].actor == "test-agent"
        assert logged[-1].arguments == {"question": "how much do I pay for electricity?"}
        assert ledger.tool_events() == []  # the server's scope only


def test_a_bad_call_is_an_error_result_and_the_server_lives_on(db_url: str) -> None:
    Ledger.open(db_url).close()
    _, (unknown, malformed, missing, after) = _session_calls(db_url, "default", [
        ("fly", {}),
        ("recall", {"question": 42}),
        ("explain", {"claim_id": 999}),
        ("recall", {"question": "anything about ferries?"}),
    ])
    assert unknown["error"]["type"] == "InvalidInput" and "recall" in unknown["error"]["message"]
    assert malformed["error"]["type"] == "InvalidInput" and "question" in malformed["error"]["message"]
    assert missing["error"]["type"] == "NotFound" and missing["error"]["hint"]
    assert after["ok"] and after["result"]["packet"]["found"] is False
