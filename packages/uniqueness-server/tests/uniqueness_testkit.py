"""Shared helpers for the uniqueness-server tests: fixture files, direct tool calls and the
installed server over stdio."""

from __future__ import annotations

import gzip
import os
import sys
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp_common import AllowedPaths, McpTool, ToolResult, invoke
from uniqueness_server.engine import DatabaseRegistry
from uniqueness_server.tools import build_tools

CATEGORIES = [
    "All households",
    "Beneficiary",
    "Maori",
    "Income quintile 1",
    "Income quintile 2",
    "Income quintile 3",
    "Income quintile 4",
    "Income quintile 5",
    "Expenditure quintile 1",
    "Expenditure quintile 2",
    "Expenditure quintile 3",
    "Expenditure quintile 4",
    "Expenditure quintile 5",
    "Superannuitant",
]
YEARS = [2008, 2011, 2014, 2017, 2020]
HOUSEHOLD_HEADER = (
    "hlpi_name,year1,hlpi,tot_hhs,own,own_wm,own_prop,own_wm_prop,prop_hhs,"
    "age,size,income,expenditure,eqv_income,eqv_exp"
)


def household_csv() -> str:
    """A household-style fixture (reference §7.4): 70 rows, 5 years x 14 categories.

    ``year1`` and ``hlpi_name`` repeat, the pair is unique and ``income`` is unique.
    """
    lines = [HOUSEHOLD_HEADER]
    for y, year in enumerate(YEARS):
        for c, name in enumerate(CATEGORIES):
            income = 40_000 + 1_000 * y + 37 * c
            hlpi = f"hlpi{c}"
            lines.append(
                f"{name},{year},{hlpi},{1000 + c},{c % 3},{c % 2},0.5,0.25,0.1,"
                f"{40 + c % 5},{2 + c % 3},{income},{income - 5_000},{income // 2},{income // 3}"
            )
    return "\n".join(lines) + "\n"


def write(path: Path, content: str | bytes, *, compress: bool = False) -> Path:
    """Write ``content`` to ``path`` (gzip-compressed when asked), creating parents."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = content.encode("utf-8") if isinstance(content, str) else content
    path.write_bytes(gzip.compress(data) if compress else data)
    return path


def tools_for(root: Path, databases: Sequence[str] = ()) -> dict[str, McpTool]:
    """The server's tools confined to ``root``, by name."""
    registry = DatabaseRegistry.from_options(list(databases))
    tools = build_tools(AllowedPaths([root]), registry)
    return {tool.definition.name: tool for tool in tools}


def call(tool: McpTool, arguments: Mapping[str, Any]) -> ToolResult:
    """Call ``tool`` directly, as the adapter would (without MCP)."""
    return invoke(tool, dict(arguments))


SERVER = Path(sys.executable).parent / "uniqueness-server"


def text_of(result: types.CallToolResult) -> str:
    """The text parts of a tool result, joined."""
    return "\n".join(part.text for part in result.content if isinstance(part, types.TextContent))


@asynccontextmanager
async def stdio_server(
    root: Path, log_file: Path, databases: Sequence[str] = (), temp: Path | None = None
) -> AsyncIterator[Client]:
    """The installed server over stdio, confined to ``root`` and logging to ``log_file``, with
    ``databases`` registered and, when given, ``temp`` as its temp directory."""
    assert SERVER.is_file(), f"{SERVER} is not installed; run uv sync"
    env = {k: v for k, v in os.environ.items() if k != "UNIQUENESS_SERVER_DATABASE"}
    if databases:
        env["UNIQUENESS_SERVER_DATABASE"] = "|".join(databases)
    if temp is not None:
        env["TMPDIR"] = str(temp)
    params = StdioServerParameters(
        command=str(SERVER),
        args=["--allowed-dir", str(root), "--log-file", str(log_file)],
        env=env,
        cwd=str(root),
    )
    async with Client(params) as client:
        yield client
