"""Installable as users install MCP servers: a wheel for every workspace package, each server's
wheel working in a fresh virtual environment (serving the tools of its golden tools/list), and a
registry manifest (server.json) per server that agrees with the package and its README."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import zipfile
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp_common.workspace import workspace_packages
from readme_snippets import client_section, shell_lines
from server_calls import golden_tool_names, list_and_call

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
SCHEMA_URL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
PACKAGES = workspace_packages(ROOT)
COMMON = PACKAGES[0].distribution
SERVERS = {package.folder: package for package in PACKAGES if package.server_command}
"""Every server package (one whose command runs ``<package>.__main__:main``), by folder (which
is also its server command, golden and registry name)."""
PIP_SKIP_BYTECODE = {"PIP_NO_COMPILE": "0"}
"""pip leaves the installed modules uncompiled (as ``--no-compile``; pip reads a ``no-`` option's
variable inverted, so 0 turns compiling off): a third of an install's CPU time, and Python
compiles what the server imports when it first runs; what is installed is the same."""
CONFINEMENT = {"adopt-server": "--workspace-root"}
"""The flag confining a server to a directory, where it is not ``--allowed-dir``."""


def test_every_server_has_a_golden_and_the_known_servers_are_found() -> None:
    assert {"uniqueness-server", "context-server", "adopt-server"} <= set(SERVERS)
    for server in SERVERS:
        assert golden_tool_names(server), server


MCP_NAME_MARKER = re.compile(r"<!--\s*mcp-name:\s*(\S+)\s*-->")


def wheel_of(directory: Path, distribution: str) -> Path:
    (wheel,) = directory.glob(f"{distribution.replace('-', '_')}-*.whl")
    return wheel


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheels")
    builds = {line for server in SERVERS for line in readme_lines(server, "uv build ")}
    assert builds == {"uv build --all-packages --wheel --out-dir dist"}, builds
    subprocess.run(
        ["uv", "build", "--all-packages", "--wheel", "--out-dir", str(out)],
        cwd=ROOT,
        check=True,
        capture_output=True,
        timeout=600,
    )
    return out


@pytest.mark.e2e
@pytest.mark.slow
def test_uv_build_makes_a_wheel_of_every_package(wheels: Path) -> None:
    for package in PACKAGES:
        wheel = wheel_of(wheels, package.distribution)
        assert f"-{version(package.distribution)}-" in wheel.name
        with zipfile.ZipFile(wheel) as archive:
            names = archive.namelist()
        assert f"{package.import_name}/__init__.py" in names
        assert f"{package.import_name}/py.typed" in names
        (license_file,) = [name for name in names if name.endswith(".dist-info/licenses/LICENSE")]
        with zipfile.ZipFile(wheel) as archive:
            assert archive.read(license_file) == (ROOT / "LICENSE").read_bytes()


def test_every_package_ships_the_repository_license() -> None:
    """A package's LICENSE is a copy of the repository's (an sdist cannot carry a symlink out
    of its directory), and its metadata names the same license."""
    for package in PACKAGES:
        assert (package.path / "LICENSE").read_bytes() == (ROOT / "LICENSE").read_bytes()
        assert 'license = "MIT"' in (package.path / "pyproject.toml").read_text("utf-8")
    assert (ROOT / "LICENSE").read_text("utf-8").startswith("MIT License\n")


REPOSITORY_DOCUMENTS = {
    "CHANGELOG.md": ["## [Unreleased]"],
    "CONTRIBUTING.md": ["## Running the checks", "## Adding a tool", "## Adding a server"],
    "SECURITY.md": [
        "## Reporting a vulnerability",
        "## What the servers trust, and what they do not",
    ],
}
"""Beside LICENSE, what a repository has, and the sections a reader looks them up for."""


def test_the_repository_says_how_to_contribute_report_and_what_changed() -> None:
    for name, headings in REPOSITORY_DOCUMENTS.items():
        lines = (ROOT / name).read_text("utf-8").splitlines()
        assert [heading for heading in headings if heading not in lines] == [], name
    contributing = (ROOT / "CONTRIBUTING.md").read_text("utf-8")
    assert "uv run --locked nox" in contributing  # how to run the tests
    assert "mcp-new-server" in contributing  # how to add a server


def _workbook(work: Path) -> list[str]:
    import openpyxl  # the test's own environment has every optional part

    book = openpyxl.Workbook()
    book.active.append(["id"])
    book.save(work / "book.xlsx")
    return ["uniqueness-check", str(work / "book.xlsx"), "id"]


MISSING_EXTRAS: dict[str, list[tuple[Callable[[Path], list[str]], str]]] = {
    "uniqueness-server": [
        (
            lambda work: ["uniqueness-server", "--database", "pg=postgresql://u@127.0.0.1/x"],
            "install the postgres extra: pip install 'mcp-tools-uniqueness-server[postgres]'",
        ),
        (_workbook, "install the excel extra: pip install 'mcp-tools-uniqueness-server[excel]'"),
        (
            lambda work: ["uniqueness-server", "--database", "lake=sc://127.0.0.1:15002"],
            "install the spark extra: pip install 'mcp-tools-uniqueness-server[spark]'",
        ),
    ],
}
"""Commands that need an optional part the plain install leaves out, and the one line that
says what to install."""


def readme_lines(server: str, start: str) -> list[str]:
    """The install section's command lines starting with ``start``."""
    return [line for line in shell_lines(client_section(server)) if line.startswith(start)]


