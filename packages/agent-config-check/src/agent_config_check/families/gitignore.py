"""``.gitignore`` keeps personal Claude Code settings out of the repository
(``localSettingsIgnored``)."""

from __future__ import annotations

from agent_config_check.family import Found, Options, Rule, RuleFamily, has_file
from agent_config_check.globs import Glob
from agent_config_check.tree import ProjectTree

LOCAL_SETTINGS = ".claude/settings.local.json"


def gitignore_covers(gitignore: str, path: str) -> bool:
    """Whether ``.gitignore`` text ignores ``path`` (``/``-separated, repository-relative), or
    one of its directories: comments, ``!`` negation, a trailing ``/`` for directories,
    anchoring by ``/``, and git's globs; the last matching line wins.

    Each line is a :class:`~agent_config_check.globs.Glob`, matched without backtracking
    (the lines come from the repository being checked)."""
    rules = []
    for raw in gitignore.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        pattern = line[1:] if negated else line
        directory_only = pattern.endswith("/")
        body = pattern.rstrip("/")
        # A pattern with a '/' before its end is anchored at the root; any other matches at
        # any depth.
        glob = body.removeprefix("/") if "/" in body else "**/" + body
        rules.append((negated, directory_only, Glob(glob)))

    def ignored(candidate: str, is_directory: bool) -> bool:
        verdict = False
        for negated, directory_only, glob in rules:
            if (is_directory or not directory_only) and glob.matches(candidate):
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
            policy=True,
        ),
    ),
)
"""What ``.gitignore`` must keep out of the repository."""
