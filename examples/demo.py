"""See the three MCP servers of this repository work, on the sample data next to this file.

Run it from the repository root:

    pip install uv && uv run --locked python examples/demo.py

Each server command (uniqueness-server, context-server, adopt-server) is started as a real
subprocess and driven over stdio by the MCP Python SDK client, exactly as Claude Code, Claude
Desktop or Cursor would drive it. Each server is confined to the sample data it is shown
(--allowed-dir / --workspace-root). Nothing is written outside a temporary directory; no
network, no `claude`, no `gh` is needed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

EXAMPLES = Path(__file__).resolve().parent
ROOT = EXAMPLES.parent
DATA = EXAMPLES / "data"
PROJECT = EXAMPLES / "shop-project"
BIN = Path(sys.executable).parent
MAX_LINES = 40
"""Longer answers are cut in the demo's output (the client receives them whole)."""
SERVER_TIMEOUT_SECONDS = 60
GIT_ENV = {
    # The demo's own git commands must not depend on the user's git configuration
    # (commit signing, hooks, templates).
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "mcp-tools demo",
    "GIT_AUTHOR_EMAIL": "demo@example.invalid",
    "GIT_COMMITTER_NAME": "mcp-tools demo",
    "GIT_COMMITTER_EMAIL": "demo@example.invalid",
}


@dataclass
class Call:
    """One tool call the demo makes, and whether an error answer is what it means to show."""

    tool: str
    arguments: dict[str, Any]
    why: str
    expect_error: bool = False


@dataclass
class Outcome:
    """What the demo did and what went wrong, for the summary and the exit status."""

    done: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def heading(text: str) -> None:
    print(f"\n{'=' * 78}\n{text}\n{'=' * 78}")


def shown(text: str) -> str:
    lines = text.rstrip().splitlines()
    if len(lines) <= MAX_LINES:
        return "\n".join(lines)
    rest = len(lines) - MAX_LINES
    return "\n".join([*lines[:MAX_LINES], f"... ({rest} more lines cut by the demo)"])


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(part.text for part in result.content if isinstance(part, types.TextContent))


async def run_server(
    command: str, args: Sequence[str], cwd: Path, calls: Sequence[Call], outcome: Outcome
) -> None:
    """Start ``command`` over stdio, list its tools and make ``calls``, printing each answer."""
    executable = BIN / command
    if not executable.exists():
        outcome.problems.append(f"{command} is not installed next to {sys.executable}")
        print(f"!! {command} is not installed; run the demo with `uv run`.")
        return
    argv = [*args, "--log-level", "ERROR"]
    print(f"$ {command} {' '.join(argv)}    (started by the demo, cwd {display(cwd)})")
    parameters = StdioServerParameters(command=str(executable), args=argv, cwd=cwd)
    started = time.monotonic()
    try:
        with anyio.fail_after(SERVER_TIMEOUT_SECONDS):
            async with Client(parameters) as client:
                await make_calls(client, calls, outcome)
        outcome.done.append(f"{command}: " + ", ".join(call.tool for call in calls))
    except Exception as error:  # the demo goes on to the next server and reports at the end
        reason = "; ".join(f"{type(leaf).__name__}: {leaf}" for leaf in leaves(error))
        outcome.problems.append(f"{command} failed ({reason})")
        print(f"!! {command} failed ({reason}); its own messages are above")
    print(f"\n({command}: {time.monotonic() - started:.1f}s, stopped)")


async def make_calls(client: Client, calls: Sequence[Call], outcome: Outcome) -> None:
    listing = await client.list_tools()
    print(f"tools/list -> {', '.join(tool.name for tool in listing.tools)}")
    for call in calls:
        print(f"\n-> {call.tool} {json.dumps(call.arguments)}\n   ({call.why})\n")
        result = await client.call_tool(call.tool, call.arguments)
        print(shown(text_of(result)))
        if result.is_error and not call.expect_error:
            outcome.problems.append(f"{call.tool} answered an error")
        elif call.expect_error and not result.is_error:
            outcome.problems.append(f"{call.tool} did not report the expected problem")


def leaves(error: BaseException) -> list[BaseException]:
    """The real causes inside the task groups' exception groups."""
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in leaves(inner)]
    return [error]


def display(path: Path) -> str:
    try:
        return str(path.relative_to(ROOT)) or "."
    except ValueError:
        return str(path)


def git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", *args],
        cwd=cwd,
        env={**os.environ, **GIT_ENV},
        check=True,
        capture_output=True,
        text=True,
    )


def bare_repository(remotes: Path, name: str, files: dict[str, str]) -> Path:
    """A local bare repository holding one commit of ``files`` (what a clone URL points at)."""
    source = remotes / f"{name}-source"
    for relative, text in files.items():
        target = source / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    git(source, "init", "--quiet", "--initial-branch=main")
    git(source, "add", "--all")
    git(source, "commit", "--quiet", "--message", "Initial commit")
    bare = remotes / f"{name}.git"
    git(remotes, "clone", "--quiet", "--bare", "--", str(source), str(bare))
    return bare


