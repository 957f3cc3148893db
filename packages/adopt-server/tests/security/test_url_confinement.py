"""Property: a ``file://`` URL or local path the workspace-root confinement accepts names a
directory inside the root after git's own interpretation, checked with real ``git``.

The world holds decoys an attacker could have created through the ``workspace`` argument
(directories literally named ``%2e%2e`` and ``localhost/...``), so a confinement that reads
the URL differently from git would accept a URL git resolves outside the root.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from adopt_server.pipeline.urls import RepositoryUrlError, parse_repository_url
from adopt_server.tools.request import confined_source
from adopt_testkit import REAL_GIT, git
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp_common import AllowedPaths, ToolError

SEGMENTS = [
    "repos",
    "inside.git",
    "outside",
    "secret.git",
    "..",
    ".",
    "",
    "%2e%2e",
    "%2E%2e",
    "%2e",
    "%2F",
    "%2f..",
    "localhost",
    "root",
    "%72oot",
]
HOSTS = ["", "localhost", "LOCALHOST", "%6cocalhost", "%2F", "evil.example"]
# endings that name a repository, so many generated URLs reach one
TAILS = [
    "repos/inside.git",
    "repos%2Finside.git",
    "outside/secret.git",
    "%2e%2e/outside/secret.git",
    "%2E%2E%2Foutside%2Fsecret.git",
    "",
]


def bare_with_branch(folder: Path, branch: str) -> Path:
    work = folder.with_name(folder.name + "-seed")
    work.mkdir(parents=True)
    git(work, "init", "-q", f"--initial-branch={branch}")
    (work / "f").write_text(branch, encoding="utf-8")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", branch)
    git(work.parent, "clone", "-q", "--bare", str(work), str(folder))
    return folder


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``<base>/root`` with an inside repository and decoys; ``<base>/outside`` with a secret."""
    base = tmp_path_factory.mktemp("urls")
    root = base / "root"
    bare_with_branch(root / "repos" / "inside.git", "inside-marker")
    secret = bare_with_branch(base / "outside" / "secret.git", "outside-marker")
    (root / "%2e%2e" / "outside" / "secret.git").mkdir(parents=True)
    (root / "localhost" / secret.relative_to("/")).mkdir(parents=True)
    (root / "outside").symlink_to(base / "outside")
    return base


def heads(target: str) -> str:
    """What git finds at ``target`` (URL or path): its branch names, or ``""``."""
    done = subprocess.run(
        [REAL_GIT, "ls-remote", "--heads", "--", target],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull},
    )
    return done.stdout if done.returncode == 0 else ""


@given(
    st.sampled_from(["file://", ""]),
    st.sampled_from(HOSTS),
    st.sampled_from(["root", "base"]),
    st.lists(st.sampled_from(SEGMENTS), max_size=4),
    st.sampled_from(TAILS),
)
@settings(max_examples=200, deadline=None)
def test_an_accepted_url_reads_inside_the_root_as_git_reads_it(
    world: Path, scheme: str, host: str, start: str, segments: list[str], tail: str
) -> None:
    root = world / "root"
    prefix = str(root) if start == "root" else str(world)
    text = f"{scheme}{host if scheme else ''}{prefix}/{'/'.join([*segments, tail])}"
    try:
        source = confined_source(parse_repository_url(text), AllowedPaths([root]))
    except (RepositoryUrlError, ToolError):
        return
    url = parse_repository_url(source)
    assert Path(os.path.realpath(url.credential_free)).is_relative_to(root), text
    found = heads(source)
    assert "outside-marker" not in found, f"{text} let git read outside the root"
    assert found == heads(url.credential_free), f"git reads {text} differently"


@pytest.mark.parametrize(
    ("url", "inside"),
    [
        ("file://{root}/repos/inside.git", True),
        ("file://localhost{root}/repos/inside.git", True),
        ("file://{root}/repos/inside%2egit", True),
        ("file://{root}%2Frepos%2Finside.git", True),
        ("file://{root}/%2e%2e/outside/secret.git", False),
        ("file://localhost{base}/outside/secret.git", False),
        ("file://{root}/outside/secret.git", False),
    ],
)
def test_known_forms_against_real_git(world: Path, tmp_path: Path, url: str, inside: bool) -> None:
    text = url.format(root=world / "root", base=world)
    marker = "inside-marker" if inside else "outside-marker"
    assert marker in heads(text), "git itself reads the URL this way"
    try:
        source = confined_source(parse_repository_url(text), AllowedPaths([world / "root"]))
    except ToolError:
        assert not inside, f"{text} was refused"
        return
    assert inside, f"{text} was accepted"
    # the clone step's own command line: git is given the path the confinement checked
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--", parse_repository_url(source).credential_free, str(clone))
    assert git(clone, "branch", "-r").split()[-1] == "origin/inside-marker"
