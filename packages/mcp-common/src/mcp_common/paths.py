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
_WRITE_FLAGS: dict[str, int] = {
    "replace": os.O_CREAT | os.O_TRUNC,
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

    :meth:`read_bytes` and :meth:`write_bytes` are the one way to touch a file's content:
    after the check they open the real path one component at a time from the root with
    ``O_NOFOLLOW``, so a symlink swapped in between the check and the open is refused instead
    of followed. ``label`` names the roots in refusals (e.g. ``the checkout``).
    """

    def __init__(
        self,
        roots: Sequence[str | os.PathLike[str]],
        *,
        label: str = "the allowed directories",
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
        self._label = label

    @classmethod
    def from_options(cls, directories: Sequence[str] | None) -> AllowedPaths:
        """Roots from ``--allowed-dir`` values; the working directory when none are given."""
        return cls(list(directories) if directories else [Path.cwd()])

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
        candidate = self._lexical(text)
        real = Path(os.path.realpath(candidate))
        if not self.contains(real):
            if self.contains(candidate):
                raise ToolError(
                    f"access denied: {text}: symlink leads outside {self._label}",
                    ErrorCode.ACCESS_DENIED,
                )
            raise ToolError(
                f"access denied: {text} is outside {self._label}", ErrorCode.ACCESS_DENIED
            )
        if must_exist and not real.exists():
            raise ToolError(f"path does not exist: {text}", ErrorCode.NOT_FOUND)
        if kind == "file" and real.exists() and not real.is_file():
            raise ToolError(f"not a file: {text}", ErrorCode.INVALID_ARGUMENT)
        if kind == "dir" and real.exists() and not real.is_dir():
            raise ToolError(f"not a directory: {text}", ErrorCode.INVALID_ARGUMENT)
        return real

    def read_bytes(self, path: str | os.PathLike[str], *, max_bytes: int) -> bytes:
        """The content of the regular file at ``path``, at most ``max_bytes`` long.

        Raises :class:`PathRefusedError` (a :class:`ToolError`) when the file lies outside the
        roots (a symlink included), is not a regular file, is larger than ``max_bytes`` or
        cannot be read; the message names the path relative to its root and the rule.
        """
        shown, real = self._confine(path)
        fd = self._open_beneath(shown, real, os.O_RDONLY | os.O_NONBLOCK)
        try:
            info = _regular_file(shown, fd)
            with os.fdopen(fd, "rb", closefd=False) as handle:
                data = handle.read(max_bytes + 1) if info.st_size <= max_bytes else b""
        finally:
            os.close(fd)
        if info.st_size > max_bytes or len(data) > max_bytes:
            raise PathRefusedError(
                shown, f"larger than the {max_bytes} byte limit", ErrorCode.INVALID_ARGUMENT
            )
        return data

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
        shown, real = self._confine(path)
        flags = os.O_WRONLY | os.O_NONBLOCK | _WRITE_FLAGS[mode]
        fd = self._open_beneath(shown, real, flags, make_parents=True)
        try:
            info = _regular_file(shown, fd)
            with os.fdopen(fd, "wb", closefd=False) as handle:
                handle.write(data)
            if executable:
                os.fchmod(fd, stat.S_IMODE(info.st_mode) | _EXECUTABLE)
        finally:
            os.close(fd)

    def _lexical(self, text: str) -> Path:
        candidate = Path(os.path.expanduser(text))
        if ".." in candidate.parts:
            raise ToolError(
                f"access denied: '..' segments are not allowed in paths: {text}",
                ErrorCode.ACCESS_DENIED,
            )
        return candidate if candidate.is_absolute() else self._roots[0] / candidate

    def _confine(self, path: str | os.PathLike[str]) -> tuple[str, Path]:
        """The path as shown in refusals and its real path, refused when outside the roots."""
        text = os.fspath(path)
        if not text.strip() or "\x00" in text:
            raise ToolError("invalid path: blank or a NUL byte", ErrorCode.INVALID_ARGUMENT)
        candidate = Path(os.path.normpath(self._lexical(text)))
        shown = self.display(candidate)
        real = Path(os.path.realpath(candidate))
        if not self.contains(real):
            reason = (
                f"symlink leads outside {self._label}"
                if self.contains(candidate)
                else f"outside {self._label}"
            )
            raise PathRefusedError(shown, reason, ErrorCode.ACCESS_DENIED)
        if real in self._roots:
            raise PathRefusedError(shown, "not a regular file", ErrorCode.INVALID_ARGUMENT)
        return shown, real

    def _open_beneath(
        self, shown: str, real: Path, flags: int, *, make_parents: bool = False
    ) -> int:
        """Open ``real`` (already checked) from its root one component at a time, never
        following a symlink: one that appeared since the check is refused, not followed."""
        root = max((r for r in self._roots if real.is_relative_to(r)), key=lambda r: len(r.parts))
        *parents, leaf = real.relative_to(root).parts
        try:
            current = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            try:
                for part in parents:
                    if make_parents:
                        with contextlib.suppress(FileExistsError):
                            os.mkdir(part, dir_fd=current)
                    following = _open_directory(part, current)
                    os.close(current)
                    current = following
                return os.open(leaf, flags | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666, dir_fd=current)
            finally:
                os.close(current)
        except OSError as error:
            raise _refusal(shown, error, self._label) from None

    def display(self, real_path: Path) -> str:
        """The path as a client should see it: relative to its root (``.`` for a root)."""
        for root in self._roots:
            if real_path == root:
                return "."
            if real_path.is_relative_to(root):
                return real_path.relative_to(root).as_posix()
        return real_path.name


def _open_directory(name: str, parent: int) -> int:
    try:
        return os.open(
            name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent
        )
    except NotADirectoryError:
        # Linux answers ENOTDIR, not ELOOP, for a symlink opened with O_DIRECTORY|O_NOFOLLOW
        if stat.S_ISLNK(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode):
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP)) from None
        raise


def _regular_file(shown: str, fd: int) -> os.stat_result:
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise PathRefusedError(shown, "not a regular file", ErrorCode.INVALID_ARGUMENT)
    return info


def _refusal(shown: str, error: OSError, label: str) -> PathRefusedError:
    if error.errno == errno.ELOOP:
        return PathRefusedError(
            shown, f"symlink refused (it could lead outside {label})", ErrorCode.ACCESS_DENIED
        )
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
