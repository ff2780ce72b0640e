"""The MCP server: ledger's tools over stdio, on the official ``mcp`` SDK (low-level ``Server``).

``ledger mcp --db PATH --scope S`` runs it. Every tool call goes through ``call_tool`` (checked,
run in the server's scope, logged); a failed call comes back as a result with ``isError`` set
and the structured error, never as a dead server. The SDK loads only here.
"""

from __future__ import annotations

import json
import os
from typing import Any

from ledger.agent.schemas import tool_schemas
from ledger.agent.tools import call_tool
from ledger.errors import LedgerError

SERVER_NAME = "ledger"
INSTRUCTIONS = ("A ledger of source-backed, bi-temporal claims. Use recall before answering from memory, "
                "remember (with an exact quote) to record facts, note for this run's working memory. "
                "Where the conversation and the ledger disagree, the conversation wins.")


NO_SDK = "the MCP server needs the mcp package: pip install 'ledger[mcp]'"


def build_server(ledger: Any, *, scope: str = "default", actor: str | None = None) -> Any:
    """An ``mcp.server.lowlevel.Server`` whose tools run on ``ledger`` in ``scope``."""
    try:
        import mcp.types as types
        from mcp.server.lowlevel import Server
    except ImportError as error:
        raise LedgerError(NO_SDK) from error

    tools = [types.Tool(name=t["name"], description=t["description"], input_schema=t["parameters"])
             for t in tool_schemas()]

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=tools)

    async def run_tool(ctx: Any, params: Any) -> Any:
        reply = call_tool(ledger, params.name, params.arguments or {}, actor=actor, scope=scope)
        text = json.dumps(reply, ensure_ascii=False)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], structured_content=reply,
                                    is_error=not reply["ok"])

    return Server(SERVER_NAME, version=_version(), instructions=INSTRUCTIONS, on_list_tools=list_tools,
                  on_call_tool=run_tool)


def serve(url_or_path: str | os.PathLike[str] | None, *, scope: str = "default", actor: str | None = None) -> None:
    """Serve the ledger at ``url_or_path`` over stdio until the client disconnects."""
    try:
        import anyio
        from mcp.server.stdio import stdio_server
    except ImportError as error:
        raise LedgerError(NO_SDK) from error
    from ledger.api import Ledger

    with Ledger.open(url_or_path) as ledger:
        server = build_server(ledger, scope=scope, actor=actor)

        async def run() -> None:
            async with stdio_server() as (read_stream, write_stream):
                await server.run(read_stream, write_stream, server.create_initialization_options())

        anyio.run(run)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ledger")
    except PackageNotFoundError:
        return "0"
