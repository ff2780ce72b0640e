"""Alembic environment for ledger: the package's metadata on a connection passed in by ledger."""

from __future__ import annotations

from alembic import context

from ledger.db import make_engine
from ledger.migrate import compared
from ledger.model import metadata


def run() -> None:
    connection = context.config.attributes.get("connection")
    if connection is None:
        # Run from the alembic command line: `alembic -x url=sqlite:///ledger.db upgrade head`.
        url = context.get_x_argument(as_dictionary=True).get("url")
        if not url:
            raise SystemExit("pass the database with: alembic -x url=<database url> ...")
        with make_engine(url).begin() as own:  # ledger's engine: the search triggers need ledger_fold
            _migrate(own)
        return
    _migrate(connection)


def _migrate(connection: object) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        render_as_batch=True,
        compare_type=True,
        include_name=compared,
    )
    with context.begin_transaction():
        context.run_migrations()


run()
