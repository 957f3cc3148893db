"""CLAUDE.md and AGENTS.md: title, required sections with real content, the reference to the
companion document, and links that resolve (``claudeMdFormat``, ``agentsMdFormat``)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from agent_config_check.collection import collect
from agent_config_check.document_format import FormatOptions, format_findings, without_code_spans
from agent_config_check.family import (
    AGENTS_MD,
    CLAUDE_MD,
    Found,
    Options,
    Rule,
    RuleFamily,
    has_file,
)
from agent_config_check.markdown import MarkdownDocument
from agent_config_check.rule_sets import (
    AGENTS_MD_SECTIONS,
    AGENTS_MD_TITLE,
    CLAUDE_MD_TITLE,
    REFERENCE_TARGET,
    RuleSet,
)
from agent_config_check.tree import ProjectTree, join


def claude_md_format(tree: ProjectTree, options: Options) -> list[Found]:
    """``claudeMdFormat``: title, required sections with real content, the reference to the
    companion document, and (optionally) order, tokens, line length, local links."""
    path = options["claudeMdFile"]
    if not tree.is_file(path) and not tree.escapes(path):
        return [Found(path, 0, "CLAUDE.md is missing")]
    rules = RuleSet(
        "project",
        "github-actions",
        tuple(options["requiredSections"]),
        title=options["titleHeading"],
        reference=options["requiredReference"],
    )
    return _markdown_format(tree, path, rules, options, "CLAUDE.md")


def agents_md_format(tree: ProjectTree, options: Options) -> list[Found]:
    """``agentsMdFormat``: the AGENTS.md title and guide sections, with real content."""
    rules = RuleSet(
        "project",
        "github-actions",
        tuple(options["requiredSections"]),
        title=options["titleHeading"],
        reference="",
    )
    return _markdown_format(tree, options["agentsMdFile"], rules, options, "AGENTS.md")


def _markdown_format(
    tree: ProjectTree, path: str, rules: RuleSet, options: Options, label: str
) -> list[Found]:
    read = tree.read(path)
    if read.text is None:
        return [Found(path, 0, (read.problem or "").replace(path, label, 1))]
    format_options = FormatOptions(
        reject_placeholders=options["rejectPlaceholders"],
        enforce_section_order=options["enforceSectionOrder"],
        forbidden_tokens=tuple(options["forbiddenTokens"]),
        max_line_length=options["maxLineLength"],
    )
    found = [
        Found(path, line, message)
        for line, message in format_findings(label, read.text, rules, format_options)
    ]
    if options["validateFileReferences"]:
        found += link_findings(tree, path, read.text, label)
    return found


_EXTERNAL = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*:.*")
_PARENTHESIS = re.compile(r"[()]")
_LEADING_VARIABLE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


def link_destinations(line: str) -> list[str]:
    """The destinations of the inline links ``[text](destination)`` on one line, in one
    left-to-right pass (a regex over a hostile line of brackets would backtrack): each ``](``
    after a ``[`` with no ``]`` between opens a destination, which ends at the parenthesis
    matching the one that opened it (balanced parentheses allowed inside); an opening without
    a match is no link, and the search goes on after it."""
    closing: dict[int, int] = {}
    opened_at: list[int] = []
    for match in _PARENTHESIS.finditer(line):
        if match.group() == "(":
            opened_at.append(match.start())
        elif opened_at:
            closing[opened_at.pop()] = match.start()
    found: list[str] = []
    position = 0
    while (marker := line.find("](", position)) >= 0:
        opened = line.rfind("[", position, marker)
        start = marker + 2
        end = closing.get(marker + 1)
        if opened < 0 or line.find("]", opened, marker) >= 0 or end is None:
            position = start
            continue
        if end > start:
            found.append(line[start:end])
        position = end + 1
    return found


def link_findings(
    tree: ProjectTree, path: str, text: str, label: str, folders: Mapping[str, str] | None = None
) -> list[Found]:
    """Relative links that do not resolve to a file or directory inside the project.

    A link starting with a variable Claude Code expands (``${CLAUDE_SKILL_DIR}/…``) resolves
    from the folder ``folders`` gives that variable; one it does not give is not judged.
    """
    if "](" not in text:
        return []
    document = MarkdownDocument.read(text)
    base = path.rpartition("/")[0]
    found: list[Found] = []
    for number, line in enumerate(document.lines, start=1):
        if not line.kind.structural:
            continue
        for destination in link_destinations(without_code_spans(line.visible)):
            target = destination.strip().split()[0] if destination.strip() else ""
            target = target.strip("<>")
            if not target or target.startswith("#") or _EXTERNAL.fullmatch(target):
                continue
            local = re.split(r"[#?]", target, maxsplit=1)[0]
            if not local:
                continue
            if local.startswith("$"):
                variable = _LEADING_VARIABLE.match(local)
                name = (variable.group(1) or variable.group(2)) if variable else ""
                folder = (folders or {}).get(name)
                if variable is None or folder is None:
                    continue
                relative = join(folder, local[variable.end() :].lstrip("/"))
            elif local.startswith("/"):
                relative = local.lstrip("/")
            else:
                relative = join(base, local)
            decoded = _percent_decoded(relative)
            if not any(
                tree.real(candidate) is not None and (tree.root / candidate).exists()
                for candidate in (relative, decoded)
            ):
                found.append(Found(path, number, f"{label} references a missing file: {local}"))
    return found


def _percent_decoded(text: str) -> str:
    return re.sub(
        r"%([0-9A-Fa-f]{2})", lambda m: bytes([int(m.group(1), 16)]).decode("latin-1"), text
    )


_FORMAT_DEFAULTS: Options = {
    "titleHeading": "",
    "rejectPlaceholders": True,
    "validateFileReferences": True,
    "enforceSectionOrder": False,
    "forbiddenTokens": [],
    "maxLineLength": 0,
}

MEMORY_MAX_LINES = 200
"""Claude Code's memory guide: target under 200 lines per CLAUDE.md file."""


def _memory_files(tree: ProjectTree) -> list[str]:
    return list(collect(tree).memory)


def document_links(tree: ProjectTree, options: Options) -> list[Found]:
    """``documentLinks``: the relative links of every CLAUDE.md, CLAUDE.local.md, AGENTS.md
    and ``.claude/rules`` file below the root resolve inside the project (the root CLAUDE.md
    and AGENTS.md are ``claudeMdFormat``'s and ``agentsMdFormat``'s)."""
    found: list[Found] = []
    roots = {CLAUDE_MD, AGENTS_MD}
    for path in _memory_files(tree):
        if path in roots:
            continue
        text = tree.read(path).text
        if text is not None:
            found += link_findings(tree, path, text, path)
    return found


def memory_size(tree: ProjectTree, options: Options) -> list[Found]:
    """``memorySize``: every CLAUDE.md, CLAUDE.local.md and AGENTS.md (a symbolic link
    measured as the file it points to) stays within ``maxLines`` lines: Claude Code loads
    them into every session, and its memory guide targets under 200 lines each."""
    found: list[Found] = []
    limit = options["maxLines"]
    for path in _memory_files(tree):
        if path.startswith(".claude/rules/"):
            continue
        text = tree.read(path).text
        lines = len(text.splitlines()) if text is not None else 0
        if limit > 0 and lines > limit:
            found.append(
                Found(
                    path,
                    limit + 1,
                    f"{path} has {lines} lines, over the {limit}-line budget of a file loaded "
                    "into every session; move detail into files it links to or imports",
                )
            )
    return found


def _has_memory(tree: ProjectTree, options: Options) -> bool:
    return bool(_memory_files(tree))


DOCUMENT_RULES = RuleFamily(
    "documents",
    (
        Rule(
            "claudeMdFormat",
            "CLAUDE.md has its title, required sections with real content, the reference to "
            "AGENTS.md and links that resolve",
            claude_md_format,
            {
                "claudeMdFile": CLAUDE_MD,
                "requiredSections": [],
                "requiredReference": "",
                "requireClaudeMd": False,
                **_FORMAT_DEFAULTS,
            },
            lambda tree, options: (
                options["requireClaudeMd"]
                or tree.is_file(options["claudeMdFile"])
                or tree.escapes(options["claudeMdFile"])
            ),
            adoption={
                "titleHeading": CLAUDE_MD_TITLE,
                "requiredReference": REFERENCE_TARGET,
                "requireClaudeMd": True,
            },
        ),
        Rule(
            "agentsMdFormat",
            "AGENTS.md has its title and the guide sections, with real content",
            agents_md_format,
            {"agentsMdFile": AGENTS_MD, "requiredSections": [], **_FORMAT_DEFAULTS},
            has_file("agentsMdFile"),
            adoption={
                "titleHeading": AGENTS_MD_TITLE,
                "requiredSections": list(AGENTS_MD_SECTIONS),
            },
        ),
        Rule(
            "documentLinks",
            "the links of nested CLAUDE.md, AGENTS.md and .claude/rules files resolve",
            document_links,
            {},
            _has_memory,
        ),
        Rule(
            "memorySize",
            "every CLAUDE.md and AGENTS.md stays within its line budget",
            memory_size,
            {"maxLines": MEMORY_MAX_LINES},
            _has_memory,
            severity="warn",
        ),
    ),
)
"""CLAUDE.md and AGENTS.md: their format and the links they hold."""
