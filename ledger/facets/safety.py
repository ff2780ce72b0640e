"""The facade's safety calls: the write policy's settings and log, quarantine and promotion, erasure."""

from __future__ import annotations

from typing import Any

from ledger import authority, erasure, quarantine, store, validate, views
from ledger.errors import InvalidInput
from ledger.facets.base import Facet
from ledger.policy.config import LEDGER_WIDE, PolicyConfig, check_settings, effective
from ledger.policy.decide import PolicyDecision
from ledger.records import Claim
from ledger.store import policy_rows, safety_rows
from ledger.validate import ClaimRef, EntityRef, SourceRef, check_scope


class SafetyCalls(Facet):
    """Write policy, quarantine and promotion, erasure (docs/safety.md)."""

    def set_policy(self, scope: str | None = None, *, actor: str | None = None, **settings: Any) -> PolicyConfig:
        """Change write-policy settings for ``scope`` (None: the whole ledger); returns what then holds there."""
        layer = LEDGER_WIDE if scope is None else check_scope(scope)
        checked = check_settings(settings)
        actor = validate.check_actor(actor)

        def write(connection: Any, now: Any, ids: Any) -> PolicyConfig:
            layers = policy_rows.policy_layers(connection, [layer, LEDGER_WIDE])
            merged = {**layers.get(layer, {}), **checked}
            policy_rows.insert_policy(connection, ids, scope=layer, settings=merged, actor=actor, now=now)
            return effective("default" if layer == LEDGER_WIDE else layer, {**layers, layer: merged})

        return self._write(write)

    def policy(self, scope: str = "default") -> PolicyConfig:
        """The write-policy settings that hold in ``scope``."""
        scope = check_scope(scope)
        return self._read(lambda connection: effective(
            scope, policy_rows.policy_layers(connection, [scope, LEDGER_WIDE])))

    def policy_decisions(self, scope: str = "default", *, limit: int = 100) -> list[PolicyDecision]:
        """The write policy's logged decisions in ``scope``, newest first (never the text, only kind and span)."""
        scope = check_scope(scope)
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise InvalidInput(f"limit must be a whole number from 1, not {limit!r:.40}")
        found = self._read(lambda connection: policy_rows.decision_rows(connection, scope, limit))
        return [PolicyDecision(scope=r["scope"], field=r["field"], rule=r["rule"], action=r["action"],
                               span=(r["span_start"], r["span_end"]), actor=r["actor"], recorded_at=r["recorded_at"],
                               id=r["id"]) for r in found]

    def promote(self, claim: ClaimRef, *, reason: str, actor: str | None = None) -> Claim:
        """Move a quarantined claim and its evidence into the trusted scope (through its write policy)."""
        claim_id = validate.claim_id(claim)
        if not isinstance(reason, str) or not reason.strip():
            raise InvalidInput("promote() needs a reason saying why the claim can be trusted")
        actor = validate.check_actor(actor)
        return self._write(lambda connection, now, ids: views.claim_at(connection, quarantine.promote(
            connection, ids, now, claim_id, reason=reason, actor=actor), now))

    def quarantine_report(self, *, scope: str = "default") -> list[Claim]:
        """The claims waiting in ``quarantine:<scope>`` to be promoted (or not)."""
        scope = check_scope(scope)
        now = self.now()
        return self._read(lambda connection: quarantine.report(connection, scope, now))

    def erase(self, *, source: SourceRef | None = None, entity: EntityRef | None = None,
              claim: ClaimRef | None = None, reason: str, actor: str | None = None) -> erasure.Erased:
        """Remove a source, entity or claim's content physically, leaving a tombstone (the only deleting call)."""
        if not isinstance(reason, str) or not reason.strip():
            raise InvalidInput("erase() needs a reason (it is kept in the tombstone)")
        actor = validate.check_actor(actor)
        source_id = validate.source_id(source) if source is not None else None
        entity_id = validate.entity_id_of(entity) if entity is not None and not isinstance(entity, str) else None
        if isinstance(entity, str):
            raise InvalidInput("erase(entity=) takes an entity record or id, not a name: names are ambiguous")
        claim_id = validate.claim_id(claim) if claim is not None else None
        erased = self._write(lambda connection, now, ids: erasure.erase(
            connection, ids, now, source=source_id, entity=entity_id, claim=claim_id, reason=reason, actor=actor))
        safety_rows.compact(self._db.engine)
        return erased

    def tombstones(self, scope: str = "default") -> list[erasure.Tombstone]:
        """What erasures removed in ``scope`` (and its quarantine): ids, reason, actor, time; never content."""
        scope = check_scope(scope)
        return self._read(lambda connection: erasure.tombstones(connection, scope))

    def grant(self, actor: str, role: str, *, scope: str = "default", granted_by: str | None = None) -> None:
        """Make ``actor`` an owner or reviewer of ``scope``; a scope with grants protects its claims."""
        from ledger.authority import check_role
        from ledger.store.authority_rows import insert_grant

        checked_role, scope = check_role(role), check_scope(scope)
        name, by = validate.check_actor(actor), validate.check_actor(granted_by)
        if name is None:
            raise InvalidInput("grant() needs the actor's name")
        self._write(lambda connection, now, ids: insert_grant(
            connection, ids, scope=scope, actor=name, role=checked_role, granted_by=by, now=now))

    def challenges(self, scope: str = "default") -> list[authority.Challenge]:
        """Retractions and supersessions asked for without authority in ``scope``, waiting or resolved."""
        from ledger.store.authority_rows import challenge_rows

        scope = check_scope(scope)
        return self._read(lambda connection: [authority.challenge(r) for r in challenge_rows(connection, scope)])

    def resolve_challenge(self, challenge: int, *, accept: bool, actor: str, reason: str | None = None
                          ) -> authority.Challenge:
        """Accept (the change is made) or reject a challenge; only an owner or reviewer of its scope may."""
        if isinstance(challenge, bool) or not isinstance(challenge, int):
            raise InvalidInput(f"challenge must be a challenge id, not {challenge!r:.40}")
        name = validate.check_actor(actor)
        return self._write(lambda connection, now, ids: authority.resolve(
            connection, ids, now, challenge, accept=bool(accept), actor=name, reason=reason))

    def rate(self, *, reliability: float | str, source: SourceRef | None = None, publisher: str | None = None,
             scope: str = "default", actor: str | None = None) -> float:
        """Rate a source or a publisher (0 to 1, or "primary", "record", "blog", "anonymous"); returns the rating."""
        from ledger.reliability import check_rating
        from ledger.store.authority_rows import insert_rating

        rating, scope, actor = check_rating(reliability), check_scope(scope), validate.check_actor(actor)
        if (source is None) == (publisher is None):
            raise InvalidInput("rate() takes exactly one of source= or publisher=")
        source_id = validate.source_id(source) if source is not None else None
        if publisher is not None and (not isinstance(publisher, str) or not publisher.strip()):
            raise InvalidInput("publisher must be a publisher's name as the sources give it")

        def write(connection: Any, now: Any, ids: Any) -> float:
            if source_id is not None:
                scope_of = store.source_row(connection, source_id)["scope"]
            insert_rating(connection, ids, scope=scope_of if source_id is not None else scope, source_id=source_id,
                          publisher=publisher, rating=rating, actor=actor, now=now)
            return rating

        return self._write(write)

    def reliability(self, source: SourceRef) -> float | None:
        """The rating that holds for a source (its own, else its publisher's), or None when unrated."""
        from ledger.reliability import source_reliability

        source_id = validate.source_id(source)
        return self._read(lambda connection: source_reliability(connection, store.source_row(connection, source_id)))
