"""Erasure: after erase(source=S) none of S's text is in the database's bytes (SQLite files) or
table data (pg_dump), nor in any read; claims S alone supported are retracted, others keep their
other support; a tombstone keeps ids, reason, actor and time."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from ledger import Ledger, NotFound
from ledger.errors import InvalidInput
from tests.conftest import BACKEND, PG_URL, table_dump

SECRET_TEXT = ("Marguerite Okonkwo-Lindqvist was admitted to the Saint Barnabas clinic on the night of "
               "the storm, according to the ward diary.")
#: distinctive pieces of S's text: none may survive anywhere
PIECES = ("Okonkwo-Lindqvist", "Saint Barnabas clinic", "ward diary", "night of the storm")
OTHER_TEXT = "The Saint Barnabas hospital employs 420 nurses, its annual report says."


def _world(ledger: Ledger) -> tuple[int, int, int, int]:
    erased = ledger.add_source(text=SECRET_TEXT + " The hospital employs 420 nurses.", uri="https://diary.example/p1",
                               title="Ward diary, page 1", author="Night nurse")
    other = ledger.add_source(text=OTHER_TEXT)
    alone = ledger.assert_claim("Marguerite Okonkwo-Lindqvist", "admitted to", value="Saint Barnabas clinic",
                                evidence=ledger.cite(erased, "admitted to the Saint Barnabas clinic"),
                                qualifiers={"note": "night of the storm"})
    shared = ledger.assert_claim("Saint Barnabas hospital", "nurses", value=420,
                                 evidence=[ledger.cite(erased, "employs 420 nurses"), ledger.cite(other, "employs 420 nurses")])
    return erased.id, other.id, alone.id, shared.id


def _sqlite_bytes(url: str) -> bytes:
    path = Path(url.removeprefix("sqlite:///"))
    found = b""
    for suffix in ("", "-wal", "-journal", "-shm"):
        candidate = Path(f"{path}{suffix}")
        if candidate.exists():
            found += candidate.read_bytes()
    return found


def test_erasing_a_source_removes_its_text_everywhere_and_retracts_what_it_alone_supported(
        ledger: Ledger, db_url: str, clock) -> None:  # type: ignore[no-untyped-def]
    source, other, alone, shared = _world(ledger)
    before = ledger.now()
    clock.tick()
    erased = ledger.erase(source=source, reason="GDPR art. 17 request #88", actor="dpo")
    assert (erased.sources, erased.unsupported, erased.kept) == ((source,), (alone,), (shared,))
    # claims: the one S alone supported is retracted with the erasure as reason; the other keeps its support
    gone = ledger.claim(alone)
    assert gone.status == "retracted" and gone.reason == "erased: GDPR art. 17 request #88" and gone.actor == "dpo"
    kept = ledger.claim(shared)
    assert kept.status != "retracted"
    assert [t.source.id for t in ledger.explain(kept).evidence if t.evidence.excerpt] == [other]
    # no read shows S's content: current, as of before the erasure, history, audit, explain, the source
    reads = repr((
        ledger.claims(scope="default"), ledger.claims(scope="default", known_at=before, valid_at=before),
        ledger.audit(scope="default"), ledger.explain(alone), ledger.explain(shared), ledger.source(source),
        ledger.passages(source), ledger.history("Saint Barnabas hospital", "nurses"),
    ))
    for piece in PIECES:
        assert piece not in reads
    as_of = ledger.claim(alone, known_at=before)
    assert as_of.value == "[erased]" and as_of.qualifiers == {}
    # the tombstone: ids, reason, actor, time; never content
    stones = ledger.tombstones()
    person = next(t.ref_id for t in stones if t.kind == "entity")  # named only by the erased claim
    assert {(t.kind, t.ref_id) for t in stones} == {("source", source), ("claim", alone), ("entity", person)}
    assert {(t.reason, t.actor, t.erasure_id) for t in stones} == {("GDPR art. 17 request #88", "dpo", erased.erasure_id)}
    for piece in PIECES:
        assert piece not in repr(stones)
    # and the bytes: every table's rows, and on SQLite the files themselves (main, WAL, journal)
    dump = repr(table_dump(db_url))
    for piece in PIECES:
        assert piece not in dump
    if BACKEND == "sqlite":
        data = _sqlite_bytes(db_url)
        assert data  # the files were read
        for piece in PIECES:
            assert piece.encode() not in data, piece


@pytest.mark.skipif(BACKEND != "postgres" or shutil.which("pg_dump") is None, reason="PostgreSQL with pg_dump only")
def test_erased_text_is_not_in_pg_dump(ledger: Ledger, db_url: str) -> None:
    source, *_ = _world(ledger)
    ledger.erase(source=source, reason="request", actor="dpo")
    schema = db_url.rsplit("search_path%3D", 1)[1]
    base = (PG_URL or "").replace("+psycopg", "").split("?")[0]
    dumped = subprocess.run(["pg_dump", "--data-only", "--schema", schema, base], check=True, capture_output=True,
                            env={**os.environ}).stdout
    assert b"sources" in dumped
    for piece in PIECES:
        assert piece.encode() not in dumped


def test_erasing_a_claim_or_an_entity(ledger: Ledger) -> None:
    _, _, alone, shared = _world(ledger)
    ledger.erase(claim=shared, reason="wrong person", actor="editor")
    assert ledger.claim(shared).status == "retracted" and ledger.claim(shared).value == "[erased]"
    person = ledger.resolve("Marguerite Okonkwo-Lindqvist")
    assert person is not None
    erased = ledger.erase(entity=person, reason="right to be forgotten", actor="dpo")
    assert erased.entities == (person.id,) and alone in erased.claims
    assert ledger.resolve("Marguerite Okonkwo-Lindqvist") is None
    assert "Okonkwo" not in repr(ledger.get_entity(person.id))
    assert ledger.claim(alone).status == "retracted"


def test_erase_takes_one_target_and_a_reason(ledger: Ledger) -> None:
    source, *_ = _world(ledger)
    with pytest.raises(InvalidInput, match="exactly one"):
        ledger.erase(reason="x")
    with pytest.raises(InvalidInput, match="reason"):
        ledger.erase(source=source, reason="")
    with pytest.raises(NotFound):
        ledger.erase(source=9999, reason="no such source")
    with pytest.raises(InvalidInput, match="not a name"):
        ledger.erase(entity="Saint Barnabas hospital", reason="names are ambiguous")
