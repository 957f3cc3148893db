"""The packages of the uv workspace, read from their own ``pyproject.toml`` files.

Every check of the repository (nox sessions, mypy, the import-linter contracts, the wheel, CLI
and layering tests) and the new-server scaffolder take the package list from here, so a package
added under ``packages/`` is checked by everything without edits elsewhere. Standard library
only: the noxfile imports it before anything is installed beyond the workspace itself.

What a package declares for the checks, in its own pyproject::

    [tool.mcp-tools]
    core = ["engine"]            # sub-packages that know nothing of MCP, the tools or the SDK
    mcp-sdk = ["adapter"]        # sub-packages allowed to import the mcp SDK (mcp-common only)
    acyclic = ["engine"]         # sub-packages whose parts import each other without cycles

    [tool.mcp-tools.plugins]     # plugin packages, each with the only modules importing it
    "engine.backends" = ["engine.files", "engine.database"]

    [tool.mcp-tools.drivers]     # third-party packages only a plugin and its users import
    "engine.backends" = ["duckdb", "sqlalchemy"]

A plugin package holds the variants of one protocol (one module each, plus the registry in its
``__init__``). Its sibling modules reach a variant only through the protocol: none of them may
import the plugin package, directly or indirectly, except the listed registry users (which
open a variant by name); nor a registry user (which could hand them a variant's class); nor
the plugin's drivers (whose objects they could test instead). So calling code cannot switch
on a variant's type.
"""

from __future__ import annotations

import configparser
import io
import re
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

SDK_MODULES = ("mcp", "mcp_types")
"""The distributions of the MCP SDK, by import name."""

SDK_CONTRACT = "Only the declared SDK sub-packages import the mcp SDK"
CORE_CONTRACT = "Server cores know nothing of MCP or tools"
ACYCLIC_CONTRACT = "Declared sub-packages hold no import cycle among their parts"
PLUGIN_CONTRACT = "{package} is reached only through its protocol"
"""The name of the contract generated for each plugin package (``package`` its dotted name)."""


class WorkspaceError(Exception):
    """The workspace or one of its packages is not laid out the way the checks need."""


@dataclass(frozen=True)
class WorkspacePackage:
    """One member of the workspace, as its pyproject and its ``src`` directory describe it."""

    distribution: str
    """The project name (normalized), e.g. ``mcp-tools-uniqueness-server``."""
    version: str
    """The project version its pyproject declares."""
    path: Path
    """The package directory, e.g. ``<root>/packages/uniqueness-server``."""
    import_name: str
    """The one importable package under ``src``, e.g. ``uniqueness_server``."""
    scripts: tuple[tuple[str, str], ...]
    """Console scripts: (command, entry point), in pyproject order."""
    workspace_dependencies: tuple[str, ...]
    """Dependencies that are members of the workspace, by distribution name."""
    workspace_requirements: tuple[str, ...]
    """The requirement strings of :attr:`workspace_dependencies`, as the pyproject writes them."""
    core: tuple[str, ...]
    """Sub-packages (of ``import_name``) the core-layering contract applies to."""
    mcp_sdk: tuple[str, ...]
    """Sub-packages (of ``import_name``) allowed to import the mcp SDK."""
    acyclic: tuple[str, ...] = ()
    """Sub-packages (of ``import_name``) whose modules and sub-packages, at every level,
    import one another without a cycle."""
    plugins: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """Plugin packages (dotted, under ``import_name``), each with the sibling modules allowed to
    import it (its registry users)."""
    drivers: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """Plugin packages (among :attr:`plugins`), each with the third-party packages (import
    names) that only it and its registry users may import."""

    @property
    def folder(self) -> str:
        """The directory name under ``packages/``, e.g. ``uniqueness-server``: also the server's
        command and the name of its golden ``tools/list`` and registry entry."""
        return self.path.name

    @property
    def source(self) -> Path:
        """The ``src`` directory (what mypy and import-linter read)."""
        return self.path / "src"

    @property
    def tests(self) -> Path:
        """The package's own test directory."""
        return self.path / "tests"

    @property
    def session(self) -> str:
        """The name of its nox session: the import name."""
        return self.import_name

    @property
    def server_command(self) -> str | None:
        """The command serving MCP (``<import>.__main__:main``), if the package is a server."""
        for command, entry in self.scripts:
            if entry == f"{self.import_name}.__main__:main":
                return command
        return None

    def has_subpackage(self, name: str) -> bool:
        """Whether ``<import_name>.<name>`` exists as a module or package in the sources."""
        base = self.source / self.import_name / name.replace(".", "/")
        return (base / "__init__.py").is_file() or base.with_suffix(".py").is_file()


