"""Where evidence comes from, as the rules see it: which sources are the same document or
independent of each other, which correct which, and which stored source new bytes are."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass(frozen=True, slots=True)
class Document:
    """A source behind a claim, as the correction rule sees it."""

    source_id: int
    #: The first revision of its document (``family_of``).
    family: int
    content_hash: str
    publisher: str | None = None
    published_at: datetime | None = None



def corrects(new: frozenset[Document], old: frozenset[Document]) -> bool:
    """Whether evidence from ``new`` corrects a claim backed by ``old``: every document behind it
    has, among the new ones, a later revision or a later publication of its publisher. A source
    that states two values at once, unchanged, corrects nothing."""
    return bool(old) and all(any(_later_version(n, o) for n in new) for o in old)


def _later_version(new: Document, old: Document) -> bool:
    if new.family == old.family:
        return new.source_id > old.source_id and new.content_hash != old.content_hash
    return (new.publisher is not None and new.publisher == old.publisher and new.published_at is not None
            and old.published_at is not None and new.published_at > old.published_at)


def same_documents(new: frozenset[Document], old: frozenset[Document]) -> bool:
    """Whether every document behind a claim is one behind the new assertion too (the same
    revision family or the same bytes): a conflict inside one source, not between sources."""
    return bool(old) and all(any(n.family == o.family or n.content_hash == o.content_hash for n in new) for o in old)


SourceFacts = Mapping[int, Mapping[str, Any]]


def family_of(facts: SourceFacts, source_id: int) -> int:
    """The first revision of a source: revisions of one document count as one source."""
    seen = set()
    while (parent := facts[source_id]["revision_of"]) is not None and source_id not in seen:
        seen.add(source_id)
        source_id = parent
    return source_id


def document(facts: SourceFacts, source_id: int) -> Document:
    """A source as the correction rule sees it."""
    row = facts[source_id]
    return Document(source_id, family_of(facts, source_id), row["content_hash"], row["publisher"],
                    row["published_at"])


def document_keys(facts: SourceFacts, source_id: int) -> frozenset[str]:
    """Keys two sources share when they are the same document: one revision family, or the same
    original bytes (a page that came to hold another address's bytes)."""
    return frozenset({f"family:{family_of(facts, source_id)}", f"bytes:{facts[source_id]['content_hash']}"})


def independence_keys(facts: SourceFacts, source_id: int) -> frozenset[str]:
    """Keys two sources share when they are not independent (same document, or same text and publisher)."""
    cache = _KEYS.get(id(facts))
    if cache is None or cache[0] is not facts:
        _KEYS.clear()
        cache = _KEYS[id(facts)] = (facts, {})
    known = cache[1].get(source_id)
    if known is None:
        row = facts[source_id]
        known = document_keys(facts, source_id)
        if row["publisher"]:
            known |= {f"text:{row['publisher']}|{row['text_hash']}"}
        cache[1][source_id] = known
    return known


_KEYS: dict[int, tuple[SourceFacts, dict[int, frozenset[str]]]] = {}


def count_independent(key_sets: Iterable[frozenset[str]]) -> int:
    """How many mutually independent sources a set of sources amounts to (sources sharing a
    key, directly or through others, count once)."""
    groups: list[set[str]] = []
    for keys in key_sets:
        touching = [g for g in groups if not g.isdisjoint(keys)]
        if not touching:
            groups.append(set(keys))
            continue
        first = touching[0]
        first.update(keys)
        for other in touching[1:]:
            first.update(other)
            groups.remove(other)
    return len(groups)


def independent_sources(sources: Iterable[int], facts: SourceFacts) -> int:
    """How many of these sources are independent of each other."""
    distinct = set(sources)
    if len(distinct) < 2:
        return len(distinct)
    if len(distinct) == 2:
        first, second = (independence_keys(facts, s) for s in distinct)
        return 2 if first.isdisjoint(second) else 1
    return count_independent([independence_keys(facts, s) for s in distinct])


# ---------------------------------------------------------------- revision identity

@dataclass(frozen=True, slots=True)
class Stored:
    """A stored source as revision identity sees it."""

    source_id: int
    content_hash: str
    uri: str | None
    #: When it was retrieved, else when it was stored.
    seen_at: datetime


def revision_identity(
    found: Sequence[Stored], *, content_hash: str, uri: str | None, retrieved_at: datetime | None
) -> tuple[int | None, int | None]:
    """(the source these bytes are stored as, or else the revision a new source follows); either
    may be None. ``found`` holds the sources of the scope with these bytes and the newest under ``uri``.

    A document is its uri's history: bytes other than those of the uri's newest revision make a
    new revision of it, even bytes it had before (a page A, B, then A again) or bytes stored
    under another uri, unless they were retrieved before the newest revision was: an older copy
    of a revision stored already, which they are. Without a history, bytes stored already (under
    another uri, or none) are the first source stored with them.
    """
    newest = max((s for s in found if uri is not None and s.uri == uri), key=lambda s: s.source_id, default=None)
    same = [s for s in found if s.content_hash == content_hash]
    if newest is None:  # the first source stored with these bytes, not a later revision holding them
        return (min(s.source_id for s in same) if same else None), None
    if newest.content_hash == content_hash:
        return newest.source_id, None
    earlier = [s.source_id for s in same if s.uri == uri]
    if earlier and retrieved_at is not None and retrieved_at < newest.seen_at:
        return max(earlier), None
    return None, newest.source_id
