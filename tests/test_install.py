"""The README install sections work as written, on this machine, from this checkout.

The documented ``uv tool install ./packages/<server>`` runs (into a scratch tool directory, so
the user's own is untouched) and puts the commands on ``PATH``; then every client
configuration of the section (Claude Desktop, Cursor, VS Code, a project ``.mcp.json``, each
``claude mcp add`` line, and the HTTP forms against the documented HTTP command) starts the
installed server, and an MCP client lists its tools through it. Only the placeholders a reader
replaces (``/path/to/...``, ``${workspaceFolder}``, the token, the port) are filled in."""

from __future__ import annotations

import itertools
import json
import os
import re
import shlex
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from e2e.e2e_support import free_port, stop, wait_until_listening
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp_common.workspace import WorkspacePackage, workspace_packages
from readme_snippets import ROOT, client_section, fenced, shell_lines

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

SERVERS: dict[str, WorkspacePackage] = {
    package.folder: package for package in workspace_packages(ROOT) if package.server_command
}
INSTALLED_BIN = "/home/you/.local/bin/"
"""Where a snippet that needs a full path says the command is (``which <command>``)."""
TOKEN = "install-test-token-0123456789"


def golden_tools(server: str) -> set[str]:
    golden = json.loads((ROOT / "tests" / "golden" / f"{server}.tools.json").read_text("utf-8"))
    return {tool["name"] for tool in golden}


@pytest.fixture(scope="module")
def tool_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every README's ``uv tool install`` line, run as written from the repository root."""
    base = tmp_path_factory.mktemp("uv-tools")
    environment = {
        **os.environ,
        "UV_TOOL_DIR": str(base / "tools"),
        "UV_TOOL_BIN_DIR": str(base / "bin"),
    }
    environment.pop("VIRTUAL_ENV", None)
    for server in SERVERS:
        lines = shell_lines(client_section(server))
        installs = [line for line in lines if line.startswith("uv tool install ")]
        # the plain install first; a README may add one with optional parts (extras)
        assert installs[0] == f"uv tool install ./packages/{server}", installs
        for install in installs:
            done = subprocess.run(
                shlex.split(install),
                cwd=ROOT,
                env=environment,
                capture_output=True,
                text=True,
                timeout=600,
                check=False,
            )
            assert done.returncode == 0, done.stderr
            assert "does not have an extra" not in done.stderr, done.stderr
    return base / "bin"


@pytest.fixture
def places(tmp_path: Path) -> dict[str, Path]:
    """The directories the snippets' placeholders stand for."""
    found = {name: tmp_path / name for name in ("data", "project", "workspaces", "project/data")}
    for path in found.values():
        path.mkdir(parents=True, exist_ok=True)
    return found


def filled(word: str, places: dict[str, Path]) -> str:
    """``word`` with a reader's placeholders replaced by real directories."""
    word = word.replace("${workspaceFolder}", str(places["project"]))
    return re.sub(r"^/path/to/(\w+)$", lambda m: str(places["project"].parent / m.group(1)), word)


