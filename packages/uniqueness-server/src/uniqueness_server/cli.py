"""``uniqueness-check``: the uniqueness tools on the command line (exit 0 unique, 1 not, 2 error).

This module stays light: ``--help`` and ``--version`` answer from the committed table
(:mod:`mcp_common.command_line`), and everything else the command needs is imported inside
:func:`main`, so a Ctrl-C at any moment, even while the engine loads, prints one line and exits
130.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from mcp_common.command_line import answer_help_or_version

from uniqueness_server import DISTRIBUTION

EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report a command stopped by Ctrl-C


def command_line_parser() -> argparse.ArgumentParser:
    """The command's argument parser, derived from the tools' argument models (loads them)."""
    from uniqueness_server.command import build_parser

    return build_parser()[0]


def main(argv: Sequence[str] | None = None) -> None:
    """Run the command; the exit status carries the answer."""
    try:
        answer_help_or_version("uniqueness-check", "uniqueness_server", DISTRIBUTION, argv)
        from uniqueness_server.command import run

        status = run(argv)
    except KeyboardInterrupt:
        sys.stderr.write("uniqueness-check: interrupted\n")
        sys.stderr.flush()
        # a query that did not stop in its grace period must not hold the exit (nor run
        # while the interpreter tears down)
        os._exit(EXIT_INTERRUPTED)
    sys.exit(status)
