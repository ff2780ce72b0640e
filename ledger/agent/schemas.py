"""The tools' JSON-schema definitions (name, description, parameters), as language models take them."""

from __future__ import annotations

import copy
from typing import Any

_TIME = {"type": "string", "description": "ISO date or time: '2026', '2026-04', '2026-04-15', '2026-04-15T10:00:00Z'"}
_CLAIM_ID = {"type": "integer", "minimum": 1, "description": "a claim id (from remember, recall or search)"}
_NAME = {"type": "string", "minLength": 1}

TOOLS: list[dict[str, Any]] = [
    {"name": "remember",
     "description": "Record a claim (subject, predicate, object entity or value) backed by an exact quote from a "
                    "source. Give the source as source_id (stored already) or text (stored now). Unknown subject "
                    "or object names are refused with suggestions unless create_entities is true.",
     "parameters": {"type": "object", "properties": {
         "subject": {**_NAME, "description": "the entity the claim is about, by name or alias"},
         "predicate": {**_NAME, "description": "the property, e.g. 'monthly amount', 'head coach'"},
         "object": {**_NAME, "description": "an entity value, by name (give object or value)"},
         "value": {"type": ["string", "number", "boolean"], "description": "a literal value (give object or value)"},
         "quote": {**_NAME, "description": "the exact words of the source that support the claim"},
         "source": {"type": "object", "description": "where the quote is from", "properties": {
             "source_id": {"type": "integer", "minimum": 1}, "text": {"type": "string", "minLength": 1},
             "title": {"type": "string"}, "uri": {"type": "string"},
             "kind": {"type": "string", "enum": ["text", "web", "conversation"]}},
             "additionalProperties": False},
         "valid_from": _TIME, "valid_until": _TIME,
         "qualifiers": {"type": "object", "description": "context that separates claims, e.g. {\"unit\": \"month\"}"},
         "confidence": {"type": "number", "minimum": 0, "maximum": 1},
         "create_entities": {"type": "boolean", "default": False,
                             "description": "create subject/object entities the ledger does not know yet"}},
         "required": ["subject", "predicate", "quote", "source"], "additionalProperties": False}},
    {"name": "recall",
     "description": "What the ledger holds that answers a question: claims with their validity, warnings and "
                    "citations, packed under a token budget, or an explicit 'nothing recorded'. Simple time words "
                    "('in April', 'in 2025') are read from the question; valid_at overrides them.",
     "parameters": {"type": "object", "properties": {
         "question": {**_NAME}, "budget_tokens": {"type": "integer", "minimum": 32, "maximum": 200000, "default": 600},
         "valid_at": _TIME, "known_at": _TIME,
         "run_id": {"type": "string", "description": "include this run's working notes"}},
         "required": ["question"], "additionalProperties": False}},
    {"name": "search",
     "description": "Full-text search over entity names, claims, evidence excerpts and source passages.",
     "parameters": {"type": "object", "properties": {
         "text": {**_NAME},
         "kinds": {"type": "array", "items": {"type": "string"},
                   "description": "restrict to kinds of hit (see docs/search.md)"},
         "valid_at": _TIME, "known_at": _TIME, "limit": {"type": "integer", "minimum": 1, "maximum": 100}},
         "required": ["text"], "additionalProperties": False}},
    {"name": "suggest",
     "description": "Entities and predicates a name may mean (normalized, alias and fuzzy matches, with scores).",
     "parameters": {"type": "object", "properties": {
         "name": {**_NAME}, "limit": {"type": "integer", "minimum": 1, "maximum": 50}},
         "required": ["name"], "additionalProperties": False}},
    {"name": "forget",
     "description": "Say a claim no longer holds from a time on (default now), with a reason. Its validity is "
                    "closed; nothing is deleted and its history stays.",
     "parameters": {"type": "object", "properties": {
         "claim_id": _CLAIM_ID, "reason": {**_NAME}, "at": _TIME},
         "required": ["claim_id", "reason"], "additionalProperties": False}},
    {"name": "cite",
     "description": "Check that a quote occurs in a stored source and get its exact excerpt, page and position.",
     "parameters": {"type": "object", "properties": {
         "source_id": {"type": "integer", "minimum": 1}, "quote": {**_NAME}, "prefix": {"type": "string"},
         "suffix": {"type": "string"}, "page": {"type": "integer", "minimum": 1}},
         "required": ["source_id", "quote"], "additionalProperties": False}},
    {"name": "ingest",
     "description": "Store a document as a source: a URL (web page or PDF), a local file path, or plain text.",
     "parameters": {"type": "object", "properties": {
         "url": {"type": "string"}, "path": {"type": "string"}, "text": {"type": "string"},
         "title": {"type": "string"}, "uri": {"type": "string"},
         "trust": {"type": "string", "enum": ["trusted", "untrusted"], "default": "trusted"}},
         "additionalProperties": False}},
    {"name": "history",
     "description": "Every version of every claim on a subject and predicate, oldest first, with all four times.",
     "parameters": {"type": "object", "properties": {"subject": {**_NAME}, "predicate": {**_NAME}},
                    "required": ["subject", "predicate"], "additionalProperties": False}},
    {"name": "explain",
     "description": "Why the ledger holds a claim: its versions, links and evidence with sources and locators.",
     "parameters": {"type": "object", "properties": {"claim_id": _CLAIM_ID},
                    "required": ["claim_id"], "additionalProperties": False}},
    {"name": "contradictions",
     "description": "Open contradictions: every side (claim, evidence excerpt, source) and why they conflict "
                    "(functional-overlap, contradicting-evidence, open-dispute). Pass id to a person to resolve.",
     "parameters": {"type": "object", "properties": {"subject": {**_NAME}, "predicate": {**_NAME}},
                    "additionalProperties": False}},
    {"name": "note",
     "description": "Keep a working note for this agent run (what you are doing, findings, open questions). "
                    "Only this run's recall sees it; it expires after ttl. Nothing is promoted automatically: "
                    "call promote to make a note a durable claim.",
     "parameters": {"type": "object", "properties": {
         "run_id": {**_NAME}, "text": {**_NAME},
         "ttl": {"type": "string", "description": "how long to keep it: '30m', '24h', '7d'", "default": "24h"}},
         "required": ["run_id", "text"], "additionalProperties": False}},
    {"name": "promote",
     "description": "Make one of this run's notes a durable claim; its evidence is the note's conversation turn.",
     "parameters": {"type": "object", "properties": {
         "run_id": {**_NAME}, "note_id": {"type": "integer", "minimum": 1}, "subject": {**_NAME},
         "predicate": {**_NAME}, "object": {**_NAME}, "value": {"type": ["string", "number", "boolean"]},
         "quote": {"type": "string", "description": "the words of the note that support it (default: all)"},
         "valid_from": _TIME, "valid_until": _TIME,
         "create_entities": {"type": "boolean", "default": False,
                             "description": "create subject/object entities the ledger does not know yet"}},
         "required": ["run_id", "note_id", "subject", "predicate"], "additionalProperties": False}},
]


def tool_schemas() -> list[dict[str, Any]]:
    """The tools as JSON-schema function definitions: a list of ``{"name", "description", "parameters"}``."""
    return copy.deepcopy(TOOLS)
