"""mcp_common.workspace on small workspaces written for each test."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp_common.workspace import (
    WorkspaceError,
    find_root,
    import_contracts,
    root_members,
    sync_root_members,
    unpinned_dependencies,
    workspace_packages,
)


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


def test_only_an_exact_pin_on_a_members_version_counts_as_pinned(tmp_path: Path) -> None:
    root = _workspace(
        tmp_path,
        ROOT_TEXT,
        {
            "z-lib": "",
            "a-server": 'dependencies = ["z-lib == 0", "httpx>=0.27"]\n',
            "b-server": 'dependencies = ["z-lib>=0"]\n',
            "c-server": 'dependencies = ["z-lib"]\n',
            "d-server": 'dependencies = ["z-lib==1"]\n',
        },
    )
    assert unpinned_dependencies(workspace_packages(root)) == [
        "b-server requires 'z-lib>=0'; write 'z-lib==0'",
        "c-server requires 'z-lib'; write 'z-lib==0'",
        "d-server requires 'z-lib==1'; write 'z-lib==0'",
    ]


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


def test_the_root_is_found_from_below_and_its_absence_is_named(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    root = _workspace(tmp_path / "ws", ROOT_TEXT, {"a-lib": ""})
    assert find_root(root / "packages" / "a-lib" / "src") == root
    with pytest.raises(WorkspaceError, match=r"no pyproject.toml with a \[tool.uv.workspace\]"):
        find_root(tmp_path)


def test_contracts_name_every_root_core_and_sdk_package(tmp_path: Path) -> None:
    root = _workspace(
        tmp_path,
        ROOT_TEXT,
        {
            "a-lib": '[tool.mcp-tools]\nmcp-sdk = ["adapter"]\n',
            "b-server": 'dependencies = ["a-lib"]\n[tool.mcp-tools]\ncore = ["engine"]\n',
        },
    )
    for package, sub in (("a_lib", "adapter"), ("b_server", "engine"), ("b_server", "tools")):
        (root / "packages" / package.replace("_", "-") / "src" / package / sub).mkdir()
        (
            root / "packages" / package.replace("_", "-") / "src" / package / sub / "__init__.py"
        ).touch()
    config = import_contracts(workspace_packages(root))
    assert "root_packages = \n\ta_lib\n\tb_server\n" in config
    assert "\ta_lib.adapter.** -> mcp\n" in config
    core = config.split("[importlinter:contract:core]", 1)[1]
    assert "source_modules = \n\tb_server.engine\n" in core
    assert "forbidden_modules = \n\ta_lib.adapter\n\tb_server.tools\n\tmcp\n\tmcp_types\n" in core


def test_an_acyclic_declaration_adds_its_contract_and_only_then(tmp_path: Path) -> None:
    root = _workspace(
        tmp_path,
        ROOT_TEXT,
        {"a-lib": '[tool.mcp-tools]\ncore = ["engine"]\nacyclic = ["engine"]\n'},
    )
    (root / "packages" / "a-lib" / "src" / "a_lib" / "engine").mkdir()
    (root / "packages" / "a-lib" / "src" / "a_lib" / "engine" / "__init__.py").touch()
    config = import_contracts(workspace_packages(root))
    acyclic = config.split("[importlinter:contract:acyclic]", 1)[1]
    assert "type = acyclic_siblings\n" in acyclic
    assert "ancestors = \n\ta_lib.engine\n" in acyclic
    (root / "packages" / "a-lib" / "pyproject.toml").write_text(
        '[project]\nname = "a-lib"\nversion = "0"\n[tool.mcp-tools]\ncore = ["engine"]\n'
    )
    assert "acyclic" not in import_contracts(workspace_packages(root))


def test_a_declared_acyclic_package_that_does_not_exist_is_refused(tmp_path: Path) -> None:
    root = _workspace(tmp_path, ROOT_TEXT, {"a-lib": '[tool.mcp-tools]\nacyclic = ["parts"]\n'})
    with pytest.raises(WorkspaceError, match=r"a_lib\.parts, which does not exist"):
        workspace_packages(root)


def test_contracts_need_a_core_to_protect(tmp_path: Path) -> None:
    root = _workspace(tmp_path, ROOT_TEXT, {"a-lib": ""})
    with pytest.raises(WorkspaceError, match="no package declares a core"):
        import_contracts(workspace_packages(root))


def test_a_plugin_package_gets_a_contract_over_its_siblings(tmp_path: Path) -> None:
    body = (
        '[tool.mcp-tools]\ncore = ["engine"]\n'
        '[tool.mcp-tools.plugins]\n"engine.backends" = ["engine.files"]\n'
    )
    root = _workspace(tmp_path, ROOT_TEXT, {"b-server": body})
    engine = root / "packages" / "b-server" / "src" / "b_server" / "engine"
    (engine / "backends").mkdir(parents=True)
    for module in ("__init__.py", "files.py", "backends/__init__.py"):
        (engine / module).touch()
    packages = workspace_packages(root)
    assert packages[0].plugins == (("engine.backends", ("engine.files",)),)
    config = import_contracts(packages)
    plugin = config.split("[importlinter:contract:plugin:b_server.engine.backends]", 1)[1]
    assert "name = b_server.engine.backends is reached only through its protocol\n" in plugin
    assert "source_modules = \n\tb_server.engine.*\n" in plugin
    assert "forbidden_modules = \n\tb_server.engine.backends\n" in plugin
    assert "\tb_server.engine.files -> b_server.engine.backends.**\n" in plugin


def test_a_plugin_s_drivers_and_registry_users_are_forbidden_to_its_siblings(
    tmp_path: Path,
) -> None:
    body = (
        '[tool.mcp-tools]\ncore = ["engine"]\n'
        '[tool.mcp-tools.plugins]\n"engine.backends" = ["engine.files", "engine.rows"]\n'
        '[tool.mcp-tools.drivers]\n"engine.backends" = ["duckdb"]\n'
    )
    root = _workspace(tmp_path, ROOT_TEXT, {"b-server": body})
    engine = root / "packages" / "b-server" / "src" / "b_server" / "engine"
    (engine / "backends").mkdir(parents=True)
    for module in ("__init__.py", "files.py", "rows.py", "backends/__init__.py"):
        (engine / module).touch()
    packages = workspace_packages(root)
    assert packages[0].drivers == (("engine.backends", ("duckdb",)),)
    plugin = import_contracts(packages).split(
        "[importlinter:contract:plugin:b_server.engine.backends]", 1
    )[1]
    forbidden = "\n\tb_server.engine.backends\n\tb_server.engine.files\n\tb_server.engine.rows"
    assert f"forbidden_modules = {forbidden}\n\tduckdb\n" in plugin
    # the users reach the plugin, each other and the driver; the plugin its driver
    for allowed in (
        "b_server.engine.files -> b_server.engine.rows",
        "b_server.engine.rows -> duckdb",
        "b_server.engine.backends.** -> duckdb",
    ):
        assert f"\t{allowed}\n" in plugin
    assert "b_server.engine.files -> b_server.engine.files\n" not in plugin


def test_drivers_belong_to_a_declared_plugin(tmp_path: Path) -> None:
    body = (
        '[tool.mcp-tools]\ncore = ["engine"]\n[tool.mcp-tools.drivers]\n"engine.x" = ["duckdb"]\n'
    )
    root = _workspace(tmp_path, ROOT_TEXT, {"b-server": body})
    (root / "packages" / "b-server" / "src" / "b_server" / "engine").mkdir(parents=True)
    (root / "packages" / "b-server" / "src" / "b_server" / "engine" / "__init__.py").touch()
    with pytest.raises(WorkspaceError, match=r"drivers\] names engine\.x, which is not declared"):
        workspace_packages(root)


@pytest.mark.parametrize(
    ("plugins", "message"),
    [
        ('"engine.backends" = ["engine.missing"]', r"b_server\.engine\.missing, which does not"),
        ('"backends" = []', "must be a sub-package of a sub-package"),
        ('"engine.backends" = "engine.files"', "must be a list of strings"),
    ],
)
def test_a_plugin_declaration_names_what_exists(tmp_path: Path, plugins: str, message: str) -> None:
    body = f'[tool.mcp-tools]\ncore = ["engine"]\n[tool.mcp-tools.plugins]\n{plugins}\n'
    root = _workspace(tmp_path, ROOT_TEXT, {"b-server": body})
    engine = root / "packages" / "b-server" / "src" / "b_server" / "engine"
    (engine / "backends").mkdir(parents=True)
    for module in ("__init__.py", "files.py", "backends/__init__.py"):
        (engine / module).touch()
    (engine.parent / "backends").mkdir()
    (engine.parent / "backends" / "__init__.py").touch()
    with pytest.raises(WorkspaceError, match=message):
        workspace_packages(root)
