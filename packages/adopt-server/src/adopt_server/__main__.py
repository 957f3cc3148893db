"""``adopt-server``: serve the adoption tools over MCP.

Light until it serves: ``--help`` and ``--version`` answer from the committed table
(:mod:`mcp_common.command_line`); the settings model, the SDK and the pipeline load after.
"""

from __future__ import annotations

import argparse

from mcp_common.command_line import answer_help_or_version

from adopt_server import DISTRIBUTION


def command_line_parser() -> argparse.ArgumentParser:
    """The server's argument parser, derived from its settings model (loads pydantic)."""
    from mcp_common.adapter import build_parser

    from adopt_server.server import APP

    return build_parser(APP)


def main() -> None:
    """Run adopt-server."""
    answer_help_or_version("adopt-server", "adopt_server", DISTRIBUTION)
    from mcp_common.adapter import serve

    from adopt_server.server import APP

    serve(APP)


if __name__ == "__main__":
    main()
