"""The options of one adoption run, validated before anything is cloned or written."""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from agent_config_check.rule_sets import canonical_sections

from adopt_server.conformance import rules_for
from adopt_server.guards import checked_rule_version
from adopt_server.guards.budget import DEFAULT_MAX_LINES, LINE_BUDGET_RANGE

DEFAULT_BRANCH = "claude/adopt-claude-code"
DEFAULT_TITLE = "Adopt Claude Code"
DEFAULT_BODY = (
    "Adds a generated CLAUDE.md and wires the CLAUDE.md guard into the build so the file "
    "keeps being validated."
)
MAX_PARALLEL = 8
MAX_RETRIES = 10
MAX_TIMEOUT_MINUTES = 1440
DEFAULT_TIMEOUT_MINUTES = 10
DEFAULT_RETRIES = 2


class OptionsError(ValueError):
    """An option that cannot be used; raised before anything is cloned or written."""


@dataclass(frozen=True, slots=True)
class AdoptionOptions:
    """Everything that shapes an adoption run except the repositories and the workspace.

    ``max_lines`` is the line budget of CLAUDE.md and AGENTS.md: the guard's checker
    configuration holds it, and ``claude`` is asked to stay under it. ``timeout_seconds`` is per
    external command; ``backoff_unit`` scales every retry wait
    (1.0 = real seconds), so tests can run the real retry logic quickly. ``close_stale``
    closes the branch's open pull request when the default branch leaves nothing to change.
    """

    branch: str = DEFAULT_BRANCH
    title: str = DEFAULT_TITLE
    body: str = DEFAULT_BODY
    reviewers: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()
    assignees: tuple[str, ...] = ()
    draft: bool = False
    assets: bool = False
    rule_version: str | None = None
    rules: str = "project"
    sections: tuple[str, ...] | None = None
    dry_run: bool = False
    verify_only: bool = False
    keep_workspace: bool = False
    parallel: int = 1
    timeout_seconds: float = DEFAULT_TIMEOUT_MINUTES * 60.0
    retries: int = DEFAULT_RETRIES
    backoff_unit: float = 1.0
    close_stale: bool = False
    max_lines: int = DEFAULT_MAX_LINES

    @property
    def keeps_checkouts(self) -> bool:
        """Whether successful checkouts stay on disk after the run."""
        return self.keep_workspace or self.dry_run or self.verify_only


def validate_options(options: AdoptionOptions) -> AdoptionOptions:
    """Return ``options`` if every value is usable; raise :class:`OptionsError` otherwise."""
    validate_branch(options.branch)
    try:
        if options.rule_version is not None:
            checked_rule_version(options.rule_version)
        rules = rules_for(options.rules, sections=options.sections).name
        sections = None if options.sections is None else canonical_sections(options.sections)
    except ValueError as error:
        raise OptionsError(str(error)) from None
    if not 1 <= options.parallel <= MAX_PARALLEL:
        raise OptionsError(
            f"parallel must be between 1 and {MAX_PARALLEL} but was {options.parallel}"
        )
    low, high = LINE_BUDGET_RANGE
    if not low <= options.max_lines <= high:
        raise OptionsError(
            f"the line budget (maxLines) must be between {low} and {high} but was "
            f"{options.max_lines}"
        )
    if not 0 <= options.retries <= MAX_RETRIES:
        raise OptionsError(f"retries must be between 0 and {MAX_RETRIES} but was {options.retries}")
    if not 0 < options.timeout_seconds <= MAX_TIMEOUT_MINUTES * 60:
        raise OptionsError(
            f"the timeout must be between 1 and {MAX_TIMEOUT_MINUTES} minutes "
            f"but was {options.timeout_seconds:g} seconds"
        )
    for label, values in (
        ("reviewers", options.reviewers),
        ("labels", options.labels),
        ("assignees", options.assignees),
    ):
        for value in values:
            if value.startswith("-"):
                raise OptionsError(f"{label} entries must not start with '-': {value}")
    return replace(options, rules=rules, sections=sections)


def validate_branch(branch: str) -> str:
    """Refuse a branch git would not accept (``git check-ref-format --branch``) or read as
    an option."""
    if not branch or branch.startswith("-") or "@{" in branch:
        raise OptionsError(f"branch is not a valid branch name: '{branch}'")
    # outside any repository, so '@{-1}'-style shorthands cannot resolve to a real branch
    result = subprocess.run(
        ["git", "check-ref-format", "--branch", branch],
        cwd=tempfile.gettempdir(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        check=False,
    )
    if result.returncode != 0:
        raise OptionsError(f"branch is not a valid branch name: '{branch}'")
    if branch.split("/", 1)[0] in _OTHER_REFS:
        # git resolves a short name by trying refs/<name>, refs/heads/<name>,
        # refs/remotes/<name>...: ``refs/heads/main`` or ``origin/main`` as a branch would
        # also name the default branch or its remote copy, and the push fails late (or
        # worse, picks the other ref).
        raise OptionsError(
            f"branch is not a valid branch name: '{branch}' (a name starting with "
            f"{', '.join(f'{prefix}/' for prefix in _OTHER_REFS)} also names "
            f"another ref to git; give the branch's own name, e.g. '{DEFAULT_BRANCH}')"
        )
    return branch


_OTHER_REFS = ("refs", "heads", "tags", "remotes", "origin")
"""First components of a branch name that make it spell another ref too."""


def prepare_workspace(directory: Path) -> Path:
    """Create the workspace (with parents) and prove it is writable; return its real path."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        real = directory.resolve()
        with tempfile.NamedTemporaryFile(dir=real, prefix=".claude-adopt-probe-"):
            pass
    except OSError as error:
        raise OptionsError(
            f"the workspace {directory} cannot be created or written: {error.strerror or error}"
        ) from None
    return real


def default_workspace() -> Path:
    """A fresh ``claude-adopt-*`` directory under the system temp dir."""
    return Path(tempfile.mkdtemp(prefix="claude-adopt-"))


def clean_list(values: Sequence[str] | None) -> tuple[str, ...]:
    """Entries stripped, blanks dropped, first occurrence kept."""
    seen: dict[str, None] = {}
    for value in values or ():
        text = value.strip()
        if text:
            seen.setdefault(text, None)
    return tuple(seen)
