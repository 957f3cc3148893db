"""Every check of the repository, one nox session each; ``nox`` alone runs them all.

Sessions run in the one uv-managed environment of the workspace (``uv run --locked``), not in
per-session virtualenvs: the lock file is the single source of versions, and CI checks it is
current. pytest's exit status 5 ("no tests collected") fails a session like any other non-zero
status, so a package whose tests silently vanished cannot pass.

The package list is not written here: :mod:`mcp_common.workspace` reads it from the uv
workspace (``packages/*``), so a new package gets its test session, its sources type-checked
and its import contracts without edits to this file.
"""

from __future__ import annotations

import atexit
import glob
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from typing import IO

import nox
from mcp_common.workspace import workspace_packages, write_import_contracts

nox.options.default_venv_backend = "none"

# Python reads compiled modules from __pycache__ but writes them only when allowed: with
# PYTHONDONTWRITEBYTECODE set (some machines set it for every process) and a fresh environment
# (uv installs without compiling), every interpreter the tests start - each server over stdio,
# each isolated check, each command-line run - compiled everything it imported again: importing
# a server's stack took 4.3 s of CPU against 2.1 s from the cache (under load). The sessions
# let Python write the cache, into the project's .venv and checkout (both ignored by git).
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

ROOT = Path(__file__).resolve().parent
PACKAGES = workspace_packages(ROOT)
POSTGRES_URL = "MCP_TOOLS_TEST_POSTGRES_URL"
WORKERS = "2"
"""pytest-xdist workers per test session: the two cores of the reference machine."""


def _uv_run(session: nox.Session, *args: str) -> None:
    # success_codes=[0] spelled out: pytest's 5 (nothing collected) must fail the session
    session.run("uv", "run", "--locked", *args, external=True, success_codes=[0])


POSTGRES_BIN = "MCP_TOOLS_TEST_POSTGRES_BIN"
"""Where PostgreSQL's server programs are when they are not on ``PATH``: a directory, else
Debian's versioned ones (it keeps them off ``PATH``; the newest version is used)."""
DEBIAN_POSTGRES_BIN = "/usr/lib/postgresql/*/bin"


def _postgres_bin() -> str:
    """The directories searched for ``initdb`` after ``PATH``, as a glob pattern."""
    given = os.environ.get(POSTGRES_BIN)
    return glob.escape(given) if given else DEBIAN_POSTGRES_BIN


def _initdb() -> Path | None:
    found = shutil.which("initdb")
    if found:  # resolved: the directory holding pg_ctl and createdb too, not a link's
        return Path(found).resolve()
    versions = sorted(glob.glob(f"{_postgres_bin()}/initdb"), key=_version_key)
    return Path(versions[-1]) if versions else None


def _version_key(path: str) -> tuple[int, ...]:
    version = Path(path).parent.parent.name
    return tuple(int(part) for part in version.split(".") if part.isdigit())


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _postgres(session: nox.Session) -> None:
    """Make ``MCP_TOOLS_TEST_POSTGRES_URL`` point at a PostgreSQL server for the tests: the one
    given, else a throwaway cluster of this run (``initdb`` on a free loopback port, removed
    when nox ends); without ``initdb``, say plainly that the PostgreSQL tests will skip."""
    if os.environ.get(POSTGRES_URL):
        return
    initdb = _initdb()
    if initdb is None:
        session.warn(
            f"PostgreSQL tests will be SKIPPED: initdb was not found on PATH nor in "
            f"{_postgres_bin()}. Install PostgreSQL (e.g. apt-get install postgresql) or set "
            f"{POSTGRES_URL}."
        )
        return
    binaries = initdb.parent
    data = Path(tempfile.mkdtemp(prefix="mcp-tools-pg-"))
    as_user: list[str] = []
    if os.geteuid() == 0:  # initdb refuses to run as root
        shutil.chown(data, "postgres", "postgres")
        as_user = ["runuser", "-u", "postgres", "--"]
    password = secrets.token_hex(16)
    (data / "pwfile").write_text(password + "\n", encoding="utf-8")
    if as_user:
        shutil.chown(data / "pwfile", "postgres", "postgres")
    port = _free_port()
    cluster = data / "cluster"
    quiet = {"check": True, "stdout": subprocess.DEVNULL, "stderr": subprocess.PIPE}
    subprocess.run(
        [*as_user, str(initdb), f"--pgdata={cluster}", "--username=postgres",
         "--auth=scram-sha-256", f"--pwfile={data / 'pwfile'}", "--encoding=UTF8",
         "--no-instructions"],
        **quiet,
    )  # fmt: skip
    subprocess.run(
        [*as_user, str(binaries / "pg_ctl"), "-D", str(cluster), "-l", str(data / "log"), "-w",
         "-o", f"-c listen_addresses=127.0.0.1 -c port={port} -c unix_socket_directories={data}",
         "start"],
        **quiet,
    )  # fmt: skip

    def stop() -> None:
        subprocess.run(
            [*as_user, str(binaries / "pg_ctl"), "-D", str(cluster), "-m", "immediate", "stop"],
            check=False,
            capture_output=True,
        )
        shutil.rmtree(data, ignore_errors=True)

    atexit.register(stop)
    subprocess.run(
        [str(binaries / "createdb"), "--host=127.0.0.1", f"--port={port}", "--username=postgres",
         "mcp_tools_test"],
        env={**os.environ, "PGPASSWORD": password},
        **quiet,
    )  # fmt: skip
    os.environ[POSTGRES_URL] = f"postgresql://postgres:{password}@127.0.0.1:{port}/mcp_tools_test"
    session.log(f"PostgreSQL tests run against a throwaway cluster on 127.0.0.1:{port}")


