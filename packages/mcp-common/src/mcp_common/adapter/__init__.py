"""The MCP side of mcp-common: the only package that imports the ``mcp`` SDK.

``build_server`` turns tools into the SDK's low-level server; ``serve`` runs a
:class:`ServerApp` over stdio, streamable HTTP or stateless HTTP from its command line.
"""

from mcp_common.adapter.server import build_server, tool_to_mcp

__all__ = ["build_server", "tool_to_mcp"]
