"""Reshape a CLAUDE.md so it passes :func:`check_claude_md`, touching as little as possible.

Every decision reads the document through the same :class:`MarkdownDocument` the checker
uses, and the document is re-read after every edit, so a heading in a fence, an indented
sample or a comment is never mistaken for a section here while the checker ignores it.
"""

from __future__ import annotations

from agent_config_check.document_format import check_document
from agent_config_check.markdown import BOM, MarkdownDocument, normalise
from agent_config_check.rule_sets import RuleSet

_MAX_PASSES = 4


def reshape(text: str, rules: RuleSet) -> str:
    """``text`` reshaped to conform to ``rules``; a conforming ``text`` is returned unchanged.

    Adds the title, the AGENTS.md reference and the required sections (renaming near-miss
    headings such as ``## Project purpose`` and giving empty sections a stub), removes extra
    titles, closes an unterminated fence or comment, and keeps CRLF line endings.
    """
    if not check_document("CLAUDE.md", text, rules):
        return text
    lines, crlf = normalise(text)
    for _ in range(_MAX_PASSES):
        reshaped = _one_pass(lines, rules)
        if reshaped == lines:
            break
        lines = reshaped
    result = "\n".join(lines)
    if text.startswith(BOM):
        result = BOM + result
    return result.replace("\n", "\r\n") if crlf else result


def _one_pass(lines: list[str], rules: RuleSet) -> list[str]:
    lines = _close_open_blocks(lines)
    lines = _fix_title(lines, rules)
    lines = _add_reference(lines, rules)
    lines = _rename_near_misses(lines, rules)
    lines = _fill_empty_sections(lines, rules)
    lines = _without_trailing_blanks(_close_open_blocks(lines))
    for section in rules.sections:
        if MarkdownDocument(lines).find_section(section) is None:
            lines = [*lines, "", section, "", rules.stub]
    return [*_without_trailing_blanks(lines), ""]


def _close_open_blocks(lines: list[str]) -> list[str]:
    document = MarkdownDocument(lines)
    if document.open_fence is not None:
        lines = [*_without_trailing_blanks(lines), document.open_fence.closing_line]
        document = MarkdownDocument(lines)
    if document.comment_open:
        lines = [*_without_trailing_blanks(lines), "-->"]
    return lines


def _without_trailing_blanks(lines: list[str]) -> list[str]:
    end = len(lines)
    while end and not lines[end - 1].strip():
        end -= 1
    return lines[:end]


def _fix_title(lines: list[str], rules: RuleSet) -> list[str]:
    if not rules.title:
        return lines
    document = MarkdownDocument(lines)
    keep = document.first_nonblank() if document.starts_with(rules.title) else None
    titles = [i for i in document.headings() if document.lines[i].heading == rules.title]
    edited = list(lines)
    for index in reversed(titles):
        if index != keep:
            _delete_heading(edited, index)
    if keep is None:
        edited[0:0] = [rules.title, ""]
    return edited


def _delete_heading(lines: list[str], index: int) -> None:
    above_blank = index == 0 or not lines[index - 1].strip()
    below = index + 1
    below_blank = below < len(lines) and not lines[below].strip()
    if above_blank and below_blank:
        del lines[index : below + 1]
    elif not above_blank and below < len(lines) and not below_blank:
        # Deleting would glue the next line to the paragraph above and change how it reads.
        lines[index] = ""
    else:
        del lines[index]


def _add_reference(lines: list[str], rules: RuleSet) -> list[str]:
    document = MarkdownDocument(lines)
    if not rules.reference or document.mentions(rules.reference):
        return lines
    title = document.find_section(rules.title)
    anchor = title if title is not None else document.first_nonblank() or 0
    insert = ["", rules.reference_line]
    after = anchor + 1
    if after < len(lines) and lines[after].strip():
        insert.append("")
    return [*lines[:after], *insert, *lines[after:]]


def _rename_near_misses(lines: list[str], rules: RuleSet) -> list[str]:
    document = MarkdownDocument(lines)
    edited = list(lines)
    claimed: set[int] = set()
    for section in rules.sections:
        if document.find_section(section) is not None:
            continue
        level = len(section) - len(section.lstrip("#"))
        wanted = section[level:].strip().lower()
        for index in document.headings():
            line = document.lines[index]
            if index in claimed or line.heading in rules.sections or line.level != level:
                continue
            text = (line.heading or "")[level:].strip().lower()
            if text == wanted or text.startswith(wanted + " "):
                edited[index] = section
                claimed.add(index)
                break
    return edited


def _fill_empty_sections(lines: list[str], rules: RuleSet) -> list[str]:
    for section in rules.sections:
        document = MarkdownDocument(lines)
        index = document.find_section(section)
        if index is None or document.has_body(index):
            continue
        insert = ["", rules.stub]
        after = index + 1
        if after < len(lines) and lines[after].strip():
            insert.append("")
        lines = [*lines[:after], *insert, *lines[after:]]
    return lines
