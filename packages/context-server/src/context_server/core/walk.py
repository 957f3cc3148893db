"""The project walk: every file worth listing, confined to the allowed roots.

It honours ``.gitignore`` files (nested ones too), skips version-control, cache and
dependency folders and build output, never follows a symlink out of the allowed roots,
survives symlink loops, and reports what it skipped instead of failing. The files it reads
itself (``.gitignore``) are read through :meth:`AllowedPaths.read_bytes`, like every source
file, with a size limit.

Build output is recognised, not guessed from a name: ``target``, ``build`` or ``out`` is
skipped only next to a build file (``pom.xml``, ``build.gradle``, ``build.sbt``,
``pyproject.toml``…), so a source package such as ``org.springframework.aop.target`` stays.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pathspec
from mcp_common import AllowedPaths
from mcp_common.paths import PathRefusedError

SKIPPED_DIRECTORIES = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".bzr",
        "node_modules",
        ".venv",
        "venv",
        "__pycache__",
        ".gradle",
        ".idea",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".metals",
        ".bloop",
        ".bsp",
    }
)
# Folders that hold build output when a build file sits beside them.
BUILD_OUTPUT_DIRECTORIES = frozenset({"target", "build", "out"})
BUILD_FILES = frozenset(
    {
        "pom.xml",
        "build.gradle",
        "build.gradle.kts",
        "settings.gradle",
        "settings.gradle.kts",
        "build.sbt",
        "build.xml",
        "build.sc",
        "pyproject.toml",
        "setup.py",
        "setup.cfg",
    }
)
MAX_IGNORE_FILE_BYTES = 1024 * 1024


@dataclass(frozen=True, slots=True)
class FileEntry:
    """A listed file: its root-relative POSIX path, real path and stat signature."""

    relative: str
    name: str
    real: str
    size: int
    mtime_ns: int


@dataclass(slots=True)
class DirectoryEntry:
    """A listed directory with its sub-directories and files, each sorted by name."""

    name: str
    relative: str
    directories: list[DirectoryEntry] = field(default_factory=list)
    files: list[FileEntry] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Problem:
    """Something the walk or the indexer skipped, and why."""

    path: str
    reason: str


@dataclass(slots=True)
class Listing:
    """The result of a walk: the directory tree, a flat file list and the problems met."""

    root: DirectoryEntry
    files: list[FileEntry]
    problems: list[Problem]


def sort_key(name: str) -> bytes:
    """Case-sensitive UTF-16 code-unit order, the order the anchor lists names in."""
    return name.encode("utf-16-be")


# (directory it applies below, relative to the walk root; prefix that path needs; patterns)
_Spec = tuple[str, str, pathspec.GitIgnoreSpec]


def walk_project(
    root: Path,
    allowed: AllowedPaths,
    check_cancelled: Callable[[], None] = lambda: None,
    boundary: Path | None = None,
) -> Listing:
    """List ``root`` (a real directory path) without leaving the allowed roots.

    ``.gitignore`` files of the directories between ``boundary`` (the allowed root holding
    ``root``) and ``root`` apply too, as they do for git when a subdirectory is listed.
    """
    top = DirectoryEntry(name=root.name or root.as_posix(), relative="")
    files: list[FileEntry] = []
    problems: list[Problem] = []
    seen: set[str] = {str(root)}
    inherited = _inherited_gitignores(root, boundary, allowed, problems)
    stack: list[tuple[str, DirectoryEntry, tuple[_Spec, ...]]] = [(str(root), top, inherited)]
    while stack:
        check_cancelled()
        directory, node, specs = stack.pop()
        specs = _with_gitignore(directory, node.relative, specs, allowed, problems)
        try:
            with os.scandir(directory) as scanner:
                entries = sorted(scanner, key=lambda e: sort_key(e.name))
        except OSError as exc:
            problems.append(Problem(node.relative or ".", f"unreadable directory: {exc.strerror}"))
            continue
        pending: list[tuple[str, DirectoryEntry, tuple[_Spec, ...]]] = []
        builds = any(entry.name in BUILD_FILES for entry in entries)
        for entry in entries:
            relative = f"{node.relative}/{entry.name}" if node.relative else entry.name
            if builds and entry.name in BUILD_OUTPUT_DIRECTORIES and entry.is_dir():
                continue
            child = _classify(entry, relative, specs, allowed.contains, seen, problems)
            if child is None:
                continue
            real, is_dir = child
            if is_dir:
                sub = DirectoryEntry(name=entry.name, relative=relative)
                node.directories.append(sub)
                pending.append((real, sub, specs))
            else:
                stat = entry.stat() if real == entry.path else os.stat(real)
                item = FileEntry(relative, entry.name, real, stat.st_size, stat.st_mtime_ns)
                node.files.append(item)
                files.append(item)
        stack.extend(reversed(pending))
    return Listing(top, files, problems)


def _classify(
    entry: os.DirEntry[str],
    relative: str,
    specs: tuple[_Spec, ...],
    is_allowed: Callable[[Path], bool],
    seen: set[str],
    problems: list[Problem],
) -> tuple[str, bool] | None:
    try:
        is_dir = entry.is_dir()
        is_file = entry.is_file()
    except OSError:
        is_dir = is_file = False
    if is_dir and entry.name in SKIPPED_DIRECTORIES:
        return None
    if _ignored(relative, is_dir, specs):
        return None
    real = entry.path
    if entry.is_symlink():
        real = os.path.realpath(real)
        if not is_allowed(Path(real)):
            problems.append(Problem(relative, "symlink leads outside the allowed directories"))
            return None
        if not (is_dir or is_file):
            problems.append(Problem(relative, "broken symlink"))
            return None
    if is_dir:
        if real in seen:
            problems.append(
                Problem(relative, "directory already listed through another path (symlink)")
            )
            return None
        seen.add(real)
        return real, True
    if not is_file:
        return None
    return real, False


def _inherited_gitignores(
    root: Path, boundary: Path | None, allowed: AllowedPaths, problems: list[Problem]
) -> tuple[_Spec, ...]:
    if boundary is None or root == boundary or not root.is_relative_to(boundary):
        return ()
    parts = root.relative_to(boundary).parts
    specs: list[_Spec] = []
    for depth in range(len(parts)):
        spec = _read_gitignore(str(boundary.joinpath(*parts[:depth])), allowed, problems)
        if spec is not None:
            specs.append(("", "/".join(parts[depth:]) + "/", spec))
    return tuple(specs)


def _with_gitignore(
    directory: str,
    relative: str,
    specs: tuple[_Spec, ...],
    allowed: AllowedPaths,
    problems: list[Problem],
) -> tuple[_Spec, ...]:
    spec = _read_gitignore(directory, allowed, problems, relative)
    return specs if spec is None else (*specs, (relative, "", spec))


def _read_gitignore(
    directory: str, allowed: AllowedPaths, problems: list[Problem], relative: str = ""
) -> pathspec.GitIgnoreSpec | None:
    ignore_file = os.path.join(directory, ".gitignore")
    if not os.path.lexists(ignore_file):
        return None
    shown = f"{relative}/.gitignore".lstrip("/")
    try:
        data = allowed.read_bytes(ignore_file, max_bytes=MAX_IGNORE_FILE_BYTES)
    except PathRefusedError as exc:
        problems.append(Problem(shown, f"not used: {exc.reason}"))
        return None
    try:
        text = data.decode("utf-8", errors="replace")
        return pathspec.GitIgnoreSpec.from_lines(text.splitlines())
    except ValueError as exc:
        problems.append(Problem(shown, f"unusable: {exc}"))
        return None


def _ignored(relative: str, is_dir: bool, specs: tuple[_Spec, ...]) -> bool:
    for base, prefix, spec in specs:
        local = prefix + (relative[len(base) + 1 :] if base else relative)
        if spec.match_file(local + "/" if is_dir else local):
            return True
    return False


_TEST_FOLDERS = frozenset({"test", "tests", "testing", "testFixtures", "it", "integrationTest"})


def is_test_source(path: str) -> bool:
    """Whether ``path`` lies in a test source set (``src/test``, ``jvmTest``, ``tests``)."""
    folders = path.split("/")[:-1]
    return any(f in _TEST_FOLDERS or f.endswith(("Test", "Tests")) for f in folders)
