"""What identifies erased content where other parts keep copies of it (the event log's arguments
and details, working-memory notes): a pure test over text and tool arguments, built by erasure
before it blanks the content.

Text quotes erased content when, compared as folded words (case, accents and punctuation
ignored, on word boundaries), it contains one of the erased phrases (evidence excerpts, string
claim values, entity names and aliases and their distinctive words, source titles, authors and
uris) or a run of ``SHINGLE_WORDS`` consecutive words of an erased source's text. Tool arguments
mention it when any string in them quotes it, or an id key (``source_id``, ``claim_id``, …)
holds an erased id.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ledger.text.fold import search_fold

#: a quote of a source this long (in words) is recognized anywhere; shorter ones only as excerpts
SHINGLE_WORDS = 6
#: the shortest phrase (folded characters) that counts: shorter ones match ordinary text
MIN_PHRASE_CHARS = 3
#: words of an erased entity's names this long count alone (a surname in a search query)
MIN_NAME_WORD_CHARS = 5
_WORD = re.compile(r"\w+")
_ID_KEYS = {"source": ("source_id", "source_ids"), "claim": ("claim_id", "claim_ids", "claim", "claims"),
            "entity": ("entity_id", "entity_ids", "entity", "entities")}


def _words(text: str) -> list[str]:
    return _WORD.findall(search_fold(text) or "")


@dataclass(frozen=True, slots=True)
class ErasedContent:
    """The ids, phrases and source-text shingles an erasure removes; see the module."""

    scopes: frozenset[str]
    source_ids: frozenset[int]
    claim_ids: frozenset[int]
    entity_ids: frozenset[int]
    phrases: frozenset[str]  #: folded words joined by single spaces
    shingles: frozenset[tuple[str, ...]]

    @classmethod
    def of(cls, *, scopes: Iterable[str], source_ids: Iterable[int], claim_ids: Iterable[int],
           entity_ids: Iterable[int], phrases: Iterable[str], names: Iterable[str],
           texts: Iterable[str]) -> ErasedContent:
        """Built from the erased rows: ``phrases`` (excerpts, values, titles …), ``names`` (entity
        names and aliases, whose long words count alone too) and the sources' ``texts``."""
        folded = {" ".join(_words(p)) for p in phrases}
        for name in names:
            words = _words(name)
            folded.add(" ".join(words))
            folded.update(word for word in words if len(word) >= MIN_NAME_WORD_CHARS)
        shingles: set[tuple[str, ...]] = set()
        for text in texts:
            words = _words(text)
            shingles.update(tuple(words[i:i + SHINGLE_WORDS]) for i in range(len(words) - SHINGLE_WORDS + 1))
        return cls(frozenset(scopes), frozenset(source_ids), frozenset(claim_ids), frozenset(entity_ids),
                   frozenset(p for p in folded if len(p) >= MIN_PHRASE_CHARS), frozenset(shingles))

    def quotes(self, text: str | None) -> bool:
        """Whether ``text`` contains an erased phrase or a run of an erased source's words."""
        if not text:
            return False
        words = _words(text)
        padded = f" {' '.join(words)} "
        if any(f" {phrase} " in padded for phrase in self.phrases):
            return True
        return bool(self.shingles) and any(
            tuple(words[i:i + SHINGLE_WORDS]) in self.shingles for i in range(len(words) - SHINGLE_WORDS + 1))

    def mentions(self, value: Any, key: str | None = None) -> bool:
        """Whether tool arguments (any JSON value) quote erased content or name an erased id."""
        if isinstance(value, Mapping):
            return any(self.mentions(item, str(name)) for name, item in value.items())
        if isinstance(value, (list, tuple)):
            return any(self.mentions(item, key) for item in value)
        if isinstance(value, str):
            return self.quotes(value)
        if isinstance(value, int) and not isinstance(value, bool) and key is not None:
            return any(value in ids and key in _ID_KEYS[kind] for kind, ids in (
                ("source", self.source_ids), ("claim", self.claim_ids), ("entity", self.entity_ids)))
        return False
