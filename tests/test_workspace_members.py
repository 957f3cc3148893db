"""The workspace's package list, read from packages/*, is what the root project installs."""

from __future__ import annotations

import importlib
from pathlib import Path

from mcp_common.workspace import (
    member_directories,
    pinned,
    read_toml,
    root_members,
    unpinned_dependencies,
    workspace_packages,
)

ROOT = Path(__file__).resolve().parent.parent


def test_every_directory_under_packages_is_a_member() -> None:
    members = [path.name for path in member_directories(ROOT)]
    on_disk = sorted(path.parent.name for path in (ROOT / "packages").glob("*/pyproject.toml"))
    assert members == on_disk
    assert workspace_packages(ROOT)[0].distribution == "mcp-tools-common"


def test_the_root_project_depends_on_exactly_the_workspace_members() -> None:
    dependencies, sources = root_members(ROOT)
    names = [package.distribution for package in workspace_packages(ROOT)]
    assert dependencies == names
    assert sources == {name: {"workspace": True} for name in names}


def test_each_package_names_its_one_import_package_and_its_scripts() -> None:
    for package in workspace_packages(ROOT):
        assert package.import_name == package.folder.replace("-", "_")
        assert (package.source / package.import_name / "py.typed").is_file()
        if package.folder.endswith("-server"):
            assert package.server_command == package.folder
            assert "mcp-tools-common" in package.workspace_dependencies
            assert package.core, f"{package.distribution} declares no [tool.mcp-tools] core"
        else:
            assert package.server_command is None


def test_the_agent_config_check_depends_on_nothing() -> None:
    # The guards commit it into adopted repositories as one script that runs on a bare python3.
    (checker,) = [p for p in workspace_packages(ROOT) if p.folder == "agent-config-check"]
    project = read_toml(checker.path / "pyproject.toml")["project"]
    assert project["dependencies"] == []


def test_every_distribution_carries_the_project_prefix_and_reports_its_own_version() -> None:
    """The names on PyPI are ``mcp-tools-<folder>`` (``mcp-common`` -> ``mcp-tools-common``);
    each package looks its version up under the name it is installed as."""
    for package in workspace_packages(ROOT):
        assert package.distribution == f"mcp-tools-{package.folder.removeprefix('mcp-')}"
        module = importlib.import_module(package.import_name)
        assert package.distribution == module.DISTRIBUTION


def test_internal_dependencies_are_pinned_to_the_workspace_version() -> None:
    packages = workspace_packages(ROOT)
    assert any(package.workspace_dependencies for package in packages)
    assert unpinned_dependencies(packages) == []
    (common,) = [package for package in packages if package.folder == "mcp-common"]
    for server in (package for package in packages if package.server_command):
        assert pinned(common.distribution, common.version) in server.workspace_requirements


def test_a_source_change_rebuilds_the_package() -> None:
    """uv reuses a built wheel of a local package until a cache key changes; with only
    pyproject.toml watched (its default), an install after editing the sources would get the
    old code."""
    for package in workspace_packages(ROOT):
        document = read_toml(package.path / "pyproject.toml")
        keys = document["tool"]["uv"]["cache-keys"]
        assert {"file": "src/**/*"} in keys, package.distribution
        assert {"file": "pyproject.toml"} in keys, package.distribution
