"""Test helpers: real git repositories to adopt, built once per session and copied per test."""

from __future__ import annotations

import contextlib
import io
import logging
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

FAKES = Path(__file__).parent / "fakes"
REAL_GIT = shutil.which("git") or "/usr/bin/git"

POM = """<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>org.example</groupId>
  <artifactId>sample</artifactId>
  <version>1.0.0</version>
</project>
"""

PROJECTS: dict[str, dict[str, str]] = {
    "maven": {"pom.xml": POM, "README.md": "# sample\n"},
    "gradle": {"build.gradle": "plugins {\n    id 'java'\n}\n", "README.md": "# sample\n"},
    "gradle-kts": {"build.gradle.kts": "plugins {\n    java\n}\n", "README.md": "# sample\n"},
    "python": {
        "pyproject.toml": '[project]\nname = "sample"\nversion = "0.1.0"\n',
        "README.md": "# sample\n",
    },
    "plain": {"README.md": "# sample\n", "notes.txt": "nothing to build\n"},
}


GOOD_AGENTS_MD = """\
# AGENTS.md

## Project overview

A command-line tool that checks data files for duplicate keys.

## Module layout

`src/` holds the package, `tests/` its tests.

## Environment & toolchain

Python 3.11 or later and `uv`.

## Build, test, and run

Run `uv run pytest` from the repository root.

## Code style & conventions

`ruff format` and `ruff check`; type hints everywhere.

## Releasing

Tags on `main` are released to PyPI by the release workflow.

## Pull requests & commits

One change per pull request; the subject says what changed.
"""
"""An AGENTS.md with every guide section written, as a project's own would be."""


def git(cwd: Path, *args: str) -> str:
    """Run real git with a fixed identity, isolated from the user's configuration."""
    env = {
        **os.environ,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_AUTHOR_NAME": "Seed",
        "GIT_AUTHOR_EMAIL": "seed@example.com",
        "GIT_COMMITTER_NAME": "Seed",
        "GIT_COMMITTER_EMAIL": "seed@example.com",
    }
    done = subprocess.run(
        [REAL_GIT, *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


def make_bare_repository(root: Path, name: str, files: dict[str, str]) -> Path:
    """A bare repository ``root/<name>.git`` whose ``main`` holds ``files`` in one commit."""
    work = root / f"{name}-seed"
    work.mkdir(parents=True)
    git(work, "init", "-q", "--initial-branch=main")
    for relative, text in files.items():
        target = work / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "seed")
    bare = root / f"{name}.git"
    git(root, "clone", "-q", "--bare", str(work), str(bare))
    shutil.rmtree(work)
    return bare


def log_lines(log: Path, program: str) -> list[str]:
    """The recorded argv strings of one fake program, in call order."""
    if not log.exists():
        return []
    lines = log.read_text(encoding="utf-8").splitlines()
    return [line.split("\t", 2)[2] for line in lines if line.split("\t", 1)[0] == program]


def branch_files(bare: Path, branch: str) -> list[str]:
    """The files on ``branch`` of a bare repository."""
    return git(bare, "ls-tree", "-r", "--name-only", branch).split()


def commit_subjects(bare: Path, branch: str) -> list[str]:
    """Commit subjects on ``branch``, newest first."""
    return git(bare, "log", "--format=%s", branch).splitlines()


def run_in_process(
    program: str, main: Callable[[], object], *args: str, cwd: Path
) -> subprocess.CompletedProcess[str]:
    """The console script ``program``'s entry point ``main`` run in this process as the script
    runs it (``sys.argv``, working directory ``cwd``, exit status from its ``SystemExit``), its
    stdout and stderr, log lines included, captured; the logging set-up it makes is undone
    afterwards. For refusals checked case after case, where an interpreter start per case
    costs far more than the case: each command keeps tests through its real console script."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    stdout, stderr = io.StringIO(), io.StringIO()
    previous, argv = Path.cwd(), sys.argv
    status: object = 0
    root.handlers.clear()  # so the command's logging.basicConfig writes to its stderr, as alone
    root.setLevel(logging.WARNING)
    try:
        os.chdir(cwd)
        sys.argv = [program, *args]
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            try:
                main()
            except SystemExit as exit_:
                status = exit_.code
    finally:
        os.chdir(previous)
        sys.argv = argv
        root.handlers[:] = handlers
        root.setLevel(level)
    if status is None:
        status = 0
    elif not isinstance(status, int):  # sys.exit("message"): printed, exit status 1
        stderr.write(f"{status}\n")
        status = 1
    return subprocess.CompletedProcess(
        [program, *args], status, stdout.getvalue(), stderr.getvalue()
    )
