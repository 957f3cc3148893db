"""The one way an adoption reads or writes a file inside a checkout.

A repository is anybody's content: its ``CLAUDE.md``, ``pom.xml`` or ``.github`` may be a
symlink to a file elsewhere on the machine. Every path goes through :class:`AllowedPaths`
rooted at the checkout, so a path whose real path (parents included) leaves the checkout is
refused ("symlink leads outside the checkout") and nothing is read or written there; files
are opened without following a symlink that appears after the check. A path leading into the
checkout's own ``.git`` directory is refused too: rewriting git's configuration or hooks
would let the repository run code on the next git command.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

from mcp_common import AllowedPaths, ErrorCode
from mcp_common.paths import PathRefusedError, WriteMode

MAX_FILE_BYTES = 4 * 1024 * 1024
"""The largest file an adoption reads (build files and Markdown are far smaller)."""


class CheckoutFiles:
    """The files of one checkout, each confined to it; paths are relative to the checkout."""

    def __init__(self, checkout: Path) -> None:
        self._paths = AllowedPaths([checkout], label="the checkout")
        self._git = self._paths.roots[0] / ".git"

    def real(self, relative: str) -> Path:
        """The real path of ``relative``; a :class:`PathRefusedError` when it leaves the
        checkout (through a symlink of the file or of a parent) or enters ``.git``."""
        if os.path.isabs(relative):
            raise PathRefusedError(
                relative, "not relative to the checkout", ErrorCode.INVALID_ARGUMENT
            )
        real = self._paths.resolve(relative, must_exist=False)
        if real == self._git or real.is_relative_to(self._git):
            raise PathRefusedError(
                relative,
                "symlink leads into the checkout's .git directory",
                ErrorCode.ACCESS_DENIED,
            )
        return real

    def exists(self, relative: str) -> bool:
        """Whether anything is at ``relative`` (a symlink inside the checkout counts, even a
        dangling one)."""
        self.real(relative)
        return os.path.lexists(self._paths.roots[0] / relative)

    def is_file(self, relative: str) -> bool:
        """Whether ``relative`` is a regular file (through symlinks inside the checkout)."""
        return self.real(relative).is_file()

    def read_bytes(self, relative: str) -> bytes:
        """The bytes of the regular file at ``relative`` (at most :data:`MAX_FILE_BYTES`)."""
        return self._paths.read_bytes(self.real(relative), max_bytes=MAX_FILE_BYTES)

    def read_text(self, relative: str, *, errors: str = "strict", newline: str | None = "") -> str:
        """The UTF-8 text at ``relative``; ``newline`` as for :func:`open` (``""`` keeps every
        line ending as it is, ``None`` reads them all as ``\\n``)."""
        data = self.read_bytes(relative)
        with io.TextIOWrapper(
            io.BytesIO(data), encoding="utf-8", errors=errors, newline=newline
        ) as text:
            return text.read()

    def write_bytes(
        self, relative: str, data: bytes, *, mode: WriteMode = "replace", executable: bool = False
    ) -> None:
        """Write ``data`` at ``relative``; missing parents are created inside the checkout."""
        self._paths.write_bytes(self.real(relative), data, mode=mode, executable=executable)

    def write_text(
        self, relative: str, text: str, *, mode: WriteMode = "replace", executable: bool = False
    ) -> None:
        """Write ``text`` as UTF-8, line endings as given."""
        self.write_bytes(relative, text.encode("utf-8"), mode=mode, executable=executable)

    def create_text(self, relative: str, text: str, *, executable: bool = False) -> bool:
        """Write ``text`` at ``relative`` unless something is already there; whether it did."""
        if self.exists(relative):
            return False
        self.write_text(relative, text, mode="create", executable=executable)
        return True

    def remove(self, relative: str) -> None:
        """Delete the file at ``relative`` (its real path, confined)."""
        os.unlink(self.real(relative))
