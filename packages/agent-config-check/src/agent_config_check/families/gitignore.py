"""``.gitignore`` keeps personal Claude Code settings out of the repository
(``localSettingsIgnored``)."""

from __future__ import annotations

import re

from agent_config_check.family import (
    Found,
    Options,
    Rule,
    RuleFamily,
    has_file,
)
from agent_config_check.tree import ProjectTree

LOCAL_SETTINGS = ".claude/settings.local.json"


def _gitignore_regex(glob: str) -> re.Pattern[str]:
    anchored = "/" in glob
    body = glob.removeprefix("/")
    parts: list[str] = []
    index = 0
    while index < len(body):
        if body.startswith("**/", index):
            parts.append("(?:.*/)?")
            index += 3
        elif body.startswith("**", index):
            parts.append(".*")
            index += 2
        else:
            char = body[index]
            parts.append("[^/]*" if char == "*" else "[^/]" if char == "?" else re.escape(char))
            index += 1
    return re.compile(("^" if anchored else "^(?:.*/)?") + "".join(parts) + "$")


def gitignore_covers(gitignore: str, path: str) -> bool:
    """Whether ``.gitignore`` text ignores ``path`` (``/``-separated, repository-relative), or
    one of its directories: comments, ``!`` negation, a trailing ``/`` for directories,
    anchoring by ``/``, and ``*``, ``?``, ``**`` globs; the last matching line wins."""
    rules = []
    for raw in gitignore.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        pattern = line[1:] if negated else line
        directory_only = pattern.endswith("/")
        rules.append((negated, directory_only, _gitignore_regex(pattern.rstrip("/"))))

    def ignored(candidate: str, is_directory: bool) -> bool:
        verdict = False
        for negated, directory_only, regex in rules:
            if (is_directory or not directory_only) and regex.match(candidate):
                verdict = not negated
        return verdict

    ancestors = [path[:i] for i, char in enumerate(path) if char == "/"]
    return ignored(path, False) or any(ignored(a, True) for a in ancestors)


def local_settings_ignored(tree: ProjectTree, options: Options) -> list[Found]:
    """``localSettingsIgnored``: ``.gitignore`` covers each personal settings path (by default
    ``.claude/settings.local.json``), so nobody commits their own permissions."""
    path = options["gitignoreFile"]
    read = tree.read(path)
    if read.text is None:
        return [Found(path, 0, read.problem or f"{path} cannot be read")]
    found = []
    for wanted in options["ignoredPaths"]:
        normal = wanted.replace("\\", "/").removeprefix("./").removeprefix("/")
        if not gitignore_covers(read.text, normal):
            found.append(Found(path, 0, f"{path} does not cover: {normal}"))
    return found


GITIGNORE_RULES = RuleFamily(
    "gitignore",
    (
        Rule(
            "localSettingsIgnored",
            ".gitignore keeps .claude/settings.local.json out of the repository",
            local_settings_ignored,
            {"gitignoreFile": ".gitignore", "ignoredPaths": [LOCAL_SETTINGS]},
            has_file("gitignoreFile"),
        ),
    ),
)
"""What ``.gitignore`` must keep out of the repository."""
