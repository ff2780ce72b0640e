"""Source reliability: ratings per source and per publisher feed the confidence of new claims."""

from __future__ import annotations

import pytest

from ledger import Ledger
from ledger.claims.rules import default_confidence
from ledger.errors import InvalidInput
from ledger.reliability import LADDER


def test_the_ladder_orders_primary_records_over_papers_over_blogs_over_anonymous() -> None:
    assert LADDER["primary"] > LADDER["record"] > LADDER["blog"] > LADDER["anonymous"]
    assert default_confidence(["trusted"]) == 0.6 and default_confidence(["untrusted"]) == 0.2
    assert default_confidence(["trusted"], LADDER["primary"]) == 0.9
    assert default_confidence(["untrusted"], LADDER["primary"]) == 0.2  # quarantine stays low however rated


def test_ratings_per_source_and_per_publisher_feed_the_confidence(ledger: Ledger) -> None:
    registry = ledger.add_source(text="The registry lists Zephyr Ltd with 300 employees.", publisher="Company Registry")
    blog = ledger.add_source(text="Zephyr Ltd has about 280 employees, a blog says.", publisher="Some Blog")
    unrated = ledger.add_source(text="Zephyr Ltd is based in Lisbon.")
    assert ledger.rate(publisher="Company Registry", reliability="primary", actor="editor") == 0.9
    assert ledger.rate(source=blog, reliability="blog") == 0.45
    assert (ledger.reliability(registry), ledger.reliability(blog), ledger.reliability(unrated)) == (0.9, 0.45, None)
    first = ledger.assert_claim("Zephyr Ltd", "employees", value=300, evidence=ledger.cite(registry, "300 employees"))
    second = ledger.assert_claim("Zephyr Ltd", "staff estimate", value=280, evidence=ledger.cite(blog, "280 employees"))
    third = ledger.assert_claim("Zephyr Ltd", "city", value="Lisbon", evidence=ledger.cite(unrated, "Lisbon"))
    assert (first.confidence, second.confidence, third.confidence) == (0.9, 0.45, 0.6)
    ledger.rate(source=registry, reliability=0.7)  # a source's own rating wins over its publisher's
    assert ledger.reliability(registry) == 0.7


def test_a_rating_is_a_ladder_name_or_a_number_from_0_to_1(ledger: Ledger) -> None:
    page = ledger.add_source(text="A page.")
    for bad in (1.5, -0.1, "excellent", True):
        with pytest.raises(InvalidInput, match="reliability must be"):
            ledger.rate(source=page, reliability=bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="exactly one"):
        ledger.rate(reliability=0.5)
