"""The example server's wiring: a name, a port and the tools."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from mcp_common import McpTool
from mcp_common.adapter import ServerApp

from .tools import example_tools


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--greeting",
        action="append",
        default=[],
        help="an extra word the server logs at startup (repeatable; exercises list flags)",
    )
    parser.add_argument(
        "--stray-print",
        action="store_true",
        help="print to stdout while starting (the stdio transport must keep it off the wire)",
    )


def _build_tools(options: argparse.Namespace) -> Sequence[McpTool]:
    if options.stray_print:
        print("stray output from a careless library")
        sys.stdout.flush()
    return example_tools()


APP = ServerApp(
    name="example-server",
    distribution="mcp-common",
    default_port=8099,
    description="A tiny MCP server for the end-to-end tests: echo, slow and boom.",
    epilog="examples:\n  python -m example_server\n  python -m example_server --transport "
    "stateless-http --port 8099",
    env_prefix="EXAMPLE_SERVER",
    build_tools=_build_tools,
    add_arguments=_add_arguments,
    instructions="Test server: call echo to check the connection.",
)
