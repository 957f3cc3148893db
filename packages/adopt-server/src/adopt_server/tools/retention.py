"""The fresh workspaces the server makes for calls that name none, and how long they stay.

A call without ``workspace`` clones into a new ``claude-adopt-*`` directory under the
workspace root, marked as the server's own. Failed checkouts (and verifications) stay there for
inspection, so without a rule they would pile up: when a call makes a fresh workspace, the
server first removes its own marked workspaces that have not changed for
:data:`KEEP_DAYS` days, and all but the :data:`KEEP_AT_MOST` most recently changed; a fresh
workspace its call left empty is removed when the call ends. A directory a client named, or
anything without the mark, is never removed.
"""

from __future__ import annotations

import logging
import os
import shutil
import stat
import tempfile
import time
from pathlib import Path

PREFIX = "claude-adopt-"
MARKER = ".adopt-server-workspace"
"""The file that marks a workspace as one the server made (and may remove)."""
KEEP_DAYS = 7
KEEP_AT_MOST = 20

_log = logging.getLogger(__name__)


def fresh_workspace(root: Path) -> Path:
    """A new marked workspace under ``root``, after removing the expired ones."""
    prune(root)
    workspace = Path(tempfile.mkdtemp(prefix=PREFIX, dir=root))
    (workspace / MARKER).write_text(
        "made by adopt-server for one call; removed after "
        f"{KEEP_DAYS} days without change (see the adopt-server README)\n",
        encoding="utf-8",
    )
    return workspace


def _changed(workspace: Path) -> float | None:
    """When a marked workspace of the server last changed; None for anything else."""
    try:
        info = os.lstat(workspace)
        marker = os.lstat(workspace / MARKER)
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or not stat.S_ISREG(marker.st_mode):
        return None
    if info.st_uid != os.geteuid():
        return None
    return info.st_mtime


def prune(root: Path, now: float | None = None) -> list[Path]:
    """Remove the server's expired workspaces under ``root``; the ones removed."""
    now = time.time() if now is None else now
    marked = []
    for entry in root.glob(f"{PREFIX}*"):
        changed = _changed(entry)
        if changed is not None:
            marked.append((changed, entry))
    marked.sort(reverse=True)
    expired = [
        workspace
        for position, (changed, workspace) in enumerate(marked)
        if position >= KEEP_AT_MOST or now - changed > KEEP_DAYS * 86400
    ]
    for workspace in expired:
        try:
            shutil.rmtree(workspace)
        except OSError as error:
            _log.warning("could not remove the expired workspace %s: %s", workspace, error)
        else:
            _log.info("removed the expired workspace %s", workspace)
    return expired


def finish(workspace: Path) -> None:
    """Remove a fresh workspace whose call kept nothing in it."""
    try:
        left = [entry.name for entry in workspace.iterdir()]
    except OSError:
        return
    if left == [MARKER]:
        shutil.rmtree(workspace, ignore_errors=True)
