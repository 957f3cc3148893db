"""The workspace's package list, read from packages/*, is what the root project installs."""

from __future__ import annotations

import importlib
from pathlib import Path

from mcp_common.workspace import (
    member_directories,
    pinned,
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
        if package.folder != "mcp-common":
            assert package.server_command == package.folder
            assert "mcp-tools-common" in package.workspace_dependencies
            assert package.core, f"{package.distribution} declares no [tool.mcp-tools] core"


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
    common = packages[0]
    assert pinned(common.distribution, common.version) in packages[1].workspace_requirements
