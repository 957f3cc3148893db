"""The MCP side of mcp-common: the only package that imports the ``mcp`` SDK.

``build_server`` turns tools into the SDK's low-level server; ``serve`` runs a
:class:`ServerApp` over stdio, streamable HTTP or stateless HTTP from its command line;
``build_server_for`` gives the server a command line would serve, for in-process tests.

Importing this package does not import the SDK: a server's wiring (``ServerApp``) and its
command line (``serve`` up to the parsed options) stay light, so ``--help`` and ``--version``
answer at once; the SDK loads with the first name below that needs it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from mcp_common.adapter.cli import ServerApp, build_parser, parse_arguments, serve

if TYPE_CHECKING:
    from mcp_common.adapter.server import build_server, tool_to_mcp
    from mcp_common.adapter.serving import build_server_for

_NEEDS_THE_SDK = {
    "build_server": "mcp_common.adapter.server",
    "tool_to_mcp": "mcp_common.adapter.server",
    "build_server_for": "mcp_common.adapter.serving",
}

__all__ = [
    "ServerApp",
    "build_parser",
    "build_server",
    "build_server_for",
    "parse_arguments",
    "serve",
    "tool_to_mcp",
]


def __getattr__(name: str) -> Any:
    module = _NEEDS_THE_SDK.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
