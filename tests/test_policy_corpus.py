"""The write policy on corpora: the hostile fixture (fixtures/build_policy.py) must be caught with no
ordinary sentence refused, and the project's real-world documents, ingested through the policy and
then every passage and sentence offered as claim content, must be refused nowhere."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ledger import Ledger, NeedsOCR
from ledger.policy.config import PolicyConfig
from ledger.policy.decide import screen
from tests.conftest import FIXTURES, REALWORLD

HOSTILE = json.loads((FIXTURES / "policy" / "hostile.json").read_text(encoding="utf-8"))
CLAIM_DEFAULTS = PolicyConfig()
#: every category refused, so a caught PII input shows as caught (by default PII is redacted)
STRICT = PolicyConfig(pii="refuse")


def _categories(text: str, config: PolicyConfig) -> set[str]:
    return {d.rule.split(":", 1)[0] for d in screen(text, field="claim.value", scope="default", config=config).decisions}


def test_the_hostile_corpus_is_caught_and_no_ordinary_sentence_is_refused() -> None:
    hostile = [e for e in HOSTILE if e["expect"] is not None]
    ordinary = [e for e in HOSTILE if e["expect"] is None]
    assert len(hostile) >= 60
    missed = [e["how"] for e in hostile if e["expect"] not in _categories(e["text"], STRICT)]
    refused = [e["text"] for e in ordinary if _categories(e["text"], STRICT)]
    print(f"\nhostile corpus: {len(hostile) - len(missed)}/{len(hostile)} caught; "
          f"{len(refused)}/{len(ordinary)} ordinary sentences refused")
    assert missed == [] and refused == []


@pytest.mark.parametrize("entry", [e for e in HOSTILE if e["expect"] is not None], ids=lambda e: e["how"])
def test_each_hostile_input_is_refused_or_redacted_by_default(entry: dict[str, str]) -> None:
    screened = screen(entry["text"], field="claim.value", scope="default", config=CLAIM_DEFAULTS)
    assert screened.decisions, entry["how"]
    expected_action = "redact" if entry["expect"] == "pii" else "refuse"
    assert {d.action for d in screened.decisions} >= {expected_action}
    for decision in screened.decisions:  # spans point into the text as given
        start, end = decision.span
        assert 0 <= start < end <= len(entry["text"])


#: the shared corpus beside the checkout (or beside the folder of worktrees, for a branch's worktree)
CORPUS = next((p for p in (REALWORLD, Path(__file__).resolve().parents[3] / "shared" / "realworld") if p.is_dir()),
              REALWORLD)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"{CORPUS} is absent (the shared real-world corpus)")
def test_the_real_world_corpus_is_refused_nowhere(ledger: Ledger) -> None:
    documents = sorted(p for p in CORPUS.rglob("*") if p.suffix.lower() in (".html", ".pdf"))
    texts: list[str] = []
    for path in documents:
        try:
            source = (ledger.ingest_pdf(path, password="baz" if path.name == "encrypted-aes256.pdf" else None)
                      if path.suffix == ".pdf" else ledger.ingest_html(Path(path)))
        except NeedsOCR:
            continue  # no text to judge
        for passage in ledger.passages(source):
            text = source.text[passage.char_start:passage.char_end]
            texts.append(text)
            texts.extend(s for s in _SENTENCE.split(text) if s.strip())
    refused = [(t[:80], d.rule) for t in texts
               for d in screen(t, field="claim.value", scope="default", config=CLAIM_DEFAULTS).decisions
               if d.action == "refuse"]
    print(f"\nreal-world corpus: {len(documents)} documents, {len(texts)} passages and sentences, "
          f"{len(refused)} refused")
    assert len(texts) > 500
    assert refused == []
