"""The Python guard: a pre-commit hook running the committed checker script, plus the
fallback's CI workflow running the same script."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from agent_config_check.rule_sets import RuleSet

from adopt_server.checkout_files import CheckoutFiles
from adopt_server.guards.builds import fallback
from adopt_server.guards.checker_script import SCRIPT, checker_args
from adopt_server.guards.commands import BuildCommand, has_python_tests, make_target

PRE_COMMIT_CONFIG = ".pre-commit-config.yaml"
MARKERS = ("pyproject.toml", "setup.py", "setup.cfg")
"""The files that make a checkout a Python project."""
HOOK_ID = "claude-md-check"
_REPOS_KEY = re.compile(r"repos:[ \t]*(?:#.*)?")
_HOOK_DECLARED = re.compile(
    rf"""^[ \t]*(?:-[ \t]+)?id:[ \t]*(["']?){HOOK_ID}\1[ \t]*(?:#.*)?$""", re.MULTILINE
)


def hook_lines(rules: RuleSet) -> list[str]:
    """The ``repos:`` entry, unindented, that runs the committed checker with ``rules``.

    ``language: system`` runs it with the Python already on the machine: pre-commit needs to
    install nothing, so the hook works offline and without any published package.
    """
    return [
        "- repo: local",
        "  hooks:",
        f"    - id: {HOOK_ID}",
        "      name: Claude Code configuration (agent-config-check)",
        f"      entry: python3 {SCRIPT}",
        f"      args: {json.dumps(checker_args(rules))}",
        "      language: system",
        # Runs on every commit, so deleting CLAUDE.md is caught as well as editing it.
        "      pass_filenames: false",
        "      always_run: true",
    ]


def declares_hook(config: str) -> bool:
    """Whether a pre-commit configuration already declares the ``claude-md-check`` hook."""
    return _HOOK_DECLARED.search(config) is not None


class PythonGuard:
    """The guard of a Python project: a pre-commit hook and the fallback's CI workflow."""

    name = "python"
    description = "Python (pyproject.toml, setup.py or setup.cfg)"
    summary = (
        f"a pre-commit hook and a GitHub Actions workflow run {SCRIPT}, which fails while a "
        "required section of CLAUDE.md or AGENTS.md is missing or holds placeholder text"
    )
    paths = (PRE_COMMIT_CONFIG, fallback.WORKFLOW, SCRIPT)
    sections = ()
    tool = None

    def applies_to(self, files: CheckoutFiles) -> bool:
        """A ``pyproject.toml``, ``setup.py`` or ``setup.cfg`` at the root."""
        return any(files.is_file(marker) for marker in MARKERS)

    def build_command(self, files: CheckoutFiles) -> BuildCommand:
        """nox, tox, a Makefile target or pytest, in that order; else installing it."""
        if files.is_file("noxfile.py"):
            return BuildCommand("nox", ("nox",))
        if files.is_file("tox.ini"):
            return BuildCommand("tox", ("tox",))
        if make_target(files):
            return BuildCommand("make test", ("make",))
        runner = "uv run pytest" if files.is_file("uv.lock") else "python -m pytest"
        if has_python_tests(files):
            return BuildCommand(runner, ("pytest", "uv run", "tox", "nox", "make"))
        return BuildCommand("python -m pip install .", ("pip", "uv", "python -m build", "pytest"))

    def missing(self, checkout: Path) -> list[str]:
        """The hook, then the workflow and the checker script, where missing."""
        files = CheckoutFiles(checkout)
        hooked = files.is_file(PRE_COMMIT_CONFIG) and declares_hook(
            files.read_text(PRE_COMMIT_CONFIG, errors="replace", newline=None)
        )
        gaps = [] if hooked else [f"{PRE_COMMIT_CONFIG} declares no {HOOK_ID} hook"]
        return gaps + fallback.workflow_gaps(checkout)

    def notes(self, checkout: Path) -> list[str]:
        """Nothing beyond installed or not."""
        return []

    def install(self, checkout: Path, rules: RuleSet, rule_version: str | None) -> list[str]:
        """Add the hook to ``.pre-commit-config.yaml`` (created when absent), the workflow
        and the checker script; ``rule_version`` is Maven's and ignored."""
        written: list[str] = []
        files = CheckoutFiles(checkout)
        if files.is_file(PRE_COMMIT_CONFIG):
            source = files.read_text(PRE_COMMIT_CONFIG)
            if not declares_hook(source):
                files.write_text(PRE_COMMIT_CONFIG, splice_hook(source, rules))
                written.append(PRE_COMMIT_CONFIG)
        elif fallback.write_if_absent(checkout, PRE_COMMIT_CONFIG, splice_hook("", rules)):
            written.append(PRE_COMMIT_CONFIG)
        return written + fallback.install_workflow(checkout, rules)


GUARD = PythonGuard()


_ENTRY = re.compile(r"^(?P<dash> *)-(?P<gap> +)repo:")
_HOOKS = re.compile(r"^(?P<lead> *)hooks:")
_HOOK = re.compile(r"^(?P<dash> *)-(?P<gap> +)id:")


def _layout(entries: list[str], dash: int) -> Callable[[str], str]:
    """How to indent a line of :func:`hook_lines` (written with two spaces a level, dashes
    flush) the way the existing ``repos:`` entries are: where their dashes sit, how far the
    keys after a dash are pushed ('-   repo:'), how deep ``hooks:`` items go."""
    columns = {0: dash, 2: dash + 2, 4: dash + 4, 6: dash + 6}
    entry = next((m for line in entries if (m := _ENTRY.match(line))), None)
    if entry is not None:
        columns[0] = len(entry["dash"])
        columns[2] = columns[0] + 1 + len(entry["gap"])
        below = entries[entries.index(entry.string) + 1 :]
        hooks = next((m for line in below if (m := _HOOKS.match(line))), None)
        hook = next((m for line in below if (m := _HOOK.match(line))), None)
        if hooks is not None and hook is not None:
            columns[4] = columns[2] + max(0, len(hook["dash"]) - len(hooks["lead"]))
            columns[6] = columns[4] + 1 + len(hook["gap"])
        else:
            columns[4], columns[6] = columns[2] + 2, columns[2] + 4

    def place(line: str) -> str:
        text = line.lstrip(" ")
        depth = len(line) - len(text)
        known = max(c for c in columns if c <= depth)
        column = columns[known] + depth - known
        if text.startswith("- ") and depth + 2 in columns:
            key = text[2:].lstrip(" ")
            return " " * column + "-" + " " * max(1, columns[depth + 2] - column - 1) + key
        return " " * column + text

    return place


def splice_hook(source: str, rules: RuleSet) -> str:
    """``source`` with the hook appended to its block-style ``repos:`` list, bytes kept.

    Raises ``ValueError`` when ``repos`` is written in flow style, which cannot be extended
    without rewriting the user's lines.
    """
    newline = "\r\n" if "\r\n" in source else "\n"
    lines = source.splitlines(keepends=True)
    key = next(
        (i for i, line in enumerate(lines) if _REPOS_KEY.fullmatch(line.rstrip("\r\n"))), None
    )
    if key is None:
        if re.search(r"^repos:", source, re.MULTILINE):
            raise ValueError(
                f"{PRE_COMMIT_CONFIG} lists its repos in flow style; add the {HOOK_ID} hook by hand"
            )
        prefix = source if not source or source.endswith("\n") else source + newline
        return prefix + newline.join(["repos:", *("  " + h for h in hook_lines(rules))]) + newline
    last, indent = key, None
    for index in range(key + 1, len(lines)):
        text = lines[index].rstrip("\r\n")
        depth = len(text) - len(text.lstrip(" "))
        # An indented comment belongs to the entry above it; one in column 0 may belong to
        # the key below, so it is not taken into the block.
        if not text.strip() or (text.lstrip().startswith("#") and depth == 0):
            continue
        if depth == 0 and not text.startswith("-"):
            break
        last = index
        if indent is None and text.lstrip().startswith("-"):
            indent = depth
    layout = _layout(lines[key + 1 : last + 1], 2 if indent is None else indent)
    block = newline.join(layout(h) for h in hook_lines(rules)) + newline
    head = "".join(lines[: last + 1])
    if not head.endswith("\n"):
        head += newline
    return head + block + "".join(lines[last + 1 :])
