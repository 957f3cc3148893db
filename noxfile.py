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

import shutil
import tempfile
from pathlib import Path

import nox
from mcp_common.workspace import workspace_packages, write_import_contracts

nox.options.default_venv_backend = "none"
nox.options.sessions = ["all"]

ROOT = Path(__file__).resolve().parent
PACKAGES = workspace_packages(ROOT)


def _uv_run(session: nox.Session, *args: str) -> None:
    # success_codes=[0] spelled out: pytest's 5 (nothing collected) must fail the session
    session.run("uv", "run", "--locked", *args, external=True, success_codes=[0])


def _pytest(session: nox.Session, tests: str) -> None:
    _uv_run(session, "pytest", tests, "-p", "no:cacheprovider", *session.posargs)


def _package_session(name: str, tests: str) -> None:
    def run_tests(session: nox.Session) -> None:
        _pytest(session, tests)

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
    _pytest(session, "tests")


@nox.session(python=False)
def spark(session: nox.Session) -> None:
    """uniqueness-server on a real local Spark Connect server (needs Java 17).

    Only this session installs the full ``pyspark`` (the ``spark-tests`` group, ~450 MB), so
    the default environment stays small.
    """
    if shutil.which("java") is None:
        session.skip("Java is not installed: Spark needs a JRE 17 (.ci/run installs one)")
    session.run(
        "uv",
        "run",
        "--locked",
        "--group",
        "spark-tests",
        "pytest",
        "packages/uniqueness-server/tests/test_uniqueness_spark.py",
        "-p",
        "no:cacheprovider",
        *session.posargs,
        external=True,
        success_codes=[0],
    )


@nox.session(name="all", python=False)
def all_checks(session: nox.Session) -> None:
    """Queue every other session (the default when nox runs without -s)."""
    for name in [*(p.session for p in PACKAGES), "lint", "types", "imports", "e2e", "spark"]:
        session.notify(name)
