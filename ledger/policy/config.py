"""The write policy's settings (pure): defaults, per-ledger and per-scope overrides, quarantine.

Settings are layered: the defaults below, then the ledger-wide settings (scope ``*``), then for a
``quarantine:<scope>`` the quarantine defaults, then the scope's own settings. Each layer names
only what it changes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from ledger.errors import InvalidInput

Action = Literal["refuse", "redact", "flag", "allow"]
ACTIONS: tuple[Action, ...] = ("refuse", "redact", "flag", "allow")
#: the scope name under which ledger-wide settings are stored
LEDGER_WIDE = "*"


@dataclass(frozen=True, slots=True)
class PolicyConfig:
    """What the write policy does with each finding, in claims and in sources.

    Actions: ``refuse`` (PolicyViolation, nothing written), ``redact`` (the span replaced by
    ``[redacted:<kind>]`` in claims, masked with █ of the same length in source text so every
    offset still holds), ``flag`` (written, and the decision logged) and ``allow`` (not even logged).
    """

    secrets: Action = "refuse"  #: credentials in claim values, qualifiers and entity names
    pii: Action = "redact"  #: personal data in claim values, qualifiers and entity names
    instructions: Action = "refuse"  #: text instructing an agent, as claim content
    source_secrets: Action = "refuse"  #: credentials in a source's text, uri or title
    source_pii: Action = "allow"  #: personal data in a source's text (evidence of what a page says)
    source_instructions: Action = "allow"  #: a page quoting an injection is evidence, not a command
    min_confidence: float = 0.0  #: claims asserted with a lower confidence are refused
    #: actors (agent sessions) whose writes belong in quarantine: refused in a trusted scope
    untrusted_actors: tuple[str, ...] = ()

    def to_settings(self) -> dict[str, object]:
        """The settings as a plain dict (what ``Ledger.set_policy`` takes)."""
        settings = dataclasses.asdict(self)
        settings["untrusted_actors"] = list(self.untrusted_actors)
        return settings


#: in quarantine an instruction is kept and flagged (it is what the quarantine is for), not refused
QUARANTINE_DEFAULTS: Mapping[str, object] = {"instructions": "flag"}
_FIELDS = {field.name for field in dataclasses.fields(PolicyConfig)}


def check_settings(settings: Mapping[str, object]) -> dict[str, object]:
    """``settings`` checked against PolicyConfig's fields and actions; InvalidInput naming the bad one."""
    checked: dict[str, object] = {}
    for name, value in settings.items():
        if name not in _FIELDS:
            raise InvalidInput(f"unknown policy setting {name!r}; the settings are {', '.join(sorted(_FIELDS))}")
        if name == "min_confidence":
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
                raise InvalidInput(f"min_confidence must be a number from 0 to 1, not {value!r:.40}")
            checked[name] = float(value)
        elif name == "untrusted_actors":
            if isinstance(value, str) or not isinstance(value, (list, tuple)) or not all(
                    isinstance(actor, str) and actor.strip() for actor in value):
                raise InvalidInput(f"untrusted_actors must be a list of actor names, not {value!r:.60}")
            checked[name] = tuple(value)
        elif value not in ACTIONS:
            raise InvalidInput(f"policy setting {name} must be one of {', '.join(ACTIONS)}; got {value!r:.40}")
        else:
            checked[name] = value
    return checked


def effective(scope: str, layers: Mapping[str, Mapping[str, object]]) -> PolicyConfig:
    """The settings that hold in ``scope`` given the stored layers (by scope, ``*`` ledger-wide)."""
    merged: dict[str, object] = dict(layers.get(LEDGER_WIDE, {}))
    if scope.startswith("quarantine:"):
        merged.update(QUARANTINE_DEFAULTS)
    merged.update(layers.get(scope, {}))
    return dataclasses.replace(PolicyConfig(), **check_settings(merged))  # type: ignore[arg-type]
