"""The walk reads each entity's claims through an index (migration 0007), never the scope's claims:
SQLite plans without statistics and would otherwise take ``scope = ?`` or ``object_id IS NOT NULL``."""

from __future__ import annotations

from pathlib import Path

import pytest

from ledger import Ledger, queries

WALKS = ("neighbourhood", "paths")


@pytest.fixture
def filled(tmp_path: Path) -> Ledger:
    """A SQLite ledger (plans are SQLite's) with entity and value claims in two scopes."""
    ledger = Ledger.open(tmp_path / "ledger.db")
    for scope in ("default", "other"):
        source = ledger.add_source(text="Ann works for Acme. Bob works for Acme. Ann is 40.", scope=scope)
        for name in ("Ann", "Bob"):
            ledger.assert_claim(name, "employer", "Acme", scope=scope,
                                evidence=[ledger.cite(source, f"{name} works for Acme")])
        ledger.assert_claim("Ann", "age", value=40, scope=scope, evidence=[ledger.cite(source, "Ann is 40")])
    return ledger


def plan(ledger: Ledger, name: str) -> list[str]:
    """SQLite's query plan of a named statement (every parameter NULL: plans do not depend on values)."""
    with ledger._db.engine.connect() as connection:
        sql = queries.statement(name).compile(connection).string
        return [row[3] for row in connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}", (None,) * sql.count("?"))]


@pytest.mark.parametrize("name", WALKS)
def test_each_step_of_the_walk_searches_indexes(filled: Ledger, name: str) -> None:
    steps = plan(filled, name)
    claims = [step for step in steps if step.split()[1:2] == ["c"]]
    assert claims and set(claims) == {"SEARCH c USING COVERING INDEX ix_claims_entity_subject (subject_id=?)",
                                      "SEARCH c USING COVERING INDEX ix_claims_entity_object (object_id=?)"}, steps
    versions = [step for step in steps if step.split()[1:2] == ["v"]]
    assert versions and all(step.startswith("SEARCH v USING COVERING INDEX ix_claim_versions_slice (claim_id=?")
                            for step in versions), steps
    assert not [step for step in steps if step.startswith("SCAN") and step.split()[1] in ("c", "v", "m", "o")], steps
    graph = filled.neighborhood("Ann", depth=2, statuses=["reported"])  # and the statement still answers
    assert sorted(data["name"] for _, data in graph.nodes(data=True)) == ["Acme", "Ann", "Bob"]


def test_the_walk_is_a_coroutine_not_a_materialized_table(filled: Ledger) -> None:
    """Stopping the reader stops the walk only if SQLite runs the CTE as a coroutine."""
    steps = plan(filled, "neighbourhood")
    assert "CO-ROUTINE walk" in steps and not [s for s in steps if s.startswith("MATERIALIZE")], steps
