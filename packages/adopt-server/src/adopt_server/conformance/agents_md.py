"""AGENTS.md as the one source of truth: the guidance moves there, CLAUDE.md imports it."""

from __future__ import annotations

from agent_config_check.markdown import BOM, MarkdownDocument, normalise
from agent_config_check.reshape import reshape
from agent_config_check.rule_sets import (
    AGENTS_MD_RULES,
    AGENTS_MD_TITLE,
    CLAUDE_MD_TITLE,
)

IMPORT_LINE = "@AGENTS.md"
_IMPORT_INTRO = (
    "This project's agent guidance lives in [AGENTS.md](AGENTS.md), the one source of truth "
    "for every coding agent. Claude Code loads it into each session through this import:"
)


def agents_md_draft() -> str:
    """The AGENTS.md drafted beside a CLAUDE.md that keeps sections of its own (the Maven
    guard's Java sections): its title and the guide's sections, each holding the adoption's
    placeholder until the guidance is written there."""
    return agents_md_from_guidance("")


def claude_md_importing_agents_md() -> str:
    """The CLAUDE.md of a project whose guidance is in AGENTS.md: its title and the import."""
    return f"{CLAUDE_MD_TITLE}\n\n{_IMPORT_INTRO}\n\n{IMPORT_LINE}\n"


def agents_md_from_guidance(guidance: str) -> str:
    """Generated guidance (a ``claude /init`` CLAUDE.md) as AGENTS.md: its title becomes
    ``# AGENTS.md``, near-miss headings are renamed to the guide's sections, and a section
    the guidance lacks gets a placeholder the guard rejects until someone writes it."""
    lines, crlf = normalise(guidance)
    document = MarkdownDocument(lines)
    first = document.first_nonblank()
    if first is not None and document.lines[first].level == 1:
        lines = [AGENTS_MD_TITLE, *lines[first + 1 :]]
    text = "\n".join(lines)
    shaped = reshape(text, AGENTS_MD_RULES)
    return shaped.replace("\n", "\r\n") if crlf and "\r\n" not in shaped else shaped


def imports_agents_md(claude_md: str) -> bool:
    """Whether a CLAUDE.md imports AGENTS.md (``@AGENTS.md`` outside code and comments)."""
    document = MarkdownDocument.read(claude_md)
    return any(
        line.kind.structural and IMPORT_LINE in line.visible.split() for line in document.lines
    )


def with_agents_md_import(claude_md: str) -> str:
    """``claude_md`` importing AGENTS.md: an ``@AGENTS.md`` line after its title (or at the
    top) unless it imports it already; every other line and the line endings are kept."""
    if imports_agents_md(claude_md):
        return claude_md
    lines, crlf = normalise(claude_md)
    document = MarkdownDocument(lines)
    first = document.first_nonblank()
    after = first + 1 if first is not None and document.lines[first].level == 1 else 0
    insert = ["", IMPORT_LINE] if after else [IMPORT_LINE]
    if after < len(lines) and lines[after].strip():
        insert.append("")
    text = "\n".join([*lines[:after], *insert, *lines[after:]])
    if claude_md.startswith(BOM):
        text = BOM + text
    return text.replace("\n", "\r\n") if crlf else text
