"""Wiring: the uniqueness server's name, settings and tools."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

from mcp_common import AllowedPaths, ConfinedSettings, Flag, McpTool, Repeatable
from mcp_common.adapter import ServerApp
from pydantic import Field
from pydantic_settings import SettingsConfigDict

from uniqueness_server import DISTRIBUTION
from uniqueness_server.read_limits import LIMITS, ReadLimits


class UniquenessSettings(ConfinedSettings):
    """The options of ``uniqueness-server``."""

    model_config = SettingsConfigDict(env_prefix="UNIQUENESS_SERVER_")

    port: int = Field(8081, description="HTTP port")
    allowed_dir: Annotated[Repeatable, Flag("DIR")] = Field(
        default_factory=list,
        description="directory whose files the tools may read (repeatable; default: the "
        "working directory)",
    )
    database: Annotated[Repeatable, Flag("NAME=URL")] = Field(
        default_factory=list,
        description="a named database connection (a postgresql or sqlite SQLAlchemy URL, e.g. "
        "warehouse=postgresql://reader:pass@127.0.0.1/db?statement_timeout=30s, or a Spark "
        "Connect URL, e.g. lake=sc://host:15002/;token=TOKEN;statement_timeout=30s; "
        "repeatable); clients name it, never see the URL; statement_timeout (default 60s, "
        "0 = none) bounds every query or Spark operation",
    )
    max_document_bytes: int = Field(
        LIMITS["max_document_bytes"][0], ge=1, description=LIMITS["max_document_bytes"][1]
    )
    max_inflated_bytes: int = Field(
        LIMITS["max_inflated_bytes"][0], ge=1, description=LIMITS["max_inflated_bytes"][1]
    )
    max_cells: int = Field(LIMITS["max_cells"][0], ge=1, description=LIMITS["max_cells"][1])
    max_value_bytes: int = Field(
        LIMITS["max_value_bytes"][0], ge=1, description=LIMITS["max_value_bytes"][1]
    )
    max_engine_memory: int = Field(
        LIMITS["max_engine_memory"][0], ge=64, description=LIMITS["max_engine_memory"][1]
    )

    def limits(self) -> ReadLimits:
        """The read limits these settings ask for."""
        return ReadLimits(**{name: getattr(self, name) for name in LIMITS})


def build_tools(settings: UniquenessSettings) -> Sequence[McpTool]:
    """The tools for these settings."""
    # the engines load here, when the server starts, not for --help or --version
    from uniqueness_server.engine import DatabaseRegistry
    from uniqueness_server.tools import build_tools as tools_over

    allowed = AllowedPaths.from_options(
        settings.allowed_dir, allow_hard_links=settings.allow_hard_links
    )
    limits = settings.limits()
    return tools_over(allowed, DatabaseRegistry.from_options(settings.database, limits), limits)


APP = ServerApp(
    name="uniqueness-server",
    distribution=DISTRIBUTION,
    description="MCP server: can these columns be a key of this data (files or databases), "
    "and what are its keys.",
    epilog=(
        "Examples:\n"
        "  uniqueness-server --allowed-dir ./data\n"
        "  uniqueness-server --allowed-dir ./data --database shop=sqlite:///shop.db\n"
        "  uniqueness-server --transport streamable-http --port 8081 --allowed-dir ./data"
    ),
    settings=UniquenessSettings,
    build_tools=build_tools,
    instructions=(
        "Call list_columns first to see a source's columns, then uniqueness_check to test a "
        "candidate key or find_keys to discover the keys. Sources are files under the allowed "
        "directories (path) or configured databases (database + table or query)."
    ),
)
