"""The write policy's decisions (pure): what to do with one piece of text about to be written."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ledger.policy.config import Action, PolicyConfig
from ledger.policy.patterns import Finding, find_instructions, find_pii, find_secrets


@dataclass(frozen=True, slots=True)
class PolicyDecision:
    """One decision of the write policy, as logged: never the text, only its kind and span."""

    scope: str
    field: str  #: what was judged: "claim.value", "claim.qualifiers", "entity.name", "source.text", ...
    rule: str  #: "secret:aws-key", "pii:email", "instruction:ignore-instructions", "confidence:min"
    action: Action
    span: tuple[int, int]  #: offsets in the field's text (for a qualifier, in that qualifier's value)
    actor: str | None = None
    recorded_at: datetime | None = None  #: set once logged
    id: int | None = None  #: set once logged


@dataclass(frozen=True, slots=True)
class Screened:
    """A text after the policy: possibly redacted, the decisions taken, and the refusal if any."""

    text: str
    decisions: tuple[PolicyDecision, ...] = ()

    @property
    def refusal(self) -> PolicyDecision | None:
        """The first refusing decision, or None."""
        return next((d for d in self.decisions if d.action == "refuse"), None)


def screen(text: str, *, field: str, scope: str, config: PolicyConfig, actor: str | None = None) -> Screened:
    """Judge ``text`` about to be written as ``field`` (``source.*`` fields use the source settings)."""
    in_source = field.startswith("source.")
    secret_action = config.source_secrets if in_source else config.secrets
    pii_action = config.source_pii if in_source else config.pii
    instruction_action = config.source_instructions if in_source else config.instructions
    secrets = find_secrets(text) if secret_action != "allow" else ()
    personal = find_pii(text) if pii_action != "allow" else ()
    instructions = find_instructions(text) if instruction_action != "allow" else ()
    if not (secrets or personal or instructions):
        return Screened(text)  # the common case
    actions: list[tuple[Action, Finding]] = [(secret_action, f) for f in secrets]
    covered = [(f.start, f.end) for f in secrets]  # a URL's password is a secret, not an email
    actions.extend((pii_action, f) for f in personal if not any(start <= f.start < end for start, end in covered))
    actions.extend((instruction_action, f) for f in instructions)
    decisions = tuple(PolicyDecision(scope=scope, field=field, rule=f"{f.category}:{f.kind}", action=action,
                                     span=(f.start, f.end), actor=actor) for action, f in actions)
    redactions = sorted(((f.start, f.end, f.kind) for action, f in actions if action == "redact"), reverse=True)
    for start, end, kind in redactions:
        text = text[:start] + (("█" * (end - start)) if in_source else f"[redacted:{kind}]") + text[end:]
    return Screened(text, decisions)


def low_confidence(confidence: float | None, *, field: str, scope: str, config: PolicyConfig,
                   actor: str | None = None) -> PolicyDecision | None:
    """A refusal when an asserted ``confidence`` is below the configured minimum, else None."""
    if confidence is None or isinstance(confidence, bool) or not isinstance(confidence, (int, float)):
        return None
    if not 0.0 <= confidence <= 1.0 or confidence >= config.min_confidence:
        return None  # (out of range: InvalidInput from the claim's own checks)
    return PolicyDecision(scope=scope, field=field, rule="confidence:min", action="refuse", span=(0, 0), actor=actor)


def refusal_message(decision: PolicyDecision) -> str:
    """The PolicyViolation message for a refusing decision (the text itself is never repeated)."""
    if decision.rule == "trust:untrusted-actor":
        return (f"refused by the write policy ({decision.rule}): actor {decision.actor!r} is untrusted in scope "
                f"{decision.scope!r}; its sources and claims go to quarantine:{decision.scope} "
                f"(trust='untrusted', scope='quarantine:{decision.scope}') until someone promotes them")
    if decision.rule == "confidence:min":
        return f"refused by the write policy ({decision.rule}): the confidence is below the minimum of scope " \
               f"{decision.scope!r}"
    start, end = decision.span
    category = decision.rule.split(":", 1)[0]
    hint = {
        "secret": "credentials are never stored; remove it (or rotate it if it was real)",
        "pii": "personal data is refused in this scope; remove it or set the policy to redact",
        "instruction": "text that instructs an agent is not a claim; cite the source that says it instead",
    }.get(category, "")
    return (f"refused by the write policy ({decision.rule}) in {decision.field} at characters {start}-{end}"
            f" of scope {decision.scope!r}: {hint}")


#: the highest confidence a claim in a quarantine scope may have (the untrusted default)
QUARANTINE_CONFIDENCE = 0.2


def untrusted_actor(actor: str | None, *, field: str, scope: str, config: PolicyConfig) -> PolicyDecision | None:
    """A refusal when an actor marked untrusted writes outside quarantine, else None."""
    if actor is None or actor not in config.untrusted_actors or scope.startswith("quarantine:"):
        return None
    return PolicyDecision(scope=scope, field=field, rule="trust:untrusted-actor", action="refuse", span=(0, 0),
                          actor=actor)
