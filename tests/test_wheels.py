"""Installable as users install MCP servers: a wheel for every workspace package, each server's
wheel working in a fresh virtual environment (serving the tools of its golden tools/list), and a
registry manifest (server.json) per server that agrees with the package and its README."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile
from importlib.metadata import version
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp_common.workspace import workspace_packages

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
SCHEMA_URL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
PACKAGES = workspace_packages(ROOT)
COMMON = PACKAGES[0].distribution
SERVERS = {package.folder: package for package in PACKAGES if package.server_command}
"""Every server package (one whose command runs ``<package>.__main__:main``), by folder (which
is also its server command, golden and registry name)."""
CONFINEMENT = {"adopt-server": "--workspace-root"}
"""The flag confining a server to a directory, where it is not ``--allowed-dir``."""


def golden_tool_names(server: str) -> set[str]:
    """The tools a server lists, by its committed golden tools/list."""
    golden = json.loads((ROOT / "tests" / "golden" / f"{server}.tools.json").read_text())
    return {tool["name"] for tool in golden}


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
    subprocess.run(
        ["uv", "build", "--all-packages", "--wheel", "--out-dir", str(out)],
        cwd=ROOT,
        check=True,
        capture_output=True,
        timeout=600,
    )
    return out


@pytest.mark.e2e
def test_uv_build_makes_a_wheel_of_every_package(wheels: Path) -> None:
    for package in PACKAGES:
        wheel = wheel_of(wheels, package.distribution)
        assert f"-{version(package.distribution)}-" in wheel.name
        with zipfile.ZipFile(wheel) as archive:
            names = archive.namelist()
        assert f"{package.import_name}/__init__.py" in names
        assert f"{package.import_name}/py.typed" in names


async def listed_tools(command: Path, args: list[str], cwd: Path) -> set[str]:
    parameters = StdioServerParameters(command=str(command), args=args, cwd=cwd)
    async with Client(parameters) as client:
        listing = await client.list_tools()
    return {tool.name for tool in listing.tools}


@pytest.mark.e2e
@pytest.mark.parametrize("server", SERVERS)
def test_a_server_wheel_runs_in_a_fresh_virtual_environment(
    wheels: Path, server: str, tmp_path: Path
) -> None:
    distribution = SERVERS[server].distribution
    venv = tmp_path / "venv"
    subprocess.run(
        ["uv", "venv", "--quiet", "--python", sys.executable, str(venv)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    subprocess.run(
        [
            "uv",
            "pip",
            "install",
            "--quiet",
            "--python",
            str(venv / "bin" / "python"),
            str(wheel_of(wheels, distribution)),
            str(wheel_of(wheels, COMMON)),
        ],
        check=True,
        capture_output=True,
        timeout=600,
    )
    work = tmp_path / "work"
    work.mkdir()
    args = [CONFINEMENT.get(server, "--allowed-dir"), str(work), "--log-level", "WARNING"]

    tools = anyio.run(listed_tools, venv / "bin" / server, args, work)

    assert tools == golden_tool_names(server)
    for command, _ in SERVERS[server].scripts:
        answer = subprocess.run(
            [str(venv / "bin" / command), "--version"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert answer.returncode == 0, answer.stderr
        assert version(distribution) in answer.stdout


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
