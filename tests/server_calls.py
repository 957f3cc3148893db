"""What a freshly installed server must answer, however it was installed: its golden tool
list, and one real call of one of its tools on files the test writes."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp_common.testing import result_text
from readme_snippets import ROOT


def golden_tool_names(server: str) -> set[str]:
    """The tools a server lists, by its committed golden tools/list."""
    golden = json.loads((ROOT / "tests" / "golden" / f"{server}.tools.json").read_text())
    return {tool["name"] for tool in golden}


@dataclass(frozen=True)
class RealCall:
    """One call a freshly installed server must answer, on files the test writes."""

    arguments: Callable[[Path], dict[str, Any]]
    """The call's arguments, given the directory the server is confined to (files written)."""
    answer: str
    """Text the answer must contain."""
    is_error: bool = False


def _csv(work: Path) -> dict[str, Any]:
    (work / "orders.csv").write_text("id,customer\n1,a\n2,a\n3,b\n", encoding="utf-8")
    return {"path": "orders.csv", "columns": ["customer"]}


def _project(work: Path) -> dict[str, Any]:
    source = work / "shop" / "src" / "main" / "java" / "shop"
    source.mkdir(parents=True)
    (source / "Order.java").write_text("package shop;\n\npublic class Order {}\n", "utf-8")
    return {"path": "shop"}


def _repository(work: Path) -> dict[str, Any]:
    repository = work / "origin"
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "init", "-q", str(repository)], check=True, timeout=60)
    (repository / "README.md").write_text("# origin\n", encoding="utf-8")
    subprocess.run([*git, "-C", str(repository), "add", "."], check=True, timeout=60)
    subprocess.run([*git, "-C", str(repository), "commit", "-qm", "init"], check=True, timeout=60)
    return {"repositoryUrl": str(repository), "workspace": "checkouts"}


def _text(work: Path) -> dict[str, Any]:
    (work / "notes.txt").write_text("one two two\n", encoding="utf-8")
    return {"path": "notes.txt"}


REAL_CALLS = {
    "uniqueness_check": RealCall(_csv, "unique: false"),
    "project_tree": RealCall(_project, "Order.java"),
    "verify_adoption": RealCall(_repository, "no CLAUDE.md", is_error=True),
    "count_words": RealCall(_text, "two"),  # the example tool of a new server's template
}
"""By tool name: a server is called through the first of its tools listed here."""


async def list_and_call(
    command: Path | str,
    args: list[str],
    work: Path,
    *,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
) -> tuple[set[str], str, RealCall, str, bool]:
    """Start ``command`` over stdio (in ``cwd``, default ``work``), list its tools and make the
    real call of the first tool it has in :data:`REAL_CALLS` on files written in ``work``:
    the tool names, the tool called, its :class:`RealCall`, the answer's text and error flag."""
    parameters = StdioServerParameters(command=str(command), args=args, cwd=cwd or work, env=env)
    async with Client(parameters, mode="legacy") as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        tool = next((name for name in REAL_CALLS if name in names), None)
        assert tool is not None, f"give one of {sorted(names)} a RealCall in REAL_CALLS"
        call = REAL_CALLS[tool]
        result = await client.call_tool(tool, call.arguments(work))
    return names, tool, call, result_text(result), bool(result.is_error)
