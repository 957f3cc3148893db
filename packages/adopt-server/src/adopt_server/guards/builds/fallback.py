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
from adopt_server.guards.commands import BuildCommand, make_target, npm_test

MARKER = "Added by claude-code-adopt"
WORKFLOW = ".github/workflows/claude-md-guard.yml"
JOB_TIMEOUT_MINUTES = 10
"""How long CI lets the guard job run before cancelling it."""
_LOG = logging.getLogger(__name__)

__all__ = [
    "GUARD",
    "JOB_TIMEOUT_MINUTES",
    "MARKER",
    "SCRIPT",
    "WORKFLOW",
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


def workflow_gaps(checkout: Path) -> list[str]:
    """The guard workflow and the checker script, where missing (a workflow the adoption
    did not write counts as missing: it may not run the checker)."""
    gaps = []
    if not workflow_is_ours(checkout):
        gaps.append(f"there is no {WORKFLOW} written by an adoption")
    if not script_is_installed(checkout):
        gaps.append(f"the checker script {SCRIPT} is missing")
    return gaps


def install_workflow(checkout: Path, rules: RuleSet) -> list[str]:
    """Write the workflow where absent and the checker script (new or refreshed); a foreign
    workflow is kept."""
    written = [WORKFLOW] if write_if_absent(checkout, WORKFLOW, workflow_text(rules)) else []
    if install_script(checkout):
        written.append(SCRIPT)
    warn_if_foreign_workflow(checkout)
    return written


class FallbackGuard:
    """The guard of any other repository: the CI workflow alone. Always applies, so it is
    the registry's last entry."""

    name = "github-actions"
    description = "none found (no Maven, Gradle or Python build file)"
    summary = (
        f"a GitHub Actions workflow runs {SCRIPT} on every push and pull request; it fails "
        "while a required section of CLAUDE.md or AGENTS.md is missing or holds placeholder "
        "text"
    )
    paths = (WORKFLOW, SCRIPT)
    sections = ()
    tool = None

    def applies_to(self, files: CheckoutFiles) -> bool:
        """Every checkout."""
        return True

    def build_command(self, files: CheckoutFiles) -> BuildCommand | None:
        """A Makefile test target, an npm test script, Cargo or Go, else ``None``."""
        if make_target(files):
            return BuildCommand("make test", ("make",))
        if files.is_file("package.json") and npm_test(files):
            return BuildCommand("npm test", ("npm", "yarn", "pnpm", "npx"))
        if files.is_file("Cargo.toml"):
            return BuildCommand("cargo test", ("cargo",))
        if files.is_file("go.mod"):
            return BuildCommand("go test ./...", ("go test", "go build", "go vet"))
        return None

    def missing(self, checkout: Path) -> list[str]:
        """The workflow and the checker script, where missing."""
        return workflow_gaps(checkout)

    def notes(self, checkout: Path) -> list[str]:
        """Nothing beyond installed or not."""
        return []

    def install(self, checkout: Path, rules: RuleSet, rule_version: str | None) -> list[str]:
        """:func:`install_workflow`; ``rule_version`` is Maven's and ignored."""
        return install_workflow(checkout, rules)


GUARD = FallbackGuard()


def warn_if_foreign_workflow(checkout: Path) -> None:
    """Log a warning when the guard workflow path holds a workflow the adoption did not write."""
    if not workflow_is_ours(checkout):
        _LOG.warning(
            "%s already exists and was not written by the adoption: CI may not run the guard",
            WORKFLOW,
        )
