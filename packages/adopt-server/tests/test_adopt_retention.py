"""Failed checkouts do not pile up under the workspace root: the server's own fresh
workspaces expire, a client's named workspace and anything unmarked are never touched."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from adopt_server.tools import build_tools
from adopt_server.tools.retention import KEEP_AT_MOST, KEEP_DAYS, MARKER, PREFIX, prune
from conftest import AdoptEnv
from mcp_common import AllowedPaths, ToolContext, ToolResult, invoke

DAY = 86400.0


def call(env: AdoptEnv, name: str, arguments: dict[str, Any]) -> ToolResult:
    [tool] = [t for t in build_tools(AllowedPaths([env.root])) if t.definition.name == name]
    return invoke(tool, arguments, ToolContext())


def fresh(root: Path) -> list[Path]:
    return sorted(root.glob(f"{PREFIX}*"))


def workspace(root: Path, name: str, age_days: float, marked: bool = True) -> Path:
    path = root / f"{PREFIX}{name}"
    (path / "repo").mkdir(parents=True)
    if marked:
        (path / MARKER).write_text("made by adopt-server\n", encoding="utf-8")
    changed = time.time() - age_days * DAY
    os.utime(path, (changed, changed))
    return path


def test_a_failed_checkout_stays_for_inspection_and_expires_later(adopt_env: AdoptEnv) -> None:
    remote = str(adopt_env.remote("plain"))  # not adopted: the verification fails

    failed = call(adopt_env, "verify_adoption", {"repositoryUrl": remote})

    assert failed.is_error
    (kept,) = fresh(adopt_env.root)
    assert (kept / "plain").is_dir(), "the failed checkout is kept for inspection"
    assert (kept / MARKER).is_file()
    long_ago = time.time() - (KEEP_DAYS + 1) * DAY
    os.utime(kept, (long_ago, long_ago))
    named = adopt_env.root / "mine"
    named.mkdir()
    os.utime(named, (long_ago, long_ago))

    call(adopt_env, "verify_adoption", {"repositoryUrl": remote})

    (newer,) = fresh(adopt_env.root)
    assert newer != kept, "the expired workspace was removed when the next call began"
    assert named.is_dir(), "a workspace the client named is never removed"


def test_a_successful_adoption_leaves_no_workspace_behind(adopt_env: AdoptEnv) -> None:
    result = call(adopt_env, "adopt_repo", {"repositoryUrl": str(adopt_env.remote("maven"))})

    assert not result.is_error, result.text
    assert fresh(adopt_env.root) == []


def test_only_marked_real_directories_of_the_server_expire(tmp_path: Path) -> None:
    old = workspace(tmp_path, "old", KEEP_DAYS + 1)
    recent = workspace(tmp_path, "recent", 1)
    unmarked = workspace(tmp_path, "unmarked", KEEP_DAYS + 30, marked=False)
    target = workspace(tmp_path / "elsewhere", "target", KEEP_DAYS + 30)
    (tmp_path / f"{PREFIX}link").symlink_to(target)

    assert prune(tmp_path) == [old]
    assert recent.is_dir()
    assert unmarked.is_dir()
    assert target.is_dir(), "a symlink is not followed"


def test_at_most_the_newest_workspaces_are_kept(tmp_path: Path) -> None:
    made = [workspace(tmp_path, f"{n:03d}", age_days=n / 100) for n in range(KEEP_AT_MOST + 3)]

    removed = prune(tmp_path)

    assert sorted(removed) == sorted(made[KEEP_AT_MOST:])
    assert sorted(fresh(tmp_path)) == sorted(made[:KEEP_AT_MOST])
