"""The user-facing documents cannot drift from the servers: the README client setups are valid
configurations of flags the servers have, and each user guide documents exactly the tools,
parameters, aliases and flags of the real registry."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from adopt_server.server import APP as ADOPT_APP
from context_server.server import APP as CONTEXT_APP
from mcp_common.adapter import ServerApp, build_parser
from mcp_common.adapter.cli import env_name
from uniqueness_server.server import APP as UNIQUENESS_APP

ROOT = Path(__file__).resolve().parent.parent
APPS = {app.name: app for app in (UNIQUENESS_APP, CONTEXT_APP, ADOPT_APP)}
SECTION_TITLE = "## Install and connect a client"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.DOTALL | re.MULTILINE)


def client_section(server: str) -> str:
    readme = (ROOT / "packages" / server / "README.md").read_text("utf-8")
    assert readme.count(SECTION_TITLE) == 1, f"{server} README needs one '{SECTION_TITLE}'"
    section = readme.split(SECTION_TITLE, 1)[1]
    return re.split(r"(?m)^## ", section, maxsplit=1)[0]


def fenced(text: str, language: str) -> list[str]:
    return [body for lang, body in FENCE.findall(text) if lang == language]


def flags_of(app: ServerApp) -> set[str]:
    parser = build_parser(app)
    return {flag for action in parser._actions for flag in action.option_strings}


def server_entries(document: dict[str, Any]) -> Iterator[dict[str, Any]]:
    servers = document["mcpServers"]
    assert isinstance(servers, dict)
    assert servers
    yield from servers.values()


@pytest.mark.parametrize("server", APPS)
def test_every_json_snippet_is_a_valid_client_configuration(server: str) -> None:
    app = APPS[server]
    snippets = fenced(client_section(server), "json")
    kinds = set()

    assert len(snippets) >= 5, "Claude Desktop, Cursor, .mcp.json and two HTTP forms"
    for snippet in snippets:
        for entry in server_entries(json.loads(snippet)):
            if "url" in entry:
                kinds.add("http")
                assert entry["url"] == f"http://127.0.0.1:{app.default_port}/mcp"
                assert entry["headers"]["Authorization"].startswith("Bearer ")
            else:
                kinds.add("stdio")
                assert entry["command"] == "uvx"
                assert entry["args"][0] == server
                options = [word for word in entry["args"][1:] if word.startswith("--")]
                assert set(options) <= flags_of(app), options
    assert kinds == {"stdio", "http"}


@pytest.mark.parametrize("server", APPS)
def test_every_command_line_uses_flags_the_server_has(server: str) -> None:
    app = APPS[server]
    commands = " ".join(fenced(client_section(server), "sh")).replace("\\\n", " ")
    claude_lines = [line for line in commands.splitlines() if line.startswith("claude mcp add")]

    assert any(f"-- uvx {server} " in line for line in claude_lines)
    assert any(f"http://127.0.0.1:{app.default_port}/mcp" in line for line in claude_lines)
    for line in commands.splitlines():
        if f"uvx {server} " in line:
            server_words = line.split(f"uvx {server} ", 1)[1].split()
            options = {word.split("=")[0] for word in server_words if word.startswith("--")}
            assert options <= flags_of(app), line


@pytest.mark.parametrize("server", APPS)
def test_the_variables_named_in_the_section_exist(server: str) -> None:
    app = APPS[server]
    parser = build_parser(app)
    known = {env_name(app, action) for action in parser._actions if action.option_strings}
    named = set(re.findall(rf"\b{app.env_prefix}_[A-Z_]+[A-Z]\b", client_section(server)))

    assert named
    assert named <= known
