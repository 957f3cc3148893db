"""CLAUDE.md and AGENTS.md: title, required sections with real content, the reference to the
companion document, and links that resolve (``claudeMdFormat``, ``agentsMdFormat``)."""

from __future__ import annotations

import re

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
from agent_config_check.rule_sets import AGENTS_MD_RULES, AGENTS_MD_SECTIONS, RuleSet
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
        title=options["titleHeading"] or "# CLAUDE.md",
        reference=options["requiredReference"],
    )
    return _markdown_format(tree, path, rules, options, "CLAUDE.md")


def agents_md_format(tree: ProjectTree, options: Options) -> list[Found]:
    """``agentsMdFormat``: the AGENTS.md title and guide sections, with real content."""
    rules = RuleSet(
        "project",
        "github-actions",
        tuple(options["requiredSections"]),
        title=options["titleHeading"] or AGENTS_MD_RULES.title,
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
        found += _link_findings(tree, path, read.text, label)
    return found


_MARKDOWN_LINK = re.compile(r"\[[^\]]*\]\(((?:[^()]|\([^()]*\))+)\)")
_EXTERNAL = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*:.*")


def _link_findings(tree: ProjectTree, path: str, text: str, label: str) -> list[Found]:
    """Relative links that do not resolve to a file or directory inside the project."""
    document = MarkdownDocument.read(text)
    base = path.rpartition("/")[0]
    found: list[Found] = []
    for number, line in enumerate(document.lines, start=1):
        if not line.kind.structural:
            continue
        for match in _MARKDOWN_LINK.finditer(without_code_spans(line.visible)):
            target = match.group(1).strip().split()[0] if match.group(1).strip() else ""
            target = target.strip("<>")
            if not target or target.startswith("#") or _EXTERNAL.fullmatch(target):
                continue
            local = re.split(r"[#?]", target, maxsplit=1)[0]
            if not local:
                continue
            relative = local.lstrip("/") if local.startswith("/") else join(base, local)
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
                "requiredReference": "AGENTS.md",
                "requireClaudeMd": True,
                **_FORMAT_DEFAULTS,
            },
            lambda tree, options: (
                options["requireClaudeMd"] or tree.is_file(options["claudeMdFile"])
            ),
        ),
        Rule(
            "agentsMdFormat",
            "AGENTS.md has its title and the guide sections, with real content",
            agents_md_format,
            {
                "agentsMdFile": AGENTS_MD,
                "requiredSections": list(AGENTS_MD_SECTIONS),
                **_FORMAT_DEFAULTS,
            },
            has_file("agentsMdFile"),
        ),
    ),
)
"""CLAUDE.md and AGENTS.md: their format and the links they hold."""
