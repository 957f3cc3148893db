"""Marks a checkout trusted in the ``.claude.json`` claude reads, for one adoption only.

``claude`` itself rewrites that file, so every update re-reads it just before the atomic
rename and starts over if it changed; a lock on the file's directory and an in-process mutex
serialise our own writers (parallel adoptions, other claude-adopt processes) without leaving
a lock file behind. :class:`ProjectTrust` remembers what it added, so the run removes exactly
that when the repository is done, whether it succeeded or not: trust entries never pile up
(checkouts are usually deleted after the run).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Literal

from adopt_server.pipeline.errors import StepError

_MUTEX = threading.Lock()
_ATTEMPTS = 3


def claude_config_path() -> Path:
    """The ``.claude.json`` claude reads: in ``$CLAUDE_CONFIG_DIR`` when that is set (as it
    reaches claude, :func:`~adopt_server.pipeline.claude_command.claude_environment`), else
    in the home directory."""
    configured = os.environ.get("CLAUDE_CONFIG_DIR")
    return (Path(configured) if configured else Path.home()) / ".claude.json"


def _read(path: Path) -> tuple[str | None, dict[str, Any]]:
    """The file's text (``None`` when there is no file) and its JSON object."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, {}
    except (IsADirectoryError, PermissionError, UnicodeDecodeError) as error:
        raise StepError(f"trust failed: {path} cannot be read: {error}") from None
    if not text.strip():
        return text, {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise StepError(
            f"trust failed: {path} is not valid JSON ({error.msg} at line {error.lineno}); "
            "it was left untouched"
        ) from None
    if not isinstance(data, dict):
        raise StepError(f"trust failed: {path} does not hold a JSON object; left untouched")
    return text, data


class ProjectTrust:
    """The trust one adoption gives its checkout.

    :meth:`grant` sets ``projects[<checkout>].hasTrustDialogAccepted`` and records what it
    added; :meth:`revoke` removes exactly that. When nothing else touched the file since the
    grant, its previous bytes come back (or it is deleted when there was none); otherwise the
    entry the grant created is removed (with whatever ``claude`` stored in it meanwhile), or
    only the flag when the entry was there before.
    """

    def __init__(self, checkout: Path, config: Path | None = None) -> None:
        self.project = os.path.normpath(os.path.abspath(checkout))
        self.config = config or claude_config_path()
        self._added: Literal["entry", "flag"] | None = None
        self._before: str | None = None
        self._written: str | None = None

    def grant(self) -> bool:
        """Mark the checkout trusted; False when it already was (then revoke does nothing)."""
        added: Literal["entry", "flag"] = "flag"

        def mark(data: dict[str, Any]) -> bool:
            nonlocal added
            projects = data.get("projects")
            if projects is None:
                projects = data["projects"] = {}
            if not isinstance(projects, dict):
                raise StepError(
                    f"trust failed: 'projects' in {self.config} is not an object; left untouched"
                )
            entry = projects.get(self.project)
            added = "flag" if entry is not None else "entry"
            if entry is None:
                entry = projects[self.project] = {}
            if not isinstance(entry, dict):
                raise StepError(
                    f"trust failed: the entry for {self.project} in {self.config} is not an object"
                )
            if entry.get("hasTrustDialogAccepted") is True:
                return False
            entry["hasTrustDialogAccepted"] = True
            return True

        change = _update(self.config, mark)
        if change is None:
            return False
        self._added, (self._before, self._written) = added, change
        return True

    def revoke(self) -> None:
        """Take back what :meth:`grant` added (nothing when it added nothing)."""
        added, self._added = self._added, None
        if added is None:
            return
        with _MUTEX, _directory_lock(self.config):
            current, _ = _read(self.config)
            if current == self._written:
                if self._before is None:
                    self.config.unlink(missing_ok=True)
                else:
                    _replace(self.config, self._before)
                return

        def unmark(data: dict[str, Any]) -> bool:
            projects = data.get("projects")
            entry = projects.get(self.project) if isinstance(projects, dict) else None
            if not isinstance(projects, dict) or not isinstance(entry, dict):
                return False
            if added == "entry":
                del projects[self.project]
                return True
            return entry.pop("hasTrustDialogAccepted", None) is not None

        _update(self.config, unmark)


def trust_project(checkout: Path, config: Path | None = None) -> bool:
    """Mark ``checkout`` trusted for good; False when it already was."""
    return ProjectTrust(checkout, config).grant()


def _update(path: Path, change: Callable[[dict[str, Any]], bool]) -> tuple[str | None, str] | None:
    """Apply ``change`` to the configuration atomically: the text before and the text
    written, or ``None`` when ``change`` changed nothing."""
    with _MUTEX, _directory_lock(path):
        for _ in range(_ATTEMPTS):
            before, data = _read(path)
            if not change(data):
                return None
            text = json.dumps(data, indent=2) + "\n"
            if _read(path)[0] != before:
                continue
            _replace(path, text)
            return before, text
    raise StepError(
        f"trust failed: {path} kept changing while it was being updated; close running "
        "claude sessions and try again"
    )


def _replace(path: Path, text: str) -> None:
    fd, temp_name = tempfile.mkstemp(prefix=".claude-adopt-", suffix=".json", dir=path.parent)
    temp = Path(temp_name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        temp.replace(path)
    finally:
        temp.unlink(missing_ok=True)


@contextlib.contextmanager
def _directory_lock(config: Path) -> Iterator[None]:
    # the directory, not a lock file next to the configuration: nothing is left behind
    try:
        fd = os.open(config.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as error:
        raise StepError(f"trust failed: cannot lock {config}: {error.strerror}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
