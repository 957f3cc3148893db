"""Every installed command answers ``--help`` (with examples) and ``--version``, and refuses a
wrong flag the way a user expects: one error line after the usage, exit status 2, no traceback."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from mcp_common.command_line import TABLE_FILE, rebuild, render, tables_of
from mcp_common.version import package_version
from mcp_common.workspace import WorkspacePackage, workspace_packages

BIN = Path(sys.executable).parent
PACKAGES = workspace_packages(Path(__file__).resolve().parent.parent)

COMMANDS = {command: package.distribution for package in PACKAGES for command, _ in package.scripts}
"""Each console script of the workspace and the distribution whose version it reports."""
SERVER_COMMANDS = {package.server_command for package in PACKAGES} - {None}


def run(command: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / command), *args],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        check=False,
    )


@pytest.mark.parametrize("command", COMMANDS)
def test_help_shows_usage_and_examples(command: str) -> None:
    answer = run(command, "--help")

    assert answer.returncode == 0, answer.stderr
    assert answer.stdout.lower().startswith("usage:")
    assert command in answer.stdout
    assert "example" in answer.stdout.lower()
    example_lines = [
        line for line in answer.stdout.splitlines() if line.strip().startswith(command)
    ]
    assert example_lines, f"--help of {command} shows no example command line"


@pytest.mark.parametrize(("command", "distribution"), COMMANDS.items())
def test_version_names_the_package_version(command: str, distribution: str) -> None:
    answer = run(command, "--version")

    assert answer.returncode == 0, answer.stderr
    assert version(distribution) in answer.stdout
    assert "Traceback" not in answer.stdout + answer.stderr


WRONG_FLAG = {
    "uniqueness-check": ("orders.csv", "order_number", "--no-such-flag"),
    "mcp-new-server": ("weather", "--no-such-flag"),
}
"""Commands with required positionals get them, so the wrong flag is what gets refused."""


@pytest.mark.parametrize("command", COMMANDS)
def test_a_wrong_flag_is_one_error_line_after_the_usage(command: str) -> None:
    answer = run(command, *WRONG_FLAG.get(command, ("--no-such-flag",)))

    assert answer.returncode == 2
    assert answer.stdout == ""
    assert "Traceback" not in answer.stderr
    lines = answer.stderr.strip().splitlines()
    assert lines[0].lower().startswith("usage:")
    assert lines[-1].startswith(f"{command}: error:")
    assert "--no-such-flag" in lines[-1]
    assert sum(": error:" in line for line in lines) == 1


WRONG_VALUES = {
    "mcp-new-server": ("Weather_Server",),
    "uniqueness-server": ("--allowed-dir", "/nonexistent/data"),
    "uniqueness-check": ("--limit", "many", "orders.csv", "order_number"),
    "context-server": ("--allowed-dir", "/nonexistent/project"),
    "adopt-server": ("--port", "http"),
    "claude-adopt": ("--parallel", "99", "https://github.com/owner/repo.git"),
    "claude-md-check": ("--rules", "strictest"),
    "agent-config-check": ("--format", "html"),
}
"""A flag given a value the command cannot use, one per command; a server command without an
entry gets a port that is not a number."""


def wrong_value(command: str) -> tuple[str, ...]:
    if command in WRONG_VALUES:
        return WRONG_VALUES[command]
    if command in SERVER_COMMANDS:
        return ("--port", "http")
    pytest.fail(f"{command} is not a server command: give it a wrong value in WRONG_VALUES")


@pytest.mark.parametrize("command", COMMANDS)
def test_a_wrong_flag_value_is_one_error_line_after_the_usage(command: str) -> None:
    given = wrong_value(command)
    answer = run(command, *given)

    assert answer.returncode == 2, answer.stderr
    assert answer.stdout == ""
    assert "Traceback" not in answer.stderr
    lines = answer.stderr.strip().splitlines()
    assert lines[0].lower().startswith("usage:")
    assert lines[-1].startswith(f"{command}: error:")
    assert sum(": error:" in line for line in lines) == 1
    for path in (value for value in given if value.startswith("/")):
        # the user's own path as given: masking (.../data) is for what reaches a model
        assert lines[-1].endswith(f" {path}"), lines[-1]


ENTRY_POINTS = {command: entry for package in PACKAGES for command, entry in package.scripts}
"""Every command: to answer ``--help`` or ``--version`` it loads the standard library and our
own light modules only. pydantic and the settings or argument models, the SDK, the transports
and the engines (DuckDB, Arrow, NumPy, tree-sitter, the adoption pipeline, ...) must wait until
it serves or works: their imports alone take longer than the answer may."""
PACKAGE_OF = {command: package for package in PACKAGES for command, _ in package.scripts}
MODELS = ("mcp_common.arguments", "mcp_common.settings", "mcp_common.adapter.cli")
"""Our own modules that load pydantic (the models flags are derived from)."""

LOADED_FOR = """
import contextlib, importlib, io, json, sys
module, function = sys.argv[1].split(":")
sys.argv = [sys.argv[2], sys.argv[3]]
with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
    getattr(importlib.import_module(module), function)()
print(json.dumps(sorted(sys.modules)))
"""


@pytest.mark.parametrize("flag", ["--help", "--version"])
@pytest.mark.parametrize("command", ENTRY_POINTS)
def test_help_and_version_load_no_third_party_module_nor_the_engines(
    command: str, flag: str
) -> None:
    answer = subprocess.run(
        [sys.executable, "-c", LOADED_FOR, ENTRY_POINTS[command], command, flag],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    loaded = set(json.loads(answer.stdout))

    tops = {name.split(".")[0] for name in loaded if not name.startswith(("_", "__main__"))}
    assert tops - set(sys.stdlib_module_names) <= {p.import_name for p in PACKAGES}
    assert not loaded & {*MODELS, "mcp_common.adapter.serving"}
    package = PACKAGE_OF[command]
    entry_module = ENTRY_POINTS[command].split(":")[0]
    for heavy in ("tools", "server", "command", *package.core):
        module = f"{package.import_name}.{heavy}"
        assert module == entry_module or module not in loaded


@pytest.mark.parametrize("package", PACKAGES, ids=lambda package: package.folder)
def test_the_committed_command_line_tables_match_the_parsers(package: WorkspacePackage) -> None:
    committed = package.source / package.import_name / TABLE_FILE
    tables = tables_of(package)

    if not tables:
        assert not committed.exists(), f"{committed} describes no command: remove it"
        return
    assert committed.is_file(), f"{committed} is missing: {REGENERATE}"
    assert committed.read_text(encoding="utf-8") == render(tables), f"stale: {REGENERATE}"
    for command in tables:  # the table's parser shows what the real one shows
        real = importlib.import_module(ENTRY_POINTS[command].split(":")[0])
        version = package_version(package.distribution)
        rebuilt = rebuild(tables[command], version)
        assert rebuilt.format_help() == real.command_line_parser().format_help()


REGENERATE = "run `uv run --locked python -m mcp_common.command_line` and commit the result"
