"""The facade's contradiction calls: list contradictions, resolve one (docs/contradictions.md)."""

from __future__ import annotations

from sqlalchemy import Connection

from ledger import contradictions, naming, resolution, store, validate
from ledger.contradictions import Contradiction, Wanted
from ledger.errors import InvalidInput
from ledger.facets.base import Facet
from ledger.resolution import Others
from ledger.timeline import TimeInput
from ledger.validate import ClaimRef, EntityRef


class ContradictionCalls(Facet):
    """Contradictions: which claims disagree, why, on what evidence; and their resolution."""

    def contradictions(self, *, scope: str = "default", valid_at: TimeInput | None = None,
                       known_at: TimeInput | None = None, subject: EntityRef | None = None,
                       predicate: str | None = None, include_resolved: bool = False) -> list[Contradiction]:
        """The contradictions open at ``known_at`` (default now), about ``valid_at`` if given;
        with ``include_resolved`` also those resolved by then, with their resolution."""
        scope = validate.check_scope(scope)
        valid = validate.moment(valid_at, "valid_at")
        known = validate.moment(known_at, "known_at") or self.now()
        subject_ref = validate.entity_ref(subject)
        chosen = validate.optional_predicate(predicate)
        if not isinstance(include_resolved, bool):
            raise InvalidInput(f"include_resolved must be True or False; got {include_resolved!r}")

        def read(connection: Connection) -> list[Contradiction]:
            root = None
            if subject_ref is not None:
                root = _root(connection, subject_ref, scope)
                if root is None:
                    return []
            return contradictions.find(connection, Wanted(scope, known, valid, root, chosen, include_resolved))

        return self._read(read)

    def resolve_contradiction(self, contradiction: Contradiction | str, *, keep: ClaimRef, reason: str,
                              actor: str | None = None, others: Others = "superseded") -> Contradiction:
        """Resolve an open contradiction: ``keep`` is confirmed, the other sides become ``others``
        ("superseded" by it, or "retracted"); returns it with its ``resolution``."""
        given = contradiction.id if isinstance(contradiction, Contradiction) else contradiction
        contradictions.parse_id(given)
        kept = validate.claim_id(keep)
        if not isinstance(reason, str) or not reason.strip():
            raise InvalidInput("resolve_contradiction() needs a reason saying why this side is kept")
        why = validate.check_reason(reason)
        assert why is not None
        who = validate.check_actor(actor)
        what = resolution.check_others(others)
        return self._write(lambda connection, now, ids: resolution.resolve(
            connection, ids, now, contradiction_id=str(given), keep=kept, reason=why, actor=who, others=what))


def _root(connection: Connection, subject: int | str, scope: str) -> int | None:
    """The entity (after merges) a subject filter names in ``scope``, or None when none does."""
    if isinstance(subject, str):
        found = naming.resolve(connection, subject, scope)
        return None if found is None else int(found.id)
    row = store.entity_row(connection, subject)
    if row["scope"] != scope:
        return None
    return int(row["merged_into"] or row["id"])
