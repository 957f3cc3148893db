"""AllowedPaths: the one path policy for every client-supplied path."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from mcp_common.result import ErrorCode, ToolError


class AllowedPaths:
    """Confines client-supplied paths to one or more root directories.

    A path is accepted when its real path (every symlink resolved) equals a root or sits
    under one, compared component-wise (``/srv/code2`` is not under ``/srv/code``). ``..``
    segments are refused outright; relative paths resolve against the first root, never
    against the process's working directory.
    """

    def __init__(self, roots: Sequence[str | os.PathLike[str]]) -> None:
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
        candidate = Path(os.path.expanduser(text))
        if ".." in candidate.parts:
            raise ToolError(
                f"access denied: '..' segments are not allowed in paths: {text}",
                ErrorCode.ACCESS_DENIED,
            )
        if not candidate.is_absolute():
            candidate = self._roots[0] / candidate
        real = Path(os.path.realpath(candidate))
        if not self.contains(real):
            raise ToolError(
                f"access denied: {text} is outside the allowed directories",
                ErrorCode.ACCESS_DENIED,
            )
        if must_exist and not real.exists():
            raise ToolError(f"path does not exist: {text}", ErrorCode.NOT_FOUND)
        if kind == "file" and real.exists() and not real.is_file():
            raise ToolError(f"not a file: {text}", ErrorCode.INVALID_ARGUMENT)
        if kind == "dir" and real.exists() and not real.is_dir():
            raise ToolError(f"not a directory: {text}", ErrorCode.INVALID_ARGUMENT)
        return real

    def display(self, real_path: Path) -> str:
        """The path as a client should see it: relative to its root (``.`` for a root)."""
        for root in self._roots:
            if real_path == root:
                return "."
            if real_path.is_relative_to(root):
                return real_path.relative_to(root).as_posix()
        return real_path.name
