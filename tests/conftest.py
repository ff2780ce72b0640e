"""Shared fixtures: a real database per test (a SQLite file, or a fresh PostgreSQL schema when
LEDGER_TEST_BACKEND=postgres), a controllable clock, and sources to cite."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

from typing import Any

import pytest
from sqlalchemy import create_engine, inspect, text
from sqlalchemy.pool import NullPool

from ledger import Ledger
from ledger.db import resolve_url

PG_URL = os.environ.get("LEDGER_TEST_POSTGRES_URL")
BACKEND = os.environ.get("LEDGER_TEST_BACKEND", "sqlite")
REALWORLD = Path(__file__).resolve().parents[2] / "shared" / "realworld"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _need_postgres() -> str:
    if PG_URL:
        return PG_URL
    message = "LEDGER_TEST_POSTGRES_URL is not set; start a server (.ci/postgres.sh start) to run this"
    if os.environ.get("CI"):
        pytest.fail(f"CI is set but {message}")
    pytest.skip(message)


class PostgresSchemas:
    """Hands out empty schemas on the test server, dropped again at teardown."""

    def __init__(self, url: str) -> None:
        import psycopg

        self.url = url
        try:
            self._admin = psycopg.connect(url.replace("+psycopg", ""), autocommit=True, connect_timeout=10)
        except psycopg.OperationalError as exc:
            pytest.fail(f"cannot reach PostgreSQL at {url}: {exc}")
        self._made: list[str] = []

    def new_url(self) -> str:
        name = f"t_{uuid.uuid4().hex[:16]}"
        self._admin.execute(f'CREATE SCHEMA "{name}"')
        self._made.append(name)
        separator = "&" if "?" in self.url else "?"
        return f"{self.url}{separator}options=-csearch_path%3D{name}"

    def close(self) -> None:
        for name in self._made:
            self._admin.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')
        self._admin.close()


@pytest.fixture(scope="session")
def pg_schemas() -> Iterator[PostgresSchemas]:
    schemas = PostgresSchemas(_need_postgres())
    yield schemas
    schemas.close()


@pytest.fixture
def pg_url(pg_schemas: PostgresSchemas) -> str:
    """A fresh, empty PostgreSQL schema (tests marked postgres)."""
    return pg_schemas.new_url()


@pytest.fixture
def make_db_url(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[object]:
    """A factory of fresh database URLs on the backend under test."""
    counter = iter(range(10**6))

    def make() -> str:
        if BACKEND == "postgres":
            return request.getfixturevalue("pg_schemas").new_url()  # type: ignore[no-any-return]
        return str(tmp_path / f"ledger-{next(counter)}.db")

    yield make


@pytest.fixture
def db_url(make_db_url) -> str:  # type: ignore[no-untyped-def]
    """A fresh database on the backend under test (SQLite file by default)."""
    return make_db_url()  # type: ignore[no-any-return]


class TestClock:
    """A clock tests move by hand; starts 2026-01-01 UTC."""

    __test__ = False

    def __init__(self, start: datetime = datetime(2026, 1, 1, tzinfo=UTC)) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def set(self, value: str | datetime) -> None:
        self.now = value if isinstance(value, datetime) else datetime.fromisoformat(value).replace(tzinfo=UTC)

    def tick(self, **delta: float) -> None:
        self.now += timedelta(**delta) if delta else timedelta(seconds=1)


@pytest.fixture
def clock() -> TestClock:
    return TestClock()


def table_dump(url: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, ordered by its first column, through a separate engine."""
    engine = create_engine(resolve_url(url), poolclass=NullPool)
    try:
        with engine.connect() as connection:
            names = sorted(inspect(connection).get_table_names())
            return {name: [tuple(row) for row in connection.execute(text(f'SELECT * FROM "{name}" ORDER BY 1'))]
                    for name in names}
    finally:
        engine.dispose()


def assert_consistent(ledger: Ledger) -> None:
    """The checker finds nothing wrong (run on every database the suite builds)."""
    report = ledger.check()
    assert report.ok, "\n".join(f"{f.check}: {f.detail}" for f in report.findings)


@pytest.fixture
def ledger(db_url: str, clock: TestClock) -> Iterator[Ledger]:
    with Ledger.open(db_url, clock=clock) as opened:
        yield opened
        assert_consistent(opened)


def pytest_report_header() -> str:
    return f"ledger backend: {BACKEND}" + (f" (postgres at {PG_URL})" if PG_URL else "")
