"""A graph from ``ledger.graph`` written out: GraphML and node-link JSON (networkx's writers).

Times become ISO 8601 strings and unknown values (None) are left out, since GraphML has no null;
graph-level lists (predicates, statuses) are written comma-separated in GraphML.
"""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ledger.errors import InvalidInput

if TYPE_CHECKING:
    import networkx

ExportFormat = Literal["graphml", "json"]
FORMATS: tuple[ExportFormat, ...] = ("graphml", "json")


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return value


def _attributes(attributes: dict[str, Any], *, lists: bool) -> dict[str, Any]:
    return {key: value if lists and isinstance(value, list) else _plain(value)
            for key, value in attributes.items() if value is not None}


def portable(graph: networkx.MultiDiGraph, *, lists: bool = False) -> networkx.MultiDiGraph:
    """A copy with only strings, numbers and booleans as attributes (lists kept if ``lists``)."""
    import networkx

    copy = networkx.MultiDiGraph(**_attributes(dict(graph.graph), lists=lists))
    copy.add_nodes_from((node, _attributes(data, lists=lists)) for node, data in graph.nodes(data=True))
    copy.add_edges_from((u, v, key, _attributes(data, lists=lists))
                        for u, v, key, data in graph.edges(keys=True, data=True))
    return copy


def node_link(graph: networkx.MultiDiGraph) -> dict[str, Any]:
    """The graph as node-link data (``nodes``, ``edges`` with ``source``, ``target``, ``key``), JSON-ready."""
    import networkx

    data: dict[str, Any] = networkx.node_link_data(portable(graph, lists=True), edges="edges")
    return data


def write_graph(graph: networkx.MultiDiGraph, path: str | os.PathLike[str], *, format: ExportFormat) -> Path:
    """Write ``graph`` to ``path`` as GraphML or node-link JSON; the path written."""
    import networkx

    if format not in FORMATS:
        raise InvalidInput(f"format must be one of {', '.join(FORMATS)}; got {format!r}")
    target = Path(path)
    if format == "graphml":
        networkx.write_graphml(portable(graph), target)
    else:
        target.write_text(json.dumps(node_link(graph), ensure_ascii=False, indent=1), encoding="utf-8")
    return target
