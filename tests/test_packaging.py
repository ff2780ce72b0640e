"""The wheel ships every package of the source tree (a package left out of pyproject.toml imports
in a checkout and fails once installed)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_package_under_ledger_is_listed_in_pyproject() -> None:
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(init.parent.relative_to(ROOT).parts) for init in (ROOT / "ledger").rglob("__init__.py")}
    assert found - listed == set()
    assert {"ledger.migrations", "ledger.migrations.versions", "ledger.sql"} <= listed