def find_root(start: Path | None = None) -> Path:
    """The workspace root: the nearest directory at or above ``start`` (default: the working
    directory) whose ``pyproject.toml`` has a ``[tool.uv.workspace]`` table."""
    here = (start or Path.cwd()).resolve()
    for directory in (here, *here.parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file() and "workspace" in _tool(read_toml(candidate), "uv"):
            return directory
    raise WorkspaceError(f"no pyproject.toml with a [tool.uv.workspace] table at or above {here}")


def read_toml(path: Path) -> dict[str, Any]:
    """A TOML file, with the file named in the error when it does not parse."""
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise WorkspaceError(f"{path}: {exc}") from exc


def _tool(document: dict[str, Any], name: str) -> dict[str, Any]:
    table = document.get("tool", {}).get(name, {})
    return table if isinstance(table, dict) else {}


def _strings(value: object, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise WorkspaceError(f"{where} must be a list of strings")
    return tuple(value)


def _plugins(value: object, where: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if not isinstance(value, dict):
        raise WorkspaceError(f"{where} must be a table of plugin package = [importing modules]")
    plugins = []
    for package, users in value.items():
        if "." not in package:
            raise WorkspaceError(
                f"{where}: {package!r} must be a sub-package of a sub-package (e.g. "
                "engine.backends): its siblings are the modules the contract covers"
            )
        plugins.append((str(package), _strings(users, f"{where} {package}")))
    return tuple(plugins)


_REQUIREMENT_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def normalize(name: str) -> str:
    """A distribution name normalized as packaging does (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def member_directories(root: Path) -> list[Path]:
    """The directories the root's ``[tool.uv.workspace]`` members (minus excludes) match."""
    workspace = _tool(read_toml(root / "pyproject.toml"), "uv").get("workspace", {})
    members = _strings(workspace.get("members", []), "[tool.uv.workspace] members")
    excluded = {
        path.resolve()
        for pattern in _strings(workspace.get("exclude", []), "[tool.uv.workspace] exclude")
        for path in root.glob(pattern)
    }
    found = {
        path.resolve()
        for pattern in members
        for path in root.glob(pattern)
        if (path / "pyproject.toml").is_file()
    }
    return sorted(found - excluded)


def _import_name(directory: Path) -> str:
    source = directory / "src"
    packages = (
        sorted(
            entry.name
            for entry in source.iterdir()
            if entry.is_dir() and (entry / "__init__.py").is_file()
        )
        if source.is_dir()
        else []
    )
    if len(packages) != 1:
        raise WorkspaceError(
            f"{directory}: src/ must hold exactly one package, found {packages or 'none'}"
        )
    return packages[0]


def _load_package(directory: Path) -> tuple[WorkspacePackage, list[tuple[str, str]]]:
    pyproject = directory / "pyproject.toml"
    document = read_toml(pyproject)
    project = document.get("project", {})
    name = project.get("name")
    if not isinstance(name, str):
        raise WorkspaceError(f"{pyproject}: [project] has no name")
    version = project.get("version")
    if not isinstance(version, str):
        raise WorkspaceError(f"{pyproject}: [project] has no version")
    requirements = _strings(project.get("dependencies", []), f"{pyproject} [project] dependencies")
    dependencies = []
    for requirement in requirements:
        matched = _REQUIREMENT_NAME.match(requirement)
        if matched:
            dependencies.append((normalize(matched.group(1)), requirement))
    scripts = project.get("scripts", {})
    if not isinstance(scripts, dict):
        raise WorkspaceError(f"{pyproject}: [project.scripts] must be a table")
    declared = _tool(document, "mcp-tools")
    package = WorkspacePackage(
        distribution=normalize(name),
        version=version,
        path=directory,
        import_name=_import_name(directory),
        scripts=tuple((str(command), str(entry)) for command, entry in scripts.items()),
        workspace_dependencies=(),
        workspace_requirements=(),
        core=_strings(declared.get("core", []), f"{pyproject} [tool.mcp-tools] core"),
        mcp_sdk=_strings(declared.get("mcp-sdk", []), f"{pyproject} [tool.mcp-tools] mcp-sdk"),
        acyclic=_strings(declared.get("acyclic", []), f"{pyproject} [tool.mcp-tools] acyclic"),
        plugins=_plugins(declared.get("plugins", {}), f"{pyproject} [tool.mcp-tools.plugins]"),
        drivers=_plugins(declared.get("drivers", {}), f"{pyproject} [tool.mcp-tools.drivers]"),
    )
    for plugin, _ in package.drivers:
        if plugin not in dict(package.plugins):
            raise WorkspaceError(
                f"{pyproject}: [tool.mcp-tools.drivers] names {plugin}, which is not declared "
                "in [tool.mcp-tools.plugins]"
            )
    for sub in (
        *package.core,
        *package.mcp_sdk,
        *package.acyclic,
        *(name for plugin, users in package.plugins for name in (plugin, *users)),
    ):
        if not package.has_subpackage(sub):
            raise WorkspaceError(
                f"{pyproject}: [tool.mcp-tools] names {package.import_name}.{sub}, "
                "which does not exist"
            )
    return package, dependencies


def workspace_packages(root: Path | None = None) -> list[WorkspacePackage]:
    """Every workspace member, dependencies before their dependents, otherwise by name.

    The order is deterministic (among the packages whose dependencies are placed, the one
    most others depend on first, then by name: ``mcp-tools-common`` first, the servers by
    name), so
    session lists and generated files do not change with the file system's listing order.
    """
    base = find_root() if root is None else root.resolve()
    loaded = [_load_package(directory) for directory in member_directories(base)]
    names = {package.distribution for package, _ in loaded}
    pending = {
        package.distribution: replace(
            package,
            workspace_dependencies=tuple(d for d, _ in dependencies if d in names),
            workspace_requirements=tuple(r for d, r in dependencies if d in names),
        )
        for package, dependencies in loaded
    }
    dependents = {
        name: sum(name in package.workspace_dependencies for package in pending.values())
        for name in pending
    }
    ordered: list[WorkspacePackage] = []
    placed: set[str] = set()
    while pending:
        ready = sorted(
            (
                name
                for name, package in pending.items()
                if set(package.workspace_dependencies) <= placed
            ),
            key=lambda name: (-dependents[name], name),
        )
        if not ready:
            raise WorkspaceError(f"workspace dependency cycle among {sorted(pending)}")
        ordered.append(pending.pop(ready[0]))
        placed.add(ready[0])
    return ordered


def pinned(distribution: str, version: str) -> str:
    """The requirement on a workspace member: exactly its version, so that an installer can
    never pick another project's package of the same name, nor a mismatched release of ours."""
    return f"{distribution}=={version}"


def unpinned_dependencies(packages: Sequence[WorkspacePackage]) -> list[str]:
    """One line per dependency on a workspace member that is not exactly :func:`pinned` to the
    member's version (empty when every internal dependency is pinned)."""
    versions = {package.distribution: package.version for package in packages}
    problems = []
    for package in packages:
        for name, requirement in zip(
            package.workspace_dependencies, package.workspace_requirements, strict=True
        ):
            expected = pinned(name, versions[name])
            if requirement.replace(" ", "") != expected:
                problems.append(
                    f"{package.distribution} requires {requirement!r}; write {expected!r}"
                )
    return problems


def import_contracts(packages: Sequence[WorkspacePackage]) -> str:
    """The import-linter configuration (INI) for ``packages``.

    Two forbidden contracts: the mcp SDK is imported only by the sub-packages declared as
    ``mcp-sdk`` (``mcp_common.adapter`` and ``mcp_common.testing``), and no declared ``core``
    sub-package imports an SDK sub-package, any package's ``tools`` or the SDK, directly or
    indirectly. Then one per declared plugin package: no sibling module imports it, one of
    its registry users or one of its drivers, directly or indirectly, except the registry
    users themselves (and the plugin its drivers). When a package declares ``acyclic``
    sub-packages, one more contract keeps their parts free of import cycles (at every level
    below them).
    """
    roots = [package.import_name for package in packages]
    sdk_subpackages = [
        f"{package.import_name}.{sub}" for package in packages for sub in package.mcp_sdk
    ]
    cores = [f"{package.import_name}.{sub}" for package in packages for sub in package.core]
    tools = [
        f"{package.import_name}.tools" for package in packages if package.has_subpackage("tools")
    ]
    if not cores:
        raise WorkspaceError("no package declares a core sub-package ([tool.mcp-tools] core)")
    config = configparser.ConfigParser(interpolation=None)
    config["importlinter"] = {
        "root_packages": _lines(roots),
        "include_external_packages": "True",
    }
    config["importlinter:contract:mcp-sdk"] = {
        "name": SDK_CONTRACT,
        "type": "forbidden",
        "source_modules": _lines(roots),
        "forbidden_modules": _lines(SDK_MODULES),
        # a package module itself may or may not import the SDK; either is fine
        "unmatched_ignore_imports_alerting": "none",
        "ignore_imports": _lines(
            f"{module}{suffix} -> {sdk}"
            for module in sdk_subpackages
            for suffix in ("", ".**")
            for sdk in SDK_MODULES
        ),
    }
    config["importlinter:contract:core"] = {
        "name": CORE_CONTRACT,
        "type": "forbidden",
        "source_modules": _lines(cores),
        "forbidden_modules": _lines([*sdk_subpackages, *tools, *SDK_MODULES]),
    }
    for package in packages:
        drivers = dict(package.drivers)
        for plugin, users in package.plugins:
            dotted = f"{package.import_name}.{plugin}"
            parent = dotted.rpartition(".")[0]
            entries = [f"{package.import_name}.{user}" for user in users]
            owned = drivers.get(plugin, ())
            allowed = [
                *(
                    f"{user} -> {target}"
                    for user in entries
                    for target in (dotted, f"{dotted}.**", *entries, *owned)
                    if target != user
                ),
                *(
                    f"{inside} -> {driver}"
                    for inside in (dotted, f"{dotted}.**")
                    for driver in owned
                ),
            ]
            config[f"importlinter:contract:plugin:{dotted}"] = {
                "name": PLUGIN_CONTRACT.format(package=dotted),
                "type": "forbidden",
                # every module beside the plugin package (one added later too)
                "source_modules": _lines([f"{parent}.*"]),
                "forbidden_modules": _lines([dotted, *entries, *owned]),
                "unmatched_ignore_imports_alerting": "none",
                "ignore_imports": _lines(allowed),
            }
    acyclic = [f"{package.import_name}.{sub}" for package in packages for sub in package.acyclic]
    if acyclic:
        config["importlinter:contract:acyclic"] = {
            "name": ACYCLIC_CONTRACT,
            "type": "acyclic_siblings",
            "ancestors": _lines(acyclic),
        }
    text = io.StringIO()
    config.write(text)
    return text.getvalue()


def _lines(values: Iterable[str]) -> str:
    return "".join(f"\n{value}" for value in values)


def write_import_contracts(target: Path, root: Path | None = None) -> Path:
    """Write :func:`import_contracts` of the workspace to ``target`` (for ``lint-imports
    --config``) and return it."""
    target.write_text(import_contracts(workspace_packages(root)), encoding="utf-8")
    return target


def root_members(root: Path) -> tuple[list[str], dict[str, Any]]:
    """The root project's ``[project] dependencies`` and ``[tool.uv.sources]``.

    They must name every workspace member (``uv run`` installs only what the root depends
    on); :func:`sync_root_members` writes them, a test keeps them equal to the workspace.
    """
    document = read_toml(root / "pyproject.toml")
    dependencies = _strings(document.get("project", {}).get("dependencies", []), "dependencies")
    sources = _tool(document, "uv").get("sources", {})
    return list(dependencies), dict(sources) if isinstance(sources, dict) else {}


_DEPENDENCIES = re.compile(r"(?ms)^dependencies = \[\n.*?^\]\n")
_SOURCES = re.compile(r"(?ms)^\[tool\.uv\.sources\]\n.*?(?=^\[|\Z)")


def sync_root_members(root: Path) -> None:
    """Rewrite the root ``[project] dependencies`` and ``[tool.uv.sources]`` to name exactly
    the workspace members, in workspace order; the rest of the file is kept as written."""
    pyproject = root / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    names = [package.distribution for package in workspace_packages(root)]
    project_start = text.find("[project]\n")
    project_end = text.find("\n[", project_start + 1)
    if project_start < 0 or project_end < 0:
        raise WorkspaceError(f"{pyproject}: no [project] table followed by another table")
    project = text[project_start:project_end]
    dependencies = "dependencies = [\n" + "".join(f'    "{name}",\n' for name in names) + "]\n"
    if not _DEPENDENCIES.search(project):
        raise WorkspaceError(f"{pyproject}: [project] has no multi-line dependencies array")
    project = _DEPENDENCIES.sub(lambda _: dependencies, project, count=1)
    sources = (
        "[tool.uv.sources]\n"
        + "".join(f"{name} = {{ workspace = true }}\n" for name in names)
        + "\n"
    )
    rest = text[project_end:]
    if not _SOURCES.search(rest):
        raise WorkspaceError(f"{pyproject}: no [tool.uv.sources] table after [project]")
    rest = _SOURCES.sub(lambda _: sources, rest, count=1)
    updated = text[:project_start] + project + rest
    pyproject.write_text(updated, encoding="utf-8")
    written, written_sources = root_members(root)
    if written != names or set(written_sources) != set(names):
        raise WorkspaceError(f"{pyproject}: rewriting the workspace members did not take")
