"""The CLAUDE.md and AGENTS.md format checks (the Python counterpart of the enforcer's
``claudeMdFormat`` and ``agentsMdFormat``)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from adopt_server.conformance.markdown_reader import LineKind, MarkdownDocument
from adopt_server.conformance.rules import AGENTS_MD_RULES, STUB_BODY, RuleSet

# Text that stands in for content: the adoption's own stub, and the usual markers people leave.
_PLACEHOLDER = re.compile(
    r"(?i)^[\s>*_~`#-]*(?:(?:todo|tbd|fixme|xxx|placeholder|coming soon|lorem ipsum"
    r"|not documented yet)\b.*|.*\breplace (?:this|me)\b.*|\.\.\.|…)[\s*_~`]*$"
)
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")


@dataclass(frozen=True)
class FormatOptions:
    """The optional format checks (off unless set), by the anchor's parameter names."""

    reject_placeholders: bool = True
    enforce_section_order: bool = False
    forbidden_tokens: tuple[str, ...] = ()
    max_line_length: int = 0


def check_claude_md(text: str, rules: RuleSet) -> list[str]:
    """The ways ``text`` breaks ``rules`` as a CLAUDE.md; an empty list means it conforms."""
    return check_document("CLAUDE.md", text, rules)


def check_agents_md(text: str) -> list[str]:
    """The ways ``text`` breaks the AGENTS.md format (title and the seven guide sections)."""
    return check_document("AGENTS.md", text, AGENTS_MD_RULES)


def check_document(file: str, text: str, rules: RuleSet) -> list[str]:
    """The structural ways ``text`` breaks ``rules`` (what the reshaper can repair: placeholder
    text is not judged here); messages name ``file``."""
    options = FormatOptions(reject_placeholders=False)
    return [message for _, message in format_findings(file, text, rules, options)]


def format_findings(
    file: str, text: str, rules: RuleSet, options: FormatOptions
) -> list[tuple[int, str]]:
    """``(line, message)`` for each way ``text`` breaks ``rules`` (line 0 = whole file)."""
    document = MarkdownDocument.read(text)
    if document.is_blank:
        return [(0, f"{file} is empty")]
    found: list[tuple[int, str]] = []
    first = document.first_nonblank() or 0
    if not document.starts_with(rules.title):
        found.append((first + 1, f"{file} must start with the '{rules.title}' title heading"))
    for section in rules.sections:
        index = document.find_section(section)
        if index is None:
            found.append((0, f"{file} is missing required section heading: {section}"))
        elif not document.has_body(index):
            found.append((index + 1, f"{file} has an empty section: {section}"))
        elif options.reject_placeholders and only_placeholders(document, index):
            found.append(
                (
                    index + 1,
                    f"{file} section '{section}' holds only placeholder text; "
                    "write the project's own guidance there",
                )
            )
    if options.enforce_section_order:
        found += _order_findings(file, document, rules.sections)
    for token in options.forbidden_tokens:
        line = next(
            (
                i
                for i, ln in enumerate(document.lines)
                if ln.kind.structural and token in ln.visible
            ),
            None,
        )
        if line is not None:
            found.append((line + 1, f"{file} must not contain forbidden token: {token}"))
    if options.max_line_length > 0:
        found += [
            (
                i + 1,
                f"{file} line {i + 1} exceeds {options.max_line_length} characters "
                f"({len(line.text)})",
            )
            for i, line in enumerate(document.lines)
            if line.kind is not LineKind.CODE and len(line.text) > options.max_line_length
        ]
    if rules.reference and not document.mentions(rules.reference):
        found.append((0, f"{file} must reference {rules.reference} as the source of truth"))
    return found


MISSING = "missing"
EMPTY = "empty"
PLACEHOLDER = "placeholder"


@dataclass(frozen=True)
class SectionGap:
    """A required section a document does not really have yet: ``problem`` is
    :data:`MISSING`, :data:`EMPTY` or :data:`PLACEHOLDER`; ``line`` is the heading's 1-based
    line, 0 when it is missing."""

    heading: str
    problem: str
    line: int


def unwritten_sections(text: str, sections: Sequence[str]) -> list[SectionGap]:
    """The required ``sections`` of ``text`` that are missing, empty or only placeholder text
    (the same judgement the format rules make), in the order of ``sections``."""
    document = MarkdownDocument.read(text)
    gaps: list[SectionGap] = []
    for section in sections:
        index = document.find_section(section)
        if index is None:
            gaps.append(SectionGap(section, MISSING, 0))
        elif not document.has_body(index):
            gaps.append(SectionGap(section, EMPTY, index + 1))
        elif only_placeholders(document, index):
            gaps.append(SectionGap(section, PLACEHOLDER, index + 1))
    return gaps


def section_lines(text: str, section: str) -> list[str]:
    """The prose and code lines of ``section`` in ``text`` (empty when it is missing)."""
    document = MarkdownDocument.read(text)
    index = document.find_section(section)
    return [] if index is None else section_content(document, index)


def section_content(document: MarkdownDocument, index: int) -> list[str]:
    """The prose and code lines of the section whose heading is at ``index`` (subsections
    included), comments left out."""
    level = document.lines[index].level
    content: list[str] = []
    for line in document.lines[index + 1 :]:
        if line.kind is LineKind.HEADING and line.level <= level:
            break
        if line.kind is LineKind.PROSE:
            content.append(line.visible.strip())
        elif line.kind is LineKind.CODE:
            content.append(line.text.strip())
    return [text for text in content if text]


def only_placeholders(document: MarkdownDocument, index: int) -> bool:
    """Whether every content line of the section at ``index`` is placeholder text."""
    content = section_content(document, index)
    return bool(content) and all(text == STUB_BODY or _PLACEHOLDER.match(text) for text in content)


def without_code_spans(text: str) -> str:
    """``text`` with every inline code span removed (an ``@path`` or link there is a sample)."""
    return _CODE_SPAN.sub("", text)


def _order_findings(
    file: str, document: MarkdownDocument, sections: Sequence[str]
) -> list[tuple[int, str]]:
    present = {document.lines[i].heading for i in document.headings()}
    expected = [s for s in dict.fromkeys(sections) if s in present]
    actual = [
        heading for i in document.headings() if (heading := document.lines[i].heading) in sections
    ]
    actual = list(dict.fromkeys(actual))
    if actual == expected:
        return []
    return [(0, f"{file} sections are out of order; expected {expected} but found {actual}")]
