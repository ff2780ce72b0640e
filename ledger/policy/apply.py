"""The write policy on the write paths: claims (``claims.write.write_claims``), sources
(``sources.store_draft``) and entity names and aliases (``naming``). Loads the scope's settings,
lets :func:`ledger.policy.decide.screen` decide, logs what it decided, and raises PolicyViolation
on a refusal (``facets.base.Facet._write`` logs refusals in a transaction of their own, since the
refused write's transaction is rolled back).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection

from ledger.claims.draft import ClaimDraft
from ledger.claims.values import MAX_QUALIFIER_DEPTH
from ledger.errors import PolicyViolation
from ledger.ingest.base import SourceDraft
from ledger.policy.config import LEDGER_WIDE, PolicyConfig, effective
from ledger.policy.decide import (
    QUARANTINE_CONFIDENCE,
    PolicyDecision,
    Screened,
    low_confidence,
    refusal_message,
    screen,
    untrusted_actor,
)
from ledger.store import Ids
from ledger.store.policy_rows import insert_decisions, policy_layers


class Policies:
    """The effective settings of the scopes one write touches, loaded in one query."""

    def __init__(self, connection: Connection, scopes: Iterable[str]) -> None:
        wanted = set(scopes)
        self._layers = policy_layers(connection, wanted | {LEDGER_WIDE} | {s for s in wanted})
        self._configs: dict[str, PolicyConfig] = {}

    def config(self, scope: str) -> PolicyConfig:
        """The settings that hold in ``scope``."""
        if scope not in self._configs:
            self._configs[scope] = effective(scope, self._layers)
        return self._configs[scope]


class Log:
    """The decisions of one write, logged with it (refusals raise with them instead)."""

    def __init__(self) -> None:
        self.decisions: list[PolicyDecision] = []

    def take(self, screened: Screened) -> str:
        """Keep ``screened``'s decisions; raise PolicyViolation if it refuses. Returns its text."""
        if screened.decisions:
            self.decisions.extend(screened.decisions)
            if (refusal := screened.refusal) is not None:
                self.refuse(refusal)
        return screened.text

    def refuse(self, refusal: PolicyDecision) -> None:
        """Raise the PolicyViolation for ``refusal`` (carrying every decision so far, to be logged)."""
        if refusal not in self.decisions:
            self.decisions.append(refusal)
        raise PolicyViolation(refusal_message(refusal), rule=refusal.rule, field=refusal.field, span=refusal.span,
                              decisions=tuple(self.decisions))

    def write(self, connection: Connection, ids: Ids, now: datetime) -> None:
        """Log the decisions taken (flags and redactions; "allow" is never logged)."""
        log_decisions(connection, ids, self.decisions, now)


def log_decisions(connection: Connection, ids: Ids, decisions: Sequence[PolicyDecision], now: datetime) -> None:
    """Insert ``decisions`` into the decision log."""
    insert_decisions(connection, ids, [
        {"scope": d.scope, "field": d.field, "rule": d.rule, "action": d.action, "span_start": d.span[0],
         "span_end": d.span[1], "actor": d.actor} for d in decisions], now)


def screen_text(text: str, *, field: str, scope: str, policies: Policies, log: Log, actor: str | None) -> str:
    """``text`` after the policy of ``scope`` (redacted if so configured); PolicyViolation on a refusal."""
    return log.take(screen(text, field=field, scope=scope, config=policies.config(scope), actor=actor))


