"""The user-facing documents cannot drift from the servers: the README client setups are valid
configurations of flags the servers have, and each user guide documents exactly the tools,
parameters, aliases and flags of the real registry."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from adopt_server.server import APP as ADOPT_APP
from context_server.core.languages import LANGUAGES
from context_server.server import APP as CONTEXT_APP
from mcp_common import ToolDefinition, parse_arguments
from mcp_common.adapter import ServerApp
from mcp_common.adapter import parse_arguments as parse_command_line
from mcp_common.adapter.cli import options
from readme_snippets import client_section, fenced
from uniqueness_server.server import APP as UNIQUENESS_APP

ROOT = Path(__file__).resolve().parent.parent
APPS = {app.name: app for app in (UNIQUENESS_APP, CONTEXT_APP, ADOPT_APP)}


def flags_of(app: ServerApp[Any]) -> set[str]:
    return {option.flag for option in options(app)} | {"--help", "--version"}


def server_entries(document: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The server entries of a client configuration (VS Code calls the table ``servers``)."""
    servers = document.get("mcpServers", document.get("servers"))
    assert isinstance(servers, dict)
    assert servers
    yield from servers.values()


@pytest.mark.parametrize("server", APPS)
def test_every_json_snippet_is_a_valid_client_configuration(server: str) -> None:
    app = APPS[server]
    snippets = fenced(client_section(server), "json")
    kinds = set()

    assert len(snippets) >= 6, "Claude Desktop, Cursor, VS Code, .mcp.json and two HTTP forms"
    for snippet in snippets:
        for entry in server_entries(json.loads(snippet)):
            if "url" in entry:
                kinds.add("http")
                assert entry["url"] == f"http://127.0.0.1:{app.default_port}/mcp"
                assert entry["headers"]["Authorization"].startswith("Bearer ")
            else:
                kinds.add("stdio")
                assert Path(entry["command"]).name == server  # the installed command
                options = [word for word in entry["args"] if word.startswith("--")]
                assert set(options) <= flags_of(app), options
    assert kinds == {"stdio", "http"}


CLIENT_SETUPS = {
    "**Claude Code**": ("sh", "mcpServers"),
    "**Claude Desktop**": ("json", "mcpServers"),
    "**Cursor**": ("json", "mcpServers"),
    "**VS Code**": ("json", "servers"),
    "**A project `.mcp.json`**": ("json", "mcpServers"),
}
"""Each client the install section sets up, by its label: the kind of snippet under it and,
for a configuration file, the client's name for its table of servers. tests/test_install.py
starts the installed server through every snippet and lists its tools."""


@pytest.mark.parametrize("server", APPS)
def test_every_client_has_its_own_setup(server: str) -> None:
    section = client_section(server)
    for label, (language, table) in CLIENT_SETUPS.items():
        assert section.count(label) == 1, f"{server}: no setup labelled {label}"
        under = re.split(r"(?m)^\*\*", section.split(label, 1)[1])[0]  # up to the next label
        (snippet, *_) = fenced(under, language)
        if language == "sh":
            assert f"claude mcp add {server.removesuffix('-server')} -- {server}" in snippet
            continue
        (entry,) = json.loads(snippet)[table].values()
        assert Path(entry["command"]).name == server
        if label == "**Claude Desktop**":  # the app does not read the shell's PATH
            assert Path(entry["command"]).is_absolute()


@pytest.mark.parametrize("server", APPS)
def test_every_command_line_uses_flags_the_server_has(server: str) -> None:
    app = APPS[server]
    commands = "\n".join(fenced(client_section(server), "sh")).replace("\\\n", " ")
    claude_lines = [line for line in commands.splitlines() if line.startswith("claude mcp add")]

    started = f"{server} "
    assert any(f"-- {started}" in line for line in claude_lines)
    assert any(f"http://127.0.0.1:{app.default_port}/mcp" in line for line in claude_lines)
    for line in commands.splitlines():
        if started in line:
            server_words = line.split(started, 1)[1].split()
            options = {word.split("=")[0] for word in server_words if word.startswith("--")}
            assert options <= flags_of(app), line


