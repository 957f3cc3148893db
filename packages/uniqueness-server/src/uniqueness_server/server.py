"""Wiring: the uniqueness server's name, flags and tools."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from mcp_common import AllowedPaths, McpTool
from mcp_common.adapter import ServerApp

from uniqueness_server.engine import DatabaseRegistry
from uniqueness_server.tools import build_tools as tools_over


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The server's own flags."""
    parser.add_argument(
        "--allowed-dir",
        action="append",
        metavar="DIR",
        help="directory whose files the tools may read (repeatable; default: the working "
        "directory)",
    )
    parser.add_argument(
        "--database",
        action="append",
        metavar="NAME=URL",
        help="a named database connection (SQLAlchemy URL, e.g. "
        "warehouse=postgresql+psycopg://user:pass@127.0.0.1/db; repeatable); clients name it, "
        "never see the URL",
    )


def build_tools(options: argparse.Namespace) -> Sequence[McpTool]:
    """The tools for these options."""
    allowed = AllowedPaths.from_options(options.allowed_dir)
    return tools_over(allowed, DatabaseRegistry.from_options(options.database))


APP = ServerApp(
    name="uniqueness-server",
    distribution="uniqueness-server",
    default_port=8081,
    description="MCP server: can these columns be a key of this data (files or databases), "
    "and what are its keys.",
    epilog=(
        "Examples:\n"
        "  uniqueness-server --allowed-dir ./data\n"
        "  uniqueness-server --allowed-dir ./data --database shop=sqlite:///shop.db\n"
        "  uniqueness-server --transport streamable-http --port 8081 --allowed-dir ./data"
    ),
    env_prefix="UNIQUENESS_SERVER",
    add_arguments=add_arguments,
    build_tools=build_tools,
    instructions=(
        "Call list_columns first to see a source's columns, then uniqueness_check to test a "
        "candidate key or find_keys to discover the keys. Sources are files under the allowed "
        "directories (path) or configured databases (database + table or query)."
    ),
)
