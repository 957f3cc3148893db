"""The workspace's package list, read from packages/*, is what the root project installs."""

from __future__ import annotations

from pathlib import Path

from mcp_common.workspace import member_directories, read_toml, root_members, workspace_packages

ROOT = Path(__file__).resolve().parent.parent


def test_every_directory_under_packages_is_a_member() -> None:
    members = [path.name for path in member_directories(ROOT)]
    on_disk = sorted(path.parent.name for path in (ROOT / "packages").glob("*/pyproject.toml"))
    assert members == on_disk
    assert workspace_packages(ROOT)[0].distribution == "mcp-common"


def test_the_root_project_depends_on_exactly_the_workspace_members() -> None:
    dependencies, sources = root_members(ROOT)
    names = [package.distribution for package in workspace_packages(ROOT)]
    assert dependencies == names
    assert sources == {name: {"workspace": True} for name in names}


def test_each_package_names_its_one_import_package_and_its_scripts() -> None:
    for package in workspace_packages(ROOT):
        assert package.import_name == package.path.name.replace("-", "_")
        assert (package.source / package.import_name / "py.typed").is_file()
        if package.path.name.endswith("-server"):
            assert package.server_command == package.path.name
            assert "mcp-common" in package.workspace_dependencies
            assert package.core, f"{package.distribution} declares no [tool.mcp-tools] core"
        else:
            assert package.server_command is None


def test_the_agent_config_check_depends_on_nothing() -> None:
    # The guards commit it into adopted repositories as one script that runs on a bare python3.
    (checker,) = [p for p in workspace_packages(ROOT) if p.path.name == "agent-config-check"]
    project = read_toml(checker.path / "pyproject.toml")["project"]
    assert project["dependencies"] == []
