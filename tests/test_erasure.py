"""Erasure: after erase(source=S) none of S's text is in the database's bytes (SQLite files) or
table data (pg_dump), nor in any read; claims S alone supported are retracted, others keep their
other support; a tombstone keeps ids, reason, actor and time."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from contextlib import closing
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger import Ledger, NotFound
from ledger.agent import call_tool
from ledger.erased_content import ErasedContent
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


def _pg_dump(db_url: str) -> bytes:
    schema = db_url.rsplit("search_path%3D", 1)[1]
    base = (PG_URL or "").replace("+psycopg", "").split("?")[0]
    return subprocess.run(["pg_dump", "--data-only", "--schema", schema, base], check=True, capture_output=True,
                          env={**os.environ}).stdout


def _assert_none_of_s_in(where: str, data: str | bytes) -> None:
    """Neither as written nor folded as the search index holds it (lower case)."""
    folded = data.lower()
    for piece in PIECES:
        found = piece.lower().encode() in folded if isinstance(folded, bytes) else piece.lower() in folded
        assert not found, f"{piece!r} is still in {where}"


def _assert_fts_holds_only_what_a_fresh_index_would(url: str) -> None:
    """FTS5 keeps a deleted document's terms in its segments until they merge (their trigrams,
    prefix-compressed, escape a byte search): the erased index must equal one built afresh."""
    with closing(sqlite3.connect(url.removeprefix("sqlite:///"))) as connection, connection:
        for table in ("search_index", "search_names"):
            # (10 is the structure record; a segment's id is in its blocks' ids, not in their bytes)
            blocks = f"SELECT block FROM {table}_data WHERE id != 10 ORDER BY id"
            erased = connection.execute(blocks).fetchall()
            connection.execute(f"INSERT INTO {table}({table}) VALUES ('rebuild')")
            connection.execute(f"INSERT INTO {table}({table}) VALUES ('optimize')")
            assert erased == connection.execute(blocks).fetchall(), table


def test_erasure_reaches_the_search_index_the_event_log_and_working_notes(
        ledger: Ledger, db_url: str, clock, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    source, other, alone, shared = _world(ledger)
    # the agent quotes S: a remember call (event log) and a working-memory note; unrelated ones stay
    told = call_tool(ledger, "remember", {
        "subject": "Marguerite Okonkwo-Lindqvist", "predicate": "ward", "value": "night ward",
        "quote": "according to the ward diary", "source": {"source_id": source}, "create_entities": True},
        actor="agent-1")
    assert told["ok"], told
    agent_claim = told["result"]["claim"]["id"]
    ledger.note("run-1", "Diary: admitted to the Saint Barnabas clinic on the night of the storm.", actor="agent-1")
    ledger.note("run-1", "Check the staffing figures again next week.", actor="agent-1")
    assert call_tool(ledger, "search", {"text": "Okonkwo-Lindqvist"}, actor="agent-1")["ok"]
    assert call_tool(ledger, "search", {"text": "weather in Oslo"}, actor="agent-1")["ok"]
    assert ledger.search("Okonkwo-Lindqvist") and ledger.search("ward diary")  # the index holds S
    before = ledger.now()
    clock.tick()
    erased = ledger.erase(source=source, reason="GDPR art. 17 request #88", actor="dpo")
    assert set(erased.unsupported) == {alone, agent_claim} and erased.kept == (shared,)
    assert ledger.claim(agent_claim).status == "retracted" and ledger.claim(alone).status == "retracted"
    assert ledger.claim(shared).status != "retracted"
    assert [t.source.id for t in ledger.explain(shared).evidence if t.evidence.excerpt] == [other]
    # search: now and as of before the erasure
    for query in (*PIECES, "Marguerite", "according to"):  # (predicates, like "admitted to", are not content)
        assert ledger.search(query) == [], query
        assert ledger.search(query, known_at=before) == [], query
    assert ledger.search("420 nurses")  # the other source still answers
    # the event log: the remember call is kept as a call, its arguments and detail are not
    tool_events = ledger.tool_events()
    assert [(e.tool, e.outcome, e.actor) for e in tool_events] == [
        ("search", "ok", "agent-1"), ("search", "ok", "agent-1"), ("remember", "ok", "agent-1")]
    assert tool_events[0].arguments == {"text": "weather in Oslo"}
    for event in tool_events[1:]:
        assert event.arguments == {"erased": erased.erasure_id}
        assert event.detail == f"[erased by erasure {erased.erasure_id}]"
    # working memory: the quoting note is gone, the other one stays
    assert [n.text for n in ledger.notes("run-1")] == ["Check the staffing figures again next week."]
    exported = tmp_path / "export.jsonl"
    ledger.export(exported)
    reads = repr((
        tool_events, ledger.notes("run-1"),
        *((packet.items, packet.notes) for packet in (  # (a packet repeats its question)
            ledger.recall("Where was Marguerite Okonkwo-Lindqvist admitted, according to the ward diary?",
                          run_id="run-1"),
            ledger.recall("Saint Barnabas clinic night of the storm", known_at=before, run_id="run-1"))),
        ledger.history("Saint Barnabas hospital", "nurses"), ledger.audit(scope="default"),
        ledger.claims(scope="default", known_at=before, valid_at=before),
        *(ledger.report(kind, format=form) for kind in ("audit", "contradictions") for form in ("markdown", "json")),
        ledger.report("timeline", "Saint Barnabas hospital"),
    )) + exported.read_text(encoding="utf-8")
    _assert_none_of_s_in("the reads", reads)
    _assert_none_of_s_in("the tables", repr(table_dump(db_url)))
    if BACKEND == "sqlite":
        _assert_none_of_s_in("the SQLite files", _sqlite_bytes(db_url))
        _assert_fts_holds_only_what_a_fresh_index_would(db_url)
    elif shutil.which("pg_dump") is not None:
        _assert_none_of_s_in("pg_dump", _pg_dump(db_url))


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


_CONTENT = ErasedContent.of(
    scopes=["default"], source_ids=[7], claim_ids=[11], entity_ids=[3],
    phrases=["admitted to the Saint Barnabas clinic", "Ward diary, page 1"], names=["Marguerite Okonkwo-Lindqvist"],
    texts=[SECRET_TEXT])


@given(before=st.text(max_size=40), after=st.text(max_size=40),
       quoted=st.sampled_from(["ADMITTED to the Saint-Barnabas clinic", "okonkwo", "Lindqvist's",
                               "the night of the storm, according to", "ward diary page 1"]))
def test_a_quote_of_erased_content_is_recognized_in_any_text(before: str, after: str, quoted: str) -> None:
    assert _CONTENT.quotes(f"{before} {quoted} {after}")


def test_ordinary_text_and_other_ids_are_not_taken_for_erased_content() -> None:
    for text in ("The clinic admitted 40 patients.", "Okonkwos are many", "a night of the storm",
                 "Saint Barnabas hospital employs nurses", "", None):
        assert not _CONTENT.quotes(text), text
    assert _CONTENT.mentions({"source": {"source_id": 7}}) and _CONTENT.mentions({"claim_id": 11})
    assert _CONTENT.mentions({"text": "where is okonkwo-lindqvist?"})
    assert not _CONTENT.mentions({"source_id": 11, "claim_id": 7, "limit": 3, "entity_id": True})
