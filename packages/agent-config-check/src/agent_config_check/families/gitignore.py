"""``.gitignore`` keeps personal Claude Code settings out of the repository
(``localSettingsIgnored``)."""

from __future__ import annotations

from agent_config_check.budget import BudgetSpentError, MatchBudget, over_budget
from agent_config_check.family import Found, Options, Rule, RuleFamily, has_file
from agent_config_check.globs import Glob
from agent_config_check.tree import ProjectTree

LOCAL_SETTINGS = ".claude/settings.local.json"


MAX_GLOB_LENGTH = 4096
"""The longest ``.gitignore`` line the checker matches (a path git stores is at most this long
on Linux); a longer line is reported, not used."""


class Gitignore:
    """The lines of one ``.gitignore``: comments, ``!`` negation, a trailing ``/`` for
    directories, anchoring by ``/``, and git's globs; the last matching line wins.

    Each line is a :class:`~agent_config_check.globs.Glob`, matched without backtracking and
    charged to ``budget`` (the lines come from the repository being checked)."""

    def __init__(self, text: str, budget: MatchBudget | None = None) -> None:
        """Read the lines of ``text``; ``overlong`` lists (line number, length) of the lines
        over :data:`MAX_GLOB_LENGTH`, which are not used."""
        shared = MatchBudget() if budget is None else budget
        self.rules: list[tuple[bool, bool, Glob]] = []
        self.overlong: list[tuple[int, int]] = []
        for number, raw in enumerate(text.splitlines(), start=1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            if len(line) > MAX_GLOB_LENGTH:
                self.overlong.append((number, len(line)))
                continue
            negated = line.startswith("!")
            pattern = line[1:] if negated else line
            directory_only = pattern.endswith("/")
            body = pattern.rstrip("/")
            # A pattern with a '/' before its end is anchored at the root; any other matches
            # at any depth.
            glob = body.removeprefix("/") if "/" in body else "**/" + body
            self.rules.append((negated, directory_only, Glob(glob, shared)))

    def covers(self, path: str) -> bool:
        """Whether the lines ignore ``path`` (``/``-separated, repository-relative) or one of
        its directories; raises :class:`~agent_config_check.budget.BudgetSpentError` when the
        budget is spent."""
        ancestors = [path[:i] for i, char in enumerate(path) if char == "/"]
        return self._ignored(path, False) or any(self._ignored(a, True) for a in ancestors)

    def _ignored(self, candidate: str, is_directory: bool) -> bool:
        verdict = False
        for negated, directory_only, glob in self.rules:
            if (is_directory or not directory_only) and glob.matches(candidate):
                verdict = not negated
        return verdict


def local_settings_ignored(tree: ProjectTree, options: Options) -> list[Found]:
    """``localSettingsIgnored``: ``.gitignore`` covers each personal settings path (by default
    ``.claude/settings.local.json``), so nobody commits their own permissions."""
    path = options["gitignoreFile"]
    read = tree.read(path)
    if read.text is None:
        return [Found(path, 0, read.problem or f"{path} cannot be read")]
    gitignore = Gitignore(read.text, tree.budget)
    found = [
        Found(
            path,
            number,
            f"{path} line {number} is {length:,} characters long, over the "
            f"{MAX_GLOB_LENGTH:,} the checker matches: it was not used",
        )
        for number, length in gitignore.overlong
    ]
    for wanted in options["ignoredPaths"]:
        normal = wanted.replace("\\", "/").removeprefix("./").removeprefix("/")
        try:
            covered = gitignore.covers(normal)
        except BudgetSpentError as error:
            found.append(Found(path, 0, over_budget(f"the globs of {path}", normal, error)))
            continue
        if not covered:
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
