"""The facade's search calls: full-text search, name suggestions, rebuilding the index."""

from __future__ import annotations

from collections.abc import Iterable

from ledger import search as searching
from ledger import validate
from ledger.entities import check_text
from ledger.errors import InvalidInput
from ledger.facets.base import Facet
from ledger.search import HIT_KINDS, HitKind, MatchMode, SearchHit, Suggestion
from ledger.timeline import TimeInput
from ledger.validate import check_scope

MAX_QUERY_LENGTH = 1000
MAX_RESULTS = 1000


class SearchCalls(Facet):
    """``search``, ``suggest`` and ``rebuild_search_index`` (docs/search.md)."""

    def search(self, text: str, *, scope: str = "default", kinds: Iterable[HitKind] | None = None,
               valid_at: TimeInput | None = None, known_at: TimeInput | None = None, limit: int = 10,
               match: MatchMode = "all") -> list[SearchHit]:
        """Ranked hits for ``text`` over names, claims, excerpts and passages of ``scope`` as of a time."""
        check_text(text, what="search text", limit=MAX_QUERY_LENGTH, one_line=False)
        scope = check_scope(scope)
        wanted = _kinds(kinds)
        count = _limit(limit)
        if match not in ("all", "any"):
            raise InvalidInput(f"match must be 'all' (every word) or 'any' (some word), not {match!r}")
        known = validate.moment(known_at, "known_at") or self.now()
        valid = validate.moment(valid_at, "valid_at") or known
        return self._read(lambda connection: searching.search(
            connection, text, scope=scope, kinds=wanted, valid_at=valid, known_at=known, limit=count, match=match))

    def suggest(self, name: str, *, scope: str = "default", limit: int = 5) -> list[Suggestion]:
        """Entities and predicates ``name`` may mean (exact alias, normalized or fuzzy), with scores."""
        check_text(name, what="name", limit=MAX_QUERY_LENGTH, one_line=False)
        scope = check_scope(scope)
        count = _limit(limit)
        return self._read(lambda connection: searching.suggest(connection, name, scope=scope, limit=count))

    def rebuild_search_index(self) -> None:
        """Rebuild the search index from the tables (it is kept in step on every write; this repairs it)."""
        self._write(lambda connection, now, ids: searching.rebuild(connection))


def _kinds(kinds: Iterable[HitKind] | None) -> tuple[HitKind, ...]:
    if kinds is None:
        return HIT_KINDS
    if isinstance(kinds, str):
        kinds = (kinds,)  # type: ignore[assignment]
    wanted = tuple(kinds)
    unknown = [k for k in wanted if k not in HIT_KINDS]
    if unknown or not wanted:
        raise InvalidInput(f"kinds must name some of {list(HIT_KINDS)}; got {list(wanted)}")
    return wanted


def _limit(limit: object) -> int:
    if type(limit) is not int or not 1 <= limit <= MAX_RESULTS:
        raise InvalidInput(f"limit must be a whole number from 1 to {MAX_RESULTS}, not {limit!r}")
    return limit
