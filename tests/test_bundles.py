"""Claude Desktop bundles (``.mcpb``): built by the one documented command, accepted by the
official MCPB tooling, and working the way Claude Desktop runs a bundle of the ``uv`` type.

The official ``mcpb`` command (``@anthropic-ai/mcpb``, pinned in ``tests/mcpb_cli``) validates
each manifest and unpacks each bundle. Then the test does what the host does: it fills in the
manifest's ``mcp_config`` (``${__dirname}`` is the unpacked bundle, each ``${user_config.*}``
a directory the user picked), runs that command from an unrelated working directory with
``uv`` on ``PATH``, and an MCP client lists the tools over stdio and makes one real call."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import zipfile
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp_common.workspace import WorkspacePackage, workspace_packages
from readme_snippets import ROOT, client_section, shell_lines
from required_tools import missing_tool
from server_calls import golden_tool_names, list_and_call

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

SERVERS: dict[str, WorkspacePackage] = {
    package.folder: package for package in workspace_packages(ROOT) if package.server_command
}
BUILD = "uv run --locked python scripts/build_bundles.py"
"""The command every server README gives for building the bundles."""
MCPB_CLI = ROOT / "tests" / "mcpb_cli"
PLACEHOLDER = re.compile(r"\$\{([^}]+)\}")


@pytest.fixture(scope="module")
def mcpb() -> Path:
    """The official ``mcpb`` command, installed from its lock file (``npm ci``) if missing."""
    npm = shutil.which("npm")
    if shutil.which("node") is None or npm is None:
        missing_tool("node and npm are needed for the official mcpb tool")
    command = MCPB_CLI / "node_modules" / ".bin" / "mcpb"
    if not command.exists():
        installed = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund"],
            cwd=MCPB_CLI,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert installed.returncode == 0, f"npm ci failed:\n{installed.stderr}"
    return command


@pytest.fixture(scope="module")
def bundles(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every README's bundle command, run as written but for where the bundles go."""
    for server in SERVERS:
        builds = [line for line in shell_lines(client_section(server)) if "build_bundles" in line]
        assert builds == [BUILD], (server, builds)
    out = tmp_path_factory.mktemp("bundles")
    environment = {key: value for key, value in os.environ.items() if key != "VIRTUAL_ENV"}
    built = subprocess.run(
        [*BUILD.split(), "--out-dir", str(out)],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert built.returncode == 0, built.stderr[-4000:]
    assert sorted(built.stdout.split()) == sorted(
        str(out / f"{server}-{package.version}.mcpb") for server, package in SERVERS.items()
    )
    return out


def mcpb_run(mcpb: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(mcpb), *args], capture_output=True, text=True, timeout=120, check=False
    )


def substituted(value: str, values: dict[str, str]) -> str:
    """``value`` with the host's ``${...}`` variables filled in (an unknown one fails)."""
    return PLACEHOLDER.sub(lambda match: values[match.group(1)], value)


def host_environment() -> dict[str, str]:
    """The environment the test's host gives the server: the user's, without this checkout's
    virtual environment, and never downloading a Python (the machine's serves)."""
    kept = {
        key: value
        for key, value in os.environ.items()
        if key != "VIRTUAL_ENV" and not key.endswith(("_SERVER_AUTH_TOKEN", "_SERVER_DATABASE"))
    }
    return {**kept, "UV_PYTHON_DOWNLOADS": "never"}


@pytest.mark.parametrize("server", SERVERS)
def test_a_bundle_installs_and_serves_as_claude_desktop_runs_it(
    server: str, mcpb: Path, bundles: Path, tmp_path: Path
) -> None:
    package = SERVERS[server]
    bundle = bundles / f"{server}-{package.version}.mcpb"
    with zipfile.ZipFile(bundle) as archive:
        names = archive.namelist()
    wheels = sorted(name for name in names if name.startswith("wheels/"))
    assert wheels
    assert all(name.endswith("-py3-none-any.whl") for name in wheels), wheels
    assert not [name for name in names if name.endswith((".so", ".pyd", ".dylib"))]

    unpacked = tmp_path / "Claude Extensions" / server  # a space, as in the app's own folder
    done = mcpb_run(mcpb, "unpack", str(bundle), str(unpacked))
    assert done.returncode == 0, done.stdout + done.stderr
    valid = mcpb_run(mcpb, "validate", str(unpacked / "manifest.json"))
    assert valid.returncode == 0, valid.stdout + valid.stderr
    assert "Manifest schema validation passes!" in valid.stdout

    document: dict[str, Any] = json.loads((unpacked / "manifest.json").read_text("utf-8"))
    assert (document["name"], document["version"]) == (server, package.version)
    assert document["server"]["type"] == "uv"
    assert (unpacked / document["server"]["entry_point"]).is_file()
    assert {tool["name"] for tool in document["tools"]} == golden_tool_names(server)
    lock = (unpacked / "uv.lock").read_bytes()

    picked = tmp_path / "picked"  # the directory the user chose in the app's dialog
    picked.mkdir()
    values = {"__dirname": str(unpacked)}
    for key, option in document["user_config"].items():
        assert (option["type"], option["required"]) == ("directory", True), key
        values[f"user_config.{key}"] = str(picked)
    config = document["server"]["mcp_config"]
    command = shutil.which(substituted(config["command"], values))
    assert command, f"{config['command']} is not on PATH"
    args = [substituted(arg, values) for arg in config["args"]]
    elsewhere = tmp_path / "host-cwd"
    elsewhere.mkdir()

    tools, tool, call, text, is_error = anyio.run(
        lambda: list_and_call(command, args, picked, cwd=elsewhere, env=host_environment())
    )

    assert tools == golden_tool_names(server)
    assert call.answer in text, (tool, text)
    assert is_error == call.is_error, (tool, text)
    assert (unpacked / "uv.lock").read_bytes() == lock  # installed as locked, not re-resolved


def test_a_manifest_the_official_validator_refuses_fails_the_check(
    mcpb: Path, tmp_path: Path
) -> None:
    """The validator really checks: a manifest of a server type MCPB does not know fails."""
    manifest = tmp_path / "manifest.json"
    manifest.write_text(
        json.dumps(
            {
                "manifest_version": "0.4",
                "name": "x",
                "version": "0.1.0",
                "description": "x",
                "author": {"name": "x"},
                "server": {"type": "conda", "entry_point": "x.py", "mcp_config": {"command": "x"}},
            }
        ),
        encoding="utf-8",
    )
    refused = mcpb_run(mcpb, "validate", str(manifest))
    assert refused.returncode != 0
    assert "server.type" in refused.stdout
