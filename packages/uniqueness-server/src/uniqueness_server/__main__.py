"""``uniqueness-server``: serve the uniqueness tools over MCP.

Light until it serves: ``--help`` and ``--version`` answer from the committed table
(:mod:`mcp_common.command_line`); the settings model, the SDK and the engines load after.
"""

from __future__ import annotations

import argparse

from mcp_common.command_line import answer_help_or_version

from uniqueness_server import DISTRIBUTION


def command_line_parser() -> argparse.ArgumentParser:
    """The server's argument parser, derived from its settings model (loads pydantic)."""
    from mcp_common.adapter import build_parser

    from uniqueness_server.server import APP

    return build_parser(APP)


def main() -> None:
    """Run the server from the command line."""
    answer_help_or_version("uniqueness-server", "uniqueness_server", DISTRIBUTION)
    from mcp_common.adapter import serve

    from uniqueness_server.server import APP

    serve(APP)


if __name__ == "__main__":
    main()
