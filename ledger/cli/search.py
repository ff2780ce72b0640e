"""``ledger search`` and ``ledger suggest``: parse, make one API call, render."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from ledger.cli.common import DbOption, JsonOption, ScopeOption, console, fail, opened
from ledger.cli.render import print_json
from ledger.errors import InvalidInput

KINDS = ("entity", "claim", "evidence", "passage")


def search(
    text: Annotated[str | None, typer.Argument(help="Words to find (every word must occur unless --any).")] = None,
    kind: Annotated[list[str] | None, typer.Option(help="Only hits of this kind (repeatable): "
                                                        "entity, claim, evidence, passage.")] = None,
    valid_at: Annotated[str | None, typer.Option(help="World time of the claims searched (default now).")] = None,
    known_at: Annotated[str | None, typer.Option(help="System time: what the ledger held then (default now).")] = None,
    limit: Annotated[int, typer.Option(help="At most this many hits.")] = 10,
    any_word: Annotated[bool, typer.Option("--any", help="Hits holding some of the words, best first.")] = False,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Rebuild the search index from the tables instead.")]
    = False,
    scope: ScopeOption = "default", as_json: JsonOption = False, db: DbOption = None,
) -> None:
    """Full-text search over names, claims, evidence excerpts and passages (any script).

    Example: ledger search "electricity bill" --kind evidence --valid-at 2026-04-15
    """
    if rebuild:
        with opened(db, as_json=as_json, create=False) as ledger:
            ledger.rebuild_search_index()
        if as_json:
            print_json({"rebuilt": True})
        else:
            console.print("search index rebuilt")
        return
    if text is None:
        fail(InvalidInput("give the TEXT to search for (or --rebuild)"), as_json=as_json)
    with opened(db, as_json=as_json, create=False) as ledger:
        hits = ledger.search(text, scope=scope, kinds=kind or None, valid_at=valid_at,  # type: ignore[arg-type]
                             known_at=known_at, limit=limit, match="any" if any_word else "all")
    if as_json:
        print_json(hits)
        return
    table = Table(title=f"{len(hits)} hit(s) for {escape(text)!r}")
    for column in ("kind", "id", "score", "snippet", "from"):
        table.add_column(column)
    for hit in hits:
        origin = (f"claim {hit.claim_id}" if hit.kind in ("claim", "evidence") else "") + (
            f" · {hit.source_title or hit.source_uri or f'source {hit.source_id}'}"
            + (f" p.{hit.page}" if hit.page else "") if hit.source_id else "")
        table.add_row(hit.kind, str(hit.id), f"{hit.score:.2f}", escape(hit.snippet), escape(origin.strip(" ·")))
    console.print(table)


def suggest(
    name: str, limit: Annotated[int, typer.Option(help="At most this many suggestions.")] = 5,
    scope: ScopeOption = "default", as_json: JsonOption = False, db: DbOption = None,
) -> None:
    """Known entities and predicates NAME may mean: exact alias, normalized or fuzzy match.

    Example: ledger suggest Tottenahm
    """
    with opened(db, as_json=as_json, create=False) as ledger:
        found = ledger.suggest(name, scope=scope, limit=limit)
    if as_json:
        print_json(found)
        return
    table = Table(title=f"{len(found)} suggestion(s) for {escape(name)!r}")
    for column in ("kind", "name", "score", "why", "matched"):
        table.add_column(column)
    for s in found:
        table.add_row(s.kind, escape(s.name), f"{s.score:.2f}", s.why, escape(s.matched or ""))
    console.print(table)
