"""``verify_adoption`` on a hostile repository never freezes ``adopt-server`` (issue 23, item 2).

The repository is adopted, but its own ``.claude/agent-config-check.json`` sets a secret pattern
that once backtracked exponentially, and its AGENTS.md holds the text that set it off and a
200,000-character line that was once read in quadratic time. The checker now reads both in
linear time, so the test freezes the isolated check itself (SIGSTOP as soon as it appears) to
stand for a check stuck in C code, however fast this machine is. Over real stdio: while the
check is stuck pings are answered, a cancel ends it within 2 s and leaves no process behind,
and the server goes on serving.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from adopt_server.conformance import claude_md_importing_agents_md, rules_for
from adopt_server.guards import install_guard

from .raw_stdio import RawStdioServer
from .test_e2e_isolation import children_of, gone, wait_gone

SERVER = Path(sys.executable).parent / "adopt-server"
BOUND = 2.0
GIT = shutil.which("git") or "/usr/bin/git"
AGENTS_MD = "# AGENTS.md\n" + "".join(
    f"\n{section}\n\nWhat this repository does about {section[3:].lower()}.\n"
    for section in (
        "## Project overview",
        "## Module layout",
        "## Environment & toolchain",
        "## Build, test, and run",
        "## Code style & conventions",
        "## Releasing",
        "## Pull requests & commits",
    )
)


def git(cwd: Path, *args: str) -> None:
    subprocess.run(
        [GIT, "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


def hostile_adopted_repository(root: Path) -> Path:
    work = root / "seed"
    work.mkdir(parents=True)
    install_guard(work, "github-actions", rules_for(), None)
    (work / "CLAUDE.md").write_text(claude_md_importing_agents_md())
    # two slow inputs for this checker: text its own secret pattern backtracks on, and a
    # section line the placeholder judgement reads in quadratic time
    (work / "AGENTS.md").write_text(AGENTS_MD + "\n" + "a" * 40 + "\n\n" + "-" * 200_000 + "x\n")
    # the project's own checker configuration, in place of the one the guard wrote
    (work / ".claude" / "agent-config-check.json").write_text(
        json.dumps({"rules": {"noSecrets": {"secretPatterns": ["((a)+)+!"]}}})
    )
    git(work, "init", "-q", "--initial-branch=main")
    git(work, "add", "-A")
    git(work, "commit", "-qm", "adopted")
    bare = root / "hostile.git"
    git(root, "clone", "-q", "--bare", str(work), str(bare))
    return bare


def isolated_checks(pid: int) -> list[int]:
    """The isolated children of process ``pid`` (``run_isolated``'s child script)."""
    found = []
    for child in _children(pid):
        try:
            command = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        if b"_isolated_child" in command:
            found.append(child)
    return found


def _children(pid: int) -> list[int]:
    """The children of ``pid``, read from its threads' lists (quick enough to poll every
    millisecond, unlike a walk of all of ``/proc``)."""
    found: list[int] = []
    try:
        threads = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return [child for child, _ in children_of(pid)]
    for thread in threads:
        try:
            found += [int(child) for child in (thread / "children").read_text().split()]
        except OSError:
            continue
    return found


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """The server's workspace root, holding the repository to verify."""
    folder = tmp_path / "root"
    folder.mkdir()
    return folder


@pytest.fixture
def server(tmp_path: Path, root: Path) -> Iterator[RawStdioServer]:
    running = RawStdioServer(
        tmp_path / "server.log", command=[str(SERVER), "--workspace-root", str(root)]
    )
    try:
        running.initialize()
        yield running
    finally:
        running.stop()


def test_a_hostile_check_is_answered_around_and_cancelled_within_two_seconds(
    server: RawStdioServer, root: Path
) -> None:
    remote = hostile_adopted_repository(root)
    server.call(1, "verify_adoption", {"repositoryUrl": str(remote)})
    deadline = time.monotonic() + 60
    while not (checks := isolated_checks(server.process.pid)):
        assert time.monotonic() < deadline, f"the check runs in a child\n{server.log()}"
        time.sleep(0.001)
    [child] = checks
    os.kill(child, signal.SIGSTOP)  # stuck from here on, as a check in a runaway match is
    time.sleep(0.5)
    for request_id in (10, 11):
        asked = time.monotonic()
        server.request(request_id, "ping", {})
        assert server.reply_to(request_id, timeout=BOUND)["result"] == {}
        assert time.monotonic() - asked < BOUND
    assert not gone(child), "the check is still running"
    server.send(
        {
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": 1, "reason": "taking too long"},
        }
    )
    wait_gone(child, BOUND)
    server.call(20, "verify_adoption", {"repositoryUrl": "-x"})
    refused = server.reply_to(20, timeout=30)["result"]
    assert refused["isError"] is True, "the server serves on"
    assert isolated_checks(server.process.pid) == []
