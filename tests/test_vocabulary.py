"""The shipped predicate vocabulary, predicate aliases and per-scope definitions (issue 22).
Runs on SQLite and PostgreSQL."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from sqlalchemy import text

from ledger import AliasConflict, Conflict, FunctionalClash, Ledger
from ledger.db import make_engine, resolve_url
from ledger.interchange.vocabulary import shipped, shipped_name

from .conftest import TestClock

REQUIRED = {  # the list: Wikidata id → cardinality after the property's constraints
    "P6": "one", "P35": "one", "P169": "one", "P488": "one", "P1037": "one", "P286": "one",
    "P26": "many", "P108": "many", "P463": "many", "P39": "many",
    "P17": "one", "P131": "one", "P159": "one", "P1082": "one",
    "P569": "one", "P570": "one", "P571": "one", "P576": "one",
    "P127": "many", "P749": "one", "P355": "many",
}


def test_the_shipped_vocabulary_covers_the_common_predicates() -> None:
    by_id = {p.wikidata: p for p in shipped().values()}
    assert {pid: by_id[pid].cardinality for pid in REQUIRED} == REQUIRED
    assert all(p.source for p in shipped().values())  # where each choice comes from
    assert by_id["P355"].inverse == "parent organization" and by_id["P749"].inverse == "subsidiary"
    assert by_id["P1082"].separators == ("P585", "P459")
    for name in ("P6", "head of government", "mayor", "MAYOR", "Mayor"):
        assert shipped_name(name) == "head of government"
    assert shipped_name("CEO") == shipped_name("P169") == "chief executive officer"
    assert shipped_name("favourite colour") is None


def test_aliases_name_one_predicate_in_reads_and_writes(ledger: Ledger) -> None:
    doc = ledger.add_source(text="Pit Clausen is the mayor of Bielefeld. Clausen took office in 2009.")
    claim = ledger.assert_claim("Bielefeld", "mayor", "Pit Clausen", valid_from="2009",
                                evidence=[ledger.cite(doc, "Pit Clausen is the mayor")])
    assert claim.predicate == "head of government"
    for name in ("P6", "head of government", "mayor"):
        assert [c.id for c in ledger.claims("Bielefeld", name)] == [claim.id]
        assert [c.id for c in ledger.history("Bielefeld", name)] == [claim.id]
        assert [a.claim.id for a in ledger.audit("Bielefeld", name)] == [claim.id]
    again = ledger.assert_claim("Bielefeld", "P6", "Pit Clausen", valid_from="2009",
                                evidence=[ledger.cite(doc, "Clausen took office in 2009")])
    assert again.id == claim.id  # the same claim, corroborated under another name


def test_vocabulary_roles_are_functional_without_define_predicate(ledger: Ledger) -> None:
    """Two CEOs at once went undetected: entity predicates defaulted to many."""
    a = ledger.add_source(text="Alice Smith is the CEO of Acme.", publisher="Gazette")
    b = ledger.add_source(text="Bob Jones is the CEO of Acme.", publisher="Herald")
    first = ledger.assert_claim("Acme", "CEO", "Alice Smith", valid_from="2026-01", evidence=[ledger.cite(a, "Alice Smith")])
    second = ledger.assert_claim("Acme", "chief executive officer", "Bob Jones", valid_from="2026-01",
                                 evidence=[ledger.cite(b, "Bob Jones")])
    assert (ledger.claim(first).status, second.status) == ("disputed", "disputed")
    c = ledger.add_source(text="Tom and Ann, both members of the club.")
    ledger.assert_claim("Tom", "member of", "the club", evidence=[ledger.cite(c, "Tom")])
    ledger.assert_claim("Tom", "member of", "the choir", evidence=[ledger.cite(c, "Ann")])
    assert len(ledger.claims("Tom", "P463")) == 2  # member of: many


def test_a_scope_definition_overrides_the_shipped_one(ledger: Ledger) -> None:
    shipped_info = ledger.predicate("mayor")
    assert shipped_info is not None and (shipped_info.name, shipped_info.origin) == ("head of government", "shipped")
    assert "P6" in shipped_info.aliases and "mayor" in shipped_info.aliases
    mine = ledger.define_predicate("mayor", cardinality="many", object_kind="entity", scope="council",
                                   aliases=["burgomaster"])
    assert (mine.name, mine.cardinality, mine.origin, mine.scope) == ("head of government", "many", "scope", "council")
    assert ledger.predicate("burgomaster", scope="council") == mine
    assert ledger.predicate("P6").cardinality == "one"  # other scopes keep the shipped definition
    listed = {p.name: p for p in ledger.predicates(scope="council")}
    assert listed["head of government"].origin == "scope"
    assert listed["population"].origin == "shipped"
    everywhere = ledger.define_predicate("nickname", cardinality="many", aliases=["also known as"])
    assert everywhere.origin == "declared"
    assert ledger.predicate("also known as", scope="anything").name == "nickname"
    with pytest.raises(AliasConflict):
        ledger.define_predicate("alias taker", aliases=["burgomaster"], scope="council")


def test_declaring_functional_over_clashing_claims_is_refused_with_a_report(ledger: Ledger) -> None:
    doc = ledger.add_source(text="Ann knows Bob. Ann knows Cid. Eve knows Dan. Eve knows Fay.")
    ids = [ledger.assert_claim(s, "knows", o, evidence=[ledger.cite(doc, f"{s} knows {o}")]).id
           for s, o in (("Ann", "Bob"), ("Ann", "Cid"), ("Eve", "Dan"), ("Eve", "Fay"))]
    report = ledger.predicate_clashes("knows")
    assert [(c.first_claim, c.second_claim) for c in report] == [(ids[0], ids[1]), (ids[2], ids[3])]
    with pytest.raises(FunctionalClash) as refused:
        ledger.define_predicate("knows", cardinality="one", object_kind="entity")
    assert isinstance(refused.value, Conflict)  # the refusal stays what it was
    assert refused.value.clashes == tuple(report)
    assert ledger.predicate("knows") is None  # nothing stored
    assert ledger.predicate_clashes("knows", scope="elsewhere") == []


def test_migration_renames_claims_stored_under_a_shipped_alias(db_url: str, clock: TestClock) -> None:
    from alembic import command

    from ledger.migrate import alembic_config

    with Ledger.open(db_url, clock=clock) as ledger:
        doc = ledger.add_source(text="Pit Clausen is mayor.")
        ledger.assert_claim("Bielefeld", "mayor", "Pit Clausen", evidence=[ledger.cite(doc, "Pit Clausen")])
    engine = make_engine(resolve_url(db_url))
    with engine.connect() as connection, connection.begin():
        command.downgrade(alembic_config(connection), "0006")
        connection.execute(text("UPDATE claims SET predicate = 'mayor'"))  # as a ledger before 0011 stored it
    engine.dispose()
    with Ledger.open(db_url, clock=clock) as ledger:
        [claim] = ledger.claims("Bielefeld", "mayor")
        assert claim.predicate == "head of government"


def test_the_vocabulary_ships_as_package_data() -> None:
    """A data file left out of package-data loads in a checkout and is missing once installed
    (checked by hand on a built wheel: ledger/interchange/vocabulary.json is in it)."""
    root = Path(__file__).resolve().parents[1]
    config = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "ledger.interchange" in config["packages"]
    assert any(Path("vocabulary.json").match(pattern) for pattern in config["package-data"]["ledger.interchange"])
    assert (root / "ledger" / "interchange" / "vocabulary.json").is_file()
