"""What each tool does, over the public ``Ledger`` calls, in the caller's scope only."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ledger.errors import InvalidInput, NotFound, UnknownName

if TYPE_CHECKING:
    from ledger.api import Ledger

Handler = Callable[["Ledger", dict[str, Any], str, "str | None"], Any]


def _claim_in_scope(ledger: Ledger, claim_id: int, scope: str) -> Any:
    claim = ledger.claim(claim_id)
    if claim.scope != scope:  # ids are global; a tool only reaches its own scope
        raise NotFound(f"claim {claim_id} does not exist in scope {scope!r}")
    return claim


def _source_in_scope(ledger: Ledger, source_id: int, scope: str) -> Any:
    source = ledger.source(source_id)
    if source.scope != scope:
        raise NotFound(f"source {source_id} does not exist in scope {scope!r}")
    return source


def _known_name(ledger: Ledger, name: str, scope: str) -> None:
    """UnknownName, with the entities it may mean, for a name no entity of ``scope`` has."""
    if ledger.resolve(name, scope=scope) is not None:
        return
    suggestions = tuple(s for s in ledger.suggest(name, scope=scope) if s.kind == "entity")[:3]
    hint = (f"; did you mean {' or '.join(repr(s.name) for s in suggestions)}?" if suggestions
            else "; pass create_entities=true to create it")
    raise UnknownName(f"no entity {name!r} in scope {scope!r}{hint}", name=name, scope=scope,
                      suggestions=suggestions)


def remember(ledger: Ledger, args: dict[str, Any], scope: str, actor: str | None) -> Any:
    """Store (or reuse) the source, locate the quote, assert the claim without creating unknown names."""
    if (args.get("object") is None) == (args.get("value") is None):
        raise InvalidInput("remember needs exactly one of object (an entity) or value (a literal)")
    if not args.get("create_entities", False):  # refused before the source is stored, not after
        for name in (args["subject"], args.get("object")):
            if name is not None:
                _known_name(ledger, name, scope)
    given = args["source"]
    if given.get("source_id") is not None:
        source = _source_in_scope(ledger, given["source_id"], scope)
    elif given.get("text"):
        source = ledger.add_source(text=given["text"], title=given.get("title"), uri=given.get("uri"),
                                   kind=given.get("kind", "text"), scope=scope, actor=actor)
    else:
        raise InvalidInput("remember needs source.source_id (a stored source) or source.text (the text to store)")
    citation = ledger.cite(source, args["quote"])
    claim = ledger.assert_claim(
        args["subject"], args["predicate"], args.get("object"), value=args.get("value"),
        valid_from=args.get("valid_from"), valid_until=args.get("valid_until"), evidence=citation,
        confidence=args.get("confidence"), qualifiers=args.get("qualifiers"), actor=actor, scope=scope,
        create_entities=bool(args.get("create_entities", False)))
    return {"claim": claim, "cause": str(claim.cause), "source_id": source.id, "excerpt": citation.excerpt}


def recall(ledger: Ledger, args: dict[str, Any], scope: str, actor: str | None) -> Any:
    """The packet as data, with its prompt text."""
    packet = ledger.recall(args["question"], budget_tokens=args.get("budget_tokens", 600),
                           valid_at=args.get("valid_at"), known_at=args.get("known_at"), scope=scope,
                           run_id=args.get("run_id"))
    return {"packet": packet.to_dict(), "prompt": packet.to_prompt()}


def search(ledger: Ledger, args: dict[str, Any], scope: str, actor: str | None) -> Any:
    """Full-text hits."""
    return ledger.search(args["text"], scope=scope, kinds=args.get("kinds"), valid_at=args.get("valid_at"),
                         known_at=args.get("known_at"), limit=args.get("limit", 10))


def suggest(ledger: Ledger, args: dict[str, Any], scope: str, actor: str | None) -> Any:
    """Name suggestions."""
    return ledger.suggest(args["name"], scope=scope, limit=args.get("limit", 5))


def forget(ledger: Ledger, args: dict[str, Any], scope: str, actor: str | None) -> Any:
    """Close a claim's validity."""
    _claim_in_scope(ledger, args["claim_id"], scope)
    return ledger.forget(args["claim_id"], reason=args["reason"], at=args.get("at"), actor=actor)


def cite(ledger: Ledger, args: dict[str, Any], scope: str, actor: str | None) -> Any:
    """Locate a quote."""
    source = _source_in_scope(ledger, args["source_id"], scope)
    return ledger.cite(source, args["quote"], prefix=args.get("prefix"), suffix=args.get("suffix"),
                       page=args.get("page"))


def ingest(ledger: Ledger, args: dict[str, Any], scope: str, actor: str | None) -> Any:
    """A URL, a file or text as a source."""
    given = [key for key in ("url", "path", "text") if args.get(key)]
    if len(given) != 1:
        raise InvalidInput("ingest needs exactly one of url, path or text")
    trust = args.get("trust", "trusted")
    if given[0] == "url":
        return ledger.ingest_url(args["url"], trust=trust, scope=scope)
    if given[0] == "path":
        return ledger.ingest_file(Path(args["path"]), trust=trust, scope=scope)
    return ledger.add_source(text=args["text"], title=args.get("title"), uri=args.get("uri"), trust=trust,
                             scope=scope, actor=actor)


def history(ledger: Ledger, args: dict[str, Any], scope: str, actor: str | None) -> Any:
    """Every version on (subject, predicate)."""
    return ledger.history(args["subject"], args["predicate"], scope=scope)


def explain(ledger: Ledger, args: dict[str, Any], scope: str, actor: str | None) -> Any:
    """A claim's versions, links and evidence."""
    _claim_in_scope(ledger, args["claim_id"], scope)
    return ledger.explain(args["claim_id"])


def contradictions(ledger: Ledger, args: dict[str, Any], scope: str, actor: str | None) -> Any:
    """Unresolved conflicts (see ``find_contradictions``)."""
    return find_contradictions(ledger, scope=scope, subject=args.get("subject"), predicate=args.get("predicate"))


def find_contradictions(ledger: Ledger, *, scope: str, subject: str | None, predicate: str | None) -> Any:
    """The open contradictions: every side with its claim, evidence and sources, and why they conflict."""
    return ledger.contradictions(scope=scope, subject=subject, predicate=predicate)


def note(ledger: Ledger, args: dict[str, Any], scope: str, actor: str | None) -> Any:
    """A working note for the run."""
    return ledger.note(args["run_id"], args["text"], ttl=args.get("ttl", "24h"), actor=actor, scope=scope)


def promote(ledger: Ledger, args: dict[str, Any], scope: str, actor: str | None) -> Any:
    """A note of the run made a durable claim (unknown names refused unless create_entities)."""
    if not args.get("create_entities", False):
        for name in (args["subject"], args.get("object")):
            if name is not None:
                _known_name(ledger, name, scope)
    return ledger.promote_note(args["note_id"], args["subject"], args["predicate"], args.get("object"),
                          value=args.get("value"), quote=args.get("quote"), valid_from=args.get("valid_from"),
                          valid_until=args.get("valid_until"), run_id=args["run_id"], actor=actor, scope=scope,
                          create_entities=bool(args.get("create_entities", False)))


HANDLERS: dict[str, Handler] = {
    "remember": remember, "recall": recall, "search": search, "suggest": suggest, "forget": forget, "cite": cite,
    "ingest": ingest, "history": history, "explain": explain, "contradictions": contradictions, "note": note,
    "promote": promote,
}
