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
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import msgspec
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


class FileEntry(msgspec.Struct, frozen=True, gc=False):
    """A listed file: its root-relative POSIX path, real path and stat signature (the
    change time too, which no tool can set: a file rewritten with its old size and
    modification time, e.g. by an archive, still differs there)."""

    # a msgspec struct outside the collector (it holds no container): made for each of
    # 100,000 files on every walk or restart, where a frozen dataclass costs ten times more

    relative: str
    name: str
    real: str
    size: int
    mtime_ns: int
    ctime_ns: int


@dataclass(frozen=True, slots=True)
class Problem:
    """Something the walk or the indexer skipped, and why."""

    path: str
    reason: str


@dataclass(slots=True)
class DirectoryEntry:
    """A listed directory with its sub-directories and files, each sorted by name, and the
    problems met while listing it (a child skipped, its own ``.gitignore`` unusable)."""

    name: str
    relative: str
    directories: list[DirectoryEntry] = field(default_factory=list)
    files: list[FileEntry] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


# (directory it applies below, relative to the walk root; prefix that path needs; patterns)
Spec = tuple[str, str, pathspec.GitIgnoreSpec]


Stat = tuple[int, int, int]
"""What says a directory or file changed: modification time, change time, inode (ns)."""


@dataclass(frozen=True, slots=True)
class ScannedDirectory:
    """What listing one directory again needs: its real path, the ignore patterns in force
    above it, and the lines of its own ``.gitignore`` when it was listed (None: none).

    For a restart to trust a stored listing (see :func:`restore`): the directory's
    :data:`Stat` and its ``.gitignore``'s when it was listed, the wall-clock time
    (``time.time_ns``) just before, and whether what it holds can be told by its stat at
    all (``plain``: no symlink, nothing skipped with a problem).
    """

    real: str
    inherited: tuple[Spec, ...]
    ignore: tuple[str, ...] | None
    stat: Stat | None = None
    ignore_stat: Stat | None = None
    listed_at: int = 0
    plain: bool = False


@dataclass(slots=True)
class Listing:
    """The result of a walk: the directory tree, a flat file list, the problems met, and
    every listed directory by its relative path (``""`` is the root), so that a change can
    be followed by listing only the directories it touched (:func:`refresh`)."""

    root: DirectoryEntry
    files: list[FileEntry]
    problems: list[Problem]
    directories: dict[str, ScannedDirectory] = field(default_factory=dict)
    # the lines of each .gitignore between the boundary and the root (None: none), as read
    inherited: tuple[tuple[str, ...] | None, ...] = ()
    _by_path: dict[str, FileEntry] | None = None

    def entry(self, relative: str) -> FileEntry | None:
        """The listed file at ``relative``, if any."""
        if self._by_path is None:
            self._by_path = {item.relative: item for item in self.files}
        return self._by_path.get(relative)


def stat_of(info: os.stat_result) -> Stat:
    """The :data:`Stat` of a stat result."""
    return (info.st_mtime_ns, info.st_ctime_ns, info.st_ino)


def lstat(path: str) -> Stat | None:
    """The :data:`Stat` of ``path`` itself (a symlink's own), None if it is gone."""
    try:
        return stat_of(os.lstat(path))
    except OSError:
        return None


def sort_key(name: str) -> bytes:
    """Case-sensitive UTF-16 code-unit order, the order the anchor lists names in."""
    return name.encode("utf-16-be")


DirectoryHook = Callable[[str, str], None]
"""Called with a directory's real and relative path just before it is listed (a watcher
starts watching it there, so nothing that changes after the listing goes unseen)."""


def walk_project(
    root: Path,
    allowed: AllowedPaths,
    check_cancelled: Callable[[], None] = lambda: None,
    boundary: Path | None = None,
    on_directory: DirectoryHook | None = None,
    manifests: frozenset[str] = frozenset(),
) -> Listing:
    """List ``root`` (a real directory path) without leaving the allowed roots.

    ``.gitignore`` files of the directories between ``boundary`` (the allowed root holding
    ``root``) and ``root`` apply too, as they do for git when a subdirectory is listed.
    Files named in ``manifests`` (``package.json``…) are listed even where a pattern
    matches them: git ignores no tracked file, and a module manifest is tracked (a
    monorepo package's ``.gitignore`` may well say ``**/package.json`` for build output).
    """
    top = DirectoryEntry(name=root.name or root.as_posix(), relative="")
    lines = inherited_ignore_lines(root, boundary, allowed, top.problems)
    inherited = inherited_specs(root, boundary, lines, top.problems)
    walker = _Walker(allowed, check_cancelled, on_directory, {}, {str(root)}, manifests)
    walker.walk(str(root), top, inherited)
    return assembled(top, walker.scanned, lines)


