"""The README's examples run, and every CLI command is documented in it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.main import get_command

from ledger.cli import app

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def test_the_python_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "fixtures").symlink_to(Path(__file__).resolve().parents[1] / "fixtures")
    blocks = re.findall(r"```python\n(.*?)```", README, flags=re.S)
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


@pytest.mark.parametrize("name", sorted(get_command(app).commands))  # type: ignore[attr-defined]
def test_every_command_is_documented_with_an_example(name: str) -> None:
    command = get_command(app).commands[name]  # type: ignore[attr-defined]
    assert command.help and "Example:" in command.help
    if name != "demo":
        assert f"ledger {name}" in README
