"""Credential-shaped text where an agent reads it (``noSecrets``)."""

from __future__ import annotations

import re

from agent_config_check.budget import BudgetSpentError, over_budget
from agent_config_check.family import (
    AGENTS_MD,
    CLAUDE_MD,
    DEFINITION_DIRS,
    HOOKS_DIR,
    MCP_JSON,
    SETTINGS_JSON,
    Found,
    Options,
    Rule,
    RuleFamily,
)
from agent_config_check.linear_regex import LinearPattern, compile_pattern
from agent_config_check.tree import ProjectTree

PRIVATE_KEY = "private key block"
CREDENTIAL_PATTERNS: tuple[tuple[str, re.Pattern[str], tuple[str, ...]], ...] = (
    # name, pattern, and literals one of which every match contains (a cheap first test)
    ("Anthropic API key", re.compile(r"sk-ant-[A-Za-z0-9_-]{16,}"), ("sk-ant-",)),
    (
        "AWS access key ID",
        re.compile(r"(?<![A-Z0-9])AKIA[0-9A-Z]{16}(?![A-Z0-9])"),
        ("AKIA",),
    ),
    (
        "GitHub token",
        re.compile(r"(?<![A-Za-z0-9])gh[pousr]_[A-Za-z0-9]{36,}"),
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    ),
    ("GitHub fine-grained token", re.compile(r"github_pat_[A-Za-z0-9_]{22,}"), ("github_pat_",)),
    (
        "Slack token",
        re.compile(r"xox[abpr]-[A-Za-z0-9-]{10,}"),
        ("xoxa-", "xoxb-", "xoxp-", "xoxr-"),
    ),
    (PRIVATE_KEY, re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----"), ("PRIVATE KEY-----",)),
)
# Base64 key material, at the start of the next line or after an escaped newline in a string.
_KEY_MATERIAL = re.compile(r"(?:\\[rn])*[A-Za-z0-9+/=]{40}")


def _key_material_follows(rest: str, following: list[str]) -> bool:
    """Whether key material follows a private key header: the rest of its line (a key held
    in a JSON string) or the next line (a PEM block)."""
    return _KEY_MATERIAL.match(rest.strip()) is not None or any(
        _KEY_MATERIAL.match(line.strip()) for line in following
    )


def _anywhere(pattern: re.Pattern[str] | LinearPattern, text: str) -> bool:
    if isinstance(pattern, LinearPattern):
        return pattern.contains(text)
    return pattern.search(text) is not None


def no_secrets(tree: ProjectTree, options: Options) -> list[Found]:
    """``noSecrets``: no credential-shaped text in the agent documents, settings, ``.mcp.json``
    or definition and hook files (the match is shown masked)."""
    patterns: list[tuple[str, re.Pattern[str] | LinearPattern, tuple[str, ...]]] = (
        list(CREDENTIAL_PATTERNS) if options["useDefaultPatterns"] else []
    )
    # The configuration's own patterns come from the repository: linear-time matching only,
    # on the run's budget (the masked match is all a finding shows: no group is recorded).
    patterns += [(p, compile_pattern(p, 0, tree.budget), ()) for p in options["secretPatterns"]]
    paths = [p for p in options["files"] if tree.is_file(p) or tree.escapes(p)]
    for directory in options["directories"]:
        paths += tree.walk(directory, "")
    found: list[Found] = []
    for path in dict.fromkeys(paths):
        read = tree.read(path)
        if read.text is None:
            if read.problem and "binary" not in read.problem:
                found.append(Found(path, 0, f"{read.problem}, so it was not scanned for secrets"))
            continue
        in_file: list[Found] = []
        for label, pattern, literals in patterns:
            try:
                in_file += _secrets(path, read.text, label, pattern, literals)
            except BudgetSpentError as error:
                in_file.append(
                    Found(path, 0, over_budget(f"secret pattern '{label}'", path, error))
                )
                # The budget is the run's: the next files would stop at once.
                patterns = [entry for entry in patterns if entry[0] != label]
        found += sorted(in_file, key=lambda item: item.line)  # line by line, as a reader goes
    return found


def _secrets(
    path: str,
    text: str,
    label: str,
    pattern: re.Pattern[str] | LinearPattern,
    literals: tuple[str, ...],
) -> list[Found]:
    """The lines of ``text`` where ``pattern`` matches, one finding each."""
    # Most files hold no secret: one search over the whole text rules a pattern out.
    if (literals and not any(literal in text for literal in literals)) or not _anywhere(
        pattern, text
    ):
        return []
    found: list[Found] = []
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        # One finding per line and pattern: listing every match searches the rest of the
        # line again after each one ('a*b|a' on a long line of a's: quadratic).
        match = pattern.search(line) if _anywhere(pattern, line) else None
        if match is None:
            continue
        if label == PRIVATE_KEY and not _key_material_follows(
            line.partition("PRIVATE KEY-----")[2], lines[number : number + 1]
        ):
            continue  # a header alone is a sample, such as a list of patterns
        shown = (match.group() or "")[:8]
        found.append(Found(path, number, f"{path} contains what looks like a {label}: {shown}..."))
    return found


SECRET_RULES = RuleFamily(
    "secrets",
    (
        Rule(
            "noSecrets",
            "no credential-shaped text in agent documents, settings, .mcp.json or definitions",
            no_secrets,
            {
                "files": [CLAUDE_MD, AGENTS_MD, SETTINGS_JSON, MCP_JSON],
                "directories": [HOOKS_DIR, *DEFINITION_DIRS],
                "secretPatterns": [],
                "useDefaultPatterns": True,
            },
            lambda tree, options: (
                any(tree.is_file(p) for p in options["files"])
                or any(tree.is_dir(d) for d in options["directories"])
            ),
        ),
    ),
)
"""Credential-shaped text where an agent reads it."""
