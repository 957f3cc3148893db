"""How the agent-configuration checker reads a project: confined, bounded, never executing.

Every path the rules see is relative to the project root, written with ``/``. A file or a
directory whose real location is outside the root (a symbolic link pointing out, or a ``..``
import) is never opened; the rules report it instead. Reads stop at :data:`MAX_READ_BYTES`, so
a huge or binary file costs one bounded read and becomes a finding, not a crash.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from agent_config_check.budget import MatchBudget
from agent_config_check.markdown import BOM

MAX_READ_BYTES = 1024 * 1024
"""The most any one file is read; a larger file is reported, not loaded."""


@dataclass(frozen=True)
class FileText:
    """What reading one project file gave: its text, or why there is none."""

    path: str
    text: str | None
    problem: str | None = None


class ProjectTree:
    """The files of one project directory, read safely (see the module docstring)."""

    def __init__(self, root: Path) -> None:
        """Read the project at ``root`` (resolved once, so every check compares real paths)."""
        self.root = root.resolve()
        self._root_text = str(self.root)
        self._texts: dict[str, FileText] = {}
        self._reals: dict[str, Path | None] = {}
        self.derived: dict[tuple[str, str], object] = {}
        """What rules compute from a file (parsed front matter, imports), kept for the run."""
        self.budget = MatchBudget()
        """The steps the run's matching of repository-written patterns and globs may take."""

    def real(self, relative: str) -> Path | None:
        """The real location of ``relative``, or ``None`` when it lies outside the project."""
        if relative in self._reals:
            return self._reals[relative]
        try:
            resolved = os.path.realpath(os.path.join(self._root_text, relative))
        except (OSError, ValueError):
            resolved = ""
        inside = resolved == self._root_text or resolved.startswith(self._root_text + os.sep)
        found = Path(resolved) if inside else None
        self._reals[relative] = found
        return found

    def resolve(self, base: str, relative: str) -> str | None:
        """``relative`` (a link or a ``./x`` path written in a file of folder ``base``) as a
        path from the project root, or ``None`` when it is absolute, climbs out or leads out."""
        if relative.startswith("/"):
            return None
        parts = [part for part in base.split("/") if part]
        for part in relative.split("/"):
            if part in ("", "."):
                continue
            if part == "..":
                if not parts:
                    return None
                parts.pop()
            else:
                parts.append(part)
        joined = "/".join(parts)
        return joined if self.real(joined) is not None else None

    def escapes(self, relative: str) -> bool:
        """Whether ``relative`` exists (or is a dangling link) but leads out of the project."""
        path = self.root / relative
        return (path.exists() or path.is_symlink()) and self.real(relative) is None

    def is_file(self, relative: str) -> bool:
        """Whether ``relative`` is a regular file inside the project."""
        real = self.real(relative)
        return real is not None and real.is_file()

    def is_dir(self, relative: str) -> bool:
        """Whether ``relative`` is a directory inside the project."""
        real = self.real(relative)
        return real is not None and real.is_dir()

    def size(self, relative: str) -> int:
        """The on-disk size of a file inside the project (``is_file`` first)."""
        real = self.real(relative)
        return real.stat().st_size if real is not None else 0

    def entries(self, directory: str) -> list[str]:
        """The names directly inside ``directory`` (sorted); ``[]`` when it is not one."""
        real = self.real(directory)
        if real is None or not real.is_dir():
            return []
        try:
            return sorted(entry.name for entry in os.scandir(real))
        except OSError:
            return []

    def files(self, directory: str, suffix: str = "") -> list[str]:
        """Relative paths of the non-directory entries of ``directory`` ending in ``suffix``
        (a symbolic link is listed, and refused on read when it leads out)."""
        real = self.real(directory)
        if real is None or not real.is_dir():
            return []
        try:
            names = [
                entry.name
                for entry in os.scandir(real)
                if entry.name.endswith(suffix) and not entry.is_dir(follow_symlinks=False)
            ]
        except OSError:
            return []
        return [join(directory, name) for name in sorted(names)]

    def subdirectories(self, directory: str) -> list[str]:
        """Relative paths of the sub-directories of ``directory`` inside the project."""
        return [
            join(directory, name)
            for name in self.entries(directory)
            if self.is_dir(join(directory, name))
        ]

    def walk(self, directory: str, suffix: str) -> list[str]:
        """Every path under ``directory`` ending in ``suffix``, sorted; symlinked directories
        are not descended into (a file link is listed, and refused on read if it leads out)."""
        top = self.real(directory)
        if top is None or not top.is_dir():
            return []
        found: list[str] = []
        for current, directories, names in os.walk(self.root / directory, followlinks=False):
            directories.sort()
            base = Path(current).relative_to(self.root).as_posix()
            found += [join(base, name) for name in names if name.endswith(suffix)]
        return sorted(found)

    def read(self, relative: str) -> FileText:
        """The UTF-8 text of ``relative`` (BOM removed), or the problem that stopped the read."""
        cached = self._texts.get(relative)
        if cached is None:
            cached = self._read(relative)
            self._texts[relative] = cached
        return cached

    def _read(self, relative: str) -> FileText:
        real = self.real(relative)
        if real is None:
            reason = "leads out of the project" if self.escapes(relative) else "does not exist"
            return FileText(relative, None, f"{relative} {reason}; it was not read")
        if not real.is_file():
            return FileText(relative, None, f"{relative} is not a regular file; it was not read")
        try:
            with real.open("rb") as handle:
                data = handle.read(MAX_READ_BYTES + 1)
        except OSError as error:
            return FileText(relative, None, f"{relative} cannot be read: {error.strerror}")
        if len(data) > MAX_READ_BYTES:
            return FileText(
                relative, None, f"{relative} is larger than {MAX_READ_BYTES} bytes; it was not read"
            )
        if b"\x00" in data:
            return FileText(relative, None, f"{relative} is a binary file, not text")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            line = data[: error.start].count(b"\n") + 1
            return FileText(relative, None, f"{relative} is not valid UTF-8 (line {line})")
        return FileText(relative, text.removeprefix(BOM))


def join(directory: str, name: str) -> str:
    """``directory/name`` as a project-relative POSIX path (``.`` and ``""`` are the root)."""
    return name if directory in ("", ".") else f"{directory.rstrip('/')}/{name}"