@pytest.mark.e2e
@pytest.mark.slow
@pytest.mark.parametrize("server", SERVERS)
def test_a_server_wheel_runs_in_a_fresh_virtual_environment(
    wheels: Path, server: str, tmp_path: Path
) -> None:
    """The README's pip line, as written but for where ``dist`` and the venv are: the server
    from the wheels alone (the third-party packages from the index), then a real call."""
    (install,) = readme_lines(server, "python3 -m venv ")
    home = tmp_path / "home"
    command = install.replace("~/", f"{home}/").replace(
        "--find-links dist", f"--find-links {wheels}"
    )
    venv = Path(shlex.split(command)[3])
    subprocess.run(
        ["bash", "-c", command],
        env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1", **PIP_SKIP_BYTECODE},
        check=True,
        capture_output=True,
        timeout=900,
    )
    work = tmp_path / "work"
    work.mkdir()
    args = [CONFINEMENT.get(server, "--allowed-dir"), str(work), "--log-level", "WARNING"]

    tools, tool, call, text, is_error = anyio.run(list_and_call, venv / "bin" / server, args, work)

    assert tools == golden_tool_names(server)
    assert call.answer in text, (tool, text)
    assert is_error == call.is_error, (tool, text)
    for command, _ in SERVERS[server].scripts:
        answer = subprocess.run(
            [str(venv / "bin" / command), "--version"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert answer.returncode == 0, answer.stderr
        assert version(SERVERS[server].distribution) in answer.stdout
    # telemetry asked for through the standard variables, without the otel extra: the server
    # serves on and says once what to install
    traced = subprocess.run(
        [str(venv / "bin" / server), *args],
        env={**os.environ, "OTEL_TRACES_EXPORTER": "otlp"},
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,  # the client leaves at once: the server ends
        check=False,
    )
    assert traced.returncode == 0, traced.stderr
    assert "Traceback" not in traced.stderr
    assert traced.stderr.count("install mcp-tools-common[otel]") == 1, traced.stderr
    assert (
        traced.stderr.strip()
        .splitlines()[-1]
        .endswith(
            "OTEL_* variables ask for OTLP export but the exporter is not installed: "
            "install mcp-tools-common[otel]"
        )
    ), traced.stderr
    for argv_of, hint in MISSING_EXTRAS.get(server, []):
        argv = argv_of(work)
        refused = subprocess.run(
            [str(venv / "bin" / argv[0]), *argv[1:]],
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
            check=False,
        )
        assert refused.returncode == 2, refused.stderr
        assert "Traceback" not in refused.stderr
        assert refused.stderr.strip().splitlines()[-1].endswith(hint), refused.stderr


@pytest.mark.parametrize("server", SERVERS)
def test_the_readme_warns_that_a_plain_pip_install_fails(server: str) -> None:
    package = SERVERS[server]
    ours = " and ".join(f"`{name}`" for name in package.workspace_dependencies)
    readme = " ".join((ROOT / "packages" / server / "README.md").read_text("utf-8").split())
    assert (
        f"A plain `pip install ./packages/{server}` does not work: pip cannot find {ours}, "
        f"which {'is' if len(package.workspace_dependencies) == 1 else 'are'} not on PyPI yet; "
        "`--find-links dist` is what lets it."
    ) in readme


PLAIN_PIP = list({p.workspace_requirements: folder for folder, p in SERVERS.items()}.values())
"""One server per set of our packages it requires: pip fails the same way for the others."""


@pytest.mark.e2e
@pytest.mark.slow
@pytest.mark.parametrize("server", PLAIN_PIP)
def test_the_plain_pip_install_fails_in_one_line_and_installs_nothing(
    server: str, tmp_path: Path
) -> None:
    """The README's warning is true: a plain ``pip install ./packages/<server>`` fails in one
    line naming a package of ours that is not on PyPI, before installing anything (pip
    resolves every requirement first), so no half-installed server is left in the venv. Once
    our packages are on PyPI this fails, and the README's sentence must go."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    pip = [str(venv / "bin" / "python"), "-m", "pip"]
    environment = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    environment.pop("VIRTUAL_ENV", None)

    def installed() -> str:
        return subprocess.run(
            [*pip, "list", "--format=freeze"],
            env=environment,
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        ).stdout

    before = installed()
    refused = subprocess.run(
        [*pip, "install", f"./packages/{server}"],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )

    assert refused.returncode == 1, refused.stdout[-2000:] + refused.stderr[-2000:]
    # pip stops at the first of our packages it looks for
    assert refused.stderr.strip().splitlines()[-1] in {
        f"ERROR: No matching distribution found for {requirement}"
        for requirement in SERVERS[server].workspace_requirements
    }
    assert "Traceback" not in refused.stderr
    assert installed() == before


def manifest(server: str) -> dict[str, Any]:
    document = json.loads((ROOT / "packages" / server / "server.json").read_text("utf-8"))
    assert isinstance(document, dict)
    return document


@pytest.mark.parametrize("server", SERVERS)
def test_server_json_describes_the_installed_package(server: str) -> None:
    document = manifest(server)
    distribution = SERVERS[server].distribution

    assert document["$schema"] == SCHEMA_URL
    assert document["name"] == f"io.github.mcp-tools/{server}"
    assert 0 < len(str(document["description"])) <= 100
    assert document["version"] == version(distribution)
    (package,) = document["packages"]
    assert package["registryType"] == "pypi"
    assert package["identifier"] == distribution
    assert package["version"] == version(distribution)
    assert package["runtimeHint"] == "uvx"
    assert package["transport"] == {"type": "stdio"}


@pytest.mark.parametrize("server", SERVERS)
def test_server_json_declares_only_flags_and_variables_the_server_has(server: str) -> None:
    (package,) = manifest(server)["packages"]
    help_text = subprocess.run(
        [str(BIN / server), "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    prefix = server.upper().replace("-", "_") + "_"

    for argument in package["packageArguments"]:
        assert argument["type"] == "named"
        assert re.search(rf"(?m)^\s+{re.escape(argument['name'])}\b", help_text), argument
    for variable in package["environmentVariables"]:
        if variable["name"].startswith(prefix):
            assert variable["name"] in help_text, variable


@pytest.mark.parametrize("server", SERVERS)
def test_the_readme_carries_the_registry_name(server: str) -> None:
    readme = (ROOT / "packages" / server / "README.md").read_text("utf-8")

    assert MCP_NAME_MARKER.findall(readme) == [manifest(server)["name"]]
