"""``context-server``: run the MCP server (``python -m context_server`` works too).

Light until it serves: ``--help`` and ``--version`` answer from the committed table
(:mod:`mcp_common.command_line`); the settings model, the SDK and the indexer load after.
"""

from __future__ import annotations

import argparse

from mcp_common.command_line import answer_help_or_version

from context_server import DISTRIBUTION


def command_line_parser() -> argparse.ArgumentParser:
    """The server's argument parser, derived from its settings model (loads pydantic)."""
    from mcp_common.adapter import build_parser

    from context_server.server import APP

    return build_parser(APP)


def main() -> None:
    """Serve the context tools over the transport chosen on the command line."""
    answer_help_or_version("context-server", "context_server", DISTRIBUTION)
    from mcp_common.adapter import serve

    from context_server.server import APP

    serve(APP)


if __name__ == "__main__":
    main()