def screen_value(value: Any, *, field: str, scope: str, policies: Policies, log: Log, actor: str | None,
                 depth: int = 0) -> Any:
    """A claim value or qualifier map after the policy: every string in it screened (past the nesting
    the claim's own checks allow, values are left for them to refuse)."""
    if depth > MAX_QUALIFIER_DEPTH + 1:
        return value
    if isinstance(value, str):
        return screen_text(value, field=field, scope=scope, policies=policies, log=log, actor=actor)
    if isinstance(value, Mapping):
        return {key: screen_value(item, field=f"{field}.{key}" if isinstance(key, str) else field, scope=scope,
                                  policies=policies, log=log, actor=actor, depth=depth + 1) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(screen_value(item, field=field, scope=scope, policies=policies, log=log, actor=actor,
                                        depth=depth + 1) for item in value)
    return value


def check_confidence(confidence: object, *, scope: str, policies: Policies, log: Log, actor: str | None) -> None:
    """PolicyViolation when an asserted confidence is below the scope's minimum."""
    if isinstance(confidence, (int, float)) and not isinstance(confidence, bool):
        refusal = low_confidence(float(confidence), field="claim.confidence", scope=scope,
                                 config=policies.config(scope), actor=actor)
        if refusal is not None:
            log.refuse(refusal)


def screen_claims(connection: Connection, drafts: Sequence[ClaimDraft], *, now: datetime,
                  ids: Ids) -> Sequence[ClaimDraft]:
    """The drafts after the policy of their scopes: values, qualifiers and new entity names screened,
    confidence checked; redacted drafts replaced, decisions logged; PolicyViolation on a refusal."""
    policies = Policies(connection, {d.scope for d in drafts if isinstance(d.scope, str)})
    log = Log()
    screened: list[ClaimDraft] | None = None
    for index, draft in enumerate(drafts):
        scope, actor = draft.scope if isinstance(draft.scope, str) else "default", draft.actor
        check_confidence(draft.confidence, scope=scope, policies=policies, log=log, actor=actor)
        if (refusal := untrusted_actor(actor, field="claim", scope=scope, config=policies.config(scope))) is not None:
            log.refuse(refusal)
        changes: dict[str, Any] = {}
        if scope.startswith("quarantine:") and isinstance(draft.confidence, (int, float)) \
                and not isinstance(draft.confidence, bool) and QUARANTINE_CONFIDENCE < draft.confidence <= 1:
            changes["confidence"] = QUARANTINE_CONFIDENCE  # low confidence in quarantine, whatever was asked
        for name, field in (("value", "claim.value"), ("qualifiers", "claim.qualifiers"),
                            ("subject", "entity.name"), ("object", "entity.name")):
            given = getattr(draft, name)
            if isinstance(given, (str, Mapping)):
                after = screen_value(given, field=field, scope=scope, policies=policies, log=log, actor=actor)
                if after != given:
                    changes[name] = after
        if changes:
            screened = list(drafts) if screened is None else screened
            screened[index] = draft._replace(**changes)
    log.write(connection, ids, now)
    return drafts if screened is None else screened


def screen_names(connection: Connection, names: Sequence[str], *, scope: str, now: datetime, ids: Ids,
                 field: str = "entity.name", actor: str | None = None) -> list[str]:
    """Entity names or aliases after the policy of ``scope`` (redacted if so configured)."""
    policies, log = Policies(connection, [scope]), Log()
    screened = [screen_text(name, field=field, scope=scope, policies=policies, log=log, actor=actor) for name in names]
    log.write(connection, ids, now)
    return screened


def screen_source(connection: Connection, draft: SourceDraft, *, scope: str, now: datetime, ids: Ids,
                  actor: str | None) -> SourceDraft:
    """A source draft after the policy of ``scope``: its text (masked in place if redacted, so the
    passages' offsets hold), uri and title screened; PolicyViolation on a refusal."""
    policies, log = Policies(connection, [scope]), Log()
    if (refusal := untrusted_actor(actor, field="source", scope=scope, config=policies.config(scope))) is not None:
        log.refuse(refusal)
    text = screen_text(draft.text, field="source.text", scope=scope, policies=policies, log=log, actor=actor)
    changes: dict[str, Any] = {} if text == draft.text else {"text": text}
    for name in ("uri", "title"):
        given = getattr(draft, name)
        if isinstance(given, str):
            after = screen_text(given, field=f"source.{name}", scope=scope, policies=policies, log=log, actor=actor)
            if after != given:
                changes[name] = after
    log.write(connection, ids, now)
    return dataclasses.replace(draft, **changes) if changes else draft


#: What an import's rows hold that the write policy judges: (section, column, field judged as).
IMPORTED_TEXT = (("entity", "name", "entity.name"), ("alias", "alias", "entity.name"), ("source", "text", "source.text"),
                 ("source", "title", "source.title"), ("source", "uri", "source.uri"), ("claim", "value", "claim.value"),
                 ("claim", "qualifiers", "claim.qualifiers"))


def screen_imported(rows: Sequence[tuple[int, Mapping[str, Any]]], section: str, *, scope: str,
                    policies: Policies) -> None:
    """Judge restored rows by the policy of ``scope`` without changing them: history is restored
    verbatim or not at all, so a row the policy would refuse *or redact* stops the import
    (PolicyViolation naming the line)."""
    for number, row in rows:
        for _section, column, field in (c for c in IMPORTED_TEXT if c[0] == section):
            text = row.get(column)
            if not isinstance(text, str):
                continue
            judged = screen(text, field=field, scope=scope, config=policies.config(scope))
            stop = judged.refusal or next((d for d in judged.decisions if d.action == "redact"), None)
            if stop is not None:
                raise PolicyViolation(f"line {number}: {refusal_message(stop)} (an import restores rows verbatim, "
                                      f"so it stops here; nothing was written)", rule=stop.rule, field=stop.field,
                                      span=stop.span, decisions=(stop,))
