"""The consistency checker: every invariant the ledger promises, checked against the database."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from sqlalchemy import Connection

from ledger import queries, store
from ledger.claims.intervals import surely_overlap
from ledger.claims.values import object_key


@dataclass(frozen=True, slots=True)
class Finding:
    """One broken invariant."""

    check: str
    detail: str


@dataclass(frozen=True, slots=True)
class CheckReport:
    """What ``Ledger.check()`` ran and found; ``ok`` when nothing was found."""

    checks: tuple[str, ...]
    findings: tuple[Finding, ...]

    @property
    def ok(self) -> bool:
        """True when no check found anything."""
        return not self.findings


class SqlCheck(NamedTuple):
    """A named query whose rows break an invariant: how to describe one, and (where the query
    finds candidates a rule must still judge) which of them to keep."""

    query: str
    check: str
    describe: Callable[[Mapping[Any, Any]], str]
    keep: Callable[[Mapping[Any, Any]], bool] | None = None


def _surely_overlapping(row: Mapping[Any, Any]) -> bool:
    """Whether a pair the overlap query found says two values (not one in two spellings) and
    overlaps beyond its year-precision windows."""
    if object_key(row["a_object_id"], row["a_value"], row["a_datatype"]) == \
            object_key(row["b_object_id"], row["b_value"], row["b_datatype"]):
        return False
    time = store.stored_time
    a = (time(row["a_from"]), time(row["a_until"]), row["a_from_precision"], row["a_until_precision"])
    b = (time(row["b_from"]), time(row["b_until"]), row["b_from_precision"], row["b_until_precision"])
    return surely_overlap(a, b)


SQL_CHECKS: tuple[SqlCheck, ...] = tuple(SqlCheck(*entry) for entry in (
    ("check_unsupported_claims", "claims have supporting evidence",
     lambda r: f"claim {r['claim_id']} ({r['status']}) has no supporting evidence and is not retracted"),
    ("check_evidence_excerpts", "excerpts slice out of their sources",
     lambda r: f"evidence {r['evidence_id']} of claim {r['claim_id']} is not the text of source {r['source_id']} "
               f"at its offsets"),
    ("check_claims_without_current_version", "one current version per claim",
     lambda r: f"claim {r['claim_id']} has {r['current_versions']} current versions"),
    ("check_version_overlap", "versions do not overlap in system time",
     lambda r: f"versions {r['first_version_id']} and {r['second_version_id']} of claim {r['claim_id']} overlap"),
    ("check_functional_overlap", "one undisputed value per functional predicate at a time",
     lambda r: f"claims {r['first_claim_id']} and {r['second_claim_id']} ({r['predicate']}) overlap in valid "
               f"time without being disputed", _surely_overlapping),
    ("check_scope_leaks", "no row references another scope",
     lambda r: f"{r['kind']} {r['id']} in scope {r['scope']!r} references scope {r['other_scope']!r}"),
))


def run_checks(connection: Connection) -> CheckReport:
    """Run every check in one read transaction."""
    checks: list[str] = []
    findings: list[Finding] = []
    if connection.dialect.name == "sqlite":
        checks.append("sqlite integrity_check")
        for (message,) in connection.exec_driver_sql("PRAGMA integrity_check"):
            if message != "ok":
                findings.append(Finding("sqlite integrity_check", str(message)))
        checks.append("sqlite foreign_key_check")
        for table, rowid, parent, _ in connection.exec_driver_sql("PRAGMA foreign_key_check"):
            findings.append(Finding("sqlite foreign_key_check", f"{table} row {rowid} points at a missing {parent} row"))
    for query, check, describe, keep in SQL_CHECKS:
        checks.append(check)
        rows = queries.run(connection, query).mappings()
        findings.extend(Finding(check, describe(row)) for row in rows if keep is None or keep(row))
    return CheckReport(checks=tuple(checks), findings=tuple(findings))
