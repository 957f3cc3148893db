"""AllowedPaths: the one path policy for every path a server reads or writes."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from mcp_common.result import ErrorCode, ToolError

WriteMode = Literal["replace", "append", "create"]
# "replace" truncates only once the opened file passed the checks (O_TRUNC would empty a file
# that is then refused: a second name of a file outside the roots, say)
_WRITE_FLAGS: dict[str, int] = {
    "replace": os.O_CREAT,
    "append": os.O_CREAT | os.O_APPEND,
    "create": os.O_CREAT | os.O_EXCL,
}
_EXECUTABLE = stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH


class PathRefusedError(ToolError):
    """A confined read or write refused; ``path`` is root-relative, ``reason`` names the rule."""

    def __init__(self, path: str, reason: str, code: ErrorCode) -> None:
        super().__init__(f"{path}: {reason}", code)
        self.path = path
        self.reason = reason


class AllowedPaths:
    """Confines client-supplied paths to one or more root directories.

    A path is accepted when its real path (every symlink resolved) equals a root or sits
    under one, compared component-wise (``/srv/code2`` is not under ``/srv/code``). ``..``
    segments are refused outright; relative paths resolve against the first root, never
    against the process's working directory.

    :meth:`read_bytes` and :meth:`write_bytes` are the one way to touch a file's content,
    under the same rule: they open the path one component at a time from its root with
    ``O_NOFOLLOW``; where a component is a symlink, the real path is resolved, checked and
    opened the same way, so a symlink swapped in between the check and the open is refused
    instead of followed. ``label`` names the roots in refusals (e.g. ``the checkout``);
    ``flag`` is the server option that sets them, named in an "outside" refusal so its reader
    knows how another directory is allowed.

    Hard links: a second name of a file is indistinguishable from the first, so a hard link
    made inside a root to a file outside it would pass every path check. A regular file with
    more than one link (``st_nlink > 1``) is therefore refused, for reading and writing alike,
    unless ``allow_hard_links`` (a server's ``--allow-hard-links``) says the roots hold none
    that matter. The check is made on the opened descriptor, so the file refused is the one
    that would have been read. Directories and the metadata of a walk (names, sizes) are not
    affected.
    """

    def __init__(
        self,
        roots: Sequence[str | os.PathLike[str]],
        *,
        label: str = "the allowed directories",
        flag: str | None = None,
        allow_hard_links: bool = False,
    ) -> None:
        if not roots:
            raise ValueError("at least one allowed directory is required")
        resolved: list[Path] = []
        for root in roots:
            real = Path(os.path.realpath(os.path.expanduser(os.fspath(root))))
            if not real.is_dir():
                raise ValueError(f"allowed directory does not exist or is not a directory: {root}")
            if real not in resolved:
                resolved.append(real)
        self._roots = tuple(resolved)
        self._root_texts = tuple(str(root) for root in resolved)
        self._label = label
        self._outside = f"outside {label}" + (
            f" (the server's {flag} option names them)" if flag else ""
        )
        self._allow_hard_links = allow_hard_links

    @classmethod
    def from_options(
        cls,
        directories: Sequence[str] | None,
        flag: str = "--allowed-dir",
        *,
        allow_hard_links: bool = False,
    ) -> AllowedPaths:
        """Roots from ``--allowed-dir`` values; the working directory when none are given."""
        roots = list(directories) if directories else [Path.cwd()]
        return cls(roots, flag=flag, allow_hard_links=allow_hard_links)

    @property
    def roots(self) -> tuple[Path, ...]:
        """The allowed roots, as real paths."""
        return self._roots

    def contains(self, real_path: Path) -> bool:
        """Whether an already resolved path lies inside one of the roots."""
        return any(real_path == root or real_path.is_relative_to(root) for root in self._roots)

    def resolve(self, path: str, *, must_exist: bool = True, kind: str | None = None) -> Path:
        """The real path of ``path`` if it is allowed; a :class:`ToolError` otherwise.

        ``kind`` may be ``"file"`` or ``"dir"`` to also require that type.
        """
        text = path.strip() if isinstance(path, str) else ""
        if not text:
            raise ToolError("path must not be blank", ErrorCode.INVALID_ARGUMENT)
        if "\x00" in text:
            raise ToolError("invalid path: it contains a NUL byte", ErrorCode.INVALID_ARGUMENT)
        candidate = Path(self._lexical(text))
        real = Path(os.path.realpath(candidate))
        if not self.contains(real):
            if self.contains(candidate):
                raise ToolError(
                    f"access denied: {text}: symlink leads outside {self._label}",
                    ErrorCode.ACCESS_DENIED,
                )
            raise ToolError(f"access denied: {text} is {self._outside}", ErrorCode.ACCESS_DENIED)
        if must_exist and not real.exists():
            raise ToolError(f"path does not exist: {text}", ErrorCode.NOT_FOUND)
        if kind == "file" and real.exists() and not real.is_file():
            raise ToolError(f"not a file: {text}", ErrorCode.INVALID_ARGUMENT)
        if real.is_file():
            refusal = self._hard_link_refusal(text, real.stat())
            if refusal is not None:
                raise refusal
        if kind == "dir" and real.exists() and not real.is_dir():
            raise ToolError(f"not a directory: {text}", ErrorCode.INVALID_ARGUMENT)
        return real

    def read_bytes(self, path: str | os.PathLike[str], *, max_bytes: int) -> bytes:
        """The content of the regular file at ``path``, at most ``max_bytes`` long.

        Raises :class:`PathRefusedError` (a :class:`ToolError`) when the file lies outside the
        roots (a symlink included), is not a regular file, has other hard links (see the
        class), is larger than ``max_bytes`` or cannot be read; the message names the path
        relative to its root and the rule.
        """
        shown, fd = self._open(path, os.O_RDONLY | os.O_NONBLOCK)
        try:
            info = self._regular_file(shown, fd)
            data = b""
            if info.st_size <= max_bytes:
                with os.fdopen(fd, "rb", closefd=False) as handle:
                    data = handle.read(info.st_size + 1)
                    if len(data) > info.st_size:  # it grew since fstat: read on to the limit
                        data += handle.read(max_bytes + 1 - len(data))
        finally:
            os.close(fd)
        if info.st_size > max_bytes or len(data) > max_bytes:
            raise PathRefusedError(
                shown, f"larger than the {max_bytes} byte limit", ErrorCode.INVALID_ARGUMENT
            )
        return data

    def open_descriptor(self, path: str | os.PathLike[str]) -> int:
        """A read-only descriptor of the regular file at ``path``, opened confined like
        :meth:`read_bytes`; the caller closes it.

        For readers that only take a name (DuckDB): handing them ``/proc/self/fd/<fd>`` makes
        every later open reach the very file that was checked, whatever is swapped in at
        ``path`` afterwards.
        """
        shown, fd = self._open(path, os.O_RDONLY | os.O_NONBLOCK)
        try:
            self._regular_file(shown, fd)
        except BaseException:
            os.close(fd)
            raise
        return fd

    def write_bytes(
        self,
        path: str | os.PathLike[str],
        data: bytes,
        *,
        mode: WriteMode = "replace",
        executable: bool = False,
    ) -> None:
        """Write ``data`` to the regular file at ``path`` inside the roots.

        ``mode`` is ``replace`` (create or truncate), ``append`` or ``create`` (refused when
        anything is already there). Missing parent directories are created, each confined
        like the file; ``executable`` adds the execute bits. Refusals as for :meth:`read_bytes`.
        """
        flags = os.O_WRONLY | os.O_NONBLOCK | _WRITE_FLAGS[mode]
        shown, fd = self._open(path, flags, make_parents=True)
        try:
            info = self._regular_file(shown, fd)
            if mode == "replace":
                os.ftruncate(fd, 0)
            with os.fdopen(fd, "wb", closefd=False) as handle:
                handle.write(data)
            if executable:
                os.fchmod(fd, stat.S_IMODE(info.st_mode) | _EXECUTABLE)
        finally:
            os.close(fd)

    def _regular_file(self, shown: str, fd: int) -> os.stat_result:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise PathRefusedError(shown, "not a regular file", ErrorCode.INVALID_ARGUMENT)
        refusal = self._hard_link_refusal(shown, info)
        if refusal is not None:
            raise refusal
        return info

    def _hard_link_refusal(self, shown: str, info: os.stat_result) -> PathRefusedError | None:
        if info.st_nlink <= 1 or self._allow_hard_links:
            return None
        return PathRefusedError(
            shown,
            f"the file has {info.st_nlink} hard links, and another name of it may lie outside "
            f"{self._label} (refused unless the server runs with --allow-hard-links)",
            ErrorCode.ACCESS_DENIED,
        )

    def _lexical(self, text: str) -> str:
        """``text`` made absolute against the first root; ``..`` refused. Plain string work,
        as this runs for every file a server reads."""
        candidate = os.path.expanduser(text)
        if ".." in candidate.split(os.sep):
            raise ToolError(
                f"access denied: '..' segments are not allowed in paths: {text}",
                ErrorCode.ACCESS_DENIED,
            )
        return (
            candidate if os.path.isabs(candidate) else os.path.join(self._root_texts[0], candidate)
        )

    def _open(
        self, path: str | os.PathLike[str], flags: int, *, make_parents: bool = False
    ) -> tuple[str, int]:
        """The path as refusals show it and a descriptor of the confined file.

        The common case costs no ``realpath``: the path as written is opened from its root
        without following any symlink. Only when a component is a symlink is the real path
        resolved, checked against the roots, and then opened the same way, so a symlink
        swapped in after that check is refused, not followed.
        """
        text = os.fspath(path)
        if not text.strip() or "\x00" in text:
            raise ToolError("invalid path: blank or a NUL byte", ErrorCode.INVALID_ARGUMENT)
        lexical = os.path.normpath(self._lexical(text))
        located = self._locate(lexical)
        shown = located[1] if located else os.path.basename(lexical)
        if located is not None:
            try:
                return shown, _open_beneath(*located, flags, make_parents=make_parents)
            except _SymlinkOnTheWayError:
                pass
            except OSError as error:
                raise _refusal(shown, error, self._label) from None
        real = self._real(lexical)
        if real in self._root_texts:
            raise PathRefusedError(shown, "not a regular file", ErrorCode.INVALID_ARGUMENT)
        inside = self._locate(real)
        if inside is None:
            reason = f"symlink leads outside {self._label}" if located else self._outside
            raise PathRefusedError(shown, reason, ErrorCode.ACCESS_DENIED)
        try:
            return shown, _open_beneath(*inside, flags, make_parents=make_parents)
        except _SymlinkOnTheWayError:
            raise PathRefusedError(
                shown,
                f"a symlink appeared after the check (it could lead outside {self._label})",
                ErrorCode.ACCESS_DENIED,
            ) from None
        except OSError as error:
            raise _refusal(shown, error, self._label) from None

    @staticmethod
    def _real(path: str) -> str:
        """The real path (a method of its own so a test can swap a symlink in right after)."""
        return os.path.realpath(path)

    def _locate(self, path: str) -> tuple[str, str] | None:
        """``(root, path relative to it)`` for a normalised absolute path strictly under a
        root (the deepest), else ``None``; plain string work, as this runs for every file."""
        best: tuple[str, str] | None = None
        for root in self._root_texts:
            prefix = root if root.endswith(os.sep) else root + os.sep
            if path.startswith(prefix) and (best is None or len(root) > len(best[0])):
                best = (root, path[len(prefix) :])
        return best

    def display(self, real_path: Path) -> str:
        """The path as a client should see it: relative to its root (``.`` for a root)."""
        for root in self._roots:
            if real_path == root:
                return "."
            if real_path.is_relative_to(root):
                return real_path.relative_to(root).as_posix()
        return real_path.name


class _SymlinkOnTheWayError(Exception):
    """A component of the path as written is a symlink: resolve it, then check again."""


def _open_beneath(root: str, relative: str, flags: int, *, make_parents: bool) -> int:
    """Open ``root/relative`` one component at a time from ``root``, following no symlink
    (``O_NOFOLLOW`` on each); a symlink met raises :class:`_SymlinkOnTheWayError`."""
    *parents, leaf = relative.split(os.sep)
    current = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in parents:
            if make_parents:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, dir_fd=current)
            following = _open_directory(part, current)
            os.close(current)
            current = following
        try:
            return os.open(leaf, flags | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666, dir_fd=current)
        except OSError as error:
            if error.errno == errno.ELOOP:
                raise _SymlinkOnTheWayError from None
            raise
    finally:
        os.close(current)


def _open_directory(name: str, parent: int) -> int:
    try:
        return os.open(
            name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent
        )
    except OSError as error:
        # Linux answers ENOTDIR, not ELOOP, for a symlink opened with O_DIRECTORY|O_NOFOLLOW
        if error.errno in (errno.ELOOP, errno.ENOTDIR) and stat.S_ISLNK(
            os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode
        ):
            raise _SymlinkOnTheWayError from None
        raise


def _refusal(shown: str, error: OSError, label: str) -> PathRefusedError:
    if error.errno == errno.ENOTDIR:
        return PathRefusedError(shown, "a parent is not a directory", ErrorCode.INVALID_ARGUMENT)
    if error.errno == errno.ENOENT:
        return PathRefusedError(shown, "does not exist", ErrorCode.NOT_FOUND)
    if error.errno == errno.EEXIST:
        return PathRefusedError(shown, "already exists", ErrorCode.CONFLICT)
    if error.errno in (errno.EISDIR, errno.ENXIO):
        return PathRefusedError(shown, "not a regular file", ErrorCode.INVALID_ARGUMENT)
    return PathRefusedError(
        shown, f"cannot be opened: {error.strerror or error}", ErrorCode.ACCESS_DENIED
    )
