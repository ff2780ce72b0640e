"""What a report shows, gathered once in one read transaction and handed to every renderer.

A report is a list of entity sections; each section holds facts (one subject, predicate and
qualifiers), each fact its claims (values) with every version as the ledger held it at
``known_at``, the links between them and their evidence with its source. Nothing here writes.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal
from urllib.parse import urlsplit

from sqlalchemy import Connection

from ledger import queries, reads, store
from ledger.records import STATUSES, Audit, Claim, EntityId, Evidence, Link, SourceId

ReportKind = Literal["contradictions", "audit", "timeline"]
REPORT_KINDS: tuple[ReportKind, ...] = ("contradictions", "audit", "timeline")
ReportFormat = Literal["markdown", "json", "html"]
REPORT_FORMATS: tuple[ReportFormat, ...] = ("markdown", "json", "html")
#: URI schemes a report links to; any other (``javascript:``, ``data:``, ``mailbox:``) is shown as text.
LINKABLE_SCHEMES = frozenset({"http", "https", "file", "ftp"})


@dataclass(frozen=True, slots=True)
class ReportSource:
    """The source of a piece of evidence, as a report cites it."""

    id: SourceId
    kind: str
    title: str | None
    uri: str | None
    publisher: str | None
    author: str | None
    published_at: datetime | None
    trust: str

    @property
    def label(self) -> str:
        """Its title, else its URI, else "source N"."""
        return self.title or self.uri or f"source {self.id}"


@dataclass(frozen=True, slots=True)
class ReportEvidence:
    """One excerpt behind a claim, with its source and a link to the place it was quoted from."""

    evidence: Evidence
    source: ReportSource
    #: The source's URI with ``#page=N`` for a PDF page; None when the URI is not a safe link.
    link: str | None


@dataclass(frozen=True, slots=True)
class Fact:
    """One subject, predicate and qualifiers: every claim (value) made about it, with evidence."""

    anchor: str
    subject_id: EntityId
    subject: str
    predicate: str
    qualifiers: Mapping[str, object]
    #: One Audit per claim: the claim as held at ``known_at``, its versions until then, its links.
    claims: tuple[Audit, ...]
    evidence: tuple[ReportEvidence, ...]
    #: For a contradictions report: why the claims conflict, in words.
    why: str | None = None

    @property
    def disputed(self) -> bool:
        """Whether any of its claims is disputed (as held at ``known_at``)."""
        return any(audit.claim.status == "disputed" for audit in self.claims)

    @property
    def changed(self) -> bool:
        """Whether it had more than one value or any claim more than one version."""
        return len(self.claims) > 1 or any(len(audit.versions) > 1 for audit in self.claims)

    @property
    def links(self) -> tuple[Link, ...]:
        """The links between its claims and others, each once, oldest first."""
        seen: dict[tuple[str, int, int, datetime], Link] = {}
        for audit in self.claims:
            for link in audit.links:
                seen.setdefault((link.kind, link.from_claim_id, link.to_claim_id, link.recorded_at), link)
        return tuple(sorted(seen.values(), key=lambda link: (link.recorded_at, link.from_claim_id)))


@dataclass(frozen=True, slots=True)
class EntitySection:
    """The facts of one subject entity."""

    anchor: str
    entity_id: EntityId
    name: str
    facts: tuple[Fact, ...]


@dataclass(frozen=True, slots=True)
class Report:
    """Everything a report shows, before it is rendered as Markdown, JSON or HTML."""

    kind: ReportKind
    scope: str
    #: The system time the report reads the ledger at (what the ledger said then).
    known_at: datetime
    entity: str | None
    predicate: str | None
    sections: tuple[EntitySection, ...]

    @property
    def facts(self) -> tuple[Fact, ...]:
        """Every fact, section by section."""
        return tuple(fact for section in self.sections for fact in section.facts)

    @property
    def title(self) -> str:
        """The report's heading."""
        if self.kind == "timeline":
            return f"Timeline of {self.entity}" + (f" / {self.predicate}" if self.predicate else "")
        return {"audit": "Audit", "contradictions": "Contradictions"}[self.kind] + f" of scope {self.scope}"


