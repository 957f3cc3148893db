"""The repository's own style: indentation to splice with, and the formatters it declares.

A change a formatter check rejects fails the adopted repository's own CI, so the adoption
indents like the file it edits and, for every file it writes, finds the formatter the
repository declares for it (Spotless in Gradle or Maven, prettier, black or ruff-format through
pre-commit) so the pipeline can run it or warn.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from mcp_common import ToolError

from adopt_server.checkout_files import CheckoutFiles

_LEADING = re.compile(r"^[ \t]+(?=\S)", re.MULTILINE)
_BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
_SPOTLESS_GRADLE = re.compile(r"com\.diffplug\.spotless|\bspotless\s*\{")
_PRETTIER_FILES = (
    ".prettierrc",
    ".prettierrc.json",
    ".prettierrc.yaml",
    ".prettierrc.yml",
    ".prettierrc.js",
    ".prettierrc.cjs",
    ".prettierrc.mjs",
    ".prettierrc.toml",
    "prettier.config.js",
    "prettier.config.cjs",
    "prettier.config.mjs",
)
_PRETTIER_TYPES = (".yml", ".yaml", ".json", ".md", ".js", ".ts")
_HOOK_ID = re.compile(r"^[ \t]*(?:-[ \t]+)?id:[ \t]*[\"']?([\w.-]+)", re.MULTILINE)


def indent_unit(source: str, default: str = "    ") -> str:
    """The indentation step of a brace- or indentation-structured file: a tab when most
    indented lines start with one, else the most common difference between the indentation of
    consecutive indented lines, else ``default``."""
    leads = _LEADING.findall(_BLOCK_COMMENT.sub("", source))
    if not leads:
        return default
    if sum(1 for lead in leads if lead.startswith("\t")) * 2 > len(leads):
        return "\t"
    widths = [len(lead) for lead in leads if "\t" not in lead]
    steps: Counter[int] = Counter()
    previous = 0
    for width in widths:
        if width > previous:
            steps[width - previous] += 1
        previous = width
    if not steps:
        return default
    step = steps.most_common(1)[0][0]
    return " " * step if 1 < step <= 8 else default


def reindent(block: str, unit: str, written_with: str = "    ") -> str:
    """``block`` (indented with ``written_with`` per level) re-indented with ``unit``."""
    if unit == written_with:
        return block
    lines = []
    for line in block.split("\n"):
        stripped = line.lstrip(" ")
        levels, rest = divmod(len(line) - len(stripped), len(written_with))
        lines.append(unit * levels + " " * rest + stripped)
    return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class Formatter:
    """A formatter the repository declares for one file the adoption wrote.

    ``command`` formats just that file with a program found on the PATH (``None`` when the
    formatter only runs inside the build, like Spotless); ``advice`` says how to format it by
    hand when the command is missing or fails.
    """

    name: str
    path: str
    command: tuple[str, ...] | None
    advice: str


def _read(files: CheckoutFiles, relative: str) -> str:
    """The file's text, or "" when it is absent or cannot be read inside the checkout (a
    symlink leading out of it declares nothing)."""
    try:
        return files.read_text(relative, errors="replace") if files.is_file(relative) else ""
    except (ToolError, OSError):
        return ""


def _has(files: CheckoutFiles, relative: str) -> bool:
    try:
        return files.is_file(relative)
    except ToolError:
        return False


def _pre_commit_hooks(files: CheckoutFiles) -> set[str]:
    return set(_HOOK_ID.findall(_read(files, ".pre-commit-config.yaml")))


def _declares_prettier(files: CheckoutFiles, hooks: set[str]) -> bool:
    if "prettier" in hooks or any(_has(files, name) for name in _PRETTIER_FILES):
        return True
    try:
        manifest = json.loads(_read(files, "package.json") or "{}")
    except json.JSONDecodeError:
        return False
    return isinstance(manifest, dict) and (
        "prettier" in manifest
        or any(
            isinstance(deps, dict) and "prettier" in deps
            for deps in (manifest.get("devDependencies"), manifest.get("dependencies"))
        )
    )


def _gradle_spotless(files: CheckoutFiles, relative: str) -> Formatter | None:
    if not relative.endswith((".gradle", ".gradle.kts")):
        return None
    script = _read(files, relative)
    if not _SPOTLESS_GRADLE.search(script):
        return None
    kind = "kotlinGradle" if relative.endswith(".kts") else "groovyGradle"
    if kind not in script:
        return None
    engine = next((e for e in ("ktfmt", "ktlint", "greclipse") if e in script), "its formatter")
    wrapper = "./gradlew" if _has(files, "gradlew") else "gradle"
    return Formatter(
        f"Spotless ({engine})",
        relative,
        None,
        f"{relative} is checked by Spotless ({kind} with {engine}): run '{wrapper} "
        f"spotlessApply' on the branch before merging, or the repository's spotlessCheck "
        "may fail on the adoption's lines.",
    )


def _maven_spotless(files: CheckoutFiles, relative: str) -> Formatter | None:
    if relative != "pom.xml":
        return None
    pom = _read(files, relative)
    if "spotless-maven-plugin" not in pom or not re.search(r"<pom>|<sortPom", pom):
        return None
    return Formatter(
        "Spotless (sortPom)",
        relative,
        None,
        "pom.xml is formatted by Spotless (sortPom): run 'mvn spotless:apply' on the branch "
        "before merging, or the repository's spotless:check may fail on the adoption's lines.",
    )


def declared_formatters(checkout: Path, written: list[str]) -> list[Formatter]:
    """The formatters the repository declares for the files in ``written`` (relative
    paths), at most one per file, in ``written`` order."""
    files = CheckoutFiles(checkout)
    hooks = _pre_commit_hooks(files)
    prettier = _declares_prettier(files, hooks)
    found: list[Formatter] = []
    for relative in written:
        formatter = _gradle_spotless(files, relative) or _maven_spotless(files, relative)
        if formatter is None and prettier and relative.endswith(_PRETTIER_TYPES):
            formatter = Formatter(
                "prettier",
                relative,
                ("prettier", "--write", "--", relative),
                f"{relative} is formatted by prettier in this repository: run "
                f"'npx prettier --write {relative}' on the branch before merging.",
            )
        if formatter is None and relative.endswith(".py"):
            if "ruff-format" in hooks:
                formatter = Formatter(
                    "ruff-format",
                    relative,
                    ("ruff", "format", "--", relative),
                    f"{relative} is formatted by ruff-format (pre-commit): run 'ruff format "
                    f"{relative}' on the branch before merging.",
                )
            elif "black" in hooks:
                formatter = Formatter(
                    "black",
                    relative,
                    ("black", "--quiet", "--", relative),
                    f"{relative} is formatted by black (pre-commit): run 'black {relative}' "
                    "on the branch before merging.",
                )
        if formatter is not None:
            found.append(formatter)
    return found