def refresh(
    listing: Listing,
    changed: Mapping[str, bool],
    allowed: AllowedPaths,
    check_cancelled: Callable[[], None] = lambda: None,
    on_directory: DirectoryHook | None = None,
    on_forget: Callable[[str], None] | None = None,
    manifests: frozenset[str] = frozenset(),
) -> Listing:
    """``listing`` after the directories ``changed`` (relative path -> whether its whole
    subtree must be listed again) changed: those directories are listed again, a new
    sub-directory is walked, a gone one forgotten, and the rest is kept as it was.

    A directory whose ``.gitignore`` changed has its whole subtree listed again. The given
    listing is left untouched (answers being rendered from it stay consistent).
    ``on_forget`` is called with the relative path of every directory no longer listed.
    """
    known = listing.directories
    targets: dict[str, bool] = {}
    for relative, whole in changed.items():
        # a directory not listed (new, or under one that is gone): its parent lists it
        while relative not in known and relative:
            relative, whole = relative.rpartition("/")[0], False
        targets[relative] = targets.get(relative, False) or whole
    # nothing below a directory listed whole again needs listing on its own (compared with
    # those only: a restart may list thousands of directories again, none of them whole)
    wholes = [other for other, other_whole in targets.items() if other_whole]
    targets = {
        relative: whole
        for relative, whole in targets.items()
        if not any(other != relative and _below(relative, other) for other in wholes)
    }
    touched = {""}
    for relative in targets:
        parts = relative.split("/") if relative else []
        touched.update("/".join(parts[:n]) for n in range(1, len(parts) + 1))
    scanned = dict(known)
    seen = {info.real for info in known.values()}
    walker = _Walker(allowed, check_cancelled, on_directory, scanned, seen, manifests)

    def forget(node: DirectoryEntry) -> None:
        stack = [node]
        while stack:
            current = stack.pop()
            info = scanned.pop(current.relative, None)
            if info is not None:
                seen.discard(info.real)
                if on_forget is not None:
                    on_forget(current.relative)
            stack.extend(current.directories)

    def copy(node: DirectoryEntry) -> DirectoryEntry:
        if node.relative not in touched:
            return node
        whole = targets.get(node.relative)
        if whole is None:
            return DirectoryEntry(
                node.name,
                node.relative,
                [copy(child) for child in node.directories],
                node.files,
                node.problems,
            )
        info = known[node.relative]
        fresh = DirectoryEntry(node.name, node.relative)
        if whole:
            for child in node.directories:
                forget(child)
            walker.walk(info.real, fresh, info.inherited)
            return fresh
        for child in node.directories:
            seen.discard(known[child.relative].real)
        pending = walker.scan(info.real, fresh, info.inherited)
        ignore_changed = scanned[node.relative].ignore != info.ignore
        before = {child.relative: child for child in node.directories}
        same = fresh.files == node.files and fresh.problems == node.problems
        same = same and [d.relative for d in fresh.directories] == list(before)
        for position, (real, sub, specs) in enumerate(pending):
            old = before.pop(sub.relative, None)
            if old is not None and not ignore_changed and known[old.relative].real == real:
                kept = copy(old)
                same = same and kept is old
                fresh.directories[position] = kept
                continue
            same = False
            if old is not None:
                forget(old)
            walker.walk(real, sub, specs)
        for old in before.values():
            forget(old)
        # unchanged (a file ignored or not listed changed): the old node, so that an
        # unchanged tree keeps its identity and nothing is indexed again
        return node if same else fresh

    top = copy(listing.root)
    return listing if top is listing.root else assembled(top, scanned, listing.inherited)


def _below(relative: str, ancestor: str) -> bool:
    return not ancestor or relative.startswith(ancestor + "/")


