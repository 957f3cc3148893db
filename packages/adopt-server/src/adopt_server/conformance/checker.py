"""The CLAUDE.md and AGENTS.md format checks (the Python counterpart of the enforcer rules)."""

from __future__ import annotations

from collections.abc import Sequence

from adopt_server.conformance.markdown_reader import MarkdownDocument
from adopt_server.conformance.rules import AGENTS_MD_SECTIONS, AGENTS_MD_TITLE, RuleSet


def check_claude_md(text: str, rules: RuleSet) -> list[str]:
    """The ways ``text`` breaks ``rules`` as a CLAUDE.md; an empty list means it conforms."""
    return _check(
        "CLAUDE.md", MarkdownDocument.read(text), rules.title, rules.sections, rules.reference
    )


def check_agents_md(text: str) -> list[str]:
    """The ways ``text`` breaks the AGENTS.md format (title and the seven guide sections)."""
    return _check("AGENTS.md", MarkdownDocument.read(text), AGENTS_MD_TITLE, AGENTS_MD_SECTIONS, "")


def _check(
    file: str, document: MarkdownDocument, title: str, sections: Sequence[str], reference: str
) -> list[str]:
    if document.is_blank:
        return [f"{file} is empty"]
    violations: list[str] = []
    if not document.starts_with(title):
        violations.append(f"{file} must start with the '{title}' title heading")
    for section in sections:
        index = document.find_section(section)
        if index is None:
            violations.append(f"{file} is missing required section heading: {section}")
        elif not document.has_body(index):
            violations.append(f"{file} has an empty section: {section}")
    if reference and not document.mentions(reference):
        violations.append(f"{file} must reference {reference} as the source of truth")
    return violations
