"""Rule sets: which title, sections and reference a CLAUDE.md (or AGENTS.md) must carry."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agent_config_check.markdown import canonical_heading

CLAUDE_MD_TITLE = "# CLAUDE.md"
AGENTS_MD_TITLE = "# AGENTS.md"
REFERENCE_TARGET = "AGENTS.md"
REFERENCE_LINE = "See [AGENTS.md](AGENTS.md) for the companion agent guide."
# Deliberately not pointing back at AGENTS.md: the anchor's stub once sent readers in a circle.
STUB_BODY = "_Not documented yet — replace this line with the project's own guidance._"
AGENTS_MD_SECTIONS = (
    "## Project overview",
    "## Module layout",
    "## Environment & toolchain",
    "## Build, test, and run",
    "## Code style & conventions",
    "## Releasing",
    "## Pull requests & commits",
)


@dataclass(frozen=True)
class RuleSet:
    """What a conforming CLAUDE.md (and, under ``project``, AGENTS.md) must look like.

    ``name`` is the rule set (``project`` | ``minimal``) and ``build`` the build system it was
    chosen for (the checker does not read it); ``sections`` are canonical headings,
    de-duplicated in the order given; ``reference`` is the file CLAUDE.md must mention in
    prose (empty disables the check).
    """

    name: str
    build: str
    sections: tuple[str, ...]
    title: str = CLAUDE_MD_TITLE
    reference: str = REFERENCE_TARGET
    reference_line: str = REFERENCE_LINE
    stub: str = STUB_BODY

    @property
    def checks_agents_md(self) -> bool:
        """Whether AGENTS.md is held to its format too (the ``project`` rules do, when present)."""
        return self.name == "project"


def canonical_sections(sections: Sequence[str]) -> tuple[str, ...]:
    """Validate and canonicalise required section headings: stripped, blanks dropped,
    canonicalised (``##  Testing`` -> ``## Testing``) and de-duplicated.

    Raises ``ValueError`` for a section that is not a Markdown heading such as ``## Testing``,
    and for the CLAUDE.md title.
    """
    result: list[str] = []
    # A lone string is one heading, not a sequence of one-character headings.
    for section in [sections] if isinstance(sections, str) else sections:
        if not section.strip():
            continue
        heading = None if any(c in section for c in "\r\n") else canonical_heading(section)
        if heading is None or " " not in heading:
            raise ValueError(
                f"Section {section.strip()!r} is not a Markdown heading: "
                "write it as a heading with its text, such as '## Testing'"
            )
        if heading == CLAUDE_MD_TITLE:
            raise ValueError(f"Section {section.strip()!r} is the CLAUDE.md title, not a section")
        if heading not in result:
            result.append(heading)
    return tuple(result)


AGENTS_MD_RULES = RuleSet(
    name="agents",
    build="github-actions",
    sections=AGENTS_MD_SECTIONS,
    title=AGENTS_MD_TITLE,
    reference="",
)
"""The AGENTS.md format (the enforcer's agentsMdFormat): title and the seven guide sections."""
