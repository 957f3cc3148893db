"""mcp_common.scaffold on a small workspace: the template renders completely, names are
validated, and a failed step leaves the workspace as it was. (tests/test_new_server.py runs
the whole command on a copy of the repository, lock and golden included.)"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
from mcp_common.scaffold import (
    NewServer,
    ScaffoldError,
    create_server,
    next_port,
    validate_name,
    write_package,
)
from mcp_common.workspace import root_members, unpinned_dependencies, workspace_packages

PROBE = "scaffold-unit-probe"
"""A name no real server takes: validation must not trip over a package someone made here."""

ROOT_TEXT = """[project]
name = "root"
version = "0"
dependencies = [
    "mcp-tools-common",
]

[tool.uv.workspace]
members = ["packages/*"]

[tool.uv.sources]
mcp-tools-common = { workspace = true }
"""


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text(ROOT_TEXT, encoding="utf-8")
    (tmp_path / "uv.lock").write_text("# the lock as it was\n", encoding="utf-8")
    common = tmp_path / "packages" / "mcp-common"
    (common / "src" / "mcp_common").mkdir(parents=True)
    (common / "src" / "mcp_common" / "__init__.py").touch()
    (common / "pyproject.toml").write_text(
        '[project]\nname = "mcp-tools-common"\nversion = "0.7"\n'
    )
    return tmp_path


def test_every_template_file_is_rendered_completely(workspace: Path) -> None:
    server = NewServer("git-stats", "answers questions about a git history.", 8090)
    directory = write_package(server, workspace)

    files = sorted(p.relative_to(directory).as_posix() for p in directory.rglob("*") if p.is_file())
    assert "src/git_stats_server/tools/count_words.py" in files
    assert "tests/test_git_stats_protocol.py" in files
    assert not [name for name in files if "__package__" in name or name.endswith(".tmpl")]
    for name in files:
        text = (directory / name).read_text(encoding="utf-8")
        assert "${" not in text, name
        if name.endswith(".py"):
            compile(text, name, "exec")
    project = tomllib.loads((directory / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["name"] == "mcp-tools-git-stats-server"
    assert project["project"]["dependencies"][0] == "mcp-tools-common==0.7"
    assert project["tool"]["uv"]["sources"] == {"mcp-tools-common": {"workspace": True}}
    assert project["project"]["scripts"] == {"git-stats-server": "git_stats_server.__main__:main"}
    manifest = json.loads((directory / "server.json").read_text(encoding="utf-8"))
    assert manifest["$schema"].startswith("https://static.modelcontextprotocol.io/")
    assert manifest["packages"][0]["environmentVariables"][0]["name"] == (
        "GIT_STATS_SERVER_LOG_LEVEL"
    )
    assert manifest["name"] == "io.github.mcp-tools/git-stats-server"
    assert manifest["packages"][0]["identifier"] == "mcp-tools-git-stats-server"
    packages = workspace_packages(workspace)
    assert unpinned_dependencies(packages) == []
    (new,) = [p for p in packages if p.distribution == "mcp-tools-git-stats-server"]
    assert (new.import_name, new.core, new.server_command) == (
        "git_stats_server",
        ("core",),
        "git-stats-server",
    )
    assert next_port(workspace) == 8091


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("", "invalid name ''"),
        ("Git", "invalid name 'Git'"),
        ("git_stats", "invalid name 'git_stats'"),
        ("server", "give the name without '-server'"),
        ("json", "json_server would shadow"),
    ],
)
def test_bad_names(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, name: str, message: str
) -> None:
    (workspace / "json_server.py").touch()  # an importable module the new package would shadow
    monkeypatch.syspath_prepend(str(workspace))
    with pytest.raises(ScaffoldError, match=re.escape(message)):
        validate_name(name, workspace)


def test_a_failed_step_leaves_the_workspace_as_it_was(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(workspace / "no-programs-here"))
    pyproject = (workspace / "pyproject.toml").read_bytes()

    with pytest.raises(ScaffoldError, match="cannot run uv"):
        create_server(PROBE, workspace)

    assert sorted(p.name for p in (workspace / "packages").iterdir()) == ["mcp-common"]
    assert (workspace / "pyproject.toml").read_bytes() == pyproject
    assert (workspace / "uv.lock").read_text(encoding="utf-8") == "# the lock as it was\n"
    assert root_members(workspace)[0] == ["mcp-tools-common"]


@pytest.mark.parametrize(
    "description",
    ['says "hi".', "a\nb", "back\\slash", "`code`", "<b>bold</b>", "$HOME", "x" * 201, ""],
)
def test_a_description_that_could_break_a_generated_file_is_refused(
    workspace: Path, description: str
) -> None:
    with pytest.raises(ScaffoldError, match="invalid description"):
        create_server(PROBE, workspace, description)
    assert sorted(p.name for p in (workspace / "packages").iterdir()) == ["mcp-common"]
