"""search(), suggest() and create_entities=False on both databases (issue 21)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger import ClaimDraft, InvalidInput, Ledger, SearchHit, Suggestion, UnknownName
from ledger.search import query_terms, snippet
from ledger.text.fold import search_fold

CHINESE = "北京大学是中国最古老的大学之一，位于海淀区。"
THAI = "กรุงเทพมหานครเป็นเมืองหลวงของประเทศไทย"
JAPANESE = "東京都は日本の首都であり、人口が最も多い都市です。"


def _source(ledger: Ledger, text: str, **kw: object) -> object:
    return ledger.add_source(text=text, title=kw.pop("title", "doc"), uri=kw.pop("uri", None), **kw)  # type: ignore[arg-type]


def kinds_and_ids(hits: list[SearchHit]) -> list[tuple[str, int]]:
    return [(h.kind, h.id) for h in hits]


@pytest.mark.parametrize(("text", "quote", "word"), [
    (CHINESE, "北京大学是中国最古老的大学之一", "古老"),  # a two-character word: the short-query fallback
    (CHINESE, "北京大学是中国最古老的大学之一", "中国最古老"),
    (THAI, "กรุงเทพมหานครเป็นเมืองหลวง", "เมืองหลวง"),
    (JAPANESE, "東京都は日本の首都であり", "日本の首都"),
    (JAPANESE, "東京都は日本の首都であり", "首都"),
])
def test_an_excerpt_in_a_script_without_spaces_is_found_by_a_word_inside_it(
    ledger: Ledger, text: str, quote: str, word: str
) -> None:
    doc = ledger.add_source(text=text, title="news", uri="https://example.org/a")
    claim = ledger.assert_claim("Subject", "says", value="x", evidence=ledger.cite(doc, quote))
    hits = ledger.search(word, kinds=["evidence"])
    assert [(h.kind, h.claim_id, h.source_title, h.source_uri) for h in hits] == [
        ("evidence", claim.id, "news", "https://example.org/a")]
    assert word in hits[0].snippet
    assert [h.kind for h in ledger.search(word, kinds=["passage"])] == ["passage"]


def test_search_is_case_and_accent_insensitive_and_ranks_every_kind(ledger: Ledger) -> None:
    doc = ledger.add_source(text="The Zürich office pays PLN 245 for electricity each month.", title="bill")
    claim = ledger.assert_claim("Zürich Office", "electricity_cost", value="PLN 245",
                                evidence=ledger.cite(doc, "Zürich office pays PLN 245"))
    hits = ledger.search("ZURICH")
    assert {h.kind for h in hits} == {"entity", "claim", "evidence", "passage"}
    assert all(isinstance(h.score, float) for h in hits)
    assert ledger.search("electricity cost", kinds=["claim"])[0].claim_id == claim.id
    assert ledger.search("nothing like this") == []
    assert ledger.search("zurich pln", kinds=["evidence"])[0].claim_id == claim.id
    assert ledger.search("zurich xylophone") == []  # every word must occur
    assert ledger.search("zurich xylophone", kinds=["evidence"], match="any")[0].claim_id == claim.id


def test_nothing_crosses_scopes(ledger: Ledger) -> None:
    mine = ledger.add_source(text="Tottenham Hotspur signed a striker.", scope="mine")
    ledger.assert_claim("Tottenham Hotspur", "signed", value="striker", scope="mine",
                        evidence=ledger.cite(mine, "Tottenham Hotspur signed a striker"))
    hidden = ledger.add_source(text="Tottenham Hotspur sold a keeper.", trust="untrusted")
    ledger.assert_claim("Tottenham Hotspur", "sold", value="keeper", scope=hidden.scope,
                        evidence=ledger.cite(hidden, "Tottenham Hotspur sold a keeper"))
    assert hidden.scope == "quarantine:default"
    assert ledger.search("tottenham") == []
    assert ledger.suggest("Tottenahm") == []
    assert {h.scope for h in ledger.search("tottenham", scope="mine")} == {"mine"}
    assert "sold" not in " ".join(h.snippet for h in ledger.search("tottenham", scope="mine"))
    assert [s.name for s in ledger.suggest("Tottenahm", scope="mine")] == ["Tottenham Hotspur"]
    assert {h.scope for h in ledger.search("keeper", scope="quarantine:default")} == {"quarantine:default"}


def test_the_index_follows_merges_and_aliases(ledger: Ledger) -> None:
    doc = ledger.add_source(text="Spurs won 3-1.")
    ledger.assert_claim("Spurs", "result", value="won 3-1", evidence=ledger.cite(doc, "Spurs won 3-1"))
    kept = ledger.entity("Tottenham Hotspur")
    assert ledger.search("tottenham", kinds=["claim"]) == []
    ledger.merge_entities(kept, "Spurs")
    claims = ledger.search("tottenham", kinds=["claim"])
    assert len(claims) == 1 and claims[0].snippet.startswith("Tottenham Hotspur")
    assert [h.id for h in ledger.search("spurs", kinds=["entity"])] == [kept.id]  # merged: the kept entity
    assert ledger.search("lilywhites") == []
    ledger.add_alias(kept, "Lilywhites")
    assert [(h.kind, h.id) for h in ledger.search("lilywhites")] == [("entity", kept.id)]


def test_claims_are_searched_as_of_a_time(ledger: Ledger, clock) -> None:  # type: ignore[no-untyped-def]
    clock.set("2026-08-01")
    doc = ledger.add_source(text="In March the bill was PLN 280. From July it is PLN 245.")
    old = ledger.assert_claim("Electricity bill", "amount", value="PLN 280", valid_from="2026-03-01",
                              evidence=ledger.cite(doc, "In March the bill was PLN 280"))
    before = ledger.now()
    clock.tick(days=1)
    new = ledger.assert_claim("Electricity bill", "amount", value="PLN 245", valid_from="2026-07-01",
                              evidence=ledger.cite(doc, "From July it is PLN 245"))
    assert [h.id for h in ledger.search("pln", kinds=["claim"])] == [new.id]
    assert [h.id for h in ledger.search("pln", kinds=["claim"], valid_at="2026-04-15")] == [old.id]
    assert [h.claim_id for h in ledger.search("280", kinds=["evidence"], valid_at="2026-04-15")] == [old.id]
    assert ledger.search("245", kinds=["claim"], known_at=before, valid_at="2026-08-01") == []
    clock.tick(days=1)
    ledger.retract(new, reason="misread")
    assert ledger.search("245", kinds=["claim", "evidence"]) == []
    assert [h.id for h in ledger.search("245", kinds=["claim"], known_at=ledger.now() - (ledger.now() - before) / 2,
                                        valid_at="2026-08-01")] == [new.id]


def test_a_new_revision_replaces_the_old_one_in_search(ledger: Ledger, clock) -> None:  # type: ignore[no-untyped-def]
    first = ledger.add_source(text="Rent is PLN 2000. Parking is extra.", uri="https://example.org/lease")
    claim = ledger.assert_claim("Flat", "rent", value="PLN 2000", evidence=ledger.cite(first, "Rent is PLN 2000"))
    clock.tick(days=1)
    second = ledger.add_source(text="Note: rent is PLN 2000. Parking is included.", uri="https://example.org/lease")
    assert second.id != first.id
    passages = ledger.search("parking", kinds=["passage"])
    assert [h.source_id for h in passages] == [second.id]
    assert "included" in passages[0].snippet
    evidence = ledger.search("rent", kinds=["evidence"])
    assert [(h.claim_id, h.source_id) for h in evidence] == [(claim.id, second.id)]


def test_rebuilding_the_index_gives_the_same_results(ledger: Ledger) -> None:
    doc = ledger.add_source(text=f"Spurs won 3-1. {CHINESE} {THAI}")
    ledger.assert_claim("Spurs", "result", value="won 3-1", evidence=ledger.cite(doc, "Spurs won 3-1"))
    ledger.merge_entities(ledger.entity("Tottenham Hotspur"), "Spurs")
    queries = ["spurs", "tottenham", "古老", "เมืองหลวง", "won", "3-1"]
    before = [ledger.search(q) for q in queries]
    ledger.rebuild_search_index()
    assert [ledger.search(q) for q in queries] == before


def test_a_typo_gives_a_suggestion_never_a_new_entity(ledger: Ledger) -> None:
    doc = ledger.add_source(text="Tottenham Hotspur's stadium holds 62,850.")
    spurs = ledger.entity("Tottenham Hotspur", aliases=["Spurs"])
    ledger.assert_claim(spurs, "stadium_capacity", value=62850, evidence=ledger.cite(doc, "stadium holds 62,850"))
    with pytest.raises(UnknownName, match=r"no entity 'Tottenahm' in scope 'default'; did you mean "
                                          r"'Tottenham Hotspur'\?") as caught:
        ledger.assert_claim("Tottenahm", "stadium_capacity", value=1, create_entities=False,
                            evidence=ledger.cite(doc, "stadium holds 62,850"))
    assert [s.entity_id for s in caught.value.suggestions] == [spurs.id]
    assert ledger.resolve("Tottenahm") is None
    with pytest.raises(UnknownName):
        ledger.assert_claims([{"subject": spurs, "predicate": "rival", "object": "Arsenall", "create_entities": False,
                               "evidence": ledger.cite(doc, "stadium holds 62,850")}])
    assert ledger.resolve("Arsenall") is None
    # a known name or alias passes, whatever its case or accents
    ledger.assert_claims([ClaimDraft("spurs", "nickname", value="Lilywhites", create_entities=False,
                                     evidence=ledger.cite(doc, "Tottenham Hotspur"))])
    with pytest.raises(InvalidInput, match="create_entities"):
        ledger.assert_claims([ClaimDraft(spurs, "x", value=1, create_entities="no",  # type: ignore[arg-type]
                                         evidence=ledger.cite(doc, "Tottenham Hotspur"))])


def test_suggest_says_why(ledger: Ledger) -> None:
    doc = ledger.add_source(text="Tottenham Hotspur's kit man is Ange.")
    spurs = ledger.entity("Tottenham Hotspur", aliases=["Spurs"])
    ledger.assert_claim(spurs, "kit_man", value="Ange", evidence=ledger.cite(doc, "kit man is Ange"))
    assert ledger.suggest("Spurs")[0] == Suggestion("entity", "Tottenham Hotspur", 1.0, "exact alias", spurs.id,
                                                    "Spurs")
    assert ledger.suggest("SPURS!")[0].why == "normalized"
    fuzzy = ledger.suggest("Tottenahm Hotspur")[0]
    assert (fuzzy.entity_id, fuzzy.why) == (spurs.id, "fuzzy") and 0.6 <= fuzzy.score < 1
    assert ledger.suggest("kit man")[0] == Suggestion("predicate", "kit_man", 1.0, "normalized", matched="kit_man")
    assert ledger.suggest("kti_man")[0].name == "kit_man"
    assert ledger.suggest("Zebra crossing") == []


def test_bad_arguments_are_refused(ledger: Ledger) -> None:
    for call in (lambda: ledger.search("x", kinds=["claims"]), lambda: ledger.search("x", limit=0),
                 lambda: ledger.search("x", match="some"), lambda: ledger.search(3),  # type: ignore[arg-type]
                 lambda: ledger.suggest("x", limit=True)):
        with pytest.raises(InvalidInput):
            call()
    assert ledger.search("   ") == [] and ledger.suggest("...") == []


def test_query_terms_fold_and_trim() -> None:
    assert query_terms("How much do I pay for Électricité?") == ["how", "much", "do", "i", "pay", "for", "electricite"]
    assert query_terms("  北京大学 ") == ["北京大学"]
    assert search_fold("Łódź Straße") == "lodz strasse"
    assert search_fold("ภาษาไทย") == "ภาษาไทย"  # Thai vowel signs are letters, not accents
    assert search_fold("が") == "が"


def test_snippet_shows_the_words_found() -> None:
    text = "word " * 100 + "electricity costs PLN 245 " + "tail " * 100
    cut = snippet(text, ["pln"])
    assert "PLN 245" in cut and cut.startswith("…") and cut.endswith("…") and len(cut) <= 162


@given(st.text(max_size=40))
def test_folding_is_idempotent(text: str) -> None:
    once = search_fold(text)
    assert search_fold(once) == once


def test_the_command_line_searches_suggests_and_rebuilds(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json

    from typer.testing import CliRunner

    from ledger.cli import app

    path = str(tmp_path / "cli.db")
    with Ledger.open(path) as ledger:
        doc = ledger.add_source(text=CHINESE, title="北大")
        ledger.assert_claim("北京大学", "founded", value=1898, evidence=ledger.cite(doc, "北京大学是中国最古老的大学之一"))
    runner = CliRunner()
    found = runner.invoke(app, ["search", "古老", "--kind", "evidence", "--json", "--db", path])
    assert found.exit_code == 0 and [h["kind"] for h in json.loads(found.stdout)] == ["evidence"]
    table = runner.invoke(app, ["search", "古老", "--db", path])
    assert table.exit_code == 0 and "北大" in table.stdout
    suggested = runner.invoke(app, ["suggest", "北京大字", "--json", "--db", path])
    assert [s["name"] for s in json.loads(suggested.stdout)] == ["北京大学"]
    assert runner.invoke(app, ["search", "--rebuild", "--db", path]).exit_code == 0
    assert runner.invoke(app, ["search", "x", "--kind", "nope", "--db", path]).exit_code == 2


def test_an_excerpt_across_two_paragraphs_is_found_by_a_word_of_either(ledger: Ledger) -> None:
    doc = ledger.add_source(text="The council met on Monday.\n\nThe bridge reopens in May.")
    claim = ledger.assert_claim("Bridge", "reopens", value="May",
                                evidence=ledger.cite(doc, "met on Monday.\n\nThe bridge reopens"))
    for word in ("monday", "bridge"):
        assert [h.claim_id for h in ledger.search(word, kinds=["evidence"])] == [claim.id]
    assert ledger.search("council", kinds=["evidence"]) == []  # in the passage, not in the excerpt


def test_writes_with_the_upkeep_paused_are_found_after_a_rebuild(ledger: Ledger) -> None:
    from ledger.store.search_index import upkeep_paused

    with upkeep_paused():
        doc = ledger.add_source(text="Imported in bulk: the harvest was late.")
        ledger.assert_claims([ClaimDraft("Harvest", "was", value="late",
                                         evidence=ledger.cite(doc, "the harvest was late"))])
    assert ledger.search("harvest") == []
    ledger.rebuild_search_index()
    assert {h.kind for h in ledger.search("harvest")} == {"entity", "claim", "evidence", "passage"}


def test_postgresql_has_the_trigram_and_unaccent_extensions(ledger: Ledger) -> None:
    if not ledger.url.startswith("postgresql"):
        pytest.skip("PostgreSQL only")
    from sqlalchemy import create_engine, text

    engine = create_engine(ledger.url.replace("***", ""))
    with engine.connect() as connection:
        found = set(connection.execute(text("SELECT extname FROM pg_extension")).scalars())
    engine.dispose()
    assert {"pg_trgm", "unaccent"} <= found


def test_updates_and_deletes_by_other_programs_are_followed(ledger: Ledger) -> None:
    """Promotion (a source and its claims change scope) and erasure (rows deleted), written by a
    program that is not ledger (a plain SQLAlchemy engine), reach the index through its triggers:
    deletions at once, updates (on SQLite) at the ledger's next write."""
    from sqlalchemy import create_engine, text

    doc = ledger.add_source(text="The tariff rose in May.", trust="untrusted")
    claim = ledger.assert_claim("Tariff", "rose", value="May", scope=doc.scope,
                                evidence=ledger.cite(doc, "The tariff rose in May"))
    engine = create_engine(ledger.url.replace("***", ""))
    with engine.begin() as connection:
        for table in ("sources", "entities", "claims", "aliases"):
            connection.execute(text(f"UPDATE {table} SET scope = 'default'"))
    ledger.entity("Any next write")
    assert {h.kind for h in ledger.search("tariff")} == {"entity", "claim", "evidence", "passage"}
    assert ledger.search("tariff", scope="quarantine:default") == []
    with engine.begin() as connection:
        connection.execute(text("DELETE FROM passages"))
        connection.execute(text("DELETE FROM claim_versions"))
        connection.execute(text("DELETE FROM evidence"))
        connection.execute(text("DELETE FROM claims WHERE id = :id"), {"id": claim.id})
    engine.dispose()
    assert [h.kind for h in ledger.search("tariff")] == ["entity"]
