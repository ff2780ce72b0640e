"""The audit questions: named queries of queries/ run by name with checked parameters.

Each question is one SQL file (its header documents its parameters and columns); this module
knows which parameters each takes, fills in the scope and "now", and decodes values.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Literal, cast

from sqlalchemy import Connection

from ledger import queries
from ledger.claims.values import decode_value
from ledger.errors import InvalidInput
from ledger.timeline import TimeInput

ParamKind = Literal["time", "int"]

#: question → its parameters besides the scope (times default to now).
QUESTIONS: dict[str, dict[str, ParamKind]] = {
    "current_claims": {"now": "time"},
    "claims_as_of": {"valid_at": "time", "known_at": "time"},
    "audit_view": {},
    "believed_as_of": {"known_at": "time"},
    "active_claims": {"at": "time"},
    "relationships_during": {"start": "time", "end": "time", "known_at": "time"},
    "changed_after_source": {"source_id": "int"},
}
_REQUIRED = {("relationships_during", "start"), ("relationships_during", "end"), ("changed_after_source", "source_id")}


def check(question: str, given: Mapping[str, object], now: datetime) -> dict[str, Any]:
    """The parameters of ``question`` from ``given`` (times parsed, missing ones now), or InvalidInput."""
    from ledger.validate import check_id, moment

    if question not in QUESTIONS:
        raise InvalidInput(f"unknown question {question!r}; the questions are {', '.join(sorted(QUESTIONS))}")
    wanted = QUESTIONS[question]
    unknown = sorted(set(given) - set(wanted))
    if unknown:
        raise InvalidInput(f"{question} takes {', '.join(sorted(wanted)) or 'no parameters'} besides scope; "
                           f"not {', '.join(unknown)}")
    params: dict[str, Any] = {}
    for name, kind in wanted.items():
        value = given.get(name)
        if value is None and (question, name) in _REQUIRED:
            raise InvalidInput(f"{question} needs {name}=")
        if kind == "int":
            params[name] = check_id(value, what=name)
        else:
            params[name] = moment(cast(TimeInput, value), name) if value is not None else now
    if question == "relationships_during" and params["end"] <= params["start"]:
        raise InvalidInput("relationships_during needs start < end (a closed-open interval)")
    return params


def ask(connection: Connection, question: str, scope: str, params: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The rows of a question's named query, values and qualifiers decoded."""
    rows = queries.run(connection, question, scope=scope, **params).mappings()
    answer = []
    for row in rows:
        item = dict(row)
        item["value"] = decode_value(item["value"], item["datatype"])
        item["qualifiers"] = json.loads(item["qualifiers"]) if item["qualifiers"] else {}
        answer.append(item)
    return answer
