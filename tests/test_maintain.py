"""maintain(): duplicates merged by joining their evidence, in one transaction, never deleting;
unconfirmed, stale-only and contradicted claims listed; a dry run changes nothing."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from typer.testing import CliRunner

from ledger import DuplicateMerge, Ledger
from ledger.cli import app

from .conftest import TestClock, table_dump


def duplicates(ledger: Ledger, clock: TestClock) -> dict[str, int]:
    """Two entities saying the same things, merged: two pairs of duplicate claims."""
    clock.set("2026-01-10")
    one = ledger.add_source(text="Anna works at Acme since 2020. She lives in Lund.", uri="https://a.example/1",
                            publisher="A")
    two = ledger.add_source(text="Ann works at Acme, since 2020; she lives in Lund.", uri="https://b.example/2",
                            publisher="B")
    a = ledger.assert_claim("Anna", "employer", "Acme", valid_from="2020", evidence=ledger.cite(one, "works at Acme"))
    b = ledger.assert_claim("Ann", "employer", "Acme", valid_from="2020",
                            evidence=[ledger.cite(two, "Ann works at Acme"), ledger.cite(two, "since 2020")])
    c = ledger.assert_claim("Anna", "city", value="Lund", evidence=ledger.cite(one, "lives in Lund"))
    d = ledger.assert_claim("Ann", "city", value="Lund", evidence=ledger.cite(two, "lives in Lund"))
    clock.tick()
    ledger.merge_entities("Anna", "Ann")
    return {"a": a.id, "b": b.id, "c": c.id, "d": d.id}


def test_merging_duplicates_joins_their_evidence_and_deletes_nothing(
        ledger: Ledger, clock: TestClock, db_url: str) -> None:
    ids = duplicates(ledger, clock)
    clock.set("2026-02-01")
    before = table_dump(db_url)
    done = ledger.maintain()
    assert done.merges == (DuplicateMerge(ids["a"], (ids["b"],), 2), DuplicateMerge(ids["c"], (ids["d"],), 1))
    assert done.changed and not done.dry_run
    after = table_dump(db_url)
    for table, rows in before.items():  # every row is still there: by id, and evidence unchanged
        assert {row[0] for row in rows} <= {row[0] for row in after[table]}, table
    assert all(row in after["evidence"] for row in before["evidence"])  # unchanged, JSON locators and all
    assert len(after["evidence"]) == len(before["evidence"]) + 3
    kept = ledger.explain(ids["a"])
    assert {(t.source.id, t.evidence.excerpt) for t in kept.evidence} == {
        (1, "works at Acme"), (2, "Ann works at Acme"), (2, "since 2020")}
    assert (kept.claim.status, kept.claim.cause and kept.claim.cause.kind) == ("confirmed", "corroborated")
    # visible in the audit: the duplicate superseded as a whole, coalesced into the kept claim
    [merged] = [a for a in ledger.audit("Anna", "employer") if a.claim.id == ids["b"]]
    assert merged.claim.status == "superseded" and merged.claim.never_valid
    assert merged.claim.cause is not None and (merged.claim.cause.kind, merged.claim.cause.claim) == (
        "coalesced-into", ids["a"])
    assert any((link.kind, link.from_claim_id, link.to_claim_id) == ("supersedes", ids["a"], ids["b"])
               for link in merged.links)
    assert [c.id for c in ledger.claims("Anna", "employer", valid_at="2024")] == [ids["a"]]
    assert ledger.maintain().merges == ()  # nothing left to merge


def test_a_dry_run_lists_the_merges_and_changes_nothing(ledger: Ledger, clock: TestClock, db_url: str) -> None:
    ids = duplicates(ledger, clock)
    before = table_dump(db_url)
    done = ledger.maintain(dry_run=True)
    assert done.dry_run and not done.changed
    assert done.merges == (DuplicateMerge(ids["a"], (ids["b"],), 2), DuplicateMerge(ids["c"], (ids["d"],), 1))
    assert table_dump(db_url) == before


def test_maintain_stays_in_its_scope(ledger: Ledger, clock: TestClock, db_url: str) -> None:
    duplicates(ledger, clock)
    before = table_dump(db_url)
    done = ledger.maintain(scope="elsewhere", older_than=timedelta(0))
    assert (done.merges, done.unconfirmed, done.unsupported, done.contradictions) == ((), (), (), ())
    assert table_dump(db_url) == before
    assert len(ledger.maintain(older_than=timedelta(0)).merges) == 2


def test_unconfirmed_stale_and_contradicted_claims_are_listed(ledger: Ledger, clock: TestClock) -> None:
    clock.set("2026-01-01")
    page = ledger.add_source(text="The shop opens at 9. The owner is Bo.", uri="https://shop.example/")
    old = ledger.assert_claim("shop", "opens", value="9", evidence=ledger.cite(page, "opens at 9"))
    sure = ledger.assert_claim("shop", "owner", value="Bo", evidence=ledger.cite(page, "The owner is Bo"))
    ledger.confirm(sure, reason="checked the register")
    clock.set("2026-03-01")
    ledger.add_source(text="The shop opens at 10. The owner is Bo.", uri="https://shop.example/")  # a revision
    blog = ledger.add_source(text="The shop closes at 18, or at 20 says another.", uri="https://blog.example/")
    late = ledger.assert_claim("shop", "closes", value="18", evidence=ledger.cite(blog, "closes at 18"))
    other = ledger.add_source(text="It closes at 20.", uri="https://other.example/")
    rival = ledger.assert_claim("shop", "closes", value="20", evidence=ledger.cite(other, "closes at 20"))
    clock.set("2026-03-10")
    done = ledger.maintain(older_than=timedelta(days=30))
    assert [c.id for c in done.unconfirmed] == [old.id]  # the confirmed one and the recent ones are not listed
    assert [c.id for c in done.unsupported] == [old.id]  # "opens at 9" vanished from the page's new revision
    assert [c.claim_ids for c in done.contradictions] == [(late.id, rival.id)]
    assert done.merges == ()
    assert [c.id for c in ledger.maintain(older_than=timedelta(0)).unconfirmed] == [old.id]  # disputed are not


def test_the_cli_reports_and_maintains(tmp_path: Path) -> None:
    runner = CliRunner()
    db = str(tmp_path / "cli.db")
    with Ledger.open(db) as ledger:
        clock = TestClock()
        duplicates(ledger, clock)  # the ledger's own clock: real time, after 2026-01-10 written by the clock
    out = tmp_path / "audit.html"
    result = runner.invoke(app, ["report", "audit", "--format", "html", "--out", str(out), "--db", db])
    assert result.exit_code == 0 and "audit report written to" in result.stdout
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    result = runner.invoke(app, ["report", "timeline", "Anna", "employer", "--format", "json", "--db", db])
    assert result.exit_code == 0 and json.loads(result.stdout)["entity"] == "Anna"
    result = runner.invoke(app, ["report", "audit", "--json", "--out", str(tmp_path / "a.json"), "--db", db])
    assert json.loads(result.stdout) == {"kind": "audit", "format": "json", "path": str(tmp_path / "a.json"),
                                         "bytes": (tmp_path / "a.json").stat().st_size}
    result = runner.invoke(app, ["report", "timeline", "Nobody", "--json", "--db", db])
    assert result.exit_code == 3 and json.loads(result.stderr)["error"] == "NotFound"
    result = runner.invoke(app, ["report", "audit", "--db", db])
    assert result.exit_code == 0 and result.stdout.startswith("# Audit of scope default")
    result = runner.invoke(app, ["report", "timeline", "--db", db])
    assert result.exit_code == 2 and "needs an entity" in result.stderr
    result = runner.invoke(app, ["report", "audit", "--format", "pdf", "--db", db])
    assert result.exit_code == 2
    result = runner.invoke(app, ["report", "timeline", "Atlantis", "--db", db])
    assert result.exit_code == 3
    result = runner.invoke(app, ["maintain", "--dry-run", "--json", "--db", db])
    assert result.exit_code == 0 and json.loads(result.stdout)["dry_run"] is True
    assert len(json.loads(result.stdout)["merges"]) == 2
    result = runner.invoke(app, ["maintain", "--db", db])
    assert result.exit_code == 0 and "merged 2 group(s)" in result.stdout
    result = runner.invoke(app, ["maintain", "--older-than", "0", "--db", db])
    assert "merged 0 group(s)" in result.stdout and "unconfirmed after 0 day(s)" in result.stdout


def test_reports_show_merged_entities_under_the_one_kept(ledger: Ledger, clock: TestClock) -> None:
    ids = duplicates(ledger, clock)
    clock.set("2026-02-01")
    document = json.loads(ledger.report("timeline", "Ann", format="json"))  # an alias of the merged entity
    assert [e["name"] for e in document["entities"]] == ["Anna"]
    [entity] = document["entities"]
    assert {f["predicate"]: [c["id"] for c in f["claims"]] for f in entity["facts"]} == {
        "city": [ids["c"], ids["d"]], "employer": [ids["a"], ids["b"]]}
    before_merge = json.loads(ledger.report("audit", format="json", known_at="2026-01-10T00:00:00+00:00"))
    assert [e["name"] for e in before_merge["entities"]] == ["Ann", "Anna"]  # merged after that instant
