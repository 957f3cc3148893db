"""adopt-server wiring: its name, flags and tools."""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Sequence
from pathlib import Path

from mcp_common import AllowedPaths, McpTool
from mcp_common.adapter import ServerApp

from adopt_server.tools import build_tools as tools_for


def default_workspace_root() -> Path:
    """``<system temp>/adopt-server-workspaces``."""
    return Path(tempfile.gettempdir()) / "adopt-server-workspaces"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """adopt-server's own flag: the directory every ``workspace`` must sit under."""
    parser.add_argument(
        "--workspace-root",
        metavar="DIR",
        help="directory every workspace must sit under; created if missing "
        f"(default: {default_workspace_root()})",
    )


def build_tools(options: argparse.Namespace) -> Sequence[McpTool]:
    """The tools, confined to ``--workspace-root``."""
    root = Path(options.workspace_root) if options.workspace_root else default_workspace_root()
    root.mkdir(parents=True, exist_ok=True)
    return tools_for(AllowedPaths([root]))


APP = ServerApp(
    name="adopt-server",
    distribution="adopt-server",
    default_port=8083,
    description="MCP server that adopts Claude Code into repositories: CLAUDE.md, a build "
    "guard and a pull request, safely and repeatably.",
    epilog="Examples:\n"
    "  adopt-server --workspace-root ~/adoptions\n"
    "  adopt-server --transport streamable-http --port 8083 --workspace-root /srv/adopt\n"
    "  ADOPT_SERVER_WORKSPACE_ROOT=/srv/adopt adopt-server",
    env_prefix="ADOPT_SERVER",
    add_arguments=add_arguments,
    build_tools=build_tools,
    instructions="adopt_repo adopts Claude Code into repositories (use dryRun first to "
    "review); verify_adoption checks repositories that were adopted. Both return a JSON "
    "report as structured content.",
)
