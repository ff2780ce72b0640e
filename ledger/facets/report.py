"""The facade's report and upkeep calls: ``report()`` (docs/reports.md) and ``maintain()``."""

from __future__ import annotations

from datetime import timedelta

from ledger import maintenance, validate
from ledger.errors import InvalidInput
from ledger.facets.base import Facet
from ledger.maintenance import MaintenanceReport
from ledger.report import REPORT_FORMATS, REPORT_KINDS, ReportFormat, ReportKind
from ledger.timeline import TimeInput
from ledger.validate import EntityRef


class ReportCalls(Facet):
    """Reports (contradictions, audit, timeline) as Markdown, JSON or HTML; ``maintain``."""

    def report(self, kind: ReportKind, entity: EntityRef | None = None, predicate: str | None = None, *,
               format: ReportFormat = "markdown", scope: str = "default", known_at: TimeInput | None = None) -> str:
        """A report as text: ``kind`` "contradictions", "audit" or "timeline" (of ``entity``, required),
        in ``format`` "markdown", "json" or "html", as the ledger held it at ``known_at`` (default now)."""
        from ledger.report import render
        from ledger.report.build import build

        if kind not in REPORT_KINDS:
            raise InvalidInput(f"unknown report {kind!r}; choose one of {', '.join(REPORT_KINDS)}")
        if format not in REPORT_FORMATS:
            raise InvalidInput(f"unknown report format {format!r}; choose one of {', '.join(REPORT_FORMATS)}")
        if kind == "timeline" and entity is None:
            raise InvalidInput("a timeline report needs an entity: report('timeline', 'Berlin')")
        scope = validate.check_scope(scope)
        subject, chosen = validate.entity_ref(entity), validate.optional_predicate(predicate)
        at = validate.moment(known_at, "known_at") or self.now()
        data = self._read(lambda connection: build(connection, kind=kind, scope=scope, known_at=at,
                                                   subject=subject, predicate=chosen))
        return render(data, format)

    def maintain(self, *, scope: str = "default", older_than: timedelta = maintenance.DEFAULT_UNCONFIRMED_AGE,
                 dry_run: bool = False, actor: str = "maintain") -> MaintenanceReport:
        """Merge duplicate claims by joining their evidence (one transaction, never deleting), and list
        unconfirmed claims older than ``older_than``, claims left on stale evidence and open
        contradictions; ``dry_run`` lists the merges without making them."""
        scope = validate.check_scope(scope)
        if not isinstance(older_than, timedelta) or older_than < timedelta(0):
            raise InvalidInput(f"older_than must be a timedelta of zero or more; got {older_than!r}")
        if not isinstance(dry_run, bool):
            raise InvalidInput(f"dry_run must be True or False; got {dry_run!r}")
        who = validate.check_actor(actor) or "maintain"
        if dry_run:
            now = self.now()
            return self._read(lambda connection: maintenance.run(
                connection, None, now, scope=scope, older_than=older_than, actor=who))
        return self._write(lambda connection, now, ids: maintenance.run(
            connection, ids, now, scope=scope, older_than=older_than, actor=who))
