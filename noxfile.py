"""Every check of the repository, one nox session each; ``nox`` alone runs them all.

Sessions run in the one uv-managed environment of the workspace (``uv run --locked``), not in
per-session virtualenvs: the lock file is the single source of versions, and CI checks it is
current. pytest's exit status 5 ("no tests collected") fails a session like any other non-zero
status, so a package whose tests silently vanished cannot pass.
"""

from __future__ import annotations

import nox

nox.options.default_venv_backend = "none"
nox.options.sessions = ["all"]

PACKAGES = {
    "mcp_common": "packages/mcp-common",
    "uniqueness_server": "packages/uniqueness-server",
    "context_server": "packages/context-server",
    "adopt_server": "packages/adopt-server",
}
SOURCES = [f"{path}/src" for path in PACKAGES.values()]


def _uv_run(session: nox.Session, *args: str) -> None:
    # success_codes=[0] spelled out: pytest's 5 (nothing collected) must fail the session
    session.run("uv", "run", "--locked", *args, external=True, success_codes=[0])


def _pytest(session: nox.Session, tests: str) -> None:
    _uv_run(session, "pytest", tests, "-p", "no:cacheprovider", *session.posargs)


def _package_session(name: str, path: str) -> None:
    def run_tests(session: nox.Session) -> None:
        _pytest(session, f"{path}/tests")

    run_tests.__doc__ = f"Unit and protocol tests of {path}."
    nox.session(name=name, python=False)(run_tests)


for _name, _path in PACKAGES.items():
    _package_session(_name, _path)


@nox.session(python=False)
def lint(session: nox.Session) -> None:
    """ruff lint and format check over the whole repository."""
    _uv_run(session, "ruff", "check", ".")
    _uv_run(session, "ruff", "format", "--check", ".")


@nox.session(python=False)
def types(session: nox.Session) -> None:
    """mypy --strict (root configuration) over every package's sources."""
    _uv_run(session, "mypy", *SOURCES)


@nox.session(python=False)
def imports(session: nox.Session) -> None:
    """The import-linter layering contracts of the root pyproject."""
    _uv_run(session, "lint-imports", "--no-cache")


@nox.session(python=False)
def e2e(session: nox.Session) -> None:
    """Cross-package tests: real server subprocesses over every transport, README, layering."""
    _pytest(session, "tests")


@nox.session(name="all", python=False)
def all_checks(session: nox.Session) -> None:
    """Queue every other session (the default when nox runs without -s)."""
    for name in [*PACKAGES, "lint", "types", "imports", "e2e"]:
        session.notify(name)
