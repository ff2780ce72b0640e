"""``forget``: a claim stops holding from a time on. Its validity is closed as a new version (cause
"ended", with the reason); nothing is deleted and every earlier read stays as it was."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Connection

from ledger import store
from ledger.claims.batch import Batch, Live, change, flush
from ledger.errors import Conflict, InvalidInput
from ledger.records import Cause


def end_claim(connection: Connection, ids: store.Ids, now: datetime, claim_id: int, *, at: datetime | None,
              precision: str | None, reason: str, actor: str | None) -> int:
    """Close a claim's validity at ``at`` (default now); the claim's id."""
    row = store.current_version(connection, claim_id)
    end = at or now
    if row["status"] == "retracted":
        raise Conflict(f"claim {claim_id} is retracted already; there is nothing to forget")
    if row["valid_until"] is not None and row["valid_until"] <= end:
        raise Conflict(f"claim {claim_id} already ends at {row['valid_until'].isoformat()}")
    if row["valid_from"] is not None and end <= row["valid_from"]:
        raise InvalidInput(f"claim {claim_id} starts at {row['valid_from'].isoformat()}, not before "
                           f"{end.isoformat()}; retract it instead if it never held")
    target = Live(claim_id=claim_id, object_key="", status=row["status"], confidence=row["confidence"],
                  valid_from=row["valid_from"], valid_until=row["valid_until"],
                  valid_from_precision=row["valid_from_precision"], valid_until_precision=row["valid_until_precision"],
                  sources=[], version_id=row["id"], scope=row["scope"])
    batch = Batch()
    change(batch, target, status=row["status"],
           interval=(row["valid_from"], end, row["valid_from_precision"], precision or "second"),
           cause=Cause("ended"), reason=reason, actor=actor)
    flush(connection, batch, ids, now)
    return claim_id
