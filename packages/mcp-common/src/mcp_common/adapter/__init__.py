"""The MCP side of mcp-common: the only package that imports the ``mcp`` SDK.

``build_server`` turns tools into the SDK's low-level server; ``serve`` runs a
:class:`ServerApp` over stdio, streamable HTTP or stateless HTTP from its command line;
``build_server_for`` gives the server a command line would serve, for in-process tests.
"""

from mcp_common.adapter.cli import (
    ServerApp,
    build_parser,
    build_server_for,
    parse_arguments,
    serve,
)
from mcp_common.adapter.server import build_server, tool_to_mcp

__all__ = [
    "ServerApp",
    "build_parser",
    "build_server",
    "build_server_for",
    "parse_arguments",
    "serve",
    "tool_to_mcp",
]
