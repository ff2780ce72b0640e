"""The Wikidata import of the facade: ``import_wikidata``."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from ledger import store, validate
from ledger.errors import InvalidInput
from ledger.facets.base import Facet
from ledger.interchange.records import WikidataImport
from ledger.interchange.wikidata import EntityPlan, plan_entity, read_entities
from ledger.interchange.wikidata_write import Tally, write_chunk

#: Statements per transaction: large enough for the batch write path, small enough to stream.
CHUNK_STATEMENTS = 20_000


class WikidataCalls(Facet):
    """import_wikidata."""

    def import_wikidata(self, source: str | os.PathLike[str] | Mapping[str, Any] | Sequence[Mapping[str, Any]], *,
                        scope: str = "default", progress: Callable[[int, int], None] | None = None,
                        chunk_statements: int = CHUNK_STATEMENTS) -> WikidataImport:
        """Import Wikidata entity JSON (a file, a dump, or parsed JSON): one claim per statement."""
        scope = validate.check_scope(scope)
        if isinstance(chunk_statements, bool) or not isinstance(chunk_statements, int) or chunk_statements < 1:
            raise InvalidInput(f"chunk_statements must be a positive integer; got {chunk_statements!r}")
        tally = Tally()
        with store.paused_gc():
            for chunk in _chunks((plan_entity(e) for e in read_entities(source)), chunk_statements):
                tally.add(self._write(lambda connection, now, ids, chunk=chunk: write_chunk(  # type: ignore[misc]
                    connection, ids, now, chunk, scope=scope)))
                if progress is not None:
                    progress(tally.entities, tally.statements)
        return WikidataImport(entities=tally.entities, properties=tally.properties, statements=tally.statements,
                              claims=tally.claims, retracted=tally.retracted, removed=tally.removed,
                              skipped=tally.skipped, entity_ids=tuple(tally.entity_ids))


def _chunks(plans: Iterator[EntityPlan], size: int) -> Iterator[list[EntityPlan]]:
    chunk: list[EntityPlan] = []
    count = 0
    for plan in plans:
        if any(p.id == plan.id for p in chunk):  # two revisions of one entity: one after the other
            yield chunk
            chunk, count = [], 0
        chunk.append(plan)
        count += max(1, len(plan.statements))
        if count >= size:
            yield chunk
            chunk, count = [], 0
    if chunk:
        yield chunk
