"""The agent interface: recall packets, run-scoped working memory, tool schemas with a dispatcher
that logs every call, and an MCP server (docs/agents.md).

``import ledger.agent`` stays light; the MCP SDK loads only when the server starts.
"""

from ledger.agent.records import (
    NoteReceipt,
    Packet,
    PacketCitation,
    PacketItem,
    RecallWeights,
    ToolEvent,
    WorkingNote,
)
from ledger.agent.tokens import estimate_tokens
from ledger.agent.mcp_server import build_server, serve
from ledger.agent.tools import call_tool, tool_schemas

__all__ = [
    "NoteReceipt",
    "Packet",
    "PacketCitation",
    "PacketItem",
    "RecallWeights",
    "ToolEvent",
    "WorkingNote",
    "build_server",
    "call_tool",
    "estimate_tokens",
    "serve",
    "tool_schemas",
]
