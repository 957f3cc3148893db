"""Change detection without walking the tree: inotify watches on the listed directories.

One inotify instance serves the whole process (the kernel allows 128 per user by default);
every directory a walk lists is watched just before it is listed, so a change after the
listing is always queued. The kernel queues an event before the system call that made the
change returns, so reading the queue at the start of a call sees every change finished
before the call: an answer is never stale (a file-watching library that batches events on
a thread of its own, with a debounce delay, could not promise that).

What the queue cannot be trusted for sends a project back to a full walk, with the reason
logged once: an overflowed queue (``IN_Q_OVERFLOW``), a watch limit reached (the system's
``fs.inotify.max_user_watches`` or the server's own), no inotify at all (another system,
or no instance left), the project directory itself moved or deleted. A file changed
through ``mmap`` or on a network file system sends no event: the bounded re-verification in
:mod:`context_server.core.index` catches those.
"""

from __future__ import annotations

import contextlib
import errno
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

if sys.platform == "linux":
    import inotify_simple

    _FLAGS = inotify_simple.flags
    _MASK = (
        _FLAGS.CREATE
        | _FLAGS.DELETE
        | _FLAGS.MODIFY
        | _FLAGS.CLOSE_WRITE
        | _FLAGS.MOVED_FROM
        | _FLAGS.MOVED_TO
        | _FLAGS.ATTRIB
        | _FLAGS.DELETE_SELF
        | _FLAGS.MOVE_SELF
        | _FLAGS.ONLYDIR
        | _FLAGS.DONT_FOLLOW
    )
    _DIRECTORY_CHANGED = _FLAGS.CREATE | _FLAGS.MOVED_TO | _FLAGS.ATTRIB
    _CONTENT_CHANGED = _FLAGS.MODIFY | _FLAGS.CLOSE_WRITE | _FLAGS.ATTRIB
    _SELF_GONE = _FLAGS.DELETE_SELF | _FLAGS.MOVE_SELF | _FLAGS.UNMOUNT

SYSTEM_LIMIT_FILE = Path("/proc/sys/fs/inotify/max_user_watches")


@dataclass(slots=True)
class Changes:
    """What changed in one project since its listing was last brought up to date.

    ``directories`` maps a root-relative directory to whether its whole subtree must be
    listed again (a new or replaced sub-directory, a changed ``.gitignore``) rather than
    its own entries only; ``files`` are files whose content may have changed (their stat
    may not show it); ``full`` is why nothing reported can be trusted (the project must be
    walked again), empty when the report is complete.
    """

    directories: dict[str, bool] = field(default_factory=dict)
    files: set[str] = field(default_factory=set)
    full: str = ""

    def __bool__(self) -> bool:
        return bool(self.directories or self.files or self.full)

    def directory(self, relative: str, whole: bool = False) -> None:
        """Note that ``relative`` (and, with ``whole``, everything under it) changed."""
        self.directories[relative] = self.directories.get(relative, False) or whole


class RootWatch:
    """The watches of one project root, and what they reported since the last :meth:`take`.

    ``failed`` is set (with the reason) when the watches cannot be trusted any more: the
    project is then walked on every call.
    """

    def __init__(self, watcher: Watcher, root: Path) -> None:
        self.root = root
        self.failed = ""
        self._watcher = watcher
        self._relative: dict[int, str] = {}
        self._by_relative: dict[str, int] = {}
        self._pending = Changes()

    def add(self, real: str, relative: str | None) -> None:
        """Watch the listed directory ``real`` (``relative`` to the root; None for a
        directory above the root whose ``.gitignore`` applies to it)."""
        if self.failed:
            return
        self._watcher.add(self, real, relative)

    def forget(self, relative: str) -> None:
        """Stop watching the directory ``relative`` (no longer listed)."""
        self._watcher.forget(self, relative)

    def take(self) -> Changes:
        """What was reported since the last call (the queue is read first)."""
        self._watcher.drain()
        with self._watcher.lock:
            pending, self._pending = self._pending, Changes()
        if self.failed and not pending.full:
            pending.full = self.failed
        return pending

    def reset(self) -> None:
        """Forget every watch of this root (before it is walked again from the start)."""
        self._watcher.release(self)
        self.failed = ""
        with self._watcher.lock:
            self._pending = Changes()

    def note(self, changes: Changes) -> None:
        """Add changes found another way (a verification walk) to what is pending."""
        with self._watcher.lock:
            for relative, whole in changes.directories.items():
                self._pending.directory(relative, whole)
            self._pending.files |= changes.files
            self._pending.full = self._pending.full or changes.full


