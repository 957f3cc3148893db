"""adopt-server wiring: its name, settings and tools."""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

from mcp_common import AllowedPaths, Flag, McpTool, ServerSettings
from mcp_common.adapter import ServerApp
from pydantic import Field
from pydantic_settings import SettingsConfigDict

from adopt_server import DISTRIBUTION


def default_workspace_root() -> Path:
    """``<system temp>/adopt-server-<uid>``: one private directory per user."""
    return Path(tempfile.gettempdir()) / f"adopt-server-{os.getuid()}"


def prepare_default_root(root: Path) -> None:
    """Create the default root privately, and refuse one another user could have planted.

    The system temp directory is shared: a directory (or symlink) someone else created there
    first would let them read or redirect every checkout.
    """
    root.mkdir(mode=0o700, exist_ok=True)
    info = root.lstat()
    if stat.S_ISLNK(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise ValueError(
            f"the default workspace root {root} is not a private directory of this user "
            "(a symlink, another owner, or open to others); pass --workspace-root DIR"
        )


class AdoptSettings(ServerSettings):
    """The options of ``adopt-server``."""

    model_config = SettingsConfigDict(env_prefix="ADOPT_SERVER_")

    port: int = Field(8083, description="HTTP port")
    workspace_root: Annotated[str | None, Flag("DIR")] = Field(
        None,
        # the default is described, not computed: --help answers from a table committed once
        # for every machine and user (mcp_common.command_line)
        description="directory every workspace must sit under; created if missing (default: "
        "adopt-server-<uid> in the system temp directory, e.g. /tmp/adopt-server-1000)",
    )


def build_tools(settings: AdoptSettings) -> Sequence[McpTool]:
    """The tools, confined to ``--workspace-root``."""
    # the pipeline loads here, when the server starts, not for --help or --version
    from adopt_server.tools import build_tools as tools_for

    if settings.workspace_root:
        root = Path(settings.workspace_root)
        try:
            root.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            # one line for the person starting the server: their path as given, and why
            # (the bare OSError read "[Errno 17] File exists: '...'" for a file)
            reason = "it is not a directory" if root.exists() else error.strerror
            raise ValueError(f"--workspace-root {root}: cannot create it: {reason}") from error
    else:
        root = default_workspace_root()
        prepare_default_root(root)
    return tools_for(AllowedPaths([root], flag="--workspace-root"))


APP = ServerApp(
    name="adopt-server",
    distribution=DISTRIBUTION,
    description="MCP server that adopts Claude Code into repositories: CLAUDE.md, a build "
    "guard and a pull request, safely and repeatably.",
    epilog="Examples:\n"
    "  adopt-server --workspace-root ~/adoptions\n"
    "  adopt-server --transport streamable-http --port 8083 --workspace-root /srv/adopt\n"
    "  ADOPT_SERVER_WORKSPACE_ROOT=/srv/adopt adopt-server",
    settings=AdoptSettings,
    build_tools=build_tools,
    instructions="adopt_repo adopts Claude Code into repositories (use dryRun first to "
    "review); verify_adoption checks repositories that were adopted; adoption_status shows "
    "where each repository of a campaign stands. All three return structured content.",
)