# ---------------------------------------------------------------- gathering


@dataclass(frozen=True, slots=True)
class Group:
    """Claims a report shows together as one fact (a contradiction's sides), with why."""

    claim_ids: tuple[int, ...]
    why: str
    anchor: str


def known_versions(versions: Iterable[Claim], known_at: datetime) -> dict[int, list[Claim]]:
    """Claim id → its versions recorded by ``known_at``, oldest first; a version closed only
    after ``known_at`` is shown open, as the ledger held it then."""
    by_claim: dict[int, list[Claim]] = {}
    for version in versions:
        if version.recorded_at > known_at:
            continue
        if version.invalidated_at is not None and version.invalidated_at > known_at:
            version = dataclasses.replace(version, invalidated_at=None)
        by_claim.setdefault(version.id, []).append(version)
    return by_claim


#: Ids per statement: well under SQLite's parameter limit, however large the report.
CHUNK = 5000


def _chunks(ids: Sequence[int]) -> Iterable[list[int]]:
    for start in range(0, len(ids), CHUNK):
        yield list(ids[start:start + CHUNK])


def entity_roots(connection: Connection, entity_ids: Iterable[int], known_at: datetime) -> dict[int, tuple[int, str]]:
    """Entity id → (the entity it was merged into by ``known_at``, else itself; that one's name)."""
    roots: dict[int, tuple[int, str]] = {}
    for chunk in _chunks(sorted(set(entity_ids))):
        for row in queries.run(connection, "entity_roots", ids=chunk, known_at=known_at):
            roots[row.id] = (row.root_id, row.root_name)
    return roots


def facts_of(connection: Connection, by_claim: Mapping[int, Sequence[Claim]], known_at: datetime,
             groups: Sequence[Group] | None = None) -> list[Fact]:
    """The facts of these claims: by (subject after merges, predicate, qualifiers), or as the
    given groups, each with its links and evidence as of ``known_at``."""
    claim_ids = sorted(by_claim)
    links: dict[tuple[str, int, int, datetime], Link] = {}
    evidence: dict[int, list[Evidence]] = {}
    for chunk in _chunks(claim_ids):
        for link in reads.claim_links(connection, chunk, known_at=known_at):
            links.setdefault((link.kind, link.from_claim_id, link.to_claim_id, link.recorded_at), link)
        for row in reads.evidence_rows(connection, chunk, known_at=known_at):
            evidence.setdefault(row.claim_id, []).append(row)
    touching: dict[int, list[Link]] = {}
    for link in links.values():
        for end in {link.from_claim_id, link.to_claim_id}:
            touching.setdefault(end, []).append(link)
    sources = _sources(connection, {e.source_id for rows in evidence.values() for e in rows})
    audits = {claim_id: Audit(claim=versions[-1], versions=tuple(versions), links=tuple(touching.get(claim_id, ())))
              for claim_id, versions in by_claim.items()}
    roots = entity_roots(connection, {a.claim.subject_id for a in audits.values()}, known_at)
    if groups is None:
        keyed: dict[tuple[int, str, str], list[int]] = {}
        for claim_id in claim_ids:
            claim = audits[claim_id].claim
            key = (roots[claim.subject_id][0], claim.predicate, _canonical(claim.qualifiers))
            keyed.setdefault(key, []).append(claim_id)
        groups = [Group(tuple(ids), "", f"fact-{ids[0]}") for ids in keyed.values()]
    facts = []
    for group in groups:
        members = tuple(audits[i] for i in sorted(group.claim_ids))
        first = members[0].claim
        root, name = roots[first.subject_id]
        trails = tuple(ReportEvidence(e, sources[e.source_id], source_link(sources[e.source_id], e.page))
                       for claim_id in sorted(group.claim_ids) for e in evidence.get(claim_id, ()))
        facts.append(Fact(anchor=group.anchor, subject_id=EntityId(root), subject=name, predicate=first.predicate,
                          qualifiers=first.qualifiers, claims=members, evidence=trails, why=group.why or None))
    return facts