def assembled(
    top: DirectoryEntry,
    scanned: dict[str, ScannedDirectory],
    inherited: tuple[tuple[str, ...] | None, ...] = (),
) -> Listing:
    """The listing of the tree under ``top``: files and problems in walk order (a
    directory's own files first, then its sub-directories', depth first)."""
    files: list[FileEntry] = []
    problems: list[Problem] = []
    stack = [top]
    while stack:
        node = stack.pop()
        problems.extend(node.problems)
        files.extend(node.files)
        stack.extend(reversed(node.directories))
    return Listing(top, files, problems, scanned, inherited)


@dataclass(slots=True)
class _Walker:
    allowed: AllowedPaths
    check_cancelled: Callable[[], None]
    on_directory: DirectoryHook | None
    scanned: dict[str, ScannedDirectory]
    # real paths of the listed directories (a symlink loop or a second path is refused)
    seen: set[str]
    # file names listed even where an ignore pattern matches them
    manifests: frozenset[str] = frozenset()

    def walk(
        self,
        real: str,
        node: DirectoryEntry,
        inherited: tuple[Spec, ...],
    ) -> None:
        """List the directory ``real`` into ``node``, and everything below it."""
        stack = [(real, node, inherited)]
        while stack:
            self.check_cancelled()
            directory, current, specs = stack.pop()
            if self.on_directory is not None:
                self.on_directory(directory, current.relative)
            stack.extend(reversed(self.scan(directory, current, specs)))

    def scan(
        self, directory: str, node: DirectoryEntry, inherited: tuple[Spec, ...]
    ) -> list[tuple[str, DirectoryEntry, tuple[Spec, ...]]]:
        """List the entries of ``directory`` into ``node`` (empty), recording it; return its
        sub-directories to list, with the ignore patterns in force for them."""
        listed_at = time.time_ns()
        try:
            own = stat_of(os.stat(directory))
        except OSError:
            own = None
        lines = read_gitignore(directory, self.allowed, node.problems, node.relative)
        ignore_stat = lstat(os.path.join(directory, ".gitignore")) if lines is not None else None
        spec = compiled_ignore(lines, node.relative, node.problems)
        specs = inherited if spec is None else (*inherited, (node.relative, "", spec))
        try:
            with os.scandir(directory) as scanner:
                entries = sorted(scanner, key=lambda e: sort_key(e.name))
        except FileNotFoundError:
            # removed since its parent was listed: nothing in it, and no problem to report
            # (the parent's watch, or the next walk, drops it from the listing)
            self.scanned[node.relative] = ScannedDirectory(directory, inherited, lines)
            return []
        except OSError as exc:
            node.problems.append(
                Problem(node.relative or ".", f"unreadable directory: {exc.strerror}")
            )
            self.scanned[node.relative] = ScannedDirectory(directory, inherited, lines)
            return []
        pending: list[tuple[str, DirectoryEntry, tuple[Spec, ...]]] = []
        builds = any(entry.name in BUILD_FILES for entry in entries)
        plain = not node.problems
        for entry in entries:
            relative = f"{node.relative}/{entry.name}" if node.relative else entry.name
            if builds and entry.name in BUILD_OUTPUT_DIRECTORIES and entry.is_dir():
                continue
            child = _classify(
                entry,
                relative,
                specs,
                self.allowed.contains,
                self.seen,
                node.problems,
                self.manifests,
            )
            if child is None:
                continue
            real, is_dir = child
            plain = plain and real == entry.path
            if is_dir:
                sub = DirectoryEntry(name=entry.name, relative=relative)
                node.directories.append(sub)
                pending.append((real, sub, specs))
            else:
                try:
                    stat = entry.stat() if real == entry.path else os.stat(real)
                except OSError:
                    continue  # gone since it was listed
                node.files.append(
                    FileEntry(
                        relative,
                        entry.name,
                        real,
                        stat.st_size,
                        stat.st_mtime_ns,
                        stat.st_ctime_ns,
                    )
                )
        plain = plain and not node.problems
        self.scanned[node.relative] = ScannedDirectory(
            directory, inherited, lines, own, ignore_stat, listed_at, plain
        )
        return pending


