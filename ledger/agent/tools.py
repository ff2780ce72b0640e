"""The tools agents call (``tool_schemas``) and the dispatcher that runs them (``call_tool``).

``call_tool`` checks the arguments against the tool's schema, runs the call in the caller's
scope (a tool never names a scope: nothing crosses one), records it in the event log, and
returns a structured result: ``{"ok": true, "result": ...}`` or ``{"ok": false, "error":
{"type", "message", "hint", "suggestions"}}``. It never raises.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ledger.agent.handlers import HANDLERS as _HANDLERS
from ledger.agent.records import jsonable
from ledger.agent.schemas import TOOLS, tool_schemas
from ledger.errors import InvalidInput, LedgerError

if TYPE_CHECKING:
    from ledger.api import Ledger

__all__ = ["call_tool", "tool_schemas"]

_LOG = logging.getLogger(__name__)
_SCHEMAS = {tool["name"]: tool["parameters"] for tool in TOOLS}
_TYPES: dict[str, tuple[type, ...]] = {"string": (str,), "integer": (int,), "number": (int, float),
                                       "boolean": (bool,), "object": (dict,), "array": (list,)}
_HINTS = {
    "NotFound": "check the id or name (suggest and search find names); ids are only valid in this scope",
    "QuoteNotFound": "quote the source word for word (cite shows what it holds), or give its text as the source",
    "InvalidInput": "fix the argument the message names and call again",
    "Conflict": "the ledger holds something this call contradicts: read it (history, explain) before changing it",
    "ClockError": "the ledger's clock is behind its last write; try again",
    "StoreError": "the database failed; nothing was written; try again later",
}


def call_tool(ledger: Ledger, name: str, arguments: Mapping[str, Any] | None, *, actor: str | None = None,
              scope: str = "default") -> dict[str, Any]:
    """Run tool ``name`` with ``arguments`` in ``scope``; a structured result, errors included (never raises)."""
    given: dict[str, Any] = dict(arguments) if isinstance(arguments, Mapping) else {}
    try:
        if arguments is not None and not isinstance(arguments, Mapping):
            raise InvalidInput(f"arguments must be a JSON object, not {type(arguments).__name__}")
        handler = _HANDLERS.get(name)
        if handler is None:
            raise InvalidInput(f"there is no tool {name!r}; the tools are: {', '.join(sorted(_HANDLERS))}")
        check_arguments(name, given)
        result = jsonable(handler(ledger, given, scope, actor))
        reply: dict[str, Any] = {"ok": True, "result": result}
        outcome, detail = "ok", _summary(result)
    except LedgerError as error:
        reply = _error(type(error).__name__, str(error), getattr(error, "suggestions", ()))
        outcome, detail = type(error).__name__, str(error)
    except Exception as error:  # a tool never takes the server down: report the failure as a result
        _LOG.exception("tool %s failed", name)
        reply = _error("InternalError", f"{type(error).__name__}: {error}", ())
        outcome, detail = "InternalError", reply["error"]["message"]
    try:
        event = ledger.log_tool_call(str(name), given, outcome=outcome, detail=detail, actor=actor, scope=scope)
        reply["event_id"] = event.id
    except Exception as error:  # the call's own result still goes back
        _LOG.warning("tool call %s not logged: %s", name, error)
    return reply


def check_arguments(name: str, arguments: Mapping[str, Any]) -> None:
    """InvalidInput unless ``arguments`` fit the tool's schema (types, required, known names, enums, ranges)."""
    _check_object(_SCHEMAS[name], arguments, where=name)


def _check_object(schema: Mapping[str, Any], value: Mapping[str, Any], *, where: str) -> None:
    properties = schema.get("properties", {})
    missing = [key for key in schema.get("required", ()) if key not in value or value[key] is None]
    if missing:
        raise InvalidInput(f"{where} needs {', '.join(missing)}")
    unknown = sorted(set(value) - set(properties)) if schema.get("additionalProperties") is False else []
    if unknown:
        raise InvalidInput(f"{where} takes no {', '.join(unknown)}; it takes {', '.join(properties)}")
    for key, item in value.items():
        if item is not None and key in properties:
            _check_value(properties[key], item, where=f"{where}.{key}")


def _check_value(schema: Mapping[str, Any], value: Any, *, where: str) -> None:
    kinds = schema.get("type")
    if kinds is not None:
        names = [kinds] if isinstance(kinds, str) else list(kinds)
        fits = any(isinstance(value, _TYPES[n]) and not (n in ("integer", "number") and isinstance(value, bool))
                   for n in names)
        if not fits:
            raise InvalidInput(f"{where} must be {' or '.join(names)}, not {type(value).__name__}")
    if "enum" in schema and value not in schema["enum"]:
        raise InvalidInput(f"{where} must be one of {schema['enum']}; got {value!r}")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"] or "maximum" in schema and value > schema["maximum"]:
            raise InvalidInput(f"{where} must be from {schema.get('minimum')} to {schema.get('maximum')}; got {value}")
    if isinstance(value, str) and len(value) < schema.get("minLength", 0):
        raise InvalidInput(f"{where} must not be empty")
    if isinstance(value, dict) and "properties" in schema:
        _check_object(schema, value, where=where)
    if isinstance(value, list) and "items" in schema:
        for index, item in enumerate(value):
            _check_value(schema["items"], item, where=f"{where}[{index}]")


def _error(kind: str, message: str, suggestions: Any) -> dict[str, Any]:
    return {"ok": False, "error": {"type": kind, "message": message,
                                   "hint": _HINTS.get(kind, "see the message"),
                                   "suggestions": jsonable(list(suggestions or ()))}}


def _summary(result: Any) -> str:
    text = json.dumps(result, ensure_ascii=False, default=str)
    return text if len(text) <= 300 else text[:299] + "\u2026"
