"""``claude-md-check``: check (or reshape) CLAUDE.md and AGENTS.md against the format rules.

The same checker and reshaper the adoption uses, for pre-commit hooks and CI.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from mcp_common import package_version

from adopt_server.conformance import (
    AGENTS_MD_RULES,
    RULE_SET_NAMES,
    RuleSet,
    check_agents_md,
    check_claude_md,
    reshape,
    rules_for,
)

EXIT_OK = 0
EXIT_VIOLATIONS = 1
EXIT_USAGE = 2

_EPILOG = """\
Examples:
  claude-md-check                       check ./CLAUDE.md (and ./AGENTS.md when present)
  claude-md-check path/to/repo --rules minimal
  claude-md-check CLAUDE.md --section "## Testing" --section "## Build"
  claude-md-check --fix                 reshape CLAUDE.md (and AGENTS.md) in place, then check

AGENTS.md is checked under the project rules only. Exit status: 0 when every file conforms,
1 when a file breaks a rule (or is missing), 2 for a usage error.
"""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="claude-md-check",
        description="Check CLAUDE.md and AGENTS.md against the Claude Code adoption format rules.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="a directory holding CLAUDE.md, or a CLAUDE.md / AGENTS.md file (default: .)",
    )
    parser.add_argument(
        "--rules",
        default="project",
        metavar="|".join(RULE_SET_NAMES),
        help="rule set: project (CLAUDE.md and AGENTS.md, the default) or minimal (CLAUDE.md)",
    )
    parser.add_argument(
        "--section",
        action="append",
        default=[],
        metavar="HEADING",
        help='a section CLAUDE.md must have, as a Markdown heading such as "## Testing"; '
        "repeatable",
    )
    parser.add_argument(
        "--fix", action="store_true", help="reshape the files in place before checking them"
    )
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {package_version('adopt-server')}"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit status (0 ok, 1 violations, 2 usage error)."""
    parser = _parser()
    try:
        options = parser.parse_args(argv)
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else EXIT_USAGE
    try:
        rules = rules_for(options.rules, sections=options.section or None)
    except ValueError as error:
        parser.print_usage(sys.stderr)
        print(f"claude-md-check: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    targets: list[tuple[Path, RuleSet | None]] = []
    for name in options.paths or ["."]:
        path = Path(name)
        if path.is_dir():
            targets.append((path / "CLAUDE.md", rules))
            if rules.checks_agents_md and (path / "AGENTS.md").is_file():
                targets.append((path / "AGENTS.md", None))
        elif path.is_file():
            targets.append((path, None if path.name == "AGENTS.md" else rules))
        else:
            parser.print_usage(sys.stderr)
            print(f"claude-md-check: error: {name} does not exist", file=sys.stderr)
            return EXIT_USAGE
    violations = [
        f"{path}: {problem}"
        for path, file_rules in targets
        for problem in _check_file(path, file_rules, fix=options.fix)
    ]
    for line in violations:
        print(line)
    return EXIT_VIOLATIONS if violations else EXIT_OK


def _check_file(path: Path, rules: RuleSet | None, *, fix: bool) -> list[str]:
    """Problems of one file; ``rules`` None means the file is an AGENTS.md."""
    label = "AGENTS.md" if rules is None else "CLAUDE.md"
    if not path.is_file():
        return [f"{label} is missing"]
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            text = handle.read()
    except UnicodeDecodeError:
        return [f"{label} is not valid UTF-8"]
    if fix:
        fixed = reshape(text, AGENTS_MD_RULES if rules is None else rules)
        if fixed != text:
            with path.open("w", encoding="utf-8", newline="") as handle:
                handle.write(fixed)
            print(f"{path}: reshaped", file=sys.stderr)
            text = fixed
    return check_agents_md(text) if rules is None else check_claude_md(text, rules)
