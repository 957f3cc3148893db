"""The workspace's package list, read from packages/*, is what the root project installs."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp_common.workspace import (
    WorkspaceError,
    member_directories,
    root_members,
    sync_root_members,
    workspace_packages,
)

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
        assert package.import_name == package.distribution.replace("-", "_")
        assert (package.source / package.import_name / "py.typed").is_file()
        if package.distribution != "mcp-common":
            assert package.server_command == package.distribution
            assert package.workspace_dependencies == ("mcp-common",)
            assert package.core, f"{package.distribution} declares no [tool.mcp-tools] core"


def _workspace(tmp_path: Path, root_text: str, members: dict[str, str]) -> Path:
    (tmp_path / "pyproject.toml").write_text(root_text, encoding="utf-8")
    for name, body in members.items():
        package = tmp_path / "packages" / name
        (package / "src" / name.replace("-", "_")).mkdir(parents=True)
        (package / "src" / name.replace("-", "_") / "__init__.py").write_text("")
        (package / "pyproject.toml").write_text(
            f'[project]\nname = "{name}"\nversion = "0"\n{body}', encoding="utf-8"
        )
    return tmp_path


ROOT_TEXT = """[project]
name = "root"
version = "0"
dependencies = [
    "a-lib",
]

[tool.uv.workspace]
members = ["packages/*"]

[tool.uv.sources]
a-lib = { workspace = true }

[tool.ruff]
line-length = 100
"""


def test_order_is_dependencies_first_then_by_name(tmp_path: Path) -> None:
    root = _workspace(
        tmp_path,
        ROOT_TEXT,
        {
            "b-server": 'dependencies = ["z-lib>=1"]\n',
            "a-server": 'dependencies = ["z-lib"]\n',
            "z-lib": "",
        },
    )
    packages = workspace_packages(root)
    assert [p.distribution for p in packages] == ["z-lib", "a-server", "b-server"]
    assert packages[1].workspace_dependencies == ("z-lib",)


def test_sync_rewrites_only_the_member_lists(tmp_path: Path) -> None:
    root = _workspace(
        tmp_path, ROOT_TEXT, {"a-lib": "", "new-server": 'dependencies = ["a-lib"]\n'}
    )
    sync_root_members(root)
    text = (root / "pyproject.toml").read_text(encoding="utf-8")
    assert root_members(root) == (
        ["a-lib", "new-server"],
        {"a-lib": {"workspace": True}, "new-server": {"workspace": True}},
    )
    assert text.endswith("new-server = { workspace = true }\n\n[tool.ruff]\nline-length = 100\n")
    assert text.startswith('[project]\nname = "root"\n')


def test_a_declared_core_that_does_not_exist_is_refused(tmp_path: Path) -> None:
    root = _workspace(tmp_path, ROOT_TEXT, {"a-lib": '[tool.mcp-tools]\ncore = ["engine"]\n'})
    with pytest.raises(WorkspaceError, match=r"a_lib\.engine, which does not exist"):
        workspace_packages(root)


def test_a_package_without_one_import_package_is_refused(tmp_path: Path) -> None:
    root = _workspace(tmp_path, ROOT_TEXT, {"a-lib": ""})
    (root / "packages" / "a-lib" / "src" / "other").mkdir()
    (root / "packages" / "a-lib" / "src" / "other" / "__init__.py").write_text("")
    with pytest.raises(WorkspaceError, match="exactly one package"):
        workspace_packages(root)
