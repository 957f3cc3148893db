"""A child running as the server's user cannot read the server's environment from /proc.

The children the servers start get an allow-listed environment, but on Linux a process may
read ``/proc/<pid>/environ`` of any process of its user: a build wrapper printed the tokens
of its parent with ``tr '\\0' '\\n' < /proc/$PPID/environ``. ``harden_process`` (called by
every server at start-up) makes the kernel refuse that read. The scenario runs as an
attacker of the same user does: without ``CAP_SYS_PTRACE``, which lets root read anything
(a root test runner drops its capabilities with ``setpriv`` and stays uid 0).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcp_common.testing import ANCESTOR_ENVIRON_THIEF, same_user_without_ptrace

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc is Linux's")

SECRET = "ghp_theChildMustNeverReadThis000000000000"

# the server's part: harden (or not), check that its own /proc still answers (its memory in
# status; a file it opened, reached again through /proc/self/fd as the DuckDB reader does),
# then start the untrusted child with nothing but PATH
PARENT = """
import os, subprocess, sys
from mcp_common.hardening import harden_process
if sys.argv[1] == "harden":
    assert harden_process()
assert "VmRSS" in open("/proc/self/status").read()
fd = os.open(sys.argv[2], os.O_RDONLY)
assert open(f"/proc/self/fd/{fd}").read() == "opened\\n"
child = subprocess.run(
    ["sh", "-c", sys.argv[3]], env={"PATH": os.environ["PATH"]}, capture_output=True, text=True
)
sys.stdout.write(child.stdout + child.stderr)
"""


def steal(mode: str, tmp_path: Path) -> tuple[int, str]:
    """The parent's pid and what the thief printed about it (its ``== process`` block)."""
    prefix = same_user_without_ptrace()
    if prefix is None:
        pytest.skip("root without setpriv cannot drop CAP_SYS_PTRACE")
    opened = tmp_path / "opened.txt"
    opened.write_text("opened\n", encoding="utf-8")
    thief = "echo thief=$$ parent=$PPID\n" + ANCESTOR_ENVIRON_THIEF
    done = subprocess.run(
        [*prefix, sys.executable, "-c", PARENT, mode, str(opened), thief],
        env={**os.environ, "SERVER_TOKEN": SECRET},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    first, *blocks = done.stdout.split("== process ")
    thief, parent = (int(first.split(f"{who}=", 1)[1].split()[0]) for who in ("thief", "parent"))
    shown = {int(block.split("\n", 1)[0]): block for block in blocks}
    assert "PATH=" in shown[thief], "the thief reads what nothing protects (its own shell)"
    return parent, shown[parent]


def test_without_hardening_the_child_reads_the_parents_secret(tmp_path: Path) -> None:
    """The attack is real: so the refusal below proves something."""
    _parent, seen = steal("plain", tmp_path)
    assert f"SERVER_TOKEN={SECRET}" in seen


def test_a_hardened_parents_environment_is_refused_to_its_child(tmp_path: Path) -> None:
    parent, seen = steal("harden", tmp_path)
    assert SECRET not in seen
    assert f"/proc/{parent}/environ: Permission denied" in seen
