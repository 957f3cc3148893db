"""The installed ``agent-config-check`` and ``claude-md-check`` commands.

``--help`` and ``--version`` are answered by the command's parser alone (:mod:`.usage`, which
imports no rule), so they answer in the time of an interpreter start plus argparse; every
other line goes to :func:`agent_config_check.command.main`, which loads the rules. Not part of
the one-file script (it calls :func:`~agent_config_check.command.main` itself).
"""

from __future__ import annotations

import sys

from agent_config_check.usage import command_parser, invoked_name

ASKING = frozenset({"-h", "--help", "--version"})
"""The words that may make the command answer before loading the rules."""


def main() -> int:
    """Run the command by the name it was invoked by; returns its exit status."""
    prog = invoked_name()
    words = sys.argv[1:]
    if not ASKING.isdisjoint(words):
        # the command's own parser: it prints the help or version and exits, or refuses a
        # wrong word the way the full command would; a line where the word is a value (a
        # path after --) parses and falls through to the checker
        command_parser(prog, None).parse_known_args(words)
    from agent_config_check.command import main as check

    return check(prog=prog)