def sections_of(facts: Iterable[Fact]) -> tuple[EntitySection, ...]:
    """Facts grouped by subject entity: entities by name, facts by predicate then first claim."""
    by_entity: dict[int, list[Fact]] = {}
    for fact in facts:
        by_entity.setdefault(fact.subject_id, []).append(fact)
    sections = [
        EntitySection(anchor=f"entity-{entity_id}", entity_id=EntityId(entity_id), name=found[0].subject,
                      facts=tuple(sorted(found, key=lambda f: (natural(f.predicate), f.claims[0].claim.id, f.anchor))))
        for entity_id, found in by_entity.items()
    ]
    return tuple(sorted(sections, key=lambda s: (natural(s.name), s.entity_id)))


def natural(name: str) -> tuple[tuple[int, int | str], ...]:
    """A sort key that orders names as people do: "entity 2" before "entity 10", case ignored."""
    return tuple((0, int(part)) if part.isdigit() else (1, part)
                 for part in re.split(r"(\d+)", name.casefold()) if part)


def gather(connection: Connection, *, kind: ReportKind, scope: str, known_at: datetime,
           subject: int | str | None = None, predicate: str | None = None) -> Report:
    """Read what an audit or timeline report shows: every claim of ``scope`` (of ``subject`` and
    ``predicate``, if given) with its versions as held at ``known_at``."""
    query = reads.Filter(scope=scope, subject=subject, predicate=predicate, statuses=STATUSES, all_versions=True)
    by_claim = known_versions(reads.find_claims(connection, query, now=known_at), known_at)
    facts = facts_of(connection, by_claim, known_at) if by_claim else []
    label = subject if isinstance(subject, str) or subject is None else _entity_name(facts, subject)
    return Report(kind=kind, scope=scope, known_at=known_at, entity=label, predicate=predicate,
                  sections=sections_of(facts))


def gather_groups(connection: Connection, *, kind: ReportKind, scope: str, known_at: datetime,
                  groups: Sequence[Group], entity: str | None = None, predicate: str | None = None) -> Report:
    """Read what a report of the given groups of claims (contradictions) shows."""
    wanted = sorted({claim_id for group in groups for claim_id in group.claim_ids})
    versions = [v for chunk in _chunks(wanted) for v in reads.claim_versions(connection, chunk, scope)]
    by_claim = known_versions(versions, known_at)
    groups = [g for g in groups if all(i in by_claim for i in g.claim_ids)]
    facts = facts_of(connection, by_claim, known_at, groups) if groups else []
    return Report(kind=kind, scope=scope, known_at=known_at, entity=entity, predicate=predicate,
                  sections=sections_of(facts))


def _entity_name(facts: Sequence[Fact], entity_id: int) -> str:
    return next((f.subject for f in facts if f.subject_id == entity_id), f"entity {entity_id}")


def _canonical(qualifiers: Mapping[str, object]) -> str:
    return json.dumps(qualifiers, sort_keys=True, ensure_ascii=False, default=str)


def _sources(connection: Connection, source_ids: Iterable[int]) -> dict[int, ReportSource]:
    found = {}
    for source_id in sorted(source_ids):
        row = store.source_row(connection, source_id)
        found[source_id] = ReportSource(
            id=SourceId(source_id), kind=row["kind"], title=row["title"], uri=row["uri"],
            publisher=row["publisher"], author=row["author"], published_at=row["published_at"], trust=row["trust"])
    return found


def safe_link(uri: str | None) -> str | None:
    """``uri`` when a report may link to it (http, https, file, ftp), else None."""
    if not uri or any(ord(c) < 0x21 for c in uri):
        return None
    try:
        scheme = urlsplit(uri).scheme.lower()
    except ValueError:
        return None
    return uri if scheme in LINKABLE_SCHEMES else None


def source_link(source: ReportSource, page: int | None) -> str | None:
    """The link to where evidence was quoted: the source's safe URI, with ``#page=N`` for a PDF page."""
    link = safe_link(source.uri)
    if link is None:
        return None
    if page is not None and source.kind == "pdf" and "#" not in link:
        return f"{link}#page={page}"
    return link
