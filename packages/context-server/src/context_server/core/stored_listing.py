"""A project's listing kept in the index store, trusted again after a restart by its stats.

A restarted server would otherwise walk the whole tree again (on 114,000 files, matching
every entry against the ignore patterns and stat-ing it through ``scandir``). Instead it
reads the listing the last process stored and checks it the way git checks its index: a
directory whose stat (modification time, change time, inode) is the one it had when it was
listed holds the same entries (adding, removing or renaming an entry changes a directory's
times), and every listed file is stat-ed afresh, so a file edited in place shows its new
size and times. A directory is listed again (see :func:`context_server.core.walk.refresh`)
when its stat changed, when it was modified within :data:`RACY_NS` of being listed (a
change just after its listing could have left the same stat), when it held a symlink or an
entry skipped with a problem, when its ``.gitignore`` changed, or when an entry it names is
gone or no longer a plain file or directory. A ``.gitignore`` above the project that changed
means the whole tree is walked. A file modified within :data:`RACY_NS` of its directory's
listing has its content checked again (the index compares its hash).

What a store holds is untrusted input: the stored listing only names entries. Every name is
checked (one path segment, no control character, sorted and unique as a walk lists them).
The names of a directory trusted by its stat are stat-ed where a walk would find them,
without following a symlink, and checked against what a walk leaves out (ignore patterns as
the ``.gitignore`` files say now, skipped folders, build output), up to the first that is
not as stored: the directory is then listed again. Those of a directory not trusted are not
looked at (its sub-directories are looked up in what it holds now), so checking a listing
costs what the tree holds, whatever the listing claims (see
:data:`~context_server.core.store.LISTING_BYTES` for its size). Nothing else of it (no
problem text, no real path) is taken. A store can still hide an entry of a directory whose
stat it knows, as a forged git index can: the store's directory is the user's own (see
:mod:`context_server.core.store`).
"""

from __future__ import annotations

import itertools
import operator
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path

import msgspec
from mcp_common import AllowedPaths

from context_server.core.walk import (
    BUILD_OUTPUT_DIRECTORIES,
    DirectoryEntry,
    DirectoryHook,
    FileEntry,
    Listing,
    Problem,
    ScannedDirectory,
    Spec,
    assembled,
    beside_build_file,
    compiled_ignore,
    inherited_ignore_lines,
    inherited_specs,
    left_out,
    lstat,
    read_gitignore,
    refresh,
    sort_key,
    stat_of,
)

RACY_NS = 2_000_000_000
"""How close to its listing a change leaves a directory's or file's stat in doubt (file
system clocks tick coarsely, some by seconds)."""
_NAME = re.compile(r"[^/\x00-\x1f\x7f]{1,255}")
_FORBIDDEN = bytes([*range(0x20), 0x7F, ord("/")])


class _Directory(msgspec.Struct, array_like=True, frozen=True, forbid_unknown_fields=True):
    """One listed directory: its stat when listed (None: list it again on a restart), its
    ``.gitignore``'s stat and lines, when it was listed, and what it held, by name."""

    stat: tuple[int, int, int] | None
    ignore_stat: tuple[int, int, int] | None
    listed_at: int
    ignore: list[str] | None
    directories: list[str]
    files: list[str]


class _Stored(msgspec.Struct, array_like=True, frozen=True, forbid_unknown_fields=True):
    """The ``.gitignore`` lines above the root as read, and every directory reached without
    a symlink, the root first, each followed by its sub-directories' (pre-order)."""

    inherited: list[list[str] | None]
    directories: list[_Directory]


_ENCODER = msgspec.msgpack.Encoder()
_DECODER = msgspec.msgpack.Decoder(_Stored)


def pack_listing(listing: Listing) -> bytes:
    """What the store keeps of ``listing`` (see the module)."""
    top = listing.directories.get("")
    if top is None:
        return b""
    stored: list[_Directory] = []
    stack = [(listing.root, top.real)]
    while stack:
        node, real = stack.pop()
        info = listing.directories.get(node.relative)
        trusted = info is not None and info.plain and info.real == real
        files = [item.name for item in node.files if item.real == f"{real}/{item.name}"]
        children = [
            (sub, f"{real}/{sub.name}")
            for sub in node.directories
            if (found := listing.directories.get(sub.relative)) is not None
            and found.real == f"{real}/{sub.name}"
        ]
        stored.append(
            _Directory(
                info.stat if trusted and info is not None else None,
                info.ignore_stat if info is not None else None,
                info.listed_at if info is not None else 0,
                list(info.ignore) if info is not None and info.ignore is not None else None,
                [sub.name for sub, _ in children],
                files,
            )
        )
        stack.extend(reversed(children))
    inherited = [None if lines is None else list(lines) for lines in listing.inherited]
    return _ENCODER.encode(_Stored(inherited, stored))


