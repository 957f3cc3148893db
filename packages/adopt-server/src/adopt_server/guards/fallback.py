"""The fallback guard for repositories without a build file: a workflow running a POSIX script."""

from __future__ import annotations

import logging
from pathlib import Path

from adopt_server.checkout_files import CheckoutFiles

MARKER = "Added by claude-code-adopt"
WORKFLOW = ".github/workflows/claude-md-guard.yml"
SCRIPT = ".github/claude-md-guard.sh"
_LOG = logging.getLogger(__name__)

WORKFLOW_TEXT = f"""\
# {MARKER}: fails CI when CLAUDE.md is missing or empty.
name: CLAUDE.md guard
on: [push, pull_request]
jobs:
  claude-md-guard:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - name: Enforce CLAUDE.md
        run: sh {SCRIPT}
"""

# Plain POSIX sh (dash, busybox, Git for Windows): no bashisms, no GNU-only flags. Run through
# `sh`, so it needs no exec bit.
SCRIPT_TEXT = f"""\
#!/bin/sh
# {MARKER}: fails when CLAUDE.md is missing or holds only whitespace.
cd "$(dirname "$0")/.." || exit 2
if [ ! -f CLAUDE.md ] || ! grep -q '[^[:space:]]' CLAUDE.md; then
  echo "CLAUDE.md is missing or empty" >&2
  exit 1
fi
exit 0
"""


def write_if_absent(checkout: Path, relative: str, text: str) -> bool:
    """Write ``text`` (LF endings) at ``relative`` unless something is already there."""
    return CheckoutFiles(checkout).create_text(relative, text)


def workflow_is_ours(checkout: Path) -> bool:
    """Whether the guard workflow exists and carries the marker."""
    files = CheckoutFiles(checkout)
    return files.is_file(WORKFLOW) and MARKER in files.read_text(
        WORKFLOW, errors="replace", newline=None
    )


def is_installed(checkout: Path) -> bool:
    """Whether the workflow (with the marker) and the script are both there."""
    return workflow_is_ours(checkout) and CheckoutFiles(checkout).is_file(SCRIPT)


def install(checkout: Path) -> list[str]:
    """Write the workflow and the script where absent; a foreign workflow is kept."""
    written = [
        path
        for path, text in ((WORKFLOW, WORKFLOW_TEXT), (SCRIPT, SCRIPT_TEXT))
        if write_if_absent(checkout, path, text)
    ]
    warn_if_foreign_workflow(checkout)
    return written


def warn_if_foreign_workflow(checkout: Path) -> None:
    """Log a warning when the guard workflow path holds a workflow the adoption did not write."""
    if not workflow_is_ours(checkout):
        _LOG.warning(
            "%s already exists and was not written by the adoption: CI may not run the guard",
            WORKFLOW,
        )
