"""Graph commands: a neighbourhood, the paths between two entities, a scope's graph exported, audit questions."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

import typer
from rich.markup import escape
from rich.table import Table

from ledger import InvalidInput, Ledger
from ledger.cli.common import DbOption, JsonOption, ScopeOption, console, fail, opened
from ledger.cli.render import print_json, when

ValidAt = Annotated[str | None, typer.Option(help="World time: what was true then (default now).")]
KnownAt = Annotated[str | None, typer.Option(help="System time: what the ledger said then (default now).")]
Predicates = Annotated[list[str] | None, typer.Option("--predicate", help="Only these predicates (repeat the option).")]
DirectionOption = Annotated[str, typer.Option(help="out (subject to object), in, or both.")]
AllStatuses = Annotated[bool, typer.Option("--all", help="Include retracted claims.")]
_ALL = ("reported", "confirmed", "disputed", "retracted", "superseded")

def _edges_table(graph: Any, title: str) -> Table:
    names = {node: data.get("name", str(node)) for node, data in graph.nodes(data=True)}
    table = Table(title=title)
    for column in ("claim", "subject", "predicate", "object", "status", "valid from", "valid until"):
        table.add_column(column)
    for subject, obj, key, data in sorted(graph.edges(keys=True, data=True), key=lambda e: e[2]):
        table.add_row(str(key), escape(names[subject]), escape(data["predicate"]), escape(names[obj]), data["status"],
                      when(data["valid_from"]), when(data["valid_until"]))
    return table


def neighborhood(
    entity: Annotated[str, typer.Argument(help="Entity name, alias or id.")],
    depth: Annotated[int, typer.Option(help="Hops from the entity (0 to 10).")] = 2,
    valid_at: ValidAt = None, known_at: KnownAt = None, predicate: Predicates = None,
    direction: DirectionOption = "both", all_statuses: AllStatuses = False,
    max_nodes: Annotated[int, typer.Option(help="Stop (truncated) past this many entities.")] = 10_000,
    time_budget: Annotated[float, typer.Option(help="Stop (truncated) after this many seconds.")] = 10.0,
    scope: ScopeOption = "default", as_json: JsonOption = False, db: DbOption = None,
) -> None:
    """The entities within --depth claims of ENTITY, and the claims between them, as of a time.

    Example: ledger neighborhood "Acme" --depth 2 --valid-at 2024-06-01 --json
    """
    with opened(db, as_json=as_json, create=False) as ledger:
        graph = ledger.neighborhood(int(entity) if entity.isdigit() else entity, depth=depth, valid_at=valid_at,
                                    known_at=known_at, predicates=predicate, direction=direction,
                                    statuses=_ALL if all_statuses else None, scope=scope, max_nodes=max_nodes,
                                    time_budget=time_budget)
    if as_json:
        print_json(Ledger.node_link(graph))
        return
    console.print(_edges_table(graph, f"{graph.number_of_nodes()} entities, {graph.number_of_edges()} claims"))
    if graph.graph["truncated"]:
        console.print(f"[yellow]truncated:[/] stopped at the {graph.graph['truncated_reason']} bound")


def paths(
    a: Annotated[str, typer.Argument(help="From this entity (name, alias or id).")],
    b: Annotated[str, typer.Argument(help="To this entity.")],
    max_depth: Annotated[int, typer.Option(help="At most this many claims a path.")] = 4,
    valid_at: ValidAt = None, known_at: KnownAt = None, predicate: Predicates = None,
    direction: DirectionOption = "both", limit: Annotated[int, typer.Option(help="At most this many paths.")] = 20,
    scope: ScopeOption = "default", as_json: JsonOption = False, db: DbOption = None,
) -> None:
    """The simple paths between two entities as of a time, shortest first.

    Example: ledger paths "Ann" "Initech" --max-depth 3 --valid-at 2024-06-01
    """
    with opened(db, as_json=as_json, create=False) as ledger:
        found = ledger.paths(*(int(x) if x.isdigit() else x for x in (a, b)), max_depth=max_depth,
                             valid_at=valid_at, known_at=known_at, predicates=predicate, direction=direction,
                             limit=limit, scope=scope)
    if as_json:
        print_json(found)
        return
    for path in found:
        steps = " · ".join(f"{e.subject_id} -{escape(e.predicate)}-> {e.object_id} (claim {e.claim_id})"
                           for e in path.edges)
        console.print(f"{len(path)}: {steps}", highlight=False)
    if not found:
        console.print("no path")


def graph(
    action: Annotated[str, typer.Argument(help="export (the only action).")],
    out: Annotated[Path, typer.Option("--out", help="File to write.")],
    format: Annotated[str, typer.Option("--format", help="graphml or json (node-link).")] = "graphml",
    valid_at: ValidAt = None, known_at: KnownAt = None, predicate: Predicates = None,
    all_statuses: AllStatuses = False, scope: ScopeOption = "default", as_json: JsonOption = False,
    db: DbOption = None,
) -> None:
    """Export the scope's entities and entity-valued claims as of a time to a GraphML or node-link JSON file.

    Example: ledger graph export --format json --out graph.json --valid-at 2024-06-01
    """
    with opened(db, as_json=as_json, create=False) as ledger:
        if action != "export":
            fail(InvalidInput(f"ledger graph takes the action export; got {action!r}"), as_json=as_json)
        if format not in ("graphml", "json"):
            fail(InvalidInput(f"--format must be graphml or json; got {format!r}"), as_json=as_json)
        kind: Literal["graphml", "json"] = "graphml" if format == "graphml" else "json"
        whole = ledger.graph(scope=scope, valid_at=valid_at, known_at=known_at, predicates=predicate,
                             statuses=_ALL if all_statuses else None)
        written = Ledger.write_graph(whole, out, format=kind)
    if as_json:
        print_json({"path": str(written), "format": kind, "entities": whole.number_of_nodes(),
                    "claims": whole.number_of_edges()})
    else:
        console.print(f"wrote {whole.number_of_nodes()} entities and {whole.number_of_edges()} claims to {written}")


def ask(
    question: Annotated[str, typer.Argument(help="current_claims, claims_as_of, audit_view, believed_as_of, "
                                                 "active_claims, relationships_during or changed_after_source.")],
    param: Annotated[list[str] | None, typer.Option("--param", help="NAME=VALUE (repeat): known_at=2024-06-01, "
                                                                    "source_id=3 ...")] = None,
    scope: ScopeOption = "default", as_json: JsonOption = False, db: DbOption = None,
) -> None:
    """Run a named audit question (queries/QUESTION.sql); times default to now.

    Example: ledger ask believed_as_of --param known_at=2024-06-01
    """
    given: dict[str, object] = {}
    for item in param or []:
        name, sep, value = item.partition("=")
        if not sep:
            fail(InvalidInput(f"--param takes NAME=VALUE; got {item!r}"), as_json=as_json)
        given[name] = int(value) if name == "source_id" and value.isdigit() else value
    with opened(db, as_json=as_json, create=False) as ledger:
        rows = ledger.ask(question, scope=scope, **given)
    if as_json:
        print_json(rows)
        return
    table = Table(title=f"{question}: {len(rows)} row(s)")
    for column in ("claim", "subject", "predicate", "object or value", "status", "valid from", "valid until"):
        table.add_column(column)
    for row in rows:
        shown = row["object"] if row["object"] is not None else repr(row["value"])
        table.add_row(str(row["claim_id"]), escape(row["subject"]), escape(row["predicate"]), escape(str(shown)),
                      row["status"], when(row["valid_from"]), when(row["valid_until"]))
    console.print(table)
