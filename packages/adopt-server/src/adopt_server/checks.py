"""The checks of repository content the adoption runs in an isolated child process.

These functions read what a repository (or ``claude``) wrote, so they run through
:func:`mcp_common.run_isolated` (see :mod:`adopt_server.pipeline.untrusted`), which imports
this module by name in a fresh interpreter: it imports the checker and nothing else, so a
check starts fast, and answers plain JSON values.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from agent_config_check.document_format import section_lines, unwritten_sections
from agent_config_check.reshape import reshape
from agent_config_check.rule_sets import RuleSet

from adopt_server.conformance import (
    agents_md_draft,
    agents_md_from_guidance,
    claude_md_importing_agents_md,
    with_agents_md_import,
)

NO_COMMAND = "command"
"""The problem of a build section that names none of the repository's build commands."""


def guard_errors(checkout: str, rule_set: str, sections: list[str]) -> dict[str, object]:
    """``{"errors": [...]}``: the error-severity violations of the guard's check of
    ``checkout`` (its own configuration file included), or ``{"config": message}`` when that
    configuration cannot be used."""
    # imported here: the other checks need only the Markdown reader, and a child imports
    # this module for each of them
    from agent_config_check.command import run_check
    from agent_config_check.registry import ConfigError

    try:
        outcome = run_check(Path(checkout), rule_set=rule_set, sections=sections)
    except ConfigError as error:
        return {"config": str(error)}
    return {"errors": [v.text() for v in outcome.violations if v.severity == "error"]}


def guidance_gaps(
    files: list[list[Any]], build_section: str, command: str | None, programs: list[str]
) -> list[list[list[str]]]:
    """For each ``[text, sections, required]`` of ``files``: ``[heading, problem]`` for each
    of its ``sections`` the ``text`` has not written yet, in order: ``missing`` (only when
    ``required``), ``empty``, ``placeholder``, or :data:`NO_COMMAND` for a written
    ``build_section`` that names neither ``command`` nor any of ``programs`` (only when
    ``required``)."""
    return [
        _file_gaps(text, sections, required, build_section, command, programs)
        for text, sections, required in files
    ]


def _file_gaps(
    text: str,
    sections: list[str],
    required: bool,
    build_section: str,
    command: str | None,
    programs: list[str],
) -> list[list[str]]:
    problems = {
        gap.heading: gap.problem
        for gap in unwritten_sections(text, sections)
        if required or gap.problem != "missing"
    }
    if required and command and build_section in sections and build_section not in problems:
        content = "\n".join(section_lines(text, build_section))
        named = command in content or any(
            re.search(rf"(?<![\w./-]){re.escape(program)}(?![\w-])", content)
            for program in programs
        )
        if not named:
            problems[build_section] = NO_COMMAND
    return [[section, problems[section]] for section in sections if section in problems]


def conformed_guidance(
    claude_md: str, has_agents_md: bool, rule_set: str, build: str, sections: list[str]
) -> dict[str, str]:
    """The guidance files ``conform`` writes, by path, for a CLAUDE.md holding ``claude_md``
    (only the files that change). Without AGENTS.md and without sections CLAUDE.md must keep,
    the guidance moves into AGENTS.md and CLAUDE.md becomes the import; otherwise CLAUDE.md is
    reshaped in place (importing AGENTS.md unless it keeps sections of its own), beside a
    drafted AGENTS.md when there is none. CRLF line endings are kept. ``rule_set``,
    ``build`` and ``sections`` are those of a rule set :func:`~adopt_server.conformance.rules_for`
    chose (it needs the guards, which this module does not import)."""
    rules = RuleSet(rule_set, build, tuple(sections))
    crlf = "\r\n" in claude_md
    if not has_agents_md and not rules.sections:
        stub = claude_md_importing_agents_md()
        return {
            "AGENTS.md": agents_md_from_guidance(claude_md),
            "CLAUDE.md": stub.replace("\n", "\r\n") if crlf else stub,
        }
    written = {} if has_agents_md else {"AGENTS.md": agents_md_draft()}
    shaped = reshape(claude_md, rules)
    if not rules.sections:
        shaped = with_agents_md_import(shaped)
    if crlf and "\r\n" not in shaped:
        shaped = shaped.replace("\n", "\r\n")
    if shaped != claude_md:
        written["CLAUDE.md"] = shaped
    return written