@pytest.mark.parametrize("server", APPS)
def test_the_variables_named_in_the_section_exist(server: str) -> None:
    app = APPS[server]
    known = {option.variable for option in options(app)}
    named = set(re.findall(rf"\b{app.env_prefix}[A-Z_]+[A-Z]\b", client_section(server)))

    assert named
    assert named <= known


def test_the_debugging_section_names_each_servers_real_log_variables_and_flags() -> None:
    """README "Debugging a server": each server's log-level variable, and the MCP Inspector
    command line, use names the servers really read."""
    section = (ROOT / "README.md").read_text("utf-8").split("## Debugging a server", 1)[1]
    section = section.split("\n## ", 1)[0]
    known = {option.variable for app in APPS.values() for option in options(app)}
    named = set(re.findall(r"\b[A-Z]+_SERVER_[A-Z_]+[A-Z]\b", section))
    log_levels = {
        option.variable
        for app in APPS.values()
        for option in options(app)
        if option.flag == "--log-level"
    }

    assert named <= known, named - known
    assert log_levels <= named, log_levels - named
    (inspector,) = [line for line in fenced(section, "sh") if "inspector" in line]
    server_words = inspector.split(" -- ", 1)[1].split()
    assert server_words[0] in APPS
    assert {w for w in server_words if w.startswith("--")} <= flags_of(APPS[server_words[0]])
    assert {"--log-file", "--log-level"} <= set(re.findall(r"`(--[a-z-]+)", section))


REGENERATE = "regenerate with: uv run --locked python docs/generate_examples.py"
TOOL_HEADING = re.compile(r"(?m)^### `(\w+)`")
ROW = re.compile(r"^\| `(\w+)` \| (.*?) \| (.*?) \| (.*) \|$")
ALIAS_ROW = re.compile(r"^\| `(\w+)` \| `(\w+)` \|$")
ANSWER_FENCE = re.compile(r"(?ms)^(`{4,})markdown\n(.*?)^\1$")


