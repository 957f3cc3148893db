"""The command line's words: its parser, profiles, rule sets and the rule names its help lists.

Nothing here imports the rules, so ``--help`` and ``--version`` answer before the rule families
load (they took half the start-up: 106 of 223 ms). :data:`RULE_NAMES` is therefore a table
written here, not read from the registry; ``tests/test_command.py`` fails when it no longer
lists what the registry registers, in its order.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

COMMAND_NAMES = ("agent-config-check", "claude-md-check")
DISTRIBUTION = "mcp-tools-agent-config-check"  # as in the package __init__ (not bundled)
EXIT_USAGE = 2
DEFAULT_CONFIG = ".claude/agent-config-check.json"
DEFAULT_PROFILE = "default"
ADOPTION_PROFILE = "adoption"
PROFILES = (DEFAULT_PROFILE, ADOPTION_PROFILE)
"""``default`` checks what Claude Code and the AGENTS.md convention require and what breaks an
agent; ``adoption`` adds the adoption template's policy (titles, required sections, the
AGENTS.md reference, git-ignored local settings), for repositories whose configuration asks
for it."""
RULE_SET_NAMES = ("minimal", "project")
RULE_NAMES = (
    "claudeMdFormat",
    "agentsMdFormat",
    "documentLinks",
    "memorySize",
    "memoryImports",
    "contextBudget",
    "moduleMapConsistency",
    "crossDocConsistency",
    "readmeConsistency",
    "skillFilesExist",
    "subAgentFormat",
    "commandFormat",
    "pluginFormat",
    "uniqueNames",
    "uniqueDescriptions",
    "skillReferences",
    "skillArguments",
    "skillSize",
    "definitionTools",
    "pluginComponents",
    "marketplaceFormat",
    "settingsJsonValid",
    "permissionsFormat",
    "hookCommandsValid",
    "hookQuoting",
    "hooksFormat",
    "localSettingsIgnored",
    "mcpServersValid",
    "mcpConfigFormat",
    "okfBundleFormat",
    "noSecrets",
)
"""Every rule of :mod:`agent_config_check.registry`, in its catalogue order."""


def installed_version() -> str:
    """This package's installed version, ``unknown`` when it is not installed."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return "unknown"


def invoked_name() -> str:
    """The name the command was run by (``agent-config-check`` or its old name
    ``claude-md-check``); the new name for anything else (``python -m``, the script)."""
    invoked = os.path.basename(sys.argv[0])
    return invoked if invoked in COMMAND_NAMES else COMMAND_NAMES[0]


def _epilog(prog: str) -> str:
    return f"""\
Examples:
  {prog}                       check the project in . (what Claude Code requires)
  {prog} path/to/repo --format sarif --output checks.sarif
  {prog} --profile adoption    also the adoption template's policy (titles, sections)
  {prog} --rules minimal       only CLAUDE.md's format, under the adoption policy
  {prog} --section "## Testing" --section "## Build"
  {prog} --write-baseline --baseline FILE   accept today's violations (commit FILE)
  {prog} --fix                 reshape CLAUDE.md (and AGENTS.md), then check

Rules: {", ".join(RULE_NAMES)}.
Configuration: {DEFAULT_CONFIG} (or --config FILE), keyed like the claude-code-enforcer.
Profiles: default, or adoption ("profile" in the configuration, or --profile; --rules and
--section imply adoption, as the adoption guards pass them).
Exit status: 0 clean (warnings allowed), 1 violations, 2 usage or configuration error.
"""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # one line, then the usage, exit 2
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def command_parser(prog: str, version: str | None) -> argparse.ArgumentParser:
    """The command's parser; ``version`` is what ``--version`` shows, looked up from the
    installed package only when asked if ``None``."""
    parser = _Parser(
        prog=prog,
        description="Check a project's Claude Code configuration (CLAUDE.md, AGENTS.md, "
        "imports, context budget, .mcp.json, sub-agents, commands, skills, plugin, OKF, "
        "secrets) against the claude-code-enforcer rules.",
        epilog=_epilog(prog),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="a project directory, or a CLAUDE.md / AGENTS.md file (default: .)",
    )
    parser.add_argument(
        "--profile",
        choices=PROFILES,
        help="default (what Claude Code requires) or adoption (also the adoption template's "
        "policy); default: the configuration's profile, else default",
    )
    parser.add_argument(
        "--rules",
        metavar="|".join(RULE_SET_NAMES),
        help="project (every rule that applies) or minimal (CLAUDE.md's format only); "
        "implies --profile adoption",
    )
    parser.add_argument(
        "--section",
        action="append",
        default=[],
        metavar="HEADING",
        help='a section CLAUDE.md must have, such as "## Testing" (claudeMdSections); '
        "repeatable; implies --profile adoption",
    )
    parser.add_argument(
        "--config", metavar="FILE", help=f"JSON configuration (default: {DEFAULT_CONFIG})"
    )
    parser.add_argument(
        "--format", choices=("text", "json", "sarif"), default="text", help="report format"
    )
    parser.add_argument("--output", metavar="FILE", help="write the report there, not stdout")
    parser.add_argument("--baseline", metavar="FILE", help="accepted violations (baselineFile)")
    parser.add_argument(
        "--write-baseline",
        action="store_true",
        help="record the current violations in the baseline and exit 0",
    )
    parser.add_argument(
        "--fix", action="store_true", help="reshape CLAUDE.md and AGENTS.md in place first"
    )
    parser.add_argument(
        "--version", action=_Version, nargs=0, default=version, help="show the version and exit"
    )
    return parser


class _Version(argparse.Action):
    """``--version``, looking the installed version up only when asked (start-up time)."""

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        sys.stdout.write(f"{parser.prog} {self.default or installed_version()}\n")
        parser.exit(0)
