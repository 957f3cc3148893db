"""Wiring of the context-server command: its name, settings and tools."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

from mcp_common import AllowedPaths, ConfinedSettings, Flag, McpTool, Repeatable
from mcp_common.adapter import ServerApp
from pydantic import Field
from pydantic_settings import SettingsConfigDict

from context_server import DISTRIBUTION


class ContextSettings(ConfinedSettings):
    """The options of ``context-server``."""

    model_config = SettingsConfigDict(env_prefix="CONTEXT_SERVER_")

    port: int = Field(8082, description="HTTP port")
    allowed_dir: Annotated[Repeatable, Flag("DIR")] = Field(
        default_factory=list,
        description="a directory clients may scan (repeatable; default: the working directory)",
    )
    index_store_dir: Annotated[str | None, Flag("DIR")] = Field(
        None,
        description="where parsed projects are kept between restarts, one SQLite file per "
        "project; never inside an allowed directory (default: the user cache directory, "
        "$XDG_CACHE_HOME/mcp-tools/context-server or ~/.cache/mcp-tools/context-server)",
    )
    no_index_store: bool = Field(
        False,
        description="keep parsed projects in memory only: a restarted server parses again",
    )


def tools_from_settings(settings: ContextSettings) -> Sequence[McpTool]:
    """The tools, confined to the ``--allowed-dir`` directories, sharing one index cache
    kept on disk in ``--index-store-dir`` unless ``--no-index-store``.

    A directory that does not exist, and an ``--index-store-dir`` inside an allowed directory
    (the store would sit in a project clients read), raise ``ValueError``, which the adapter
    reports as a usage error (exit status 2).
    """
    # the parsers load here, when the server starts, not for --help or --version
    from context_server.core.index import IndexCache
    from context_server.core.store import IndexStore, default_directory
    from context_server.tools import build_tools

    allowed = AllowedPaths.from_options(
        settings.allowed_dir or None, allow_hard_links=settings.allow_hard_links
    )
    store = None
    if not settings.no_index_store:
        directory = Path(settings.index_store_dir) if settings.index_store_dir else None
        if directory is not None:
            real = Path(os.path.realpath(directory.expanduser()))
            inside = next((root for root in allowed.roots if real.is_relative_to(root)), None)
            if inside is not None:
                raise ValueError(
                    f"--index-store-dir {directory} lies inside the allowed directory {inside}: "
                    "choose a directory outside every project, or --no-index-store"
                )
        store = IndexStore(directory or default_directory(), outside=allowed.roots)
    return build_tools(allowed, IndexCache(store))


APP = ServerApp(
    name="context-server",
    distribution=DISTRIBUTION,
    description=(
        "MCP server giving an agent the right code context within a token budget: project "
        "trees, class dependencies (Java, Kotlin, Scala, Python, TypeScript, JavaScript, Go, "
        "C#, Rust), token counts, OKF bundles."
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