def _classify(
    entry: os.DirEntry[str],
    relative: str,
    specs: tuple[Spec, ...],
    is_allowed: Callable[[Path], bool],
    seen: set[str],
    problems: list[Problem],
    manifests: frozenset[str] = frozenset(),
) -> tuple[str, bool] | None:
    try:
        is_dir = entry.is_dir()
        is_file = entry.is_file()
    except OSError:
        is_dir = is_file = False
    if left_out(entry.name, relative, is_dir, specs, manifests if is_file else frozenset()):
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


def inherited_ignore_lines(
    root: Path, boundary: Path | None, allowed: AllowedPaths, problems: list[Problem]
) -> tuple[tuple[str, ...] | None, ...]:
    """The lines of each ``.gitignore`` between ``boundary`` and ``root`` (see
    :func:`inherited_ignore_directories`), None where there is none."""
    return tuple(
        read_gitignore(directory, allowed, problems)
        for directory in inherited_ignore_directories(root, boundary)
    )


def inherited_specs(
    root: Path,
    boundary: Path | None,
    lines: tuple[tuple[str, ...] | None, ...],
    problems: list[Problem],
) -> tuple[Spec, ...]:
    """The patterns of the ``.gitignore`` files above ``root`` (their ``lines``), each
    applying to ``root``'s paths with the folders between them prefixed."""
    if not lines or boundary is None:
        return ()
    parts = root.relative_to(boundary).parts
    specs: list[Spec] = []
    for depth, found in enumerate(lines):
        spec = compiled_ignore(found, "", problems)
        if spec is not None:
            specs.append(("", "/".join(parts[depth:]) + "/", spec))
    return tuple(specs)


def inherited_ignore_directories(root: Path, boundary: Path | None) -> list[str]:
    """The directories between ``boundary`` and ``root`` whose ``.gitignore`` applies to
    the walk of ``root`` (a watcher watches them for that file)."""
    if boundary is None or root == boundary or not root.is_relative_to(boundary):
        return []
    parts = root.relative_to(boundary).parts
    return [str(boundary.joinpath(*parts[:depth])) for depth in range(len(parts))]


def read_gitignore(
    directory: str, allowed: AllowedPaths, problems: list[Problem], relative: str = ""
) -> tuple[str, ...] | None:
    """The lines of ``directory``'s ``.gitignore``, read confined (None: none, or unusable)."""
    ignore_file = os.path.join(directory, ".gitignore")
    if not os.path.lexists(ignore_file):
        return None
    shown = f"{relative}/.gitignore".lstrip("/")
    try:
        data = allowed.read_bytes(ignore_file, max_bytes=MAX_IGNORE_FILE_BYTES)
    except PathRefusedError as exc:
        problems.append(Problem(shown, f"not used: {exc.reason}"))
        return None
    return tuple(data.decode("utf-8", errors="replace").splitlines())


def compiled_ignore(
    lines: tuple[str, ...] | None, relative: str, problems: list[Problem]
) -> pathspec.GitIgnoreSpec | None:
    """The patterns of a ``.gitignore`` of the directory ``relative`` (None: none, or
    unusable, which is reported in ``problems``)."""
    if lines is None:
        return None
    try:
        # RE2 named, not left to pathspec's choice: its fallback translates globs to
        # backtracking regular expressions, and a hostile line (``*a*a*…a!``) never ends.
        return pathspec.GitIgnoreSpec.from_lines(lines, backend="re2")
    except ValueError as exc:
        shown = f"{relative}/.gitignore".lstrip("/")
        problems.append(Problem(shown, f"unusable: {exc}"))
        return None


def left_out(
    name: str, relative: str, is_dir: bool, specs: tuple[Spec, ...], manifests: frozenset[str]
) -> bool:
    """Whether a walk leaves out the directory (``is_dir``) or file ``name`` at
    ``relative`` whatever it holds: a skipped folder, or an ignored entry (a manifest file
    is never ignored). Build output is told by its neighbours (see :func:`beside_build_file`)."""
    if is_dir:
        return name in SKIPPED_DIRECTORIES or _ignored(relative, True, specs)
    return name not in manifests and _ignored(relative, False, specs)


def beside_build_file(directory: str) -> bool:
    """Whether ``directory`` holds a build file (its ``target``, ``build`` or ``out`` is
    then build output)."""
    return any(os.path.lexists(os.path.join(directory, name)) for name in BUILD_FILES)


def _ignored(relative: str, is_dir: bool, specs: tuple[Spec, ...]) -> bool:
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