def restore_listing(
    data: bytes,
    root: Path,
    allowed: AllowedPaths,
    boundary: Path | None,
    check_cancelled: Callable[[], None] = lambda: None,
    on_directory: DirectoryHook | None = None,
    on_forget: Callable[[str], None] | None = None,
    manifests: frozenset[str] = frozenset(),
) -> tuple[Listing, set[str], int, bool] | None:
    """The listing of ``root`` from the stored ``data``, checked and brought up to date
    (see the module), with the files whose content must be checked again, how many
    directories were listed again, and whether the store should get the new listing (not
    when the directories listed again hold what was stored, e.g. one holding a symlink,
    which is listed again on every restart); None when the stored listing cannot serve
    (malformed, or a ``.gitignore`` above the root changed): the tree is then walked.

    ``on_directory`` is called with every directory before it is checked (a watcher
    watches it from then on), ``on_forget`` with every directory no longer listed;
    ``manifests`` are the file names listed even where ignored (see
    :func:`context_server.core.walk.walk_project`)."""
    try:
        stored = _DECODER.decode(data)
    except ValueError:
        return None
    problems: list[Problem] = []
    lines = inherited_ignore_lines(root, boundary, allowed, problems)
    kept = tuple(None if found is None else tuple(found) for found in stored.inherited)
    if problems or kept != lines or not stored.directories:
        return None
    top = DirectoryEntry(name=root.name or root.as_posix(), relative="")
    scanned: dict[str, ScannedDirectory] = {}
    changed: dict[str, bool] = {}
    touched: set[str] = set()
    entries = iter(stored.directories)
    stored_of: dict[str, _Directory] = {}
    # (node, the patterns in force above it, its real path, its parent; None: a directory
    # a walk leaves out, whose stored entries are passed over)
    stack: list[tuple[DirectoryEntry, tuple[Spec, ...], str, str] | None] = [
        (top, inherited_specs(root, boundary, lines, problems), str(root), "")
    ]
    count = 0
    while stack:
        count += 1
        if count % 1000 == 0:
            check_cancelled()
        item = stack.pop()
        entry = next(entries, None)
        if entry is None or not (_names_ok(entry.directories) and _names_ok(entry.files)):
            return None
        if item is None:
            stack.extend(None for _ in entry.directories)
            continue
        node, inherited, real, parent = item
        stored_of[node.relative] = entry
        if on_directory is not None:
            on_directory(real, node.relative)
        try:
            found = os.lstat(real)
            current = stat_of(found) if stat.S_ISDIR(found.st_mode) else None
        except OSError:
            current = None
        if current is None:
            # gone, or no plain directory any more: its parent lists what is there now
            changed[parent] = False
        # the .gitignore as it is now decides what is left out below (the stored lines
        # only say whether it changed)
        ignore_stat = lstat(f"{real}/.gitignore")
        lines_now = (
            None if ignore_stat is None else read_gitignore(real, allowed, problems, node.relative)
        )
        ignore = None if entry.ignore is None else tuple(entry.ignore)
        spec = compiled_ignore(lines_now, node.relative, problems)
        trusted = (
            entry.stat is not None
            and current == entry.stat
            and entry.stat[0] < entry.listed_at - RACY_NS
            and ignore_stat == entry.ignore_stat
            and ignore == lines_now
        )
        prefix = f"{node.relative}/" if node.relative else ""
        specs = inherited if spec is None else (*inherited, (node.relative, "", spec))
        scanned[node.relative] = ScannedDirectory(
            real, inherited, ignore, entry.stat, entry.ignore_stat, entry.listed_at, trusted
        )
        # Each name a directory trusted by its stat holds is stat-ed, up to the first that
        # is not as stored; a directory not trusted is listed again (the names of its files
        # are not even looked at, those of its sub-directories looked up in what it holds
        # now). So a forged listing costs at most what the tree holds, plus a set lookup
        # per name it adds.
        if trusted:
            trusted = _files_as_stored(entry, node, real, prefix, specs, manifests, touched)
        if trusted:
            trusted = all(_is_directory(f"{real}/{name}") for name in entry.directories)
        present = None if trusted else _subdirectories(real)
        builds: bool | None = None
        children: list[tuple[DirectoryEntry, tuple[Spec, ...], str, str] | None] = []
        for name in entry.directories:
            relative = prefix + name
            if present is not None and name not in present:
                children.append(None)  # gone: its parent is listed again
                continue
            if name in BUILD_OUTPUT_DIRECTORIES and builds is None:
                builds = beside_build_file(real)
            if left_out(name, relative, True, specs, manifests) or (
                builds and name in BUILD_OUTPUT_DIRECTORIES
            ):
                trusted = False
                children.append(None)
                continue
            sub = DirectoryEntry(name, relative)
            node.directories.append(sub)
            children.append((sub, specs, f"{real}/{name}", node.relative))
        stack.extend(reversed(children))
        if not trusted or problems:
            changed[node.relative] = False
            problems.clear()
    if next(entries, None) is not None:
        return None
    listing = assembled(top, scanned, lines)
    if not changed:
        return listing, touched, 0, False
    listing = refresh(
        listing, changed, allowed, check_cancelled, on_directory, on_forget, manifests
    )
    nodes = _nodes(listing)
    for relative in changed:
        # the files of a directory listed again: those changed close to the stored listing
        # may hold other content under the stat their row has
        listed, entry = nodes.get(relative), stored_of.get(relative)
        if listed is not None and entry is not None:
            racy = entry.listed_at - RACY_NS
            touched.update(item.relative for item in listed.files if item.mtime_ns >= racy)
    news = any(
        not _as_stored(listing, nodes.get(relative), stored_of.get(relative))
        for relative in changed
    )
    return listing, touched, len(changed), news


