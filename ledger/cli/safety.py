"""``ledger erase``, ``ledger promote`` and ``ledger quarantine``: erasure and the way out of quarantine."""

from __future__ import annotations

from typing import Annotated

import typer

from ledger.cli.common import DbOption, JsonOption, ScopeOption, console, opened
from ledger.cli.render import print_json, show_claims
from ledger.errors import InvalidInput


def erase(
    source: Annotated[int | None, typer.Option(help="Erase this source (and its revisions).")] = None,
    entity: Annotated[int | None, typer.Option(help="Erase this entity (id) and the claims about it.")] = None,
    claim: Annotated[int | None, typer.Option(help="Erase this claim.")] = None,
    reason: Annotated[str, typer.Option(help="Why (kept in the tombstone).")] = "",
    actor: Annotated[str | None, typer.Option(help="Who erases (kept in the tombstone).")] = None,
    as_json: JsonOption = False, db: DbOption = None,
) -> None:
    """Erase a source, entity or claim's content physically, leaving only a tombstone.

    Example: ledger erase --source 7 --reason "GDPR art. 17 request 2026-88" --actor dpo
    """
    with opened(db, as_json=as_json, create=False) as ledger:
        if not reason.strip():
            raise InvalidInput("erase needs --reason (it is kept in the tombstone)")
        erased = ledger.erase(source=source, entity=entity, claim=claim, reason=reason, actor=actor)
    if as_json:
        print_json(erased)
        return
    console.print(f"erasure {erased.erasure_id}: {len(erased.sources)} source(s), {len(erased.entities)} entity(ies), "
                  f"{len(erased.claims)} claim(s) erased; {len(erased.unsupported)} retracted for lack of support, "
                  f"{len(erased.kept)} kept on other evidence")


def promote(
    claim: int,
    reason: Annotated[str, typer.Option(help="Why the claim can be trusted.")],
    actor: Annotated[str | None, typer.Option(help="Who vouches for it.")] = None,
    as_json: JsonOption = False, db: DbOption = None,
) -> None:
    """Move a quarantined claim and its evidence into the trusted scope, through its write policy.

    Example: ledger promote 12 --reason "checked against the registry" --actor reviewer
    """
    with opened(db, as_json=as_json, create=False) as ledger:
        promoted = ledger.promote(claim, reason=reason, actor=actor)
    if as_json:
        print_json(promoted)
    else:
        show_claims([promoted], title=f"claim {claim} promoted as claim {promoted.id}")


def quarantine(scope: ScopeOption = "default", as_json: JsonOption = False, db: DbOption = None) -> None:
    """The claims waiting in quarantine:<scope> to be promoted.

    Example: ledger quarantine --scope research
    """
    with opened(db, as_json=as_json, create=False) as ledger:
        waiting = ledger.quarantine_report(scope=scope)
    if as_json:
        print_json(waiting)
    else:
        show_claims(waiting, title=f"{len(waiting)} claim(s) waiting in quarantine:{scope}")
