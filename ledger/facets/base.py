"""What every part of the facade shares: the database's transactions and the ledger clock."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from typing import TypeVar

from sqlalchemy import Connection, Engine

from ledger import db
from ledger.errors import PolicyViolation
from ledger.store import Ids
from ledger.timeline import Clock

T = TypeVar("T")


class Facet:
    """The base of each facade part: ``_write``/``_read`` run one transaction; ``now()`` reads the clock."""

    def __init__(self, engine: Engine, *, clock: Clock | None = None,
                 allow_private: bool | Iterable[str] = False) -> None:
        self._db = db.Transactions(engine, clock)
        #: what fetches may connect to besides public addresses (Ledger.open's allow_private=)
        self._allow_private = allow_private

    def _write(self, work: Callable[[Connection, datetime, Ids], T]) -> T:
        try:
            return self._db.write(work)
        except PolicyViolation as refusal:
            # the refused write was rolled back, its decisions with it: they are logged on their own
            from ledger.policy.apply import log_decisions
            from ledger.policy.decide import PolicyDecision

            decisions = [d for d in refusal.decisions if isinstance(d, PolicyDecision)]
            if decisions:
                self._db.write(lambda connection, now, ids: log_decisions(connection, ids, decisions, now))
            raise

    def _read(self, work: Callable[[Connection], T], *, single_statement: bool = False) -> T:
        return self._db.read(work, single_statement=single_statement)

    def now(self) -> datetime:
        """The ledger clock's current reading (the default for valid_at and known_at)."""
        return self._db.now()
