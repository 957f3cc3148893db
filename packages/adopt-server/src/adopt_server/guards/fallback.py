"""The fallback guard (any repository, and the CI half of the Python guard): a GitHub Actions
workflow running the committed checker script with Python."""

from __future__ import annotations

import logging
import shlex
from pathlib import Path

from agent_config_check.rule_sets import RuleSet

from adopt_server.checkout_files import CheckoutFiles
from adopt_server.guards.checker_script import (
    SCRIPT,
    checker_args,
    install_script,
    script_is_installed,
)

MARKER = "Added by claude-code-adopt"
WORKFLOW = ".github/workflows/claude-md-guard.yml"
JOB_TIMEOUT_MINUTES = 10
"""How long CI lets the guard job run before cancelling it."""
_LOG = logging.getLogger(__name__)

__all__ = [
    "JOB_TIMEOUT_MINUTES",
    "MARKER",
    "SCRIPT",
    "WORKFLOW",
    "install",
    "is_installed",
    "workflow_text",
]


def workflow_text(rules: RuleSet) -> str:
    """The guard workflow: check out, run the committed checker with ``rules``."""
    command = shlex.join(["python3", SCRIPT, *checker_args(rules)])
    # A block scalar, so a '#' in a section heading is never read as a YAML comment.
    return f"""\
# {MARKER}: fails CI when the Claude Code configuration (CLAUDE.md, AGENTS.md, imports,
# .mcp.json, sub-agents, commands, skills) breaks its rules. Runs {SCRIPT}, which needs
# only Python.
name: CLAUDE.md guard
on: [push, pull_request]
jobs:
  claude-md-guard:
    runs-on: ubuntu-latest
    # The check is linear in the configuration it reads; the bound is for anything else
    # a pull request could make hang (GitHub's own default is six hours).
    timeout-minutes: {JOB_TIMEOUT_MINUTES}
    steps:
      - uses: actions/checkout@v4
      - name: Check the Claude Code configuration
        run: |
          {command}
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
    """Whether the workflow (with the marker) and the checker script are both there."""
    return workflow_is_ours(checkout) and script_is_installed(checkout)


def install(checkout: Path, rules: RuleSet) -> list[str]:
    """Write the workflow where absent and the checker script (new or refreshed); a foreign
    workflow is kept."""
    written = [WORKFLOW] if write_if_absent(checkout, WORKFLOW, workflow_text(rules)) else []
    if install_script(checkout):
        written.append(SCRIPT)
    warn_if_foreign_workflow(checkout)
    return written


def warn_if_foreign_workflow(checkout: Path) -> None:
    """Log a warning when the guard workflow path holds a workflow the adoption did not write."""
    if not workflow_is_ours(checkout):
        _LOG.warning(
            "%s already exists and was not written by the adoption: CI may not run the guard",
            WORKFLOW,
        )
