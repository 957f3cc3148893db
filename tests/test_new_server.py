"""``mcp-new-server NAME`` in a copy of this repository: one command makes a server that every
check of the repository finds and that passes them, and bad names are refused."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from mcp_common.workspace import (
    CORE_CONTRACT,
    root_members,
    workspace_packages,
)

ROOT = Path(__file__).resolve().parent.parent
NEW_SERVER = Path(sys.executable).with_name("mcp-new-server")
NAME = next(
    name
    for name in ("weather", *(f"weather{n}" for n in range(2, 100)))
    if not (ROOT / "packages" / f"{name}-server").exists()
)
"""The server this test creates: ``weather``, unless someone already made one here."""
COMMAND = f"{NAME}-server"
DISTRIBUTION = f"mcp-tools-{COMMAND}"
IMPORT = COMMAND.replace("-", "_")
PACKAGE = Path("packages") / COMMAND
MYPY_CACHE = ".mypy_cache"

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def _environment(**extra: str) -> dict[str, str]:
    """The caller's environment without its virtual environment: in the copy, ``uv run``
    uses the copy's own."""
    environment = {key: value for key, value in os.environ.items() if key != "VIRTUAL_ENV"}
    return {**environment, **extra}


def run(
    command: list[str], cwd: Path, timeout: int = 600, **extra: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command,
        cwd=cwd,
        env=_environment(**extra),
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def copy_of_the_repository(target: Path) -> Path:
    """The files git knows of (tracked, or new and not ignored), as a developer has them."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
        timeout=60,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the repository in which ``mcp-new-server NAME`` ran successfully."""
    copy = copy_of_the_repository(tmp_path_factory.mktemp("workspace"))
    if (ROOT / MYPY_CACHE).is_dir():
        # as a developer's checkout has it after `nox -s types` (nox alone runs that first):
        # mypy in the copy then checks the new package and what imports it, not every module
        # again (its cache is keyed by each file's content, so nothing stale is trusted)
        shutil.copytree(ROOT / MYPY_CACHE, copy / MYPY_CACHE)
    created = run([str(NEW_SERVER), NAME], copy)
    assert created.returncode == 0, created.stdout + created.stderr
    assert created.stdout == (
        f"created {PACKAGE.as_posix()}; run its checks with: uv run --locked nox -s {IMPORT}\n"
    )
    return copy


def test_the_package_is_complete_and_in_the_workspace(workspace: Path) -> None:
    package = workspace / PACKAGE
    for relative in (
        "pyproject.toml",
        "README.md",
        "server.json",
        f"src/{IMPORT}/__init__.py",
        f"src/{IMPORT}/__main__.py",
        f"src/{IMPORT}/py.typed",
        f"src/{IMPORT}/server.py",
        f"src/{IMPORT}/core/__init__.py",
        f"src/{IMPORT}/tools/__init__.py",
        f"src/{IMPORT}/tools/count_words.py",
        f"tests/test_{NAME}_protocol.py",
        f"tests/test_{NAME}_core.py",
    ):
        assert (package / relative).is_file(), relative
    assert (workspace / "tests" / "golden" / f"{COMMAND}.tools.json").is_file()
    (new,) = [p for p in workspace_packages(workspace) if p.distribution == DISTRIBUTION]
    assert (new.import_name, new.server_command, new.core) == (IMPORT, COMMAND, ("core",))
    names = [p.distribution for p in workspace_packages(workspace)]
    assert root_members(workspace)[0] == names
    assert f'name = "{DISTRIBUTION}"' in (workspace / "uv.lock").read_text(encoding="utf-8")
    ports = [
        int(port)
        for p in workspace_packages(ROOT)
        if (p.source / p.import_name / "server.py").is_file()
        for port in re.findall(
            r"port: int = Field\((\d+)", (p.source / p.import_name / "server.py").read_text()
        )
    ]
    assert ports, "no server declares its default port the way the scaffolder reads it"
    server_py = (package / f"src/{IMPORT}/server.py").read_text(encoding="utf-8")
    assert f"port: int = Field({max(ports) + 1}," in server_py


def test_its_own_tests_pass_with_the_lock_as_written(workspace: Path) -> None:
    result = run(
        ["uv", "run", "--locked", "pytest", str(PACKAGE / "tests"), "-p", "no:cacheprovider"],
        workspace,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    summary = re.search(r"(?m)^=+ (\d+) passed in [\d.]+s(?: \([\d:]+\))? =+$", result.stdout)
    assert summary, result.stdout[-2000:]  # nothing failed, skipped or warned
    assert int(summary.group(1)) >= 5


def test_nox_has_a_session_for_it(workspace: Path) -> None:
    listing = run(["uv", "run", "--locked", "nox", "--list"], workspace)
    assert listing.returncode == 0, listing.stderr
    # selected (*): `nox` alone, the README's test command, runs the new package's tests too
    assert f"* {IMPORT} -> Unit and protocol tests of {PACKAGE.as_posix()}." in listing.stdout


def test_types_and_imports_cover_it_and_it_is_lint_clean(workspace: Path) -> None:
    result = run(["uv", "run", "--locked", "nox", "-s", "types", "imports"], workspace)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert f"{PACKAGE.as_posix()}/src" in result.stderr  # the mypy command line
    packages = workspace_packages(workspace)
    plugins = sum(len(package.plugins) for package in packages)
    acyclic = any(package.acyclic for package in packages)
    assert f"Contracts: {2 + plugins + acyclic} kept, 0 broken." in result.stdout
    for check in (["check"], ["format", "--check"]):
        linted = run(["uv", "run", "--locked", "ruff", *check, str(PACKAGE)], workspace)
        assert linted.returncode == 0, linted.stdout + linted.stderr


def test_its_core_is_under_the_layering_contract(workspace: Path) -> None:
    probe = workspace / PACKAGE / "src" / IMPORT / "core" / "layering_probe.py"
    probe.write_text(f'"""Planted by the test."""\n\nimport {IMPORT}.tools\n')
    try:
        result = run(["uv", "run", "--locked", "nox", "-s", "imports"], workspace)
    finally:
        probe.unlink()
    assert result.returncode != 0
    assert f"{CORE_CONTRACT} BROKEN" in result.stdout
    assert f"{IMPORT}.core.layering_probe -> {IMPORT}.tools" in result.stdout


@pytest.mark.timeout(900)  # a pytest run of its own that builds and installs wheels
def test_the_cli_and_manifest_tests_cover_it(workspace: Path) -> None:
    result = run(
        [
            "uv",
            "run",
            "--locked",
            "pytest",
            "tests/test_cli_usage.py",
            "tests/test_wheels.py",
            "tests/test_workspace_members.py",
            "-k",
            f"{NAME} or root_project or every_package or pinned or prefix",
            "-p",
            "no:cacheprovider",
            "-v",
        ],
        workspace,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    for test in (
        f"test_version_names_the_package_version[{COMMAND}-{DISTRIBUTION}]",
        f"test_a_wrong_flag_value_is_one_error_line_after_the_usage[{COMMAND}]",
        f"test_server_json_describes_the_installed_package[{COMMAND}]",
        f"test_the_readme_carries_the_registry_name[{COMMAND}]",
        "test_the_root_project_depends_on_exactly_the_workspace_members",
        "test_internal_dependencies_are_pinned_to_the_workspace_version",
        "test_every_distribution_carries_the_project_prefix_and_reports_its_own_version",
        "test_uv_build_makes_a_wheel_of_every_package",
        f"test_a_server_wheel_runs_in_a_fresh_virtual_environment[{COMMAND}]",
    ):
        assert test in result.stdout, test


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("Weather", "invalid name 'Weather': use lowercase letters, digits and single hyphens"),
        ("9lives", "invalid name '9lives'"),
        ("a--b", "invalid name 'a--b'"),
        ("weather-", "invalid name 'weather-'"),
        ("uniqueness", "uniqueness-server already exists"),
        (NAME, f"{COMMAND} already exists"),
        ("stats-server", "give the name without '-server': 'stats' makes 'stats-server'"),
        ("planted", "planted_server would shadow an importable module"),
    ],
)
def test_a_bad_name_is_refused_and_nothing_is_written(
    workspace: Path, tmp_path: Path, name: str, reason: str
) -> None:
    planted = tmp_path / "planted_server"
    planted.mkdir()
    (planted / "__init__.py").write_text("")
    before = sorted(p.name for p in (workspace / "packages").iterdir())
    pyproject = (workspace / "pyproject.toml").read_text(encoding="utf-8")

    refused = run([str(NEW_SERVER), name], workspace, PYTHONPATH=str(tmp_path))

    assert refused.returncode == 2
    lines = refused.stderr.strip().splitlines()
    assert lines[0].startswith("usage: mcp-new-server")
    assert lines[-1].startswith("mcp-new-server: error: ")
    assert reason in lines[-1]
    assert sorted(p.name for p in (workspace / "packages").iterdir()) == before
    assert (workspace / "pyproject.toml").read_text(encoding="utf-8") == pyproject


def test_outside_a_workspace_it_says_so(tmp_path: Path) -> None:
    refused = run([str(NEW_SERVER), NAME], tmp_path)
    assert refused.returncode == 2
    assert "no pyproject.toml with a [tool.uv.workspace] table" in refused.stderr
    assert not list(tmp_path.iterdir())
