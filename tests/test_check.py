"""The consistency checker finds each kind of damage, through the API and the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from typer.testing import CliRunner

from ledger import Ledger
from ledger.cli import app


def damage(ledger: Ledger, statement: str) -> None:
    engine = create_engine(ledger.url)
    with engine.begin() as connection:
        connection.execute(text(statement))
    engine.dispose()


@pytest.fixture
def filled(db_url: str, clock) -> Ledger:
    ledger = Ledger.open(db_url, clock=clock)
    doc = ledger.add_source(text="Vienna is the capital of Austria. Bern is the capital of Switzerland.")
    ledger.assert_claim("Austria", "capital", "Vienna", evidence=[ledger.cite(doc, "Vienna is the capital")])
    clock.tick()
    ledger.assert_claim("Switzerland", "capital", "Bern", evidence=[ledger.cite(doc, "Bern is the capital")])
    clock.tick()
    ledger.assert_claim("Austria", "population", value=9_100_000, evidence=[ledger.cite(doc, "Austria")])
    clock.tick()
    ledger.assert_claim("Austria", "population", value=9_200_000, valid_from="2025",
                        evidence=[ledger.cite(doc, "capital of Austria")])
    return ledger


DAMAGE = [
    ("DELETE FROM evidence WHERE claim_id = 1", "claims have supporting evidence"),
    ("UPDATE evidence SET excerpt = 'Vienna is the capitol' WHERE claim_id = 1", "excerpts slice out"),
    ("UPDATE claim_versions SET invalidated_at = NULL", "one current version"),
    ("INSERT INTO claim_versions (id, claim_id, status, confidence, recorded_at) "
     "SELECT 100, claim_id, 'confirmed', 0.5, recorded_at FROM claim_versions WHERE claim_id = 3 AND invalidated_at IS NULL",
     "do not overlap in system time"),
    ("INSERT INTO claims (id, scope, subject_id, predicate, value, datatype, qualifiers, recorded_at) "
     "SELECT 50, scope, subject_id, predicate, '1', 'integer', qualifiers, recorded_at FROM claims WHERE id = 3",
     "one undisputed value"),
    ("UPDATE sources SET scope = 'elsewhere'", "another scope"),
]


@pytest.mark.parametrize(("statement", "check"), DAMAGE)
def test_each_kind_of_damage_is_found(filled: Ledger, statement: str, check: str) -> None:
    assert filled.check().ok
    if "INSERT INTO claims" in statement:  # a second value needs its version and evidence too
        damage(filled, statement)
        damage(filled, "INSERT INTO claim_versions (id, claim_id, status, confidence, recorded_at) "
                       "SELECT 99, 50, 'reported', 0.5, recorded_at FROM claim_versions WHERE claim_id = 3 AND invalidated_at IS NULL")
        damage(filled, "INSERT INTO evidence (id, claim_id, source_id, relation, excerpt, char_start, char_end, "
                       "locator, anchor_method, anchor_score, recorded_at) SELECT 99, 50, source_id, relation, "
                       "excerpt, char_start, char_end, locator, anchor_method, anchor_score, recorded_at "
                       "FROM evidence WHERE claim_id = 3")
    else:
        damage(filled, statement)
    report = filled.check()
    assert not report.ok
    assert any(check in f.check for f in report.findings), report.findings
    filled.close()


def test_cli_check_exits_non_zero_on_findings(tmp_path: Path, clock) -> None:
    path = tmp_path / "c.db"
    with Ledger.open(path, clock=clock) as ledger:
        doc = ledger.add_source(text="Oslo is in Norway.")
        ledger.assert_claim("Oslo", "country", "Norway", evidence=[ledger.cite(doc, "Norway")])
    runner = CliRunner()
    result = runner.invoke(app, ["check", "--db", str(path)])
    assert result.exit_code == 0 and "integrity_check" in result.stdout
    with Ledger.open(path) as ledger:
        damage(ledger, "DELETE FROM evidence")
    result = runner.invoke(app, ["check", "--db", str(path)])
    assert result.exit_code == 1 and "no supporting evidence" in result.stdout
