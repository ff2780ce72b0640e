"""The command line uses only what any program could: the public API, the records and the errors."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

import ledger

CLI = Path(ledger.__file__).resolve().parent / "cli"
#: The ledger modules the command line may import from (besides its own).
PUBLIC = {"ledger", "ledger.records", "ledger.errors", "ledger.agent"}
#: The third-party packages it may use: pyproject.toml's CLI dependencies.
THIRD_PARTY = {"typer", "rich"}


def _module_of(node: ast.ImportFrom, module: str) -> str:
    """The absolute module a ``from … import`` in ``module`` names (relative ones resolved)."""
    if node.level == 0:
        return node.module or ""
    package = module.rsplit(".", node.level)[0]
    return f"{package}.{node.module}" if node.module else package


def violations(source: str, module: str) -> list[str]:
    """What in ``source`` (the text of ``module``) reaches past the public API, one line each."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            imported = [(alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            imported = [(_module_of(node, module), alias.name) for alias in node.names]
        elif isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            found.append(f"line {node.lineno}: uses the private attribute {node.attr}")
            continue
        else:
            continue
        for name, member in imported:
            top = name.partition(".")[0]
            where = f"line {node.lineno}: imports {name}" + (f".{member}" if member else "")
            if top == "ledger":
                if name == "ledger.cli" or name.startswith("ledger.cli."):
                    continue
                if name not in PUBLIC:
                    found.append(f"{where}, not the public API")
                elif name == "ledger" and member is not None and member not in ledger.__all__:
                    found.append(f"{where}, not in ledger.__all__")
            elif top not in sys.stdlib_module_names and top not in THIRD_PARTY:
                found.append(f"{where}, a third-party package the command line does not depend on")
    return found


def test_the_command_line_is_a_package_of_small_modules() -> None:
    modules = sorted(CLI.glob("*.py"))
    assert {p.name for p in modules} >= {"__init__.py", "commands.py", "render.py"}
    for path in modules:
        assert len(path.read_text(encoding="utf-8").splitlines()) <= 500, path.name


@pytest.mark.parametrize("path", sorted(CLI.glob("*.py")), ids=lambda p: p.name)
def test_the_command_line_imports_only_the_public_api(path: Path) -> None:
    module = "ledger.cli" if path.stem == "__init__" else f"ledger.cli.{path.stem}"
    assert violations(path.read_text(encoding="utf-8"), module) == []


@pytest.mark.parametrize("line, expected", [
    ("from ledger.db import describe", "imports ledger.db.describe, not the public API"),
    ("import ledger.ingest.html", "imports ledger.ingest.html, not the public API"),
    ("from ledger import db", "imports ledger.db, not in ledger.__all__"),
    ("from .. import store", "imports ledger.store, not in ledger.__all__"),
    ("from ..model import metadata", "imports ledger.model.metadata, not the public API"),
    ("from sqlalchemy import select", "imports sqlalchemy.select, a third-party package"),
    ("found = ledger._read(work)", "uses the private attribute _read"),
])
def test_the_rule_catches_what_the_command_line_used_to_do(line: str, expected: str) -> None:
    assert any(expected in found for found in violations(line, "ledger.cli.demo"))


@pytest.mark.parametrize("line", [
    "from ledger import Ledger, Claim", "from ledger.records import Trust", "from ledger.errors import Conflict",
    "from ledger.cli.render import print_json", "from .common import opened", "import json", "import typer",
    "from rich.table import Table", "print(value.__class__)",
])
def test_the_rule_lets_the_public_api_through(line: str) -> None:
    assert violations(line, "ledger.cli.demo") == []
