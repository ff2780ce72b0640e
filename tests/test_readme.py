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
               "[('reported', 'asserted'), ('confirmed', 'confirmed')]", "[(3, 3)]", "many None", "NotFound 3 claim 999 does not exist"],
    "ingestion.md": ["reviewed the hyphenated records"],
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
