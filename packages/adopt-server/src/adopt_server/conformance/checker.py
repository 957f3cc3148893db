"""The CLAUDE.md and AGENTS.md format checks (the Python counterpart of the enforcer rules)."""

from __future__ import annotations

from adopt_server.conformance.markdown_reader import MarkdownDocument
from adopt_server.conformance.rules import AGENTS_MD_RULES, RuleSet


def check_claude_md(text: str, rules: RuleSet) -> list[str]:
    """The ways ``text`` breaks ``rules`` as a CLAUDE.md; an empty list means it conforms."""
    return check_document("CLAUDE.md", text, rules)


def check_agents_md(text: str) -> list[str]:
    """The ways ``text`` breaks the AGENTS.md format (title and the seven guide sections)."""
    return check_document("AGENTS.md", text, AGENTS_MD_RULES)


def check_document(file: str, text: str, rules: RuleSet) -> list[str]:
    """The ways ``text`` breaks ``rules``; messages name ``file``."""
    document = MarkdownDocument.read(text)
    if document.is_blank:
        return [f"{file} is empty"]
    violations: list[str] = []
    if not document.starts_with(rules.title):
        violations.append(f"{file} must start with the '{rules.title}' title heading")
    for section in rules.sections:
        index = document.find_section(section)
        if index is None:
            violations.append(f"{file} is missing required section heading: {section}")
        elif not document.has_body(index):
            violations.append(f"{file} has an empty section: {section}")
    if rules.reference and not document.mentions(rules.reference):
        violations.append(f"{file} must reference {rules.reference} as the source of truth")
    return violations
