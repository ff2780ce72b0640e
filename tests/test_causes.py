"""Causes are stored structured (kind, related claim, detail) and rendered, never parsed; migration
0005 converts the sentences earlier schemas stored, and a downgrade renders them back."""

from __future__ import annotations

import importlib.util
from types import ModuleType
from typing import Any

from alembic import command
from hypothesis import given
from hypothesis import strategies as st

from ledger import Ledger
from ledger.db import make_engine, resolve_url
from ledger.migrate import alembic_config, migrations_dir
from ledger.records import Cause, ClaimId, render_cause
from ledger.store import cause_columns


def _migration() -> ModuleType:
    path = migrations_dir() / "versions" / "0005_structured_causes.py"
    spec = importlib.util.spec_from_file_location("migration_0005", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MIGRATION = _migration()
PARSE = MIGRATION.parse
ids = st.integers(1, 10**9).map(ClaimId)
ON_ANOTHER = st.sampled_from(["closed-by", "superseded-by", "corrected-by", "contradicted-by", "retracted-with",
                              "restored-after", "contradicted-in-source", "coalesced-into"])
ONE_EFFECT = st.one_of(
    st.tuples(st.sampled_from(["backfilled-before", "updates", "corrects", "conflicts-with", "conflicts-in-source"]),
              ids).map(lambda e: [e]),
    st.just([("supersedes", None)]),
    st.tuples(ids, ids).map(lambda pair: [("resumes", pair[0]), ("resumes-after", pair[1])]),
)
CAUSES = st.one_of(
    st.sampled_from([Cause("asserted"), Cause("corroborated"), Cause("confirmed"), Cause("disputed"),
                     Cause("retracted")]),
    st.builds(lambda kind, claim: Cause(kind, claim), ON_ANOTHER, ids),
    st.builds(lambda n: Cause("corroborated", sources=n), st.integers(1, 50)),
    st.builds(lambda n: Cause("extended", sources=n), st.one_of(st.none(), st.integers(1, 50))),
    st.lists(ids, min_size=1, max_size=4).map(lambda c: Cause("settled", effects=tuple(("superseded", i) for i in c))),
    st.lists(ONE_EFFECT, min_size=1, max_size=4).map(
        lambda groups: Cause("asserted", effects=tuple(e for group in groups for e in group))),  # type: ignore[misc]
)


@given(CAUSES)
def test_every_sentence_an_earlier_schema_stored_converts_to_the_columns_written_now(cause: Cause) -> None:
    columns = cause_columns([cause])
    stored = (columns["cause"][0], columns["cause_claim_id"][0], columns["cause_detail"][0])
    assert PARSE(render_cause(cause)) == stored
    assert MIGRATION.render(*stored) == render_cause(cause)  # the downgrade's own copy renders the same


def test_unknown_sentences_stop_the_upgrade() -> None:
    for text in ("asserted; frobnicates claim 3", "closed by a dream (claim 3)", "something else"):
        try:
            PARSE(text)
        except ValueError:
            continue
        raise AssertionError(f"{text!r} was converted")


def _lifecycle(ledger: Ledger, clock: Any) -> None:
    """Claims whose versions carry most kinds of cause."""
    a = ledger.add_source(text="Rent is 1000 from 2020. Rent is 900 in 2024. Rent is 950 from 2027.",
                          uri="doc:a", publisher="A")
    b = ledger.add_source(text="Rent is 1000 from 2020. Rent is 800 from 2027.", uri="doc:b", publisher="B")
    old = ledger.assert_claim("flat", "rent", value=1000, valid_from="2020-01-01", evidence=[ledger.cite(a, "Rent is 1000")])
    clock.tick()
    ledger.assert_claim("flat", "rent", value=1000, valid_from="2020-01-01", evidence=[ledger.cite(b, "Rent is 1000")])
    clock.tick()
    works = ledger.assert_claim("flat", "rent", value=900, valid_from="2024-01-01", valid_until="2025-01-01",
                                evidence=[ledger.cite(a, "Rent is 900")])
    clock.tick()
    ledger.assert_claim("flat", "rent", value=950, valid_from="2027-01-01", evidence=[ledger.cite(a, "Rent is 950")])
    clock.tick()
    ledger.assert_claim("flat", "rent", value=800, valid_from="2027-01-01", evidence=[ledger.cite(b, "Rent is 800")])
    clock.tick()
    ledger.retract(works, reason="never happened")
    clock.tick()
    ledger.confirm(old)
    clock.tick()
    fee = ledger.assert_claim("flat", "fee", value=10, valid_from="2020-01-01", evidence=[ledger.cite(a, "Rent is 1000")])
    clock.tick()
    ledger.assert_claim("flat", "fee", value=9, valid_from="2024-01-01", valid_until="2025-01-01",
                        evidence=[ledger.cite(a, "Rent is 900")])
    clock.tick()
    ledger.retract(fee, reason="not a fee")  # takes its continuation after 2025 with it


def test_a_downgrade_and_an_upgrade_keep_every_cause(db_url: str, clock: Any) -> None:
    with Ledger.open(db_url, clock=clock) as ledger:
        _lifecycle(ledger, clock)
        before = [(v.id, v.version_id, v.cause) for audit in ledger.audit() for v in audit.versions]
    assert {cause.kind for _, _, cause in before if cause} >= {
        "asserted", "corroborated", "closed-by", "contradicted-by", "confirmed", "restored-after", "retracted-with"}
    engine = make_engine(resolve_url(db_url))
    with engine.connect() as connection:
        if connection.dialect.name == "sqlite":  # SQLite copies the table: see ledger.migrate.upgrade
            connection.connection.driver_connection.execute("PRAGMA foreign_keys = OFF")  # type: ignore[union-attr]
        with connection.begin():
            command.downgrade(alembic_config(connection), "0004")
    engine.dispose()
    with Ledger.open(db_url, clock=clock) as ledger:  # upgrades again
        assert [(v.id, v.version_id, v.cause) for audit in ledger.audit() for v in audit.versions] == before
