"""The nox sessions the README promises exist, one per workspace package, a test run that
collects nothing fails, and a machine without PostgreSQL or Java is told so in one plain line
(the tests that need them say they were skipped and why)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from mcp_common.workspace import workspace_packages

ROOT = Path(__file__).resolve().parent.parent


def _nox(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nox", "--no-color", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )


def _machine_without(program: str, scratch: Path) -> dict[str, str]:
    """This environment as on a machine where ``program`` is not installed: every ``PATH``
    directory holding it left out (``uv``, which nox runs the tests with, stays reachable), and
    no PostgreSQL server given."""
    kept = scratch / "bin"
    kept.mkdir()
    uv = shutil.which("uv")
    assert uv, "uv is needed on the PATH"
    (kept / "uv").symlink_to(uv)
    directories = [
        directory
        for directory in os.environ["PATH"].split(os.pathsep)
        if directory and not (Path(directory) / program).exists()
    ]
    environment = {k: v for k, v in os.environ.items() if k != "MCP_TOOLS_TEST_POSTGRES_URL"}
    environment["PATH"] = os.pathsep.join([str(kept), *directories])
    assert shutil.which(program, path=environment["PATH"]) is None
    return environment


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


def test_without_initdb_nox_says_plainly_that_the_postgresql_tests_skip(tmp_path: Path) -> None:
    environment = _machine_without("initdb", tmp_path)
    # and none where PostgreSQL's packages put it off PATH (Debian's /usr/lib/postgresql/...)
    nowhere = tmp_path / "no-postgresql"
    nowhere.mkdir()
    environment["MCP_TOOLS_TEST_POSTGRES_BIN"] = str(nowhere)

    # one module's PostgreSQL tests (-o python_files: only it is imported), in one process
    run = _nox(
        "-s",
        "uniqueness_server",
        "--",
        "-n",
        "0",
        "-o",
        "python_files=test_uniqueness_databases.py",
        "-k",
        "postgresql and not read_only_query_recognition",  # these parse SQL text only
        env=environment,
    )

    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert (
        f"nox > PostgreSQL tests will be SKIPPED: initdb was not found on PATH nor in {nowhere}. "
        "Install PostgreSQL (e.g. apt-get install postgresql) or set "
        "MCP_TOOLS_TEST_POSTGRES_URL.\n"
    ) in run.stderr
    assert "throwaway cluster" not in run.stderr
    # pytest's summary names each skipped test's reason (-ra), and nothing ran against a server
    reasons = [line for line in run.stdout.splitlines() if line.startswith("SKIPPED [")]
    assert reasons, run.stdout[-3000:]
    for line in reasons:
        assert line.endswith(": MCP_TOOLS_TEST_POSTGRES_URL is not set: no PostgreSQL server")
    summary = run.stdout.strip().splitlines()[-1]
    assert " skipped" in summary
    assert " passed" not in summary, summary


def test_without_java_the_spark_session_says_what_to_install(tmp_path: Path) -> None:
    run = _nox("-s", "spark", env=_machine_without("java", tmp_path))

    assert run.returncode == 0, run.stderr
    assert (
        "nox > Session spark skipped: the Spark tests need Java 17, which is not on PATH: "
        "install a Java 17 runtime (e.g. apt-get install openjdk-17-jre-headless, as .ci/run "
        "does).\n"
    ) in run.stderr
