"""``claude-md-check`` (alias ``agent-config-check``): check a project's Claude Code
configuration against the claude-code-enforcer rules.

The command is :mod:`adopt_server.conformance.check_command`, the same code the guards commit
into adopted repositories as a standalone script; this entry point only names the version.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from mcp_common import package_version

from adopt_server import DISTRIBUTION
from adopt_server.conformance.check_command import main as check_main

_NAMES = ("claude-md-check", "agent-config-check")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit status (0 ok, 1 violations, 2 usage error)."""
    invoked = Path(sys.argv[0]).name
    prog = invoked if invoked in _NAMES else _NAMES[0]
    return check_main(argv, prog=prog, version=package_version(DISTRIBUTION))
