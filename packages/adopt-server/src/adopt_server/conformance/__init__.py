"""CLAUDE.md/AGENTS.md conformance: one Markdown reader shared by the checker and the reshaper."""

from adopt_server.conformance.agents_md import (
    agents_md_draft,
    agents_md_from_guidance,
    claude_md_importing_agents_md,
    imports_agents_md,
    with_agents_md_import,
)
from adopt_server.conformance.checker import (
    SectionGap,
    check_agents_md,
    check_claude_md,
    section_lines,
    unwritten_sections,
)
from adopt_server.conformance.reshaper import reshape
from adopt_server.conformance.rules import (
    AGENTS_MD_RULES,
    AGENTS_MD_SECTIONS,
    BUILDS,
    JAVA_SECTIONS,
    RULE_SET_NAMES,
    RuleSet,
    canonical_sections,
    rules_for,
)

__all__ = [
    "AGENTS_MD_RULES",
    "AGENTS_MD_SECTIONS",
    "BUILDS",
    "JAVA_SECTIONS",
    "RULE_SET_NAMES",
    "RuleSet",
    "SectionGap",
    "agents_md_draft",
    "agents_md_from_guidance",
    "canonical_sections",
    "check_agents_md",
    "check_claude_md",
    "claude_md_importing_agents_md",
    "imports_agents_md",
    "reshape",
    "rules_for",
    "section_lines",
    "unwritten_sections",
    "with_agents_md_import",
]