def _files_as_stored(
    entry: _Directory,
    node: DirectoryEntry,
    real: str,
    prefix: str,
    specs: tuple[Spec, ...],
    manifests: frozenset[str],
    touched: set[str],
) -> bool:
    """Whether the files ``entry`` names are there, plain files a walk lists, each added
    to ``node`` with its stat as it is now (those changed close to the stored listing to
    ``touched``); False at the first that is not."""
    racy = entry.listed_at - RACY_NS
    for name in entry.files:
        relative = prefix + name
        if left_out(name, relative, False, specs, manifests):
            return False
        path = f"{real}/{name}"
        try:
            info = os.lstat(path)
        except OSError:
            return False
        if not stat.S_ISREG(info.st_mode):
            return False
        node.files.append(
            FileEntry(relative, name, path, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
        )
        if info.st_mtime_ns >= racy:
            touched.add(relative)
    return True


def _is_directory(path: str) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _subdirectories(real: str) -> set[str]:
    """The names of the directories (not symlinks) in ``real`` as it is now."""
    try:
        with os.scandir(real) as entries:
            return {item.name for item in entries if item.is_dir(follow_symlinks=False)}
    except OSError:
        return set()


def _nodes(listing: Listing) -> dict[str, DirectoryEntry]:
    """Every directory node of ``listing`` by its relative path."""
    found: dict[str, DirectoryEntry] = {}
    stack = [listing.root]
    while stack:
        node = stack.pop()
        found[node.relative] = node
        stack.extend(node.directories)
    return found


def _as_stored(listing: Listing, node: DirectoryEntry | None, entry: _Directory | None) -> bool:
    """Whether the directory ``node`` of ``listing`` would be stored as ``entry`` is (but
    for when it was listed): untrusted by its stat, with the same names and
    ``.gitignore``."""
    if node is None or entry is None:
        return False
    info = listing.directories.get(node.relative)
    if info is None or info.plain or entry.stat is not None:
        return False
    files = [item.name for item in node.files if item.real == f"{info.real}/{item.name}"]
    directories = [
        sub.name
        for sub in node.directories
        if (below := listing.directories.get(sub.relative)) is not None
        and below.real == f"{info.real}/{sub.name}"
    ]
    ignore = None if info.ignore is None else list(info.ignore)
    return (files, directories, ignore, info.ignore_stat) == (
        entry.files,
        entry.directories,
        entry.ignore,
        entry.ignore_stat,
    )


def _names_ok(names: list[str]) -> bool:
    """Whether ``names`` are names a walk lists in one directory: each one path segment,
    without control characters, in the walk's order, each once."""
    if not names or "." in names or ".." in names:
        return not names
    joined = "\n".join(names)
    if joined.isascii():
        # the common case, checked for the whole directory at once: no forbidden byte (a
        # line break is one, but only between names), each name 1-255 long, and ASCII
        # orders the same by code point as by UTF-16 code unit (sort_key)
        data = joined.encode("ascii")
        return (
            len(data.translate(None, _FORBIDDEN)) == len(data) - len(names) + 1
            and min(map(len, names)) >= 1
            and max(map(len, names)) <= 255
            and all(map(operator.lt, names, itertools.islice(names, 1, None)))
        )
    if not all(_NAME.fullmatch(name) for name in names):
        return False
    keys = [sort_key(name) for name in names]
    return all(map(operator.lt, keys, itertools.islice(keys, 1, None)))
