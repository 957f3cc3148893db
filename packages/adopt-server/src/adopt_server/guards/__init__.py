"""The CLAUDE.md guards wired into a project's build, one per build system.

Each guard is idempotent: installing it again changes nothing, and no file the project
already has is ever overwritten (only ``pom.xml``, the Gradle script, the pre-commit
configuration and an existing ``.gitignore`` are edited, by appending or splicing).
"""

from __future__ import annotations

from pathlib import Path

from agent_config_check.rule_sets import RuleSet

from adopt_server.assets import asset_texts
from adopt_server.guards import (
    check_config,
    checker_script,
    fallback,
    gitignore,
    gradle,
    maven,
    python,
)
from adopt_server.guards.budget import DEFAULT_MAX_LINES
from adopt_server.guards.commands import BuildCommand, build_command
from adopt_server.guards.detection import BUILD_DESCRIPTIONS, detect_build
from adopt_server.guards.maven import checked_rule_version

_GUARD_PATHS: dict[str, tuple[str, ...]] = {
    "maven": (maven.POM, checker_script.SCRIPT, check_config.CONFIG, gitignore.GITIGNORE),
    "gradle": (
        gradle.GROOVY,
        gradle.KOTLIN,
        checker_script.SCRIPT,
        check_config.CONFIG,
        gitignore.GITIGNORE,
    ),
    "python": (
        python.PRE_COMMIT_CONFIG,
        fallback.WORKFLOW,
        checker_script.SCRIPT,
        check_config.CONFIG,
        gitignore.GITIGNORE,
    ),
    "github-actions": (
        fallback.WORKFLOW,
        checker_script.SCRIPT,
        check_config.CONFIG,
        gitignore.GITIGNORE,
    ),
}
_GUARD_SUMMARIES = {
    "maven": "in the validate phase, the Maven enforcer plugin runs the Java CLAUDE.md rule and "
    f"the exec plugin runs {checker_script.SCRIPT}, which fails while a required section of "
    "CLAUDE.md or AGENTS.md is missing or holds placeholder text",
    "gradle": f"the enforceClaudeMd task, run by `check`, runs {checker_script.SCRIPT}, which "
    "fails while a required section of CLAUDE.md or AGENTS.md is missing or holds placeholder "
    "text",
    "python": f"a pre-commit hook and a GitHub Actions workflow run {checker_script.SCRIPT}, "
    "which fails while a required section of CLAUDE.md or AGENTS.md is missing or holds "
    "placeholder text",
    "github-actions": f"a GitHub Actions workflow runs {checker_script.SCRIPT} on every push "
    "and pull request; it fails while a required section of CLAUDE.md or AGENTS.md is missing "
    "or holds placeholder text",
}
ASSET_PATHS = tuple(asset_texts())
WRITTEN_PATHS: tuple[str, ...] = tuple(
    dict.fromkeys(
        [
            *ASSET_PATHS,
            "CLAUDE.md",
            "AGENTS.md",
            *(p for paths in _GUARD_PATHS.values() for p in paths),
        ]
    )
)
"""Every path an adoption may write, relative to the checkout (POSIX separators)."""


def guard_paths(build: str) -> list[str]:
    """The paths the guard of ``build`` may write or edit."""
    return list(_GUARD_PATHS[_known(build)])


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
    build = _known(build)
    if build == "maven":
        written = maven.install(checkout, rules, rule_version)
    elif build == "gradle":
        written = gradle.install(checkout, rules)
    elif build == "python":
        written = python.install(checkout, rules)
    else:
        written = fallback.install(checkout, rules)
    written += check_config.ensure_budget(checkout, max_lines)
    if rules.name != "project":
        return written
    # The project rules include localSettingsIgnored; an adoption must pass its own guard.
    return written + gitignore.ensure_local_settings_ignored(checkout)


def is_guard_installed(checkout: Path, build: str) -> bool:
    """Whether ``checkout`` already carries the guard of ``build`` (read-only)."""
    build = _known(build)
    if build == "maven":
        return maven.is_installed(checkout)
    if build == "gradle":
        return gradle.is_installed(checkout)
    if build == "python":
        return python.is_installed(checkout)
    return fallback.is_installed(checkout)


def guard_summary(build: str) -> str:
    """What the guard of ``build`` runs and when it fails, in one sentence."""
    return _GUARD_SUMMARIES[_known(build)]


def guard_notes(checkout: Path, build: str, max_lines: int = DEFAULT_MAX_LINES) -> list[str]:
    """What a report should say about the guard of ``build`` beyond installed or not (a
    Maven enforcer whose version this POM cannot show to be recent enough, a project
    checker configuration without the line budget)."""
    notes = maven.notes(checkout) if _known(build) == "maven" else []
    return notes + check_config.notes(checkout, max_lines)


def _known(build: str) -> str:
    if build not in _GUARD_PATHS:
        raise ValueError(f"Unknown build system '{build}'. Use one of {', '.join(_GUARD_PATHS)}")
    return build


__all__ = [
    "BUILD_DESCRIPTIONS",
    "WRITTEN_PATHS",
    "BuildCommand",
    "build_command",
    "checked_rule_version",
    "detect_build",
    "guard_notes",
    "guard_paths",
    "guard_summary",
    "install_guard",
    "is_guard_installed",
]
