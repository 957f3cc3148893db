"""The import-linter contracts generated from the workspace hold, and they bite.

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
from mcp_common.workspace import (
    ACYCLIC_CONTRACT,
    CORE_CONTRACT,
    PLUGIN_CONTRACT,
    SDK_CONTRACT,
    WorkspacePackage,
    import_contracts,
    workspace_packages,
)

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
PACKAGES = workspace_packages(ROOT)


def _lint_imports(
    config: Path, cwd: Path, pythonpath: list[Path]
) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(str(p) for p in pythonpath)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", str(config)],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _config(directory: Path, packages: list[WorkspacePackage]) -> Path:
    config = directory / ".importlinter"
    config.write_text(import_contracts(packages), encoding="utf-8")
    return config


@pytest.fixture(scope="module")
def source_copy(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    """A copy of every package's ``src``, importable first, and the contracts for it."""
    copy = tmp_path_factory.mktemp("layering")
    sources = []
    for package in PACKAGES:
        target = copy / package.folder
        shutil.copytree(package.source, target, ignore=shutil.ignore_patterns("__pycache__"))
        sources.append(target)
    return _config(copy, PACKAGES), sources


def test_every_package_is_a_root_and_every_declared_core_is_covered() -> None:
    config = import_contracts(PACKAGES)
    for package in PACKAGES:
        assert f"\n\t{package.import_name}\n" in config
        for core in package.core:
            assert f"\n\t{package.import_name}.{core}\n" in config
    assert any(package.core for package in PACKAGES)


def test_the_repository_keeps_its_contracts(tmp_path: Path) -> None:
    result = _lint_imports(_config(tmp_path, PACKAGES), ROOT, [])
    assert result.returncode == 0, result.stdout + result.stderr
    plugins = sum(len(package.plugins) for package in PACKAGES)
    assert plugins, "no package declares a plugin package ([tool.mcp-tools.plugins])"
    acyclic = any(package.acyclic for package in PACKAGES)
    assert f"Contracts: {2 + plugins + acyclic} kept, 0 broken." in result.stdout


@pytest.mark.parametrize(
    ("module", "statement", "broken", "named"),
    [
        (
            "uniqueness-server/uniqueness_server/layering_probe.py",
            "import mcp\n",
            SDK_CONTRACT,
            "layering_probe",
        ),
        (
            "mcp-common/mcp_common/layering_probe.py",
            "import mcp_types\n",
            SDK_CONTRACT,
            "layering_probe",
        ),
        (
            "context-server/context_server/core/layering_probe.py",
            "import context_server.tools\n",
            CORE_CONTRACT,
            "layering_probe",
        ),
        (
            "uniqueness-server/uniqueness_server/engine/layering_probe.py",
            "import adopt_server.tools\n",
            CORE_CONTRACT,
            "layering_probe",
        ),
        (
            "adopt-server/adopt_server/guards/layering_probe.py",
            "import mcp_common.adapter\n",
            CORE_CONTRACT,
            "layering_probe",
        ),
        (
            # a language plugin importing the index that imports the plugins: a cycle,
            # named by the dependency that would break it
            "context-server/context_server/core/languages/layering_probe.py",
            "import context_server.core.index\n",
            ACYCLIC_CONTRACT,
            ".languages -> .index",
        ),
        (
            # an algorithm module naming a backend could switch on its type
            "uniqueness-server/uniqueness_server/engine/layering_probe.py",
            "from uniqueness_server.engine.backends.embedded import DuckDbBackend\n",
            PLUGIN_CONTRACT.format(package="uniqueness_server.engine.backends"),
            "layering_probe",
        ),
        (
            # the registry too: it reaches every backend
            "uniqueness-server/uniqueness_server/engine/layering_probe.py",
            "import uniqueness_server.engine.backends\n",
            PLUGIN_CONTRACT.format(package="uniqueness_server.engine.backends"),
            "layering_probe",
        ),
        (
            # a registry user could hand it a backend's class
            "uniqueness-server/uniqueness_server/engine/layering_probe.py",
            "from uniqueness_server.engine.files import DuckDbBackend\n",
            PLUGIN_CONTRACT.format(package="uniqueness_server.engine.backends"),
            "layering_probe",
        ),
        (
            # a backend's driver: its connection's type could be tested instead
            "uniqueness-server/uniqueness_server/engine/keysearch/layering_probe.py",
            "import duckdb\n",
            PLUGIN_CONTRACT.format(package="uniqueness_server.engine.backends"),
            "layering_probe",
        ),
    ],
)
def test_a_forbidden_import_breaks_a_contract(
    source_copy: tuple[Path, list[Path]], module: str, statement: str, broken: str, named: str
) -> None:
    config, sources = source_copy
    probe = config.parent / module
    probe.write_text(f'"""A forbidden import planted by the layering test."""\n\n{statement}')
    try:
        result = _lint_imports(config, config.parent, sources)
    finally:
        probe.unlink()
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"{broken} BROKEN" in result.stdout
    assert named in result.stdout
