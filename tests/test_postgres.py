"""PostgreSQL specifics, always against a real server (LEDGER_TEST_POSTGRES_URL)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from ledger import Ledger, StoreError

from .conftest import PG_URL, table_dump

pytestmark = pytest.mark.postgres


def test_a_connection_dropped_mid_write_fails_clearly_writes_nothing_and_the_next_call_reconnects(pg_url: str) -> None:
    import psycopg

    admin = psycopg.connect((PG_URL or "").replace("+psycopg", ""), autocommit=True)
    armed = {"kill": False}

    def clock() -> datetime:
        # Called inside the write transaction, after the clock row is locked: the moment to cut it.
        if armed["kill"]:
            armed["kill"] = False
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                          "WHERE application_name = 'ledger-victim' AND pid <> pg_backend_pid()")
        return datetime.now(UTC)

    victim = f"{pg_url}&application_name=ledger-victim"
    with Ledger.open(victim, clock=clock) as ledger:
        source = ledger.add_source(text="Kraków is in Poland. Lviv is in Ukraine.")
        ledger.assert_claim("Kraków", "country", "Poland", evidence=[ledger.cite(source, "Poland")])
        before = table_dump(pg_url)
        armed["kill"] = True
        with pytest.raises(StoreError, match="nothing was written"):
            ledger.assert_claims([{"subject": "Lviv", "predicate": "country", "object": "Ukraine",
                                   "evidence": [ledger.cite(source, "Ukraine")]}])
        assert table_dump(pg_url) == before
        again = ledger.assert_claim("Lviv", "country", "Ukraine", evidence=[ledger.cite(source, "Ukraine")])
        assert [c.id for c in ledger.claims("Lviv")] == [again.id]
        assert ledger.check().ok
    admin.close()


def test_an_unreachable_server_is_a_clear_store_error() -> None:
    with pytest.raises(StoreError, match="cannot open the ledger"):
        Ledger.open("postgresql+psycopg://nobody@127.0.0.1:9/none?connect_timeout=2")
