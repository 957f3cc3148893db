"""The adoption's rule sets: which sections a CLAUDE.md must carry, per build system (its
guard's default sections unless the caller names them)."""

from __future__ import annotations

from collections.abc import Sequence

from agent_config_check.rule_sets import RuleSet, canonical_sections
from agent_config_check.usage import RULE_SET_NAMES


def rules_for(
    name: str = "project",
    build: str | None = None,
    sections: Sequence[str] | None = None,
) -> RuleSet:
    """The rule set ``name`` (``project`` | ``minimal``, case-insensitive) for a ``build``
    (by default, that of a checkout without a build file).

    ``sections`` default to the build's guard's (the six Java sections for Maven, none
    otherwise); given ones are stripped, blanks dropped, canonicalised (``##  Testing`` ->
    ``## Testing``) and de-duplicated. Raises ``ValueError`` for an unknown rule set or build,
    and for a section that is not a Markdown heading such as ``## Testing``.
    """
    chosen = name.strip().lower() or "project"
    if chosen not in RULE_SET_NAMES:
        raise ValueError(f"Unknown rule set '{name}'. Use one of {', '.join(RULE_SET_NAMES)}")
    # imported here: the guards (every build system's, with pydantic and XML) are much of an
    # isolated check's start-up, and the checks that import this package never choose a rule set
    from adopt_server.guards import fallback_guard, guard_for

    guard = fallback_guard() if build is None else guard_for(build)
    if sections is None:
        return RuleSet(chosen, guard.name, guard.sections)
    return RuleSet(chosen, guard.name, canonical_sections(sections))
