"""``mcp-new-server NAME``: a new server package in the workspace, checked by everything.

It writes ``packages/NAME-server/`` (installed as ``mcp-tools-NAME-server``, requiring
mcp-common at exactly the workspace's version) from the template next to this module (a server
with one example tool over a plain core, its tests, README and registry manifest), adds the
package to the root project's dependencies and uv sources, locks (``uv lock --offline`` first,
so a warm cache needs no network), and writes the golden ``tools/list`` by running the new
golden test once with ``UPDATE_GOLDEN=1``. Everything else (nox session, mypy, import
contracts, wheel and CLI tests) finds the package by itself through :mod:`mcp_common.workspace`.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from string import Template

from mcp_common.usage import UsageParser
from mcp_common.version import DISTRIBUTION, package_version
from mcp_common.workspace import (
    WorkspaceError,
    WorkspacePackage,
    find_root,
    normalize,
    pinned,
    sync_root_members,
    workspace_packages,
)

NAME = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")
DESCRIPTION = re.compile(r"^[\w ,.;:()'/+-]{1,200}$")
"""The description lands in Python, TOML and JSON strings and in Markdown: no quotes,
backslashes or markup, so no file can be broken (or code injected) by it."""
TEMPLATE_SUFFIX = ".tmpl"
FIRST_PORT = 8081
DISTRIBUTION_PREFIX = "mcp-tools-"
DEFAULT_DESCRIPTION = "counts the words of text files under the allowed directories."


class ScaffoldError(Exception):
    """The server cannot be created as asked; the message says why."""


@dataclass(frozen=True)
class NewServer:
    """The names a new server package is made of, all derived from ``name``."""

    name: str
    description: str = DEFAULT_DESCRIPTION
    port: int = FIRST_PORT

    @property
    def command(self) -> str:
        """``weather`` -> ``weather-server``: its command, directory, server and golden name."""
        return f"{self.name}-server"

    @property
    def distribution(self) -> str:
        """``weather`` -> ``mcp-tools-weather-server``: the name it is installed under (the
        project's prefix keeps it clear of other people's packages on PyPI)."""
        return f"{DISTRIBUTION_PREFIX}{self.command}"

    @property
    def import_name(self) -> str:
        """``weather`` -> ``weather_server``."""
        return self.command.replace("-", "_")

    @property
    def module(self) -> str:
        """``weather`` -> ``weather`` (test file names: ``test_weather_protocol.py``)."""
        return self.name.replace("-", "_")

    def substitutions(self, common: WorkspacePackage) -> dict[str, str]:
        """The ``${...}`` values of the template files; ``common`` is the workspace's
        mcp-common, which the new package requires at exactly its version."""
        return {
            "name": self.name,
            "command": self.command,
            "distribution": self.distribution,
            "common_distribution": common.distribution,
            "common_requirement": pinned(common.distribution, common.version),
            "import_name": self.import_name,
            "env_prefix": self.import_name.upper(),
            "class_prefix": "".join(part.capitalize() for part in self.name.split("-")),
            "port": str(self.port),
            "title": self.name.replace("-", " ").capitalize(),
            "description": self.description,
            "short_description": self.description[:100].rstrip("."),
        }

    def path_of(self, template_path: str) -> str:
        """Where a template file lands, relative to the package directory."""
        relative = template_path.removesuffix(TEMPLATE_SUFFIX)
        return relative.replace("__package__", self.import_name).replace("__module__", self.module)


def validate_description(description: str) -> None:
    """Refuse a description that is not one plain sentence (see :data:`DESCRIPTION`)."""
    if not DESCRIPTION.fullmatch(description):
        raise ScaffoldError(
            "invalid description: one line of at most 200 letters, digits, spaces and "
            ",.;:()'/+- (no quotes, backslashes or markup)"
        )


def validate_name(name: str, root: Path) -> None:
    """Refuse a name that is malformed, taken, or would shadow an importable module."""
    if not NAME.fullmatch(name):
        raise ScaffoldError(
            f"invalid name {name!r}: use lowercase letters, digits and single hyphens, "
            "starting with a letter (e.g. 'weather' or 'git-stats')"
        )
    if name.endswith("-server") or name == "server":
        raise ScaffoldError(
            f"give the name without '-server': {name.removesuffix('-server') or 'NAME'!r} "
            f"makes {name if name != 'server' else 'NAME-server'!r}"
        )
    server = NewServer(name)
    directory = root / "packages" / server.command
    if directory.exists():
        raise ScaffoldError(f"{directory} already exists")
    packages = workspace_packages(root)
    taken_names = {normalize(p.distribution) for p in packages}
    taken_commands = {command for p in packages for command, _ in p.scripts}
    if server.distribution in taken_names or server.command in taken_commands:
        raise ScaffoldError(f"{server.command} is already a package or command here")
    if _importable(server.import_name):
        raise ScaffoldError(f"{server.import_name} would shadow an importable module")


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return True


_PORT = re.compile(r"(?m)^\s+port: int = Field\(\s*(\d+)")


def next_port(root: Path) -> int:
    """One past the highest default ``port`` the workspace's servers declare in their
    settings (``port: int = Field(8081, ...)`` in ``server.py``)."""
    ports = [
        int(found)
        for package in workspace_packages(root)
        if (package.source / package.import_name / "server.py").is_file()
        for found in _PORT.findall(
            (package.source / package.import_name / "server.py").read_text(encoding="utf-8")
        )
    ]
    return max(ports, default=FIRST_PORT - 1) + 1


def _template_files(folder: Traversable, prefix: str = "") -> list[tuple[str, str]]:
    files = []
    for entry in sorted(folder.iterdir(), key=lambda item: item.name):
        relative = f"{prefix}{entry.name}"
        if entry.is_dir():
            if entry.name != "__pycache__":
                files.extend(_template_files(entry, f"{relative}/"))
        elif entry.name.endswith(TEMPLATE_SUFFIX):
            files.append((relative, entry.read_text(encoding="utf-8")))
    return files


def _common(root: Path) -> WorkspacePackage:
    for package in workspace_packages(root):
        if package.import_name == "mcp_common":
            return package
    raise ScaffoldError(f"{root} has no mcp-common package under packages/")


def write_package(server: NewServer, root: Path) -> Path:
    """Render the template into ``packages/<command>`` and return that directory."""
    directory = root / "packages" / server.command
    values = server.substitutions(_common(root))
    for relative, text in _template_files(resources.files(__name__) / "template"):
        target = directory / server.path_of(relative)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(Template(text).substitute(values), encoding="utf-8", newline="\n")
    if (root / "LICENSE").is_file():  # a copy: an sdist cannot carry a link out of its folder
        shutil.copyfile(root / "LICENSE", directory / "LICENSE")
    return directory


def _run(command: Sequence[str], root: Path, environ: dict[str, str] | None = None) -> None:
    try:
        completed = subprocess.run(
            list(command),
            cwd=root,
            env=environ,
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError as exc:
        raise ScaffoldError(f"cannot run {command[0]}: {exc.strerror or exc}") from exc
    if completed.returncode != 0:
        raise ScaffoldError(
            f"{' '.join(command)} failed (exit status {completed.returncode}):\n"
            + (completed.stderr or completed.stdout).strip()
        )


def lock(root: Path) -> None:
    """``uv lock --offline`` (enough when the uv cache holds every distribution), else
    ``uv lock``."""
    try:
        _run(["uv", "lock", "--offline"], root)
    except ScaffoldError:
        _run(["uv", "lock"], root)


def write_golden(server: NewServer, root: Path) -> None:
    """Run the new package's golden test once with ``UPDATE_GOLDEN=1`` (this also installs the
    package into the workspace environment)."""
    test = f"packages/{server.command}/tests/test_{server.module}_protocol.py"
    environ = {**os.environ, "UPDATE_GOLDEN": "1"}
    environ.pop("VIRTUAL_ENV", None)  # the workspace's own environment, not the caller's
    _run(
        ["uv", "run", "--locked", "pytest", test, "-q", "-p", "no:cacheprovider", "-k", "golden"],
        root,
        environ,
    )


def write_command_line_tables(root: Path) -> None:
    """Write the new server's ``command_lines.json`` (its ``--help`` answers from it, see
    :mod:`mcp_common.command_line`), in the workspace environment that now holds it."""
    environ = dict(os.environ)
    environ.pop("VIRTUAL_ENV", None)  # the workspace's own environment, not the caller's
    _run(["uv", "run", "--locked", "python", "-m", "mcp_common.command_line"], root, environ)


def create_server(name: str, root: Path, description: str = DEFAULT_DESCRIPTION) -> Path:
    """Every step of ``mcp-new-server``; returns the new package directory.

    When a step fails, the files it wrote are removed and the root ``pyproject.toml`` and
    ``uv.lock`` are put back as they were, so the command can simply be run again.
    """
    validate_name(name, root)
    validate_description(description)
    server = NewServer(name, description, next_port(root))
    kept = {
        path: path.read_bytes()
        for path in (root / "pyproject.toml", root / "uv.lock")
        if path.is_file()
    }
    directory = root / "packages" / server.command
    golden = root / "tests" / "golden" / f"{server.command}.tools.json"
    try:
        write_package(server, root)
        sync_root_members(root)
        lock(root)
        write_golden(server, root)
        write_command_line_tables(root)
    except BaseException:
        shutil.rmtree(directory, ignore_errors=True)
        golden.unlink(missing_ok=True)
        for path, content in kept.items():
            path.write_bytes(content)
        raise
    return directory


def build_parser() -> UsageParser:
    """The command line of ``mcp-new-server``."""
    parser = UsageParser(
        prog="mcp-new-server",
        description=(
            "Create packages/NAME-server/ in this uv workspace: a server with one example\n"
            "tool, its tests, README and registry manifest; add it to the root project and\n"
            "the lock; write its golden tools/list and its --help table."
        ),
        epilog=(
            "Examples:\n"
            "  mcp-new-server weather\n"
            '  mcp-new-server git-stats --description "answers questions about a git history."'
        ),
    )
    parser.add_argument("name", metavar="NAME", help="lowercase letters, digits and hyphens")
    parser.add_argument(
        "--description",
        default=DEFAULT_DESCRIPTION,
        help="one sentence on what the server does (README, pyproject, --help)",
    )
    parser.add_argument(
        "--root",
        type=Path,
        default=None,
        help="the workspace root (default: found from the working directory)",
    )
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {package_version(DISTRIBUTION)}"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of ``mcp-new-server``: exit status 2 for a usage error, 1 for a failed
    step."""
    parser = build_parser()
    options = parser.parse_args(argv)
    try:
        root = find_root(options.root)
        validate_name(options.name, root)
        validate_description(options.description)
    except (ScaffoldError, WorkspaceError) as exc:
        parser.error(str(exc))
    try:
        directory = create_server(options.name, root, options.description)
    except (ScaffoldError, WorkspaceError) as exc:
        sys.stderr.write(f"mcp-new-server: {exc}\n")
        raise SystemExit(1) from exc
    relative = directory.relative_to(root)
    sys.stdout.write(
        f"created {relative}; run its checks with: uv run --locked nox -s "
        f"{relative.name.replace('-', '_')}\n"
    )
