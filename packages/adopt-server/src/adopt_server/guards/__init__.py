"""The CLAUDE.md guards wired into a project's build, one per build system.

The guards are plugins (:mod:`adopt_server.guards.builds`, each a
:class:`~adopt_server.guards.guard.BuildGuard`); this module finds the one a checkout gets
and adds what every guard shares: the checker configuration with the line budget and, under
the project rules, the ``.gitignore`` entry. Each guard is idempotent: installing it again
changes nothing, and no file the project already has is ever overwritten (only ``pom.xml``,
the Gradle script, the pre-commit configuration and an existing ``.gitignore`` are edited,
by appending or splicing).
"""

from __future__ import annotations

from pathlib import Path

from agent_config_check.rule_sets import RuleSet
from mcp_common import ToolError

from adopt_server.assets import asset_texts
from adopt_server.checkout_files import CheckoutFiles
from adopt_server.guards import builds, check_config, gitignore
from adopt_server.guards.budget import DEFAULT_MAX_LINES
from adopt_server.guards.builds.maven import checked_rule_version
from adopt_server.guards.commands import BuildCommand
from adopt_server.guards.guard import BuildGuard, BuildTool

_SHARED_PATHS = (check_config.CONFIG, gitignore.GITIGNORE)
ASSET_PATHS = tuple(asset_texts())


def guard_for(build: str) -> BuildGuard:
    """The registered guard named ``build``; ``ValueError`` naming the known ones otherwise."""
    for guard in builds.GUARDS:
        if guard.name == build:
            return guard
    known = ", ".join(guard.name for guard in builds.GUARDS)
    raise ValueError(f"Unknown build system '{build}'. Use one of {known}")


def fallback_guard() -> BuildGuard:
    """The guard of a checkout no other guard applies to (the registry's last)."""
    return builds.GUARDS[-1]


def detect_guard(checkout: Path) -> BuildGuard:
    """The guard of the first build system that applies to ``checkout`` (reads files only;
    the registry's fallback applies to every checkout)."""
    files = CheckoutFiles(checkout)
    return next(guard for guard in builds.GUARDS if guard.applies_to(files))


def detect_build(checkout: Path) -> str:
    """The name of :func:`detect_guard`'s guard."""
    return detect_guard(checkout).name


def written_paths() -> tuple[str, ...]:
    """Every path an adoption may write, relative to the checkout (POSIX separators)."""
    guarded = (path for guard in builds.GUARDS for path in guard_paths(guard.name))
    return tuple(dict.fromkeys([*ASSET_PATHS, "CLAUDE.md", "AGENTS.md", *guarded]))


def guard_paths(build: str) -> list[str]:
    """The paths the guard of ``build`` may write or edit."""
    return list(dict.fromkeys([*guard_for(build).paths, *_SHARED_PATHS]))


def install_guard(
    checkout: Path,
    build: str,
    rules: RuleSet,
    rule_version: str | None,
    max_lines: int = DEFAULT_MAX_LINES,
) -> list[str]:
    """Wire the CLAUDE.md guard of ``build`` into ``checkout``.

    Returns the relative paths written or changed, ``[]`` when the guard is already there.
    ``rule_version`` pins the claude-code-enforcer rule in a POM (``None`` = the default; blank
    or SNAPSHOT refused); ``max_lines`` is the line budget of CLAUDE.md and AGENTS.md the
    committed checker configuration holds. Raises ``ValueError`` when the build files cannot
    be edited safely.
    """
    written = guard_for(build).install(checkout, rules, rule_version)
    written += check_config.ensure_budget(checkout, max_lines)
    if rules.name != "project":
        return written
    # The project rules include localSettingsIgnored; an adoption must pass its own guard.
    return written + gitignore.ensure_local_settings_ignored(checkout)


def guard_gaps(checkout: Path, build: str) -> list[str]:
    """What of the guard of ``build`` ``checkout`` lacks, each naming the file and the part
    (``[]`` when it is wired in; read-only). Raises ``ValueError`` when the build files
    cannot be read."""
    return guard_for(build).missing(checkout)


def is_guard_installed(checkout: Path, build: str) -> bool:
    """Whether ``checkout`` already carries the guard of ``build`` (read-only)."""
    return not guard_gaps(checkout, build)


def guard_summary(build: str) -> str:
    """What the guard of ``build`` runs and when it fails, in one sentence."""
    return guard_for(build).summary


def guard_notes(checkout: Path, build: str, max_lines: int = DEFAULT_MAX_LINES) -> list[str]:
    """What a report should say about the guard of ``build`` beyond installed or not (a
    Maven enforcer whose version this POM cannot show to be recent enough, a project
    checker configuration without the line budget)."""
    return guard_for(build).notes(checkout) + check_config.notes(checkout, max_lines)


def build_command(checkout: Path, build: str) -> BuildCommand | None:
    """The build/test command of ``checkout`` for the detected ``build``, or ``None``."""
    guard = guard_for(build)
    try:
        return guard.build_command(CheckoutFiles(checkout))
    except (ToolError, OSError, UnicodeDecodeError):
        return None  # an unreadable build file shows no command; the guard step reports it


__all__ = [
    "BuildCommand",
    "BuildGuard",
    "BuildTool",
    "build_command",
    "checked_rule_version",
    "detect_build",
    "detect_guard",
    "fallback_guard",
    "guard_for",
    "guard_gaps",
    "guard_notes",
    "guard_paths",
    "guard_summary",
    "install_guard",
    "is_guard_installed",
    "written_paths",
]