class Watcher:
    """The process's inotify instance, shared by every project root.

    ``limit`` caps the watches this process places (default: half the system's
    ``max_user_watches``); a project that would pass it is walked on every call instead.
    Nothing is opened before the first :meth:`track`.
    """

    def __init__(self, limit: int | None = None) -> None:
        self.limit = limit
        self.lock = threading.RLock()
        self.unavailable = ""
        self._notify: inotify_simple.INotify | None = None
        # a directory inside two watched roots has one watch, reported to both
        self._owners: dict[int, dict[RootWatch, str | None]] = {}

    def track(self, root: Path) -> RootWatch:
        """A new watch set for ``root``; a failed one (with the reason) when inotify cannot
        be used here."""
        watch = RootWatch(self, root)
        with self.lock:
            if self._notify is None and not self.unavailable:
                self._open()
            if self.unavailable:
                watch.failed = self.unavailable
        return watch

    def _open(self) -> None:
        if sys.platform != "linux":
            self.unavailable = "no inotify on this system"
            return
        try:
            self._notify = inotify_simple.INotify(nonblocking=True)
        except OSError as exc:
            if exc.errno == errno.EMFILE:
                self.unavailable = (
                    "no inotify instance left (the system's fs.inotify.max_user_instances)"
                )
            else:
                self.unavailable = f"inotify unavailable ({exc.strerror or exc})"
            return
        if self.limit is None:
            # half the user's watches at most: editors and other tools need theirs
            self.limit = (system_watch_limit() or 16384) // 2

    def add(self, watch: RootWatch, real: str, relative: str | None) -> None:
        """Place (or share) the watch of ``real`` for ``watch``'s root."""
        with self.lock:
            notify = self._notify
            if notify is None or watch.failed:
                return
            if self.limit is not None and len(self._owners) >= self.limit:
                watch.failed = (
                    f"the project has more directories than the {self.limit} watches this "
                    "server may place"
                )
                return
            try:
                wd = notify.add_watch(real, _MASK)
            except OSError as exc:
                if exc.errno in {errno.ENOENT, errno.ENOTDIR, errno.EACCES}:
                    # gone, or unreadable: the walk lists nothing there (and says why); a
                    # change of its permissions is reported by its parent's watch
                    return
                if exc.errno == errno.ENOSPC:
                    watch.failed = (
                        "the system's inotify watch limit (fs.inotify.max_user_watches) is reached"
                    )
                else:
                    watch.failed = f"a directory cannot be watched ({exc.strerror or exc})"
                return
            self._owners.setdefault(wd, {})[watch] = relative
            if relative is not None:
                previous = watch._by_relative.get(relative)
                if previous is not None and previous != wd:
                    self._drop(watch, previous)
                watch._by_relative[relative] = wd
                watch._relative[wd] = relative

    def forget(self, watch: RootWatch, relative: str) -> None:
        """Stop reporting the directory ``relative`` to ``watch``."""
        with self.lock:
            wd = watch._by_relative.pop(relative, None)
            # a directory moved within the project keeps its watch under its new name
            if wd is not None and watch._relative.get(wd) == relative:
                del watch._relative[wd]
                self._drop(watch, wd)

    def release(self, watch: RootWatch) -> None:
        """Remove every watch of ``watch``'s root."""
        with self.lock:
            for wd in [wd for wd, owners in self._owners.items() if watch in owners]:
                self._drop(watch, wd)
            watch._relative.clear()
            watch._by_relative.clear()

    def _drop(self, watch: RootWatch, wd: int) -> None:
        owners = self._owners.get(wd)
        if owners is None:
            return
        owners.pop(watch, None)
        if not owners:
            del self._owners[wd]
            if self._notify is not None:
                # OSError: already gone with its directory
                with contextlib.suppress(OSError):
                    self._notify.rm_watch(wd)

    def drain(self) -> None:
        """Read every queued event and file it with the roots it concerns."""
        with self.lock:
            notify = self._notify
            if notify is None:
                return
            try:
                events = notify.read(timeout=0)
            except OSError as exc:
                reason = f"the watcher failed ({exc.strerror or exc})"
                for owners in self._owners.values():
                    for watch in owners:
                        watch._pending.full = reason
                return
            for event in events:
                self._file(event)

    def _file(self, event: inotify_simple.Event) -> None:
        mask = event.mask
        if mask & _FLAGS.Q_OVERFLOW:
            roots = {watch for owners in self._owners.values() for watch in owners}
            for watch in roots:
                watch._pending.full = "the watcher's event queue overflowed"
            return
        if mask & _FLAGS.IGNORED:
            # the watch is gone (its directory deleted, or removed here)
            for watch in self._owners.pop(event.wd, {}):
                relative = watch._relative.pop(event.wd, None)
                if relative is not None and watch._by_relative.get(relative) == event.wd:
                    del watch._by_relative[relative]
            return
        for watch, relative in self._owners.get(event.wd, {}).items():
            pending = watch._pending
            if relative is None:
                # a directory above the root: only its .gitignore matters
                if event.name == ".gitignore":
                    pending.full = pending.full or "a .gitignore above the project changed"
                continue
            if mask & _SELF_GONE:
                if not relative:
                    pending.full = "the project directory was moved or deleted"
                continue  # its parent's watch reports it
            if not event.name:
                continue
            child = f"{relative}/{event.name}" if relative else event.name
            if mask & _FLAGS.ISDIR:
                pending.directory(relative)
                if mask & _DIRECTORY_CHANGED:
                    pending.directory(child, whole=True)
            elif event.name == ".gitignore":
                pending.directory(relative, whole=True)
            else:
                pending.directory(relative)
                if mask & _CONTENT_CHANGED:
                    pending.files.add(child)

    def close(self) -> None:
        """Close the inotify instance (every watch goes with it)."""
        with self.lock:
            if self._notify is not None:
                self._notify.close()
                self._notify = None
            self._owners.clear()
            self.unavailable = "the watcher was closed"


def system_watch_limit() -> int | None:
    """The system's ``fs.inotify.max_user_watches`` (None where there is none)."""
    try:
        return int(SYSTEM_LIMIT_FILE.read_text(encoding="ascii").split()[0])
    except (OSError, ValueError, IndexError):
        return None
