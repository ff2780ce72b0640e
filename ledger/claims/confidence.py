"""Confidence from independent sources: the one formula, pure, and the record that explains it.

    confidence = 1 - (1 - w_1)(1 - w_2) ... (1 - w_n)

over the n *independent* sources behind a claim (a noisy-or: each independent source that
holds the claim true with probability w_i leaves less room for all of them to be wrong).
Copies of one source count once: sources that share a document (revisions of one document),
the same content hash, or the same publisher and the same extracted text form one group, and a
group counts once, with the greatest weight among its members. A source's weight ``w`` is an
explicit input: by default its trust gives it (trusted 0.6, untrusted 0.2); a per-source
reliability can be passed instead. docs/contradictions.md has a worked example.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ledger.records import SourceId

#: The weight of a source by its trust, when nothing else says how reliable it is.
TRUST_WEIGHT: Mapping[str, float] = {"trusted": 0.6, "untrusted": 0.2}

#: Why a source was folded into another: the same document (a revision of it), the same
#: bytes (content hash), or the same publisher and extracted text.
FoldReason = Literal["same-document", "same-content", "same-publisher-and-text"]
_FOLD_REASON: dict[str, FoldReason] = {"family": "same-document", "bytes": "same-content",
                                       "text": "same-publisher-and-text"}


@dataclass(frozen=True, slots=True)
class SourceContribution:
    """One source behind a claim and what it adds to its confidence."""

    source_id: SourceId
    weight: float
    #: False for a copy folded into ``copy_of`` (it adds nothing).
    counted: bool
    #: What the confidence rose by when this source was counted (0.0 for a copy).
    gain: float
    copy_of: SourceId | None = None
    folded_because: FoldReason | None = None


@dataclass(frozen=True, slots=True)
class ConfidenceExplanation:
    """Why a claim has its confidence: the formula over its independent sources."""

    #: What the formula gives from the sources now behind the claim.
    from_sources: float
    #: The confidence the claim's current version holds (a caller may have given one).
    stored: float
    independent: int
    sources: tuple[SourceContribution, ...]
    formula: str = "1 - (1 - w1)(1 - w2)...(1 - wn) over independent sources; copies count once"

    @property
    def matches(self) -> bool:
        """Whether the stored confidence is the formula's (not one a caller gave)."""
        return abs(self.from_sources - self.stored) < 1e-9


def noisy_or(weights: Iterable[float]) -> float:
    """1 - Π(1 - w): the confidence that independent sources of weights ``w`` give together."""
    doubt = 1.0
    for weight in weights:
        doubt *= 1.0 - weight
    return 1.0 - doubt


def weight(trust: str, reliability: float | None = None) -> float:
    """A source's weight: its reliability rating when it has one (``ledger.reliability``; for an
    untrusted source a third of it, at most the untrusted default), else its trust's."""
    trusted = trust == "trusted"
    if reliability is None:
        return TRUST_WEIGHT["trusted" if trusted else "untrusted"]
    return float(reliability) if trusted else min(TRUST_WEIGHT["untrusted"], float(reliability) / 3)


def source_weight(fact: Mapping[str, Any]) -> float:
    """The weight of a stored source, from its row of facts (trust, and reliability if rated)."""
    return weight(fact["trust"], fact.get("reliability"))


def from_sources(
    keys: Mapping[int, frozenset[str]], weights: Mapping[int, float]
) -> tuple[float, tuple[SourceContribution, ...]]:
    """The confidence ``sources`` give and each one's contribution.

    ``keys`` maps each source id to the keys it shares with copies of itself
    (``provenance.independence_keys``); sources sharing a key, directly or through others, are
    one group. Each group counts once with its greatest weight (ties: the lowest source id),
    groups in the order of their first source; the others are copies of that one.
    """
    groups: list[list[int]] = []
    group_keys: list[set[str]] = []
    for source in sorted(keys):
        touching = [i for i, known in enumerate(group_keys) if not known.isdisjoint(keys[source])]
        if not touching:
            groups.append([source])
            group_keys.append(set(keys[source]))
            continue
        first = touching[0]
        groups[first].append(source)
        group_keys[first] |= keys[source]
        for other in reversed(touching[1:]):
            groups[first].extend(groups.pop(other))
            group_keys[first] |= group_keys.pop(other)
    contributions: dict[int, SourceContribution] = {}
    doubt = 1.0
    for members in sorted(groups, key=min):
        counted = max(sorted(members), key=lambda s: weights[s])
        before = 1.0 - doubt
        doubt *= 1.0 - weights[counted]
        contributions[counted] = SourceContribution(SourceId(counted), weights[counted], True, (1.0 - doubt) - before)
        for copy in members:
            if copy != counted:
                shared = sorted(keys[copy] & keys[counted]) or sorted(keys[copy] & _linking(members, keys))
                reason = _FOLD_REASON.get(shared[0].split(":", 1)[0]) if shared else None
                contributions[copy] = SourceContribution(SourceId(copy), weights[copy], False, 0.0,
                                                         SourceId(counted), reason)
    return 1.0 - doubt, tuple(contributions[s] for s in sorted(contributions))


def _linking(members: Iterable[int], keys: Mapping[int, frozenset[str]]) -> set[str]:
    """Every key two members of a group share (how a copy joined it through another member)."""
    seen: set[str] = set()
    shared: set[str] = set()
    for member in members:
        shared |= seen & keys[member]
        seen |= keys[member]
    return shared
