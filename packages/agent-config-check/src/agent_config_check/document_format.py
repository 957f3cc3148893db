"""The CLAUDE.md and AGENTS.md format checks (the Python counterpart of the enforcer's
``claudeMdFormat`` and ``agentsMdFormat``)."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from agent_config_check.markdown import LineKind, MarkdownDocument
from agent_config_check.rule_sets import AGENTS_MD_RULES, STUB_BODY, RuleSet

# Text that stands in for content: the adoption's own stub, and the usual markers people leave.
_PLACEHOLDER_WORDS = re.compile(
    r"(?:todo|tbd|fixme|xxx|placeholder|coming soon|lorem ipsum|not documented yet)\b"
)
_REPLACE_ME = re.compile(r"\breplace (?:this|me)\b")
_PLACEHOLDER_LEAD = " \t\n\r\f\v>*_~`#-"
_PLACEHOLDER_TAIL = " \t\n\r\f\v*_~`"
_BACKTICKS = re.compile(r"`+")


@dataclass(frozen=True)
class FormatOptions:
    """The optional format checks (off unless set), by the anchor's parameter names."""

    reject_placeholders: bool = True
    enforce_section_order: bool = False
    forbidden_tokens: tuple[str, ...] = ()
    max_line_length: int = 0


MISSING = "missing"
EMPTY = "empty"
PLACEHOLDER = "placeholder"


@dataclass(frozen=True)
class SectionGap:
    """A required section the document does not really have yet.

    ``problem`` is :data:`MISSING` (no such heading), :data:`EMPTY` (the heading has no content
    before the next heading of its level) or :data:`PLACEHOLDER` (every content line is
    placeholder text: the adoption's stub, TODO, TBD, "replace this line", ...); ``line`` is the
    heading's 1-based line, 0 when it is missing.
    """

    heading: str
    problem: str
    line: int


def unwritten_sections(text: str, sections: Sequence[str]) -> list[SectionGap]:
    """The required ``sections`` of ``text`` that are missing, empty or only placeholder text,
    in the order of ``sections``; an empty list means every one holds real content.

    This is the one rule every guard applies to required sections (``claudeMdFormat`` and
    ``agentsMdFormat`` report exactly these gaps), so code that asks someone to write the
    sections still to be written (such as the adoption asking ``claude`` for them by name) asks
    for what the check will reject. ``sections`` are canonical headings such as
    ``"## Build, test, and run"`` (see :func:`~agent_config_check.rule_sets.canonical_sections`);
    headings are found the way the checker finds them, so one inside a code block or an HTML
    comment does not count.
    """
    return _section_gaps(MarkdownDocument.read(text), sections)


def _section_gaps(document: MarkdownDocument, sections: Sequence[str]) -> list[SectionGap]:
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
    """``(line, message)`` for each way ``text`` breaks ``rules`` (line 0 = whole file).

    A rule set without a title, sections or reference asks nothing of the document's shape
    (the default profile): only the optional checks of ``options`` apply.
    """
    document = MarkdownDocument.read(text)
    shaped = bool(rules.title or rules.sections or rules.reference)
    if document.is_blank:
        return [(0, f"{file} is empty")] if shaped else []
    found: list[tuple[int, str]] = []
    first = document.first_nonblank() or 0
    if rules.title and not document.starts_with(rules.title):
        found.append((first + 1, f"{file} must start with the '{rules.title}' title heading"))
    for gap in _section_gaps(document, rules.sections):
        if gap.problem == MISSING:
            found.append((0, f"{file} is missing required section heading: {gap.heading}"))
        elif gap.problem == EMPTY:
            found.append((gap.line, f"{file} has an empty section: {gap.heading}"))
        elif options.reject_placeholders:
            found.append(
                (
                    gap.line,
                    f"{file} section '{gap.heading}' holds only placeholder text; "
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


def section_lines(text: str, section: str) -> list[str]:
    """The prose and code lines of ``section`` in ``text``, as the placeholder judgement reads
    them (stripped, comments left out; empty when the section is missing)."""
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
    return bool(content) and all(text == STUB_BODY or is_placeholder(text) for text in content)


def is_placeholder(text: str) -> bool:
    """Whether one content line is only placeholder text: a TODO/TBD/FIXME/XXX/placeholder/
    "coming soon"/"lorem ipsum"/"not documented yet" line, one saying "replace this" or
    "replace me", or an ellipsis, whatever Markdown decoration surrounds it. String scans and
    patterns that cannot backtrack: the line comes from the repository."""
    body = text.lstrip(_PLACEHOLDER_LEAD).lower()
    return (
        _PLACEHOLDER_WORDS.match(body) is not None
        or _REPLACE_ME.search(text.lower()) is not None
        or body.rstrip(_PLACEHOLDER_TAIL) in ("...", "…")
    )


def without_code_spans(text: str) -> str:
    """``text`` with every inline code span removed (an ``@path`` or link there is a sample).

    A span closes on the next backtick run of exactly its length (CommonMark); the runs are
    found once and looked up by length, so a line of thousands of backticks stays linear."""
    runs = [(match.start(), match.end()) for match in _BACKTICKS.finditer(text)]
    by_length: dict[int, list[int]] = {}
    for start, end in runs:
        by_length.setdefault(end - start, []).append(start)
    kept: list[str] = []
    position = 0
    for start, end in runs:
        if start < position:
            continue
        same = by_length[end - start]
        after = bisect_right(same, start)
        if after < len(same):
            kept.append(text[position:start])
            position = same[after] + (end - start)
    kept.append(text[position:])
    return "".join(kept)


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
