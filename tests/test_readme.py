"""The README and docs/: their examples run, their links resolve, every CLI command is documented."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.main import get_command

from ledger.cli import app

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = ROOT / "docs"
CLI_DOC = (DOCS / "cli.md").read_text(encoding="utf-8")
COMMANDS = sorted(get_command(app).commands)  # type: ignore[attr-defined]

#: docs pages whose ```python blocks run, in order, in one namespace, and what their output shows
RUN_IN_ORDER = {
    "concepts.md": ["asserted; updates claim 1", "PLN 2800 PLN 2800 None", "disputed asserted; conflicts with claim 2",
                    "reported restored: claim 3 was retracted", "2 confirmed 0.84",
                    "asserted (('updates', 1),) True", "superseded closed-by 2 | closed by a later value (claim 2)", "quarantine:default 0.2",
                    "['PLN 3100']"],
    "api.md": ["True None", "1 True 2 False", "True False 2", "3,878,100 inhabitants 11 32", "1 62", "reviewed the hyphenated records",
               "1 reported 0.6 asserted", "[2, 3]", "disputed retracted", "3878100 confirmed country",
               "[('reported', 'asserted'), ('confirmed', 'confirmed')]", "[(3, 3)]", "many None", "NotFound 3 claim 999 does not exist",
               "1 ['Q7']", "head of government shipped"],
    "interchange.md": ["chief executive officer disputed asserted; conflicts with claim 1 in the same source",
                       "chairperson many scope shipped", "[(3, 4)]", "1 None", "2 2",
                       "1994-06 [('Q7', 'reported', True), ('Q8', 'confirmed', True)]",
                       "1996 [('Q8', 'confirmed', False)]",
                       "Q1$b: P6 = Q8; P580 1994; rank preferred | https://www.wikidata.org/wiki/Q1"],
    "ingestion.md": ["reviewed the hyphenated records"],
    "search.md": ['claim 1 Zürich office · electricity_cost · "PLN 245" | 1 None',
                  "evidence 1 the Zürich office pays PLN 245 a month | 1 Office bills 2026",
                  "passage 1 From July the Zürich office pays PLN 245 a month for electricity. | None Office bills 2026",
                  "['passage'] ['passage']", 'True True Zürich office · electricity_cost · "PLN 245"', "[]\n",
                  "entity Tottenham Hotspur fuzzy 0.8", "entity Tottenham Hotspur exact alias 1.0",
                  "predicate electricity_cost normalized 1.0",
                  "no entity 'Tottenahm' in scope 'default'; did you mean 'Tottenham Hotspur'?",
                  "['Tottenham Hotspur'] None"],
    "agents.md": ["PLN 245 since 2026-07-01; previously PLN 280 from 2026-03-01", "PLN 280",
                  "nothing recorded about 'shoe size'", "('electricity bill',)", "the conversation wins",
                  "Energa bill, July 2026 | chars 29-54", "True True", "1 1 False", "conversation", "12 remember",
                  "False UnknownName electricity bill", "[('remember', 'UnknownName')]"],
    "graph.md": ["['Acme', 'Ann', 'Bob', 'Initech']", "1 Ann employer Acme", "3 Acme owns Initech", "['Initech']",
                 "2 True max_nodes", "2 ['employer', 'owns']", "4 3", '"2022-03-01T00:00:00+00:00"', "[2, 3]",
                 "(4, 'changed', 'retracted')"],
    "reports.md": ["# Timeline of flat / rent", "{'entities': 1, 'facts': 1, 'disputed': 1, 'changed': 1}",
                   "['PLN 2800']", "() [] ['overlap:1+3']", "[2]"],
    "contradictions.md": ["overlap:1+2 functional-overlap", "Bob Jones disputed | Bob Jones | Jones at Acme Newswire",
                          "1 (2,) ann", "['overlap:1+2']", "False board minutes", "0.84 2 True",
                          "4 False 0.0 3 same-publisher-and-text", "5 True 0.24 None None"],
    "interchange.md": ["2 4", "default False", "True", "[('Bob', 'reported')] True", "1",
                       "Annotation Acme named Alice chief executive in 2020"],
    "safety.md": ["write to [redacted:email]", "instruction:ignore-instructions (0, 32)", "refuse redact",
                  "[('instruction:ignore-instructions', 'refuse'), ('pii:email', 'redact')]",
                  "quarantine:default 0.2 []", "instruction:ask-for-credentials", "default"],
}
#: docs pages whose ```python blocks need a database server, so they are not run here
NEEDS_A_SERVER = {"postgresql.md"}


def python_blocks(text: str) -> list[str]:
    """The ```python blocks of a Markdown text."""
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory where the examples' relative paths (fixtures/…, example.db) work."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "fixtures").symlink_to(ROOT / "fixtures")
    return tmp_path


def test_the_python_examples_run(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocks = python_blocks(README)
    assert blocks
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})
    assert "updates claim 1" in capsys.readouterr().out


def test_exactly_two_setup_commands() -> None:
    setup = re.search(r"## Set up\n(.*?)\n## ", README, flags=re.S)
    assert setup is not None
    commands = re.findall(r"```sh\n(.*?)```", setup.group(1), flags=re.S)[0].strip().splitlines()
    assert len(commands) == 2
    assert "ledger demo" in commands[0] and "pytest" in commands[1]


@pytest.mark.parametrize("page", sorted(RUN_IN_ORDER))
def test_the_examples_of_a_docs_page_run_in_order(page: str, in_tmp: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    blocks = python_blocks((DOCS / page).read_text(encoding="utf-8"))
    assert blocks
    namespace: dict[str, object] = {}
    for block in blocks:
        exec(compile(block, f"docs/{page}", "exec"), namespace)
    out = capsys.readouterr().out
    for shown in RUN_IN_ORDER[page]:
        assert shown in out


def test_every_python_example_in_docs_is_run_or_needs_a_server() -> None:
    with_examples = {page.name for page in DOCS.glob("*.md") if python_blocks(page.read_text(encoding="utf-8"))}
    assert with_examples <= set(RUN_IN_ORDER) | NEEDS_A_SERVER


def test_the_readme_links_into_docs_and_every_link_resolves() -> None:
    links = re.findall(r"\]\((docs/[^)#]+\.md)(?:#[^)]*)?\)", README)
    assert {f"docs/{name}" for name in ("concepts.md", "api.md", "cli.md", "ingestion.md", "postgresql.md",
                                        "performance.md")} <= set(links)
    for link in links:
        assert (ROOT / link).is_file(), link


def _anchors(markdown: str) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens."""
    headings = re.findall(r"^#{1,6} (.+)$", re.sub(r"```.*?```", "", markdown, flags=re.S), flags=re.M)
    return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-") for heading in headings}


@pytest.mark.parametrize("source", ["README.md", *sorted(p.name for p in DOCS.glob("*.md"))])
def test_links_between_the_pages_resolve(source: str) -> None:
    path = ROOT / source if source == "README.md" else DOCS / source
    for target, anchor in re.findall(r"\]\(([^):#]*\.md)?(?:#([^)]*))?\)", path.read_text(encoding="utf-8")):
        if not target and not anchor:
            continue
        linked = (path.parent / target) if target else path
        assert linked.is_file(), f"{source} links to {target}, which does not exist"
        if anchor:
            assert anchor in _anchors(linked.read_text(encoding="utf-8")), f"{source} links to {target}#{anchor}"


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_is_documented_with_an_example(name: str) -> None:
    command = get_command(app).commands[name]  # type: ignore[attr-defined]
    assert command.help and "Example:" in command.help
    assert f"## `ledger {name}`" in CLI_DOC
    examples = [line for block in re.findall(r"```sh\n(.*?)```", CLI_DOC, flags=re.S) for line in block.splitlines()]
    assert any(line.startswith(f"ledger {name} ") or line == f"ledger {name}" for line in examples)
