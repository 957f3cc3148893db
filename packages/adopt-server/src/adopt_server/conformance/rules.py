"""The adoption's rule sets: which sections a CLAUDE.md must carry, per build system."""

from __future__ import annotations

from collections.abc import Sequence

from agent_config_check.rule_sets import RULE_SET_NAMES, RuleSet, canonical_sections

BUILDS = ("maven", "gradle", "python", "github-actions")
JAVA_SECTIONS = (
    "## Project",
    "## Java version",
    "## Maven",
    "## Principles for Java Development",
    "## Testing",
    "## Dependencies",
)
_DEFAULT_SECTIONS: dict[str, tuple[str, ...]] = {
    "maven": JAVA_SECTIONS,
    "gradle": (),
    "python": (),
    "github-actions": (),
}


def rules_for(
    name: str = "project",
    build: str = "github-actions",
    sections: Sequence[str] | None = None,
) -> RuleSet:
    """The rule set ``name`` (``project`` | ``minimal``, case-insensitive) for a ``build``.

    ``sections`` default to the build's own (the six Java sections for Maven, none otherwise);
    given ones are stripped, blanks dropped, canonicalised (``##  Testing`` -> ``## Testing``)
    and de-duplicated. Raises ``ValueError`` for an unknown rule set or build, and for a
    section that is not a Markdown heading such as ``## Testing``.
    """
    chosen = name.strip().lower() or "project"
    if chosen not in RULE_SET_NAMES:
        raise ValueError(f"Unknown rule set '{name}'. Use one of {', '.join(RULE_SET_NAMES)}")
    if build not in BUILDS:
        raise ValueError(f"Unknown build system '{build}'. Use one of {', '.join(BUILDS)}")
    if sections is None:
        return RuleSet(chosen, build, _DEFAULT_SECTIONS[build])
    return RuleSet(chosen, build, canonical_sections(sections))
