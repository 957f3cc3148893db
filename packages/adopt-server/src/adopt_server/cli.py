"""``claude-adopt``: the batch command line over the adoption pipeline.

Exit status: 0 every repository succeeded, 1 at least one failed, 2 bad usage or input
(refused before anything is cloned or written). This module stays light: ``--help`` and
``--version`` answer from the committed table (:mod:`mcp_common.command_line`) before the
pipeline is imported.
"""

from __future__ import annotations

import argparse
import sys

from mcp_common.command_line import answer_help_or_version

from adopt_server import DISTRIBUTION


def command_line_parser() -> argparse.ArgumentParser:
    """The ``claude-adopt`` argument parser (loads the pipeline, whose limits it shows)."""
    from adopt_server.command import build_parser

    return build_parser()


def main() -> None:
    """Console entry point of ``claude-adopt``."""
    answer_help_or_version("claude-adopt", "adopt_server", DISTRIBUTION)
    from mcp_common.hardening import harden_process

    from adopt_server.command import run

    # the repositories' builds and claude run as this user: keep this process's
    # environment (the tokens) out of their reach in /proc/<pid>/environ
    harden_process()

    sys.exit(run())
