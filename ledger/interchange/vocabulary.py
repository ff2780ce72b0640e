"""The shipped predicate vocabulary (``vocabulary.json``, data not code), read once and indexed
by every name that names a predicate: its English name, its aliases and its Wikidata id (pure)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Literal

from ledger.entities import canonical_label, normalize_name


@dataclass(frozen=True, slots=True)
class Shipped:
    """One predicate of the shipped vocabulary."""

    name: str
    cardinality: Literal["one", "many"]
    object_kind: Literal["entity", "value"]
    wikidata: str | None
    aliases: tuple[str, ...]
    datatype: str | None = None
    inverse: str | None = None
    separators: tuple[str, ...] = ()
    constraint: str | None = None
    source: str | None = None


@cache
def shipped() -> Mapping[str, Shipped]:
    """The shipped predicates by their stored name."""
    text = resources.files("ledger.interchange").joinpath("vocabulary.json").read_text(encoding="utf-8")
    found: dict[str, Shipped] = {}
    for entry in json.loads(text)["predicates"]:
        name = canonical_label(entry["name"])
        found[name] = Shipped(
            name=name, cardinality=entry["cardinality"], object_kind=entry["object_kind"],
            wikidata=entry.get("wikidata"), aliases=tuple(entry.get("aliases", ())), datatype=entry.get("datatype"),
            inverse=entry.get("inverse"), separators=tuple(entry.get("separators", ())),
            constraint=entry.get("constraint"), source=entry.get("source"))
    return found


@cache
def shipped_names() -> Mapping[str, str]:
    """normalized name, alias or Wikidata id → the stored name of the shipped predicate it names."""
    index: dict[str, str] = {}
    for predicate in shipped().values():
        for name in (predicate.name, *predicate.aliases, *([predicate.wikidata] if predicate.wikidata else [])):
            index.setdefault(normalize_name(name), predicate.name)
    return index


def shipped_name(name: str) -> str | None:
    """The stored name of the shipped predicate ``name`` names, or None."""
    return shipped_names().get(normalize_name(name))
