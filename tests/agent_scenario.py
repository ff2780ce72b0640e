"""The electricity-bill scenario the agent tests share: two bills, the second lowering the amount."""

from __future__ import annotations

from collections.abc import Callable

from ledger import Ledger

MARCH_BILL = "Electricity bill, March 2026.\n\nFrom 1 March 2026 you pay PLN 280 per month for electricity."
JULY_BILL = "Electricity bill, July 2026.\n\nNew tariff: from 1 July 2026 you pay PLN 245 per month."


def record_bills(ledger: Ledger, *, scope: str = "default", between: Callable[[], None] = lambda: None) -> tuple[int, int]:
    """Store both bills and assert the amount from each (calling ``between`` in between); the two claim ids."""
    march = ledger.add_source(text=MARCH_BILL, title="Energa bill, March 2026", uri="mail:bill-2026-03", scope=scope)
    july = ledger.add_source(text=JULY_BILL, title="Energa bill, July 2026", uri="mail:bill-2026-07", scope=scope)
    first = ledger.assert_claim("electricity bill", "monthly amount", value="PLN 280", valid_from="2026-03-01",
                                evidence=ledger.cite(march, "you pay PLN 280 per month"), scope=scope)
    between()
    second = ledger.assert_claim("electricity bill", "monthly amount", value="PLN 245", valid_from="2026-07-01",
                                 evidence=ledger.cite(july, "you pay PLN 245 per month"), scope=scope)
    return first.id, second.id
