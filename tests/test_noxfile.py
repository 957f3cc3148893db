"""The nox sessions the README promises exist, one per workspace package, and a test run that
collects nothing fails."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from mcp_common.workspace import workspace_packages

ROOT = Path(__file__).resolve().parent.parent


def _nox(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nox", "--no-color", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )


def test_sessions_and_the_default() -> None:
    listing = _nox("--list")
    assert listing.returncode == 0, listing.stderr
    marked = {
        line[2:].split(" -> ")[0]: line[0]
        for line in listing.stdout.splitlines()
        if line[:2] in ("* ", "- ")
    }
    package_sessions = [package.session for package in workspace_packages(ROOT)]
    assert package_sessions[0] == "mcp_common"
    assert {"uniqueness_server", "context_server", "adopt_server"} <= set(package_sessions)
    assert list(marked) == [
        *package_sessions,
        "lint",
        "types",
        "imports",
        "e2e",
        "slow",
        "spark",
    ]
    # `nox` alone, the README's test command and CI's, runs every test, the slow ones included:
    # every session but `spark`, whose tests `slow` runs beside its own
    assert {name for name, mark in marked.items() if mark == "-"} == {"spark"}
    assert "Spark tests beside them" in listing.stdout


def test_a_test_session_that_collects_nothing_fails() -> None:
    # -n 0 (the last -n wins): one process collects, not two workers each importing it all
    run = _nox("-s", "mcp_common", "--", "-q", "-k", "no_test_has_this_name", "-n", "0")
    assert run.returncode != 0
    assert "failed with exit code 5" in run.stderr
