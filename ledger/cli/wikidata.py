"""``ledger import wikidata`` and ``ledger predicates``: the vocabulary and the Wikidata import."""

from __future__ import annotations

from pathlib import Path

from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ledger.cli.common import DbOption, JsonOption, ScopeOption, console, opened
from ledger.cli.render import print_json


def import_wikidata(files: list[Path], *, scope: str, as_json: bool, db: str | None) -> None:
    """Import Wikidata entity JSON (``ledger import wikidata FILE...``): one claim per statement."""
    reports = []
    with opened(db, as_json=as_json) as ledger:
        with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.fields[counts]}"),
                      TimeElapsedColumn(), console=console, disable=as_json, transient=False) as bar:
            for path in files:
                task = bar.add_task(path.name, total=None, counts="")

                def advance(entities: int, statements: int, task: object = task) -> None:
                    bar.update(task, counts=f"{entities:,} entities, {statements:,} statements")  # type: ignore[arg-type]

                reports.append((path, ledger.import_wikidata(path, scope=scope, progress=advance)))
                bar.update(task, total=1, completed=1)
    if as_json:
        print_json([{"file": str(path), **{k: getattr(r, k) for k in (
            "entities", "properties", "statements", "claims", "retracted", "removed", "skipped")}}
            for path, r in reports])
        return
    for path, r in reports:
        console.print(f"{path}: {r.entities:,} entities ({r.properties:,} properties), {r.statements:,} statements → "
                      f"{r.claims:,} claims; {r.retracted:,} deprecated retracted, {r.removed:,} removed, "
                      f"{r.skipped:,} without a value skipped")


def predicates(scope: ScopeOption = "default", as_json: JsonOption = False, db: DbOption = None) -> None:
    """The predicates in force in a scope: names, aliases, Wikidata ids, cardinality, origin.

    Example: ledger predicates --scope research
    """
    with opened(db, as_json=as_json, create=False) as ledger:
        found = ledger.predicates(scope=scope)
    if as_json:
        print_json(found)
        return
    table = Table(title=f"{len(found)} predicate(s) in {scope}")
    for column in ("name", "wikidata", "cardinality", "object", "origin", "aliases"):
        table.add_column(column)
    for p in found:
        table.add_row(p.name, p.wikidata or "", p.cardinality, p.object_kind, p.origin or "", ", ".join(p.aliases))
    console.print(table)