def adopted_files() -> dict[str, str]:
    """A small repository as adopt_repo leaves it: the guidance in AGENTS.md, a CLAUDE.md
    importing it, and the CI guard running the committed checker."""
    from adopt_server.conformance import (
        agents_md_from_guidance,
        claude_md_importing_agents_md,
        rules_for,
    )
    from agent_config_check.rule_sets import AGENTS_MD_SECTIONS
    from adopt_server.guards import install_guard

    guidance = "# CLAUDE.md\n\nThe orders service of the demo.\n" + "".join(
        f"\n{section}\n\nThe demo's {section[3:].lower()}: a README and a guard.\n"
        for section in AGENTS_MD_SECTIONS
    )
    rules = rules_for("project", "github-actions")
    with tempfile.TemporaryDirectory() as scratch:
        checkout = Path(scratch)
        install_guard(checkout, "github-actions", rules, None)
        files = {
            path.relative_to(checkout).as_posix(): path.read_text(encoding="utf-8")
            for path in checkout.rglob("*")
            if path.is_file()
        }
    return {
        "README.md": "# orders-service\n",
        "AGENTS.md": agents_md_from_guidance(guidance),
        "CLAUDE.md": claude_md_importing_agents_md(),
        **files,
    }


async def demo(scratch: Path) -> Outcome:
    outcome = Outcome()
    heading("1/3 uniqueness-server: can these columns be a key of examples/data/orders.csv?")
    await run_server(
        "uniqueness-server",
        ["--allowed-dir", str(DATA)],
        DATA,
        [
            Call(
                "uniqueness_check",
                {"path": "orders.csv", "columns": ["order_number"]},
                "an order has several lines, so the order number alone repeats",
            ),
            Call(
                "uniqueness_check",
                {"path": "orders.csv", "columns": ["order_number", "line_no"]},
                "the order number with the line number is a key",
            ),
            Call(
                "find_keys",
                {"path": "orders.csv", "maxColumns": 2, "plausibleOnly": True},
                "the minimal keys of up to two columns that are plausible identifiers, best first",
            ),
        ],
        outcome,
    )

    heading("2/3 context-server: the mixed Java/Kotlin project examples/shop-project")
    await run_server(
        "context-server",
        ["--allowed-dir", str(PROJECT)],
        PROJECT,
        [
            Call("project_tree", {"path": "."}, "a map of the project and its dependencies"),
            Call(
                "find_context",
                {"path": ".", "className": "OrderService"},
                "the files OrderService needs, across Java and Kotlin, nearest first",
            ),
        ],
        outcome,
    )

    heading("3/3 adopt-server: verify two local git repositories (read-only, git only)")
    # Local repositories must sit under the server's workspace root too: it reads nothing else.
    workspaces = scratch / "workspaces"
    remotes = workspaces / "remotes"
    remotes.mkdir(parents=True)
    adopted = bare_repository(remotes, "orders-service", adopted_files())
    plain = bare_repository(remotes, "legacy-service", {"README.md": "# legacy-service\n"})
    print(f"prepared {adopted.name} (adopted) and {plain.name} (not adopted) in a temp dir")
    await run_server(
        "adopt-server",
        ["--workspace-root", str(workspaces)],
        workspaces,
        [
            Call(
                "verify_adoption",
                {"repositoryUrl": adopted.as_uri(), "workspace": "verify"},
                "clones the repository and checks CLAUDE.md and its guard",
            ),
            Call(
                "verify_adoption",
                {"repositoryUrl": plain.as_uri(), "workspace": "verify"},
                "a repository without CLAUDE.md: the answer says what is missing",
                expect_error=True,
            ),
        ],
        outcome,
    )
    return outcome


def summary(outcome: Outcome) -> None:
    heading("What the demo did")
    print("Started each server over stdio, listed its tools and called them:")
    for line in outcome.done:
        print(f"  {line}")
    print("Then stopped the servers and removed the temporary repositories.")


def next_steps() -> None:
    heading("What to try next")
    print(
        f"""\
* Connect a server to Claude Code, from this checkout:
    claude mcp add uniqueness -- uv run --directory {ROOT} uniqueness-server --allowed-dir {DATA}
    claude mcp add context -- uv run --directory {ROOT} context-server --allowed-dir {PROJECT}
    claude mcp add adopt -- uv run --directory {ROOT} adopt-server
  or install a server's commands on your PATH (uv tool install ./packages/uniqueness-server)
  and give the command alone: claude mcp add uniqueness -- uniqueness-server --allowed-dir DIR
* Check a key from a shell or a pipeline (exit status 0 unique, 1 not unique, 2 error):
    uv run uniqueness-check examples/data/orders.csv order_number,line_no
* Claude Desktop, Cursor, VS Code, .mcp.json and HTTP setups: "Install and connect a client" in
  packages/<server>/README.md; every tool, parameter and flag: docs/<server>.md"""
    )


def main() -> int:
    """Run the demo; exit status 0 when every server answered as shown."""
    started = time.monotonic()
    print("mcp-tools demo: three MCP servers, each a subprocess driven over stdio by the MCP SDK.")
    with tempfile.TemporaryDirectory(prefix="mcp-tools-demo-") as scratch:
        outcome = anyio.run(demo, Path(scratch))
    summary(outcome)
    next_steps()
    elapsed = time.monotonic() - started
    if outcome.problems:
        print(f"\nDemo finished in {elapsed:.1f}s with problems: {'; '.join(outcome.problems)}")
        return 1
    print(f"\nDemo finished in {elapsed:.1f}s: all three servers answered over stdio.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
