"""Statements the API runs on every call read the rows they need through an index, not every
claim of the scope: SQLite plans without statistics and takes ``scope = ?`` for ten rows, so
a statement naming the scope and a selective condition on another index searches the scope."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ledger import Ledger, reads
from ledger.store import driver


@pytest.fixture
def filled(tmp_path: Path) -> Any:
    """A SQLite ledger (plans are SQLite's) with claims in two scopes."""
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        for scope in ("default", "other"):
            source = ledger.add_source(text="Ann works for Acme. Bob works for Acme.", scope=scope)
            for name in ("Ann", "Bob"):
                ledger.assert_claim(name, "employer", "Acme", scope=scope,
                                    evidence=[ledger.cite(source, f"{name} works for Acme")])
        yield ledger


def plan(ledger: Ledger, statement: Any, **given: Any) -> list[str]:
    """SQLite's query plan of a prebuilt statement, its parameters given by name (0 if not)."""
    with ledger._db.engine.connect() as connection:
        sql, names, _, fixed, _ = driver._plan(statement, connection.dialect)
        values = {**fixed, **given}
        return [row[3] for row in connection.exec_driver_sql(
            f"EXPLAIN QUERY PLAN {sql}", tuple(values.get(name, 0) for name in names))]


def test_a_claim_by_id_is_read_by_its_id_not_among_its_scopes_claims(filled: Ledger) -> None:
    """Every assert_claim, claim(), confirm(), dispute(), retract(), supersede() and explain()
    reads the claim's versions by id; searching the scope's claims for it grew with the scope."""
    steps = plan(filled, reads._versions_statement(), scope="default", ids="[1]")
    claims = [step for step in steps if " claims " in f" {step} "]
    assert claims == ["SEARCH claims USING INTEGER PRIMARY KEY (rowid=?)"], steps
    [claim] = filled.claims("Ann", "employer")
    assert filled.claim(claim.id).id == claim.id
    with filled._db.engine.connect() as connection:  # the scope still filters
        assert reads.claim_versions(connection, [claim.id], "other") == []
        assert [c.id for c in reads.claim_versions(connection, [claim.id], "default")] == [claim.id]


def test_claims_about_an_object_are_found_by_the_object_index(filled: Ledger) -> None:
    """claims(object=...) searched every claim of the scope for those with the object."""
    for kind, given in (("name", {"object_name": "acme"}), ("id", {"object_id": 3})):
        shape = (None, False, kind, "at", False, tuple(sorted(reads.VISIBLE_STATUSES)))
        steps = plan(filled, reads._claims_statement(shape), scope="default", **given)
        claims = [step for step in steps if step.startswith(("SEARCH claims", "SCAN claims"))]
        # the graph walk's object index (migration 0007: object_id first, entity-valued claims) is
        # the one SQLite takes since it exists; either is a search by the object
        assert claims == ["SEARCH claims USING INDEX ix_claims_entity_object (object_id=?)"], steps
    acme = filled.resolve("Acme")
    assert acme is not None
    assert sorted(c.subject for c in filled.claims(object="Acme")) == ["Ann", "Bob"]
    assert sorted(c.subject for c in filled.claims(object=acme.id)) == ["Ann", "Bob"]
    assert filled.claims(object=acme.id, scope="other") == []  # another scope's entity: none of its claims
    assert len(filled.claims(object="Acme", scope="other")) == 2


def test_claims_of_a_predicate_are_found_by_the_predicate_index(filled: Ledger) -> None:
    """claims(predicate=...) without a subject searched every claim of the scope."""
    shape = (None, True, None, "at", False, tuple(sorted(reads.VISIBLE_STATUSES)))
    steps = plan(filled, reads._claims_statement(shape), scope="default", predicate="employer")
    claims = [step for step in steps if step.startswith(("SEARCH claims", "SCAN claims"))]
    assert claims == [
        "SEARCH claims USING INDEX ix_claims_scope_predicate_subject (scope=? AND predicate=?)"], steps
    source = filled.add_source(text="Ann lives in Oslo. Bob lives in Bergen.")
    for name, city in (("Bob", "Bergen"), ("Ann", "Oslo")):
        filled.assert_claim(name, "lives_in", city, evidence=[filled.cite(source, f"{name} lives in {city}")])
    # in subject order, as every read by predicate returned them
    assert [(c.subject, c.object) for c in filled.claims(predicate="lives_in")] == [("Ann", "Oslo"), ("Bob", "Bergen")]
    assert [c.subject for c in filled.claims(predicate="employer")] == ["Ann", "Bob"]
    assert filled.claims(predicate="lives_in", scope="other") == []


def test_a_merge_or_confirmation_reads_only_the_claims_of_its_subjects(filled: Ledger) -> None:
    """merge_entities() and confirm() look for the claims of the merged subjects that now
    overlap; the subjects' ids alone read every claim of every scope."""
    from ledger.claims import status

    steps = plan(filled, status._SUBJECT_KEYS, scope="default", ids="[1]")
    claims = [step for step in steps if step.startswith(("SEARCH claims", "SCAN claims"))]
    assert claims == [
        "SEARCH claims USING COVERING INDEX ix_claims_scope_subject_predicate (scope=? AND subject_id=?)"], steps


def test_a_merge_that_would_give_a_functional_predicate_two_values_is_still_refused(tmp_path: Path) -> None:
    from ledger import Conflict

    with Ledger.open(tmp_path / "ledger.db") as ledger:
        source = ledger.add_source(text="Ann is 30. Anna is 31.")
        ledger.assert_claim("Ann", "age", value=30, evidence=[ledger.cite(source, "Ann is 30")])
        ledger.assert_claim("Anna", "age", value=31, evidence=[ledger.cite(source, "Anna is 31")])
        with pytest.raises(Conflict, match="two undisputed values"):
            ledger.merge_entities("Ann", "Anna")
        assert ledger.resolve("Anna").merged_into is None  # type: ignore[union-attr]


def test_stale_evidence_reads_the_rows_flagged_stale_not_the_scopes_evidence(tmp_path: Path) -> None:
    """stale_evidence(scope) searched the evidence of every claim of the scope for the few rows
    flagged stale; an index holds only those now, and each scope gets its own."""
    from ledger import queries

    with Ledger.open(tmp_path / "ledger.db") as ledger:
        for scope in ("default", "other"):
            page = ledger.add_source(text=f"In {scope} Ann works for Acme.", uri="https://example.org/a", scope=scope)
            ledger.assert_claim("Ann", "employer", "Acme", scope=scope,
                                evidence=[ledger.cite(page, "Ann works for Acme")])
            ledger.add_source(text=f"In {scope} nobody works.", uri="https://example.org/a", scope=scope)
        steps = plan(ledger, queries.statement("stale_evidence"), scope="default")
        assert steps[0] == "SCAN e USING INDEX ix_evidence_stale_claim_id", steps
        assert not any("claims" in step and "scope" in step for step in steps), steps
        for scope in ("default", "other"):
            [stale] = ledger.stale_evidence(scope=scope)
            assert ledger.source(stale.source_id).scope == scope
