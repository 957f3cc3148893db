"""The Python guard: a pre-commit hook running ``claude-md-check`` plus a CI workflow running it."""

from __future__ import annotations

import json
import re
from pathlib import Path

from mcp_common import package_version

from adopt_server.checkout_files import CheckoutFiles
from adopt_server.conformance import RuleSet
from adopt_server.guards.fallback import (
    MARKER,
    WORKFLOW,
    warn_if_foreign_workflow,
    workflow_is_ours,
    write_if_absent,
)

PRE_COMMIT_CONFIG = ".pre-commit-config.yaml"
HOOK_ID = "claude-md-check"
DISTRIBUTION = "adopt-server"
_REPOS_KEY = re.compile(r"repos:[ \t]*(?:#.*)?")
_HOOK_DECLARED = re.compile(
    rf"""^[ \t]*(?:-[ \t]+)?id:[ \t]*(["']?){HOOK_ID}\1[ \t]*(?:#.*)?$""", re.MULTILINE
)

WORKFLOW_TEXT = f"""\
# {MARKER}: fails CI when CLAUDE.md breaks its format rules (the {HOOK_ID} pre-commit hook).
name: CLAUDE.md guard
on: [push, pull_request]
jobs:
  claude-md-guard:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.12"
      - name: Enforce CLAUDE.md
        run: pipx run pre-commit run {HOOK_ID} --all-files
"""


def hook_lines(rules: RuleSet) -> list[str]:
    """The ``repos:`` entry, unindented, that runs ``claude-md-check`` with ``rules``."""
    args = ["--rules", rules.name]
    for section in rules.sections:
        args += ["--section", section]
    version = package_version(DISTRIBUTION)
    requirement = DISTRIBUTION if version == "unknown" else f"{DISTRIBUTION}=={version}"
    return [
        "- repo: local",
        "  hooks:",
        f"    - id: {HOOK_ID}",
        "      name: CLAUDE.md format",
        f"      entry: {HOOK_ID}",
        f"      args: {json.dumps(args)}",
        "      language: python",
        f"      additional_dependencies: {json.dumps([requirement])}",
        # Runs on every commit, so deleting CLAUDE.md is caught as well as editing it.
        "      pass_filenames: false",
        "      always_run: true",
    ]


def declares_hook(config: str) -> bool:
    """Whether a pre-commit configuration already declares the ``claude-md-check`` hook."""
    return _HOOK_DECLARED.search(config) is not None


def is_installed(checkout: Path) -> bool:
    """Whether the hook is declared and the guard workflow is there."""
    files = CheckoutFiles(checkout)
    return (
        files.is_file(PRE_COMMIT_CONFIG)
        and declares_hook(files.read_text(PRE_COMMIT_CONFIG, errors="replace", newline=None))
        and workflow_is_ours(checkout)
    )


def install(checkout: Path, rules: RuleSet) -> list[str]:
    """Add the hook to ``.pre-commit-config.yaml`` (created when absent) and the workflow."""
    written: list[str] = []
    files = CheckoutFiles(checkout)
    if files.is_file(PRE_COMMIT_CONFIG):
        source = files.read_text(PRE_COMMIT_CONFIG)
        if not declares_hook(source):
            files.write_text(PRE_COMMIT_CONFIG, splice_hook(source, rules))
            written.append(PRE_COMMIT_CONFIG)
    elif write_if_absent(checkout, PRE_COMMIT_CONFIG, splice_hook("", rules)):
        written.append(PRE_COMMIT_CONFIG)
    if write_if_absent(checkout, WORKFLOW, WORKFLOW_TEXT):
        written.append(WORKFLOW)
    warn_if_foreign_workflow(checkout)
    return written


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
    pad = " " * (2 if indent is None else indent)
    block = newline.join(pad + h for h in hook_lines(rules)) + newline
    head = "".join(lines[: last + 1])
    if not head.endswith("\n"):
        head += newline
    return head + block + "".join(lines[last + 1 :])
