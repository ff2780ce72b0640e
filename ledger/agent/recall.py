"""Recall: the claims that answer a question, with their validity, warnings and citations,
packed under a token budget (docs/agents.md).

It runs on one read transaction: find candidate claims by the question's words (``lookup``),
read each candidate's statement (subject, predicate, qualifiers) with its other values, keep the
claims that hold at the time asked, rank them (``packing.score``) and pack them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from sqlalchemy import Connection

from ledger import reads
from ledger.agent import lookup, packing
from ledger.agent.memory import live_notes
from ledger.agent.period import Period, period_in, without_period
from ledger.agent.records import PROMPT_PREAMBLE, Packet, PacketCitation, PacketItem, RecallWeights, WorkingNote
from ledger.agent.tokens import TokenCounter, content_terms
from ledger.records import Claim, ClaimId, Evidence, SourceId
from ledger.store import agent_rows

#: How many statements (subject, predicate, qualifiers) recall reads per question: at least 24, and
#: one per 25 tokens of budget (an item takes 30 or more).
MIN_STATEMENTS, TOKENS_PER_STATEMENT = 24, 25
#: How many citations an item shows at most, and how long an excerpt may run before it is cut.
MAX_CITATIONS = 2
MAX_EXCERPT_CHARS = 240
_ALL_TIME = (datetime(1000, 1, 1, tzinfo=UTC), datetime(9999, 12, 31, tzinfo=UTC))


@dataclass(frozen=True, slots=True)
class Question:
    """A checked recall request."""

    text: str
    scope: str
    budget_tokens: int
    now: datetime
    valid_at: datetime | None
    known_at: datetime | None
    run_id: str | None
    weights: RecallWeights
    count_tokens: TokenCounter


def recall(connection: Connection, question: Question) -> Packet:
    """The packet answering ``question`` (see the module docstring)."""
    period = period_in(question.text, question.now) if question.valid_at is None else None
    terms = content_terms(without_period(question.text, period))
    at = question.valid_at or question.now
    known_at = question.known_at or question.now
    header = question.count_tokens(f"{PROMPT_PREAMBLE}\nQuestion: {question.text}\n") + 24
    room = max(0, question.budget_tokens - header)
    notes: list[WorkingNote] = []
    if question.run_id is not None:
        everything = live_notes(connection, scope=question.scope, run_id=question.run_id, now=question.now)
        notes, used = packing.pack_notes(everything, terms, room, question.count_tokens)
        room -= used
    items, other_times, unread = _items(connection, terms, question, at=at, known_at=known_at, period=period)
    kept, _, omitted = packing.pack(items, room, question.count_tokens)
    omitted += unread
    nothing: str | None = None
    suggestions: tuple[str, ...] = ()
    if not kept and not notes:
        nothing, suggestions = _nothing(connection, terms, question, period, other_times)
    packet = _packet(question, period, kept, notes, omitted, nothing, suggestions)
    while packet.tokens > question.budget_tokens and packet.items:  # the header estimate was short
        kept = kept[:-1]
        packet = _packet(question, period, kept, notes, omitted + 1, nothing, suggestions)
    return packet


def _packet(question: Question, period: Period | None, items: Sequence[PacketItem], notes: Sequence[WorkingNote],
            omitted: int, nothing: str | None, suggestions: tuple[str, ...]) -> Packet:
    packet = Packet(question=question.text, scope=question.scope, items=tuple(items), notes=tuple(notes), tokens=0,
                    budget_tokens=question.budget_tokens, valid_at=question.valid_at, known_at=question.known_at,
                    period=(period.start, period.end) if period else None, nothing=nothing,
                    suggestions=suggestions, omitted=omitted, run_id=question.run_id)
    return replace(packet, tokens=question.count_tokens(packet.to_prompt()))


def _items(connection: Connection, terms: list[str], question: Question, *, at: datetime, known_at: datetime,
           period: Period | None) -> tuple[list[PacketItem], list[str], int]:
    """Ranked items answering the question, what holds at other times (when none hold at the time
    asked), and how many matching statements were not read for the budget."""
    span = (period.start, period.end) if period else None
    candidates = lookup.candidate_claims(connection, terms, question.scope, at=lookup.times_to_search(at, span),
                                         known_at=known_at)
    if not candidates and (period is not None or question.valid_at is not None):
        # nothing then: what is there now tells the caller the times it is recorded for
        candidates = lookup.candidate_claims(connection, terms, question.scope, at=[question.now], known_at=known_at)
    if not candidates:
        return [], [], 0
    held = _held_at(connection, candidates, question.scope, known_at)
    evidence = _evidence_by_claim(connection, list(held), known_at)
    relevance = {cid: packing.coverage(terms, _words(c, evidence.get(cid, []))) for cid, c in held.items()}
    statements: dict[tuple[int, str, str], float] = {}
    key: tuple[int, str, str]
    for cid, claim in held.items():
        key = (int(claim.subject_id), claim.predicate, json.dumps(claim.qualifiers, sort_keys=True))
        statements[key] = max(statements.get(key, 0.0), relevance[cid])
    ranked = sorted((k for k, v in statements.items() if v > 0), key=lambda k: statements[k], reverse=True)
    answers: list[tuple[Claim, float, list[Claim]]] = []
    other_times: list[str] = []
    readable = max(MIN_STATEMENTS, question.budget_tokens // TOKENS_PER_STATEMENT)
    read: dict[tuple[int, str], list[Claim]] = {}  # keys differing only by qualifiers share one read
    for key in ranked[:readable]:
        if key[:2] not in read:
            read[key[:2]] = _statement_claims(connection, key, question.scope, known_at)
        siblings = [c for c in read[key[:2]] if json.dumps(c.qualifiers, sort_keys=True) == key[2]]
        holding = [c for c in siblings if packing.answers(c, valid_at=at, period=span)]
        answers += [(c, statements[key], siblings) for c in holding]
        if not holding:
            other_times += [f"{packing.value_text(c)} {packing.interval_words(c)}" for c in siblings
                            if not c.never_valid]
    missing = [c.id for c, _, _ in answers if c.id not in evidence]
    evidence.update(_evidence_by_claim(connection, missing, known_at))
    labels = agent_rows.source_labels(connection, sorted({e.source_id for c, _, _ in answers
                                                          for e in evidence.get(c.id, [])}))
    rivals = _rivals(connection, [c for c, _, _ in answers if c.disputed], question.scope, known_at)
    items = [_item(claim, relevance, siblings, evidence.get(claim.id, []), labels, rivals.get(claim.id, []),
                   question, at=at) for claim, relevance, siblings in answers]
    return sorted(items, key=lambda item: item.score, reverse=True), other_times, max(0, len(ranked) - readable)


def _held_at(connection: Connection, ids: Sequence[int], scope: str, known_at: datetime) -> dict[int, Claim]:
    """Each claim in the version held at ``known_at``, if it was held then and not retracted."""
    held: dict[int, Claim] = {}
    for version in reads.claim_versions(connection, ids, scope):
        if version.recorded_at <= known_at and (version.invalidated_at is None or version.invalidated_at > known_at):
            held[version.id] = version
    return {cid: c for cid, c in held.items() if c.status != "retracted"}


def _statement_claims(connection: Connection, key: tuple[int, str, str], scope: str, known_at: datetime) -> list[Claim]:
    """Every claim of one subject and predicate held at ``known_at``, whenever valid."""
    query = reads.Filter(scope=scope, subject=key[0], predicate=key[1], during=_ALL_TIME, known_at=known_at)
    return reads.find_claims(connection, query, now=known_at)


def _evidence_by_claim(connection: Connection, ids: Sequence[int], known_at: datetime) -> dict[int, list[Evidence]]:
    found: dict[int, list[Evidence]] = {cid: [] for cid in ids}
    for row in reads.evidence_rows(connection, ids, known_at=known_at):
        found[row.claim_id].append(row)
    return found


def _words(claim: Claim, evidence: Sequence[Evidence]) -> str:
    """Everything recall matches a question against: names, predicate, value, qualifiers, excerpts."""
    parts = [claim.subject, claim.predicate, packing.value_text(claim), *map(str, claim.qualifiers.values()),
             *(e.excerpt for e in evidence)]
    return " ".join(parts)


def _rivals(connection: Connection, disputed: Sequence[Claim], scope: str, known_at: datetime) -> dict[int, list[Claim]]:
    """The claims each disputed claim is in contradiction with (the other side)."""
    if not disputed:
        return {}
    ids = {c.id for c in disputed}
    pairs = [(link.from_claim_id, link.to_claim_id) for link in reads.claim_links(connection, sorted(ids),
                                                                                  known_at=known_at)
             if link.kind == "contradicts"]
    others = {b if a in ids else a for a, b in pairs} - ids | {b for a, b in pairs if a in ids and b in ids}
    held = _held_at(connection, sorted(others | ids), scope, known_at)
    rivals: dict[int, list[Claim]] = {}
    for a, b in pairs:
        for mine, theirs in ((a, b), (b, a)):
            if mine in ids and theirs in held:
                rivals.setdefault(mine, []).append(held[theirs])
    return rivals


def _item(claim: Claim, relevance: float, siblings: list[Claim], evidence: Sequence[Evidence],
          labels: dict[int, tuple[str | None, str | None, str]], rivals: Sequence[Claim], question: Question, *,
          at: datetime) -> PacketItem:
    supporting = [e for e in evidence if e.relation == "supports"]
    warnings: list[str] = []
    if claim.disputed:
        if rivals:
            warnings += [f"disputed: claim {r.id} says {packing.value_text(r)} {packing.interval_words(r)}"
                         for r in rivals]
        else:
            warnings.append("disputed" + (f": {claim.reason}" if claim.reason else ""))
    for against in (e for e in evidence if e.relation == "contradicts"):
        title = (labels.get(against.source_id) or (None, None, ""))[0] or f"source {against.source_id}"
        warnings.append(f"contradicted by {title}: \u201c{_cut(against.excerpt)}\u201d")
    if claim.confidence < packing.LOW_CONFIDENCE:
        warnings.append(f"low confidence ({claim.confidence:.2f})")
    stale = [e for e in evidence if e.stale_at is not None]
    if stale:
        warnings.append(f"stale evidence: {len(stale)} quote(s) vanished from a newer revision of their source")
    if claim.imprecise:
        warnings.append("may or may not hold at the time asked (a bound is known only to the year)")
    words, related = packing.validity(claim, siblings)
    return PacketItem(
        claim_id=claim.id, subject=claim.subject, predicate=claim.predicate, value=packing.value_text(claim),
        validity=words, status=claim.status, confidence=claim.confidence,
        score=round(packing.score(relevance, claim, sources=len({e.source_id for e in supporting}), now=at,
                                  weights=question.weights), 4),
        warnings=tuple(warnings), citations=tuple(_citation(e, labels) for e in supporting[:MAX_CITATIONS]),
        related_claim_ids=tuple(ClaimId(r) for r in related), qualifiers=dict(claim.qualifiers))


def _citation(evidence: Evidence, labels: dict[int, tuple[str | None, str | None, str]]) -> PacketCitation:
    title, uri, kind = labels.get(evidence.source_id, (None, None, "text"))
    char_start, char_end = _span(evidence)
    return PacketCitation(source_id=SourceId(evidence.source_id), title=title or uri or f"source {evidence.source_id}",
                          kind=kind, uri=uri, page=evidence.page, char_start=char_start, char_end=char_end,
                          excerpt=_cut(evidence.excerpt), relation=evidence.relation)


def _span(evidence: Evidence) -> tuple[int, int]:
    for selector in evidence.locator.get("selectors", ()):
        if selector.get("type") == "TextPositionSelector":
            return int(selector["start"]), int(selector["end"])
    return 0, len(evidence.excerpt)


def _cut(text: str) -> str:
    return text if len(text) <= MAX_EXCERPT_CHARS else text[:MAX_EXCERPT_CHARS - 1].rstrip() + "\u2026"


def _nothing(connection: Connection, terms: list[str], question: Question, period: Period | None,
             other_times: list[str]) -> tuple[str, tuple[str, ...]]:
    """The explicit "nothing recorded about …", with name suggestions for words the ledger does not know."""
    about = " ".join(terms) or question.text.strip()
    when = f" for {_period_label(period)}" if period else (
        f" valid at {packing.shown_time(question.valid_at, None)}" if question.valid_at else "")
    message = f"nothing recorded about {about!r}{when}"
    if other_times:
        message += "; recorded for other times: " + "; ".join(other_times[:3])
    suggestions = lookup.suggestions(connection, terms, question.scope)
    if suggestions:
        message += "; did you mean " + " or ".join(repr(s) for s in suggestions) + "?"
    return message, suggestions


def _period_label(period: Period) -> str:
    """"2026-04" for a month, "2026" for a year."""
    if period.end.year > period.start.year and period.start.month == 1 and period.end.month == 1:
        return f"{period.start.year:04d}"
    return f"{period.start.year:04d}-{period.start.month:02d}"
