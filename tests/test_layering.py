"""The import-linter contracts of the root pyproject hold, and they bite.

The second half runs lint-imports on a copy of the sources with a forbidden import planted in
it: a contract that never fails would pass the first half just the same.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
PACKAGES = ("mcp-common", "uniqueness-server", "context-server", "adopt-server")


def _lint_imports(cwd: Path, pythonpath: list[Path]) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(str(p) for p in pythonpath)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--config", str(cwd / "pyproject.toml")],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture(scope="module")
def source_copy(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    """A copy of every package's ``src`` and of the root pyproject, importable first."""
    copy = tmp_path_factory.mktemp("layering")
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    sources = []
    for package in PACKAGES:
        target = copy / package
        shutil.copytree(
            ROOT / "packages" / package / "src",
            target,
            ignore=shutil.ignore_patterns("__pycache__"),
        )
        sources.append(target)
    return copy, sources


def test_the_repository_keeps_its_contracts() -> None:
    result = _lint_imports(ROOT, [])
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 2 kept, 0 broken." in result.stdout


@pytest.mark.parametrize(
    ("module", "statement", "broken"),
    [
        (
            "uniqueness-server/uniqueness_server/layering_probe.py",
            "import mcp\n",
            "Only mcp_common's adapter imports the mcp SDK BROKEN",
        ),
        (
            "mcp-common/mcp_common/layering_probe.py",
            "import mcp_types\n",
            "Only mcp_common's adapter imports the mcp SDK BROKEN",
        ),
        (
            "context-server/context_server/core/layering_probe.py",
            "import context_server.tools\n",
            "Server cores know nothing of MCP or tools BROKEN",
        ),
    ],
)
def test_a_forbidden_import_breaks_a_contract(
    source_copy: tuple[Path, list[Path]], module: str, statement: str, broken: str
) -> None:
    copy, sources = source_copy
    probe = copy / module
    probe.write_text(f'"""A forbidden import planted by the layering test."""\n\n{statement}')
    try:
        result = _lint_imports(copy, sources)
    finally:
        probe.unlink()
    assert result.returncode == 1, result.stdout + result.stderr
    assert broken in result.stdout
    assert "layering_probe" in result.stdout