@pytest.mark.e2e
def test_the_generated_parts_of_the_guides_are_what_the_servers_answer_today() -> None:
    """Every example answer and flag table of docs/<server>.md, made again from the servers on
    the sample data: a change to a tool's answer, a description or a flag's help that the
    guide does not show yet fails here (the generator's --check writes nothing)."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "generate_examples.py"), "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
        check=False,
    )

    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr


def guide(server: str) -> str:
    return (ROOT / "docs" / f"{server}.md").read_text("utf-8")


def region(text: str, name: str) -> str:
    begin, end = f"<!-- BEGIN GENERATED: {name} -->", f"<!-- END GENERATED: {name} -->"
    return text.split(begin, 1)[1].split(end, 1)[0]


def tool_sections(server: str) -> dict[str, str]:
    tools = region(guide(server), "tools")
    parts = TOOL_HEADING.split(tools)[1:]
    return dict(zip(parts[::2], parts[1::2], strict=True))


def table_after(section: str, header: str) -> list[str]:
    """The body rows of the table whose header line starts with ``header``."""
    lines = section.splitlines()
    starts = [index for index, line in enumerate(lines) if line.startswith(header)]
    if not starts:
        return []
    rows = []
    for line in lines[starts[0] + 2 :]:  # past the header and the separator
        if not line.startswith("|"):
            break
        rows.append(line)
    return rows


def registry(server: str, root: Path) -> dict[str, ToolDefinition]:
    app = APPS[server]
    # adopt-server's tools need an existing root to be built (the test's own, not the shared
    # temporary folder: nothing of the machine's is read); nothing is written there
    argv = ["--workspace-root", str(root)] if server == "adopt-server" else []
    settings = parse_command_line(app, argv, environ={})
    return {tool.definition.name: tool.definition for tool in app.build_tools(settings)}


def cell_text(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


@pytest.mark.parametrize("server", APPS)
def test_the_guide_documents_exactly_the_registry_tools(server: str, tmp_path: Path) -> None:
    assert list(tool_sections(server)) == list(registry(server, tmp_path)), REGENERATE


@pytest.mark.parametrize("server", APPS)
def test_every_parameter_is_documented_with_its_description(server: str, tmp_path: Path) -> None:
    for name, definition in registry(server, tmp_path).items():
        rows = table_after(tool_sections(server)[name], "| Parameter | Type | Default |")
        documented = {}
        for row in rows:
            found = ROW.match(row)
            assert found, f"{name}: unreadable row {row!r}"
            documented[found.group(1)] = found.groups()[1:]
        assert list(documented) == list(definition.properties), f"{name}: {REGENERATE}"
        for parameter, (kind, default, description) in documented.items():
            spec = definition.properties[parameter]
            assert description.startswith(cell_text(spec["description"])), REGENERATE
            assert kind, parameter
            assert (default == "required") == (parameter in definition.required), parameter


@pytest.mark.parametrize("server", APPS)
def test_every_deprecated_alias_is_documented(server: str, tmp_path: Path) -> None:
    for name, definition in registry(server, tmp_path).items():
        section = tool_sections(server)[name]
        rows = table_after(section, "| Alias | Use instead |")
        documented = {}
        for row in rows:
            found = ALIAS_ROW.match(row)
            assert found, f"{name}: unreadable row {row!r}"
            documented[found.group(1)] = found.group(2)
        assert documented == dict(definition.deprecated_aliases), f"{name}: {REGENERATE}"
        if not rows:
            assert "Deprecated aliases: none." in section


@pytest.mark.parametrize("server", APPS)
def test_every_tool_has_a_valid_example_call_and_an_answer(server: str, tmp_path: Path) -> None:
    for name, definition in registry(server, tmp_path).items():
        section = tool_sections(server)[name]
        (call,) = fenced(section.split("Answer:", 1)[0], "json")
        document = json.loads(call)
        assert document["name"] == name
        parse_arguments(document["arguments"], definition.arguments)  # refuses unknown ones
        ((_, answer),) = ANSWER_FENCE.findall(section)
        assert answer.strip()
        assert " failed: " not in answer.splitlines()[0]


@pytest.mark.parametrize("server", APPS)
def test_every_flag_and_its_variable_is_documented(server: str) -> None:
    app = APPS[server]
    rows = table_after(region(guide(server), "flags"), "| Flag | Environment variable |")
    documented = {}
    for row in rows:
        flags_cell, variable = row.split(" | ")[:2]
        flag = max(re.findall(r"`(--[\w-]+)`", flags_cell), key=len)
        documented[flag] = variable.strip("`")
    expected = {option.flag: option.variable for option in options(app)}
    expected["--version"] = "—"
    assert documented == expected, REGENERATE


@pytest.mark.parametrize("server", APPS)
def test_the_guide_has_a_security_model(server: str) -> None:
    security = guide(server).split("## Security model", 1)[1]
    assert "confined" in security.lower()
    assert "127.0.0.1" in security


LANGUAGE_WORDS = {
    "typescript": "TypeScript",
    "tsx": "TypeScript",
    "javascript": "JavaScript",
    "csharp": "C#",
}
"""How ``--help`` spells a dialect whose registry name is not its capitalised name."""


def test_context_server_help_names_every_language_it_parses() -> None:
    help_text = " ".join(CONTEXT_APP.description.split())
    for language in LANGUAGES:
        word = LANGUAGE_WORDS.get(language.name, language.name.capitalize())
        assert word in help_text, language.name


def flag_tables(server: str) -> str:
    """A README's flag tables (``| flag | environment variable | ...``), joined."""
    readme = (ROOT / "packages" / server / "README.md").read_text("utf-8")
    return "".join(re.findall(r"(?ms)^\| flag \| environment variable \|.*?(?=^[^|])", readme))


TABULATED = [server for server in APPS if flag_tables(server)]


def test_some_readme_tabulates_its_flags() -> None:
    assert TABULATED


@pytest.mark.parametrize("server", TABULATED)
def test_a_readme_flag_table_lists_every_flag(server: str) -> None:
    listed = set(re.findall(r"`(--[a-z-]+)", flag_tables(server)))
    assert {option.flag for option in options(APPS[server])} - listed == set()
