"""``ledger contradictions`` and ``ledger resolve``: list what disagrees, record a decision."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

import typer
from rich.markup import escape

from ledger import Contradiction
from ledger.cli.common import DbOption, JsonOption, ScopeOption, console, opened
from ledger.cli.render import print_json, when


def contradictions(
    subject: Annotated[str | None, typer.Argument(help="Only contradictions about this entity.")] = None,
    predicate: Annotated[str | None, typer.Argument()] = None,
    valid_at: Annotated[str | None, typer.Option(help="World time: only what conflicts then.")] = None,
    known_at: Annotated[str | None, typer.Option(help="System time: what was open then (default now).")] = None,
    resolved: Annotated[bool, typer.Option("--resolved", help="Include resolved ones, with their resolution.")] = False,
    scope: ScopeOption = "default",
    as_json: JsonOption = False,
    db: DbOption = None,
) -> None:
    """Open contradictions: their sides, why they conflict, and each side's evidence and source.

    Example: ledger contradictions Acme ceo --known-at 2026-05-01
    """
    with opened(db, as_json=as_json, create=False) as ledger:
        found = ledger.contradictions(scope=scope, valid_at=valid_at, known_at=known_at, subject=subject,
                                      predicate=predicate, include_resolved=resolved)
    if as_json:
        print_json(found)
    else:
        show_contradictions(found)


def resolve(
    contradiction: Annotated[str, typer.Argument(help="A contradiction id, as `ledger contradictions` lists it.")],
    keep: Annotated[int, typer.Option(help="The id of the claim to keep (confirmed).")],
    reason: Annotated[str, typer.Option(help="Why this side is kept.")],
    retract: Annotated[bool, typer.Option("--retract", help="Retract the other sides instead of superseding them.")]
    = False,
    actor: Annotated[str | None, typer.Option(help="Who decides.")] = None,
    as_json: JsonOption = False,
    db: DbOption = None,
) -> None:
    """Resolve a contradiction: keep one side (confirmed); the others are superseded by it (or retracted).

    Example: ledger resolve overlap:12+15 --keep 12 --reason "board minutes of 2026-03-02"
    """
    with opened(db, as_json=as_json) as ledger:
        done = ledger.resolve_contradiction(contradiction, keep=keep, reason=reason, actor=actor,
                                            others="retracted" if retract else "superseded")
    if as_json:
        print_json(done)
    else:
        show_contradictions([done])


def show_contradictions(found: Sequence[Contradiction]) -> None:
    """Each contradiction: its id and reason, then each side with its evidence and sources."""
    if not found:
        console.print("no contradictions")
    for item in found:
        qualifiers = "".join(f" ({k}={v})" for k, v in item.qualifiers.items())
        console.print(f"[bold]{item.id}[/]  {item.kind}: {escape(item.subject)} / {escape(item.predicate + qualifiers)}"
                      f"  [{when(item.valid_from)}, {when(item.valid_until)})  since {when(item.since)}",
                      highlight=False)
        for reason in item.reasons:
            console.print(f"    disputed: {escape(reason)}", highlight=False)
        for side in item.sides:
            claim = side.claim
            console.print(f"  claim {claim.id}: {escape(claim.object_label)}  {claim.status}, "
                          f"confidence {claim.confidence:.2f}", highlight=False)
            for evidence in side.evidence:
                source = evidence.title or evidence.uri or f"source {evidence.source_id}"
                by = f", {evidence.publisher}" if evidence.publisher else ""
                page = f", page {evidence.page}" if evidence.page else ""
                console.print(f"    {evidence.relation} “{escape(evidence.excerpt)}” — {escape(source + by)}{page}",
                              highlight=False)
        if item.resolution is not None:
            done = item.resolution
            by = f" by {done.actor}" if done.actor else ""
            console.print(f"  [green]resolved[/] {when(done.resolved_at)}{escape(by)}: kept claim {done.kept}"
                          f" ({escape(done.reason or '')})", highlight=False)

