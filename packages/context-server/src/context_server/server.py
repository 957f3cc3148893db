"""Wiring of the context-server command: its name, flags and tools."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from mcp_common import AllowedPaths, McpTool
from mcp_common.adapter import ServerApp

from context_server.tools import build_tools


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The server's own flag: the directories clients may scan."""
    parser.add_argument(
        "--allowed-dir",
        action="append",
        default=[],
        metavar="DIR",
        help="a directory clients may scan (repeatable; default: the working directory)",
    )


def tools_from_options(options: argparse.Namespace) -> Sequence[McpTool]:
    """The four tools, confined to the ``--allowed-dir`` directories.

    A directory that does not exist raises ``ValueError``, which the adapter reports as a
    usage error (exit status 2).
    """
    return build_tools(AllowedPaths.from_options(options.allowed_dir or None))


APP = ServerApp(
    name="context-server",
    distribution="context-server",
    default_port=8082,
    description=(
        "MCP server giving an agent the right code context within a token budget: project "
        "trees, class dependencies (Java, Kotlin, Scala, Python), token counts, OKF bundles."
    ),
    epilog=(
        "Examples:\n"
        "  context-server --allowed-dir ./my-project\n"
        "  context-server --allowed-dir ~/code/a --allowed-dir ~/code/b\n"
        "  context-server --transport streamable-http --port 8082 --allowed-dir ./repo"
    ),
    env_prefix="CONTEXT_SERVER",
    add_arguments=add_arguments,
    build_tools=tools_from_options,
    instructions=(
        "Use project_tree for a map of a project, find_context for the files a class needs "
        "(with tokenBudget and includeSource to get ready-to-paste source), estimate_tokens "
        "for what that costs, okf_bundle for an Open Knowledge Format description."
    ),
)
