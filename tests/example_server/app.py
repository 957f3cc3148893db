"""The example server's wiring: a name, a port and the tools."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Annotated

from mcp_common import Flag, McpTool, Repeatable, ServerSettings
from mcp_common.adapter import ServerApp
from pydantic import Field
from pydantic_settings import SettingsConfigDict

from .tools import example_tools


class ExampleSettings(ServerSettings):
    model_config = SettingsConfigDict(env_prefix="EXAMPLE_SERVER_")

    port: int = Field(8099, description="HTTP port")
    greeting: Annotated[Repeatable, Flag("WORD")] = Field(
        default_factory=list,
        description="an extra word the server logs at startup (repeatable; exercises list flags)",
    )
    stray_print: bool = Field(
        False,
        description="print to stdout while starting (the stdio transport must keep it off the "
        "wire)",
    )


def _build_tools(settings: ExampleSettings) -> Sequence[McpTool]:
    if settings.stray_print:
        print("stray output from a careless library")
        sys.stdout.flush()
    return example_tools()


APP = ServerApp(
    name="example-server",
    distribution="mcp-tools-common",
    description="A tiny MCP server for the end-to-end tests: echo, slow and boom.",
    epilog="examples:\n  python -m example_server\n  python -m example_server --transport "
    "stateless-http --port 8099",
    settings=ExampleSettings,
    build_tools=_build_tools,
    instructions="Test server: call echo to check the connection.",
)
