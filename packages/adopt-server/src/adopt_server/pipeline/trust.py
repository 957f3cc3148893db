"""Marks a checkout trusted in ``~/.claude.json`` without clobbering anything else in it.

``claude`` itself rewrites that file, so the update re-reads it just before the atomic
rename and starts over if it changed; a file lock and an in-process mutex serialise our
own writers (parallel adoptions, other claude-adopt processes).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
import threading
from pathlib import Path
from typing import Any

from adopt_server.pipeline.errors import StepError

_MUTEX = threading.Lock()
_ATTEMPTS = 3


def claude_config_path() -> Path:
    """``$HOME/.claude.json``."""
    return Path.home() / ".claude.json"


def _read(path: Path) -> tuple[str, dict[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return "", {}
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


def _mark(data: dict[str, Any], project: str, path: Path) -> bool:
    projects = data.get("projects")
    if projects is None:
        projects = data["projects"] = {}
    if not isinstance(projects, dict):
        raise StepError(f"trust failed: 'projects' in {path} is not an object; left untouched")
    entry = projects.get(project)
    if entry is None:
        entry = projects[project] = {}
    if not isinstance(entry, dict):
        raise StepError(f"trust failed: the entry for {project} in {path} is not an object")
    if entry.get("hasTrustDialogAccepted") is True:
        return False
    entry["hasTrustDialogAccepted"] = True
    return True


def trust_project(checkout: Path, config: Path | None = None) -> bool:
    """Set ``projects[<checkout>].hasTrustDialogAccepted``; False when it already was."""
    path = config or claude_config_path()
    project = os.path.normpath(os.path.abspath(checkout))
    with _MUTEX, _file_lock(path):
        for _ in range(_ATTEMPTS):
            before, data = _read(path)
            if not _mark(data, project, path):
                return False
            fd, temp_name = tempfile.mkstemp(
                prefix=".claude-adopt-", suffix=".json", dir=path.parent
            )
            temp = Path(temp_name)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    json.dump(data, handle, indent=2)
                    handle.write("\n")
                if _read(path)[0] != before:
                    continue
                temp.replace(path)
                return True
            finally:
                temp.unlink(missing_ok=True)
    raise StepError(
        f"trust failed: {path} kept changing while it was being updated; close running "
        "claude sessions and try again"
    )


@contextlib.contextmanager
def _file_lock(config: Path) -> Any:
    lock_path = config.with_name(config.name + ".adopt-lock")
    try:
        handle = open(lock_path, "a")  # noqa: SIM115 - held for the duration of the block
    except OSError as error:
        raise StepError(f"trust failed: cannot lock {config}: {error.strerror}") from None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        handle.close()
