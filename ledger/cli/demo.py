"""``ledger demo``: a small bi-temporal example, recorded only where it harms nothing."""

from __future__ import annotations

from rich.markup import escape

from ledger import Ledger
from ledger.cli.common import DbOption, JsonOption, console, opened
from ledger.cli.render import print_json, show_claims
from ledger.errors import Conflict

DEMO_TEXT = (
    "Invoice 03/2026. From 1 March 2026 the monthly electricity bill for the flat is PLN 280.\n\n"
    "Invoice 07/2026. From 1 July 2026 the monthly electricity bill for the flat is PLN 245 "
    "after the tariff change."
)
DEMO_URI = "demo:invoices"
DEMO_ACTOR = "demo"
DEMO_ENTITY = "home"
#: (label, valid_at) of the demo's three time questions; None is now.
DEMO_QUESTIONS: tuple[tuple[str, str | None], ...] = (
    ("now", None), ("true on 2026-04-15", "2026-04-15"), ("true on 2026-07-01", "2026-07-01"))


def demo(as_json: JsonOption = False, db: DbOption = None) -> None:
    """Record a small bi-temporal example and answer the three time questions.

    The ledger must be new or hold only what earlier demo runs wrote; any other data is left
    alone and the demo refuses (exit 4).

    Example: ledger demo --db /tmp/demo.db
    """
    with opened(db, as_json=as_json) as ledger:
        refuse_data_not_from_the_demo(ledger)
        invoices = ledger.add_source(text=DEMO_TEXT, uri=DEMO_URI, title="Utility invoices")
        for value, start in (("PLN 280", "2026-03-01"), ("PLN 245", "2026-07-01")):
            ledger.assert_claim(DEMO_ENTITY, "electricity bill", value=value, valid_from=start,
                                evidence=[ledger.cite(invoices, f"electricity bill for the flat is {value}")],
                                actor=DEMO_ACTOR)
        history = ledger.history(DEMO_ENTITY, "electricity bill")
        answers = {label: [c.object_label for c in ledger.claims(DEMO_ENTITY, "electricity bill", valid_at=valid_at)]
                   for label, valid_at in DEMO_QUESTIONS}
        if as_json:
            print_json({"ledger": ledger.url, "history": history, "answers": answers})
            return
        console.print(f"ledger at {escape(ledger.url)}")
        show_claims(history, title="history", versions=True)
        for label, values in answers.items():
            console.print(f"{label:>22}: {escape(', '.join(values)) or '(nothing)'}")


def refuse_data_not_from_the_demo(ledger: Ledger) -> None:
    """Raise Conflict if the ledger holds anything, in any scope, that no demo run wrote."""
    found = ledger.rows_besides(actor=DEMO_ACTOR, source_uri=DEMO_URI, entity=DEMO_ENTITY)
    if found:
        counts = ", ".join(f"{kind}: {number}" for kind, number in found.items())
        raise Conflict(f"{ledger.location} already holds data the demo did not write ({counts}); "
                       "the demo leaves it alone: run it on a new file, e.g. ledger demo --db demo.db")