def _pytest(session: nox.Session, tests: str, *options: str) -> None:
    _postgres(session)
    _uv_run(
        session,
        "pytest",
        tests,
        "-p",
        "no:cacheprovider",
        "-n",
        WORKERS,
        "--durations=10",
        *options,
        *session.posargs,
    )


def _package_session(name: str, tests: str) -> None:
    def run_tests(session: nox.Session) -> None:
        _pytest(session, tests, "-m", "not slow")

    run_tests.__doc__ = f"Unit and protocol tests of {tests.removesuffix('/tests')}."
    nox.session(name=name, python=False)(run_tests)


for _package in PACKAGES:
    _package_session(_package.session, _package.tests.relative_to(ROOT).as_posix())


@nox.session(python=False)
def lint(session: nox.Session) -> None:
    """ruff lint and format check over the whole repository."""
    _uv_run(session, "ruff", "check", ".")
    _uv_run(session, "ruff", "format", "--check", ".")


@nox.session(python=False)
def types(session: nox.Session) -> None:
    """mypy --strict (root configuration) over every package's sources."""
    _uv_run(session, "mypy", *(p.source.relative_to(ROOT).as_posix() for p in PACKAGES))


@nox.session(python=False)
def imports(session: nox.Session) -> None:
    """The import-linter layering contracts, generated from the workspace's packages."""
    with tempfile.TemporaryDirectory(prefix="import-contracts-") as directory:
        config = write_import_contracts(Path(directory) / ".importlinter", ROOT)
        _uv_run(session, "lint-imports", "--no-cache", str(config))


@nox.session(python=False)
def e2e(session: nox.Session) -> None:
    """Cross-package tests: real server subprocesses over every transport, README, layering."""
    _pytest(session, "tests", "-m", "not slow")


SPARK_TESTS = [
    "packages/uniqueness-server/tests/test_uniqueness_spark.py",
    "packages/uniqueness-server/tests/security/test_security_spark.py",
]
SPARK = ["uv", "run", "--locked", "--group", "spark-tests"]
"""Only the Spark tests install the full ``pyspark`` (the ``spark-tests`` group, ~450 MB), so
the default environment stays small."""
NO_JAVA = (
    "the Spark tests need Java 17, which is not on PATH: install a Java 17 runtime "
    "(e.g. apt-get install openjdk-17-jre-headless, as .ci/run does)"
)


def _spark_pytest(*options: str) -> list[str]:
    return [*SPARK, "pytest", *SPARK_TESTS, "-p", "no:cacheprovider", *options]


@nox.session(python=False)
def slow(session: nox.Session) -> None:
    """The cross-package tests marked slow, and the Spark tests beside them.

    The slow tests build wheels and bundles, install them into fresh environments and make a
    new server in a copy of the repository; they spend much of their time waiting on builds
    and installs, and the Spark tests run in one process: side by side they keep two cores
    busy where one after the other left one idle for minutes. Each slow test module stays on
    one worker (``--dist loadfile``), so its wheels, installs or repository copy are made once,
    not once per worker. The Spark tests' output follows the slow tests'; pytest options after
    ``--`` go to both runs (one that selects no Spark test leaves that run empty, not failed).
    """
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8") as log:
        spark = _start_spark(session, log)
        try:
            _pytest(session, "tests", "-m", "slow", "--dist", "loadfile")
        finally:
            if spark is not None:
                status = spark.wait()
                log.seek(0)
                print(log.read(), end="", flush=True)
                # 5, nothing collected: only when the options given select no Spark test
                if status != 0 and not (status == 5 and session.posargs):
                    session.error(f"the Spark tests failed with exit code {status}")


def _start_spark(session: nox.Session, log: IO[str]) -> subprocess.Popen[bytes] | None:
    if shutil.which("java") is None:
        session.warn(f"Spark tests SKIPPED: {NO_JAVA}")
        return None
    # pyspark installed first: the two test runs then only read the environment
    session.run(*SPARK, "python", "-c", "import pyspark", external=True)
    session.log(f"{' '.join(_spark_pytest())} (beside the slow tests)")
    return subprocess.Popen(
        _spark_pytest("--durations=10", *session.posargs),
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=ROOT,
    )


@nox.session(python=False)
def spark(session: nox.Session) -> None:
    """The Spark tests alone: uniqueness-server on a local Spark Connect server (Java 17).

    ``slow`` runs the same tests beside its own, so ``nox`` alone leaves this session out.
    """
    if shutil.which("java") is None:
        session.skip(NO_JAVA)
    session.run(*_spark_pytest(*session.posargs), external=True, success_codes=[0])


FIRST = ["lint", "types", "imports"]
"""The quick checks, run before the tests so a lint error shows within seconds."""
INSIDE_ANOTHER = ["spark"]
"""Sessions another one runs (``slow`` runs the Spark tests beside its own)."""

# `nox` alone (the README's test command, and CI's) runs every test, the slow and Spark ones too
nox.options.sessions = [
    *FIRST,
    *(name for name in nox.registry.get() if name not in FIRST + INSIDE_ANOTHER),
]
