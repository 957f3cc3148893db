"""Wiring of the context-server command: its name, settings and tools."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

from mcp_common import AllowedPaths, Flag, McpTool, Repeatable, ServerSettings
from mcp_common.adapter import ServerApp
from pydantic import Field
from pydantic_settings import SettingsConfigDict

from context_server.tools import build_tools


class ContextSettings(ServerSettings):
    """The options of ``context-server``."""

    model_config = SettingsConfigDict(env_prefix="CONTEXT_SERVER_")

    port: int = Field(8082, description="HTTP port")
    allowed_dir: Annotated[Repeatable, Flag("DIR")] = Field(
        default_factory=list,
        description="a directory clients may scan (repeatable; default: the working directory)",
    )


def tools_from_settings(settings: ContextSettings) -> Sequence[McpTool]:
    """The four tools, confined to the ``--allowed-dir`` directories.

    A directory that does not exist raises ``ValueError``, which the adapter reports as a
    usage error (exit status 2).
    """
    return build_tools(AllowedPaths.from_options(settings.allowed_dir or None))


APP = ServerApp(
    name="context-server",
    distribution="context-server",
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
    settings=ContextSettings,
    build_tools=tools_from_settings,
    instructions=(
        "Use project_tree for a map of a project, find_context for the files a class needs "
        "(with tokenBudget and includeSource to get ready-to-paste source), estimate_tokens "
        "for what that costs, okf_bundle for an Open Knowledge Format description."
    ),
)