def environment(tool_bin: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The caller's environment with the installed commands first on ``PATH`` and no server
    settings inherited."""
    kept = {
        key: value
        for key, value in os.environ.items()
        if not key.endswith(("_SERVER_AUTH_TOKEN", "_SERVER_DATABASE")) and key != "VIRTUAL_ENV"
    }
    kept["PATH"] = f"{tool_bin}{os.pathsep}{kept.get('PATH', '')}"
    return {**kept, **(extra or {})}


def resolve_command(command: str, tool_bin: Path) -> str:
    """The installed executable a snippet's ``command`` names."""
    if command.startswith(INSTALLED_BIN):
        command = command.removeprefix(INSTALLED_BIN)
    assert "/" not in command, f"{command}: not a command the documented install provides"
    found = shutil.which(command, path=str(tool_bin))
    assert found, f"{command} is not installed by the documented install"
    return found


async def stdio_tools(command: str, args: list[str], env: dict[str, str], cwd: Path) -> set[str]:
    parameters = StdioServerParameters(command=command, args=args, env=env, cwd=cwd)
    async with Client(parameters, mode="legacy") as client:
        listing = await client.list_tools()
    return {tool.name for tool in listing.tools}


async def http_tools(url: str, headers: dict[str, str]) -> set[str]:
    async with (
        httpx2.AsyncClient(headers=headers) as http,
        Client(streamable_http_client(url, http_client=http), mode="legacy") as client,
    ):
        listing = await client.list_tools()
    return {tool.name for tool in listing.tools}


def json_entries(server: str) -> Iterator[dict[str, Any]]:
    for snippet in fenced(client_section(server), "json"):
        document = json.loads(snippet)
        yield from document.get("mcpServers", document.get("servers", {})).values()


def claude_lines(server: str) -> list[list[str]]:
    return [
        shlex.split(line)
        for line in shell_lines(client_section(server))
        if line.startswith("claude mcp add")
    ]


@pytest.mark.parametrize("server", SERVERS)
def test_the_documented_install_puts_the_commands_on_the_path(server: str, tool_bin: Path) -> None:
    package = SERVERS[server]
    checks = [line for line in shell_lines(client_section(server)) if line.endswith("--version")]
    assert checks == [f"{server} --version"]
    answer = subprocess.run(
        shlex.split(checks[0]),
        env=environment(tool_bin),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert answer.stdout.strip() == f"{server} {package.version}"
    for command, _ in package.scripts:
        assert (tool_bin / command).is_file(), command


@pytest.mark.parametrize("server", SERVERS)
def test_every_stdio_configuration_starts_the_installed_server(
    server: str, tool_bin: Path, places: dict[str, Path]
) -> None:
    started = []
    for entry in json_entries(server):
        if "url" in entry:
            continue
        command = resolve_command(entry["command"], tool_bin)
        args = [filled(word, places) for word in entry.get("args", [])]
        env = environment(tool_bin, entry.get("env"))
        tools = anyio.run(stdio_tools, command, args, env, places["project"])
        assert tools == golden_tools(server), entry
        started.append(entry["command"])
    for words in claude_lines(server):
        if "--" not in words:
            continue
        options, command_line = words[3 : words.index("--")], words[words.index("--") + 1 :]
        extra = dict(
            value.split("=", 1) for flag, value in itertools.pairwise(options) if flag == "--env"
        )
        command = resolve_command(command_line[0], tool_bin)
        args = [filled(word, places) for word in command_line[1:]]
        env = environment(tool_bin, extra)
        tools = anyio.run(stdio_tools, command, args, env, places["project"])
        assert tools == golden_tools(server), words
        started.append(command_line[0])
    assert len(started) >= 5, "Claude Desktop, Cursor, VS Code, .mcp.json and claude mcp add"


@pytest.mark.parametrize("server", SERVERS)
def test_the_http_forms_reach_the_documented_http_command(
    server: str, tool_bin: Path, places: dict[str, Path], tmp_path: Path
) -> None:
    lines = shell_lines(client_section(server))
    (serving,) = [line for line in lines if line.startswith(f"{server} --transport")]
    words = [filled(word, places) for word in shlex.split(serving)]
    documented_port = words[words.index("--port") + 1]
    port = str(free_port())
    words[words.index("--port") + 1] = port
    token_variable = f"{SERVERS[server].import_name.upper()}_AUTH_TOKEN"
    assert any(line.startswith(f"export {token_variable}=") for line in lines)
    log = tmp_path / "http.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [resolve_command(words[0], tool_bin), *words[1:]],
            env=environment(tool_bin, {token_variable: TOKEN}),
            cwd=places["project"],
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_until_listening(process, int(port), log)
        urls: list[tuple[str, str]] = [
            (entry["url"], entry["headers"]["Authorization"])
            for entry in json_entries(server)
            if "url" in entry
        ]
        for words in claude_lines(server):
            if "--transport" in words and words[words.index("--transport") + 1] == "http":
                header = words[words.index("--header") + 1]
                url = next(word for word in words if word.startswith("http://"))
                urls.append((url, header.removeprefix("Authorization: ")))
        assert len(urls) >= 3, "claude mcp add, a .mcp.json and Cursor"
        for url, authorization in urls:
            assert f":{documented_port}/" in url
            assert authorization.startswith("Bearer ")
            headers = {"Authorization": f"Bearer {TOKEN}"}
            tools = anyio.run(http_tools, url.replace(documented_port, port), headers)
            assert tools == golden_tools(server)
    finally:
        stop(process)
