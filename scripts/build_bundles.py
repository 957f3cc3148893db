"""Build an MCP bundle (``.mcpb``) of every server of the workspace, for Claude Desktop.

Run from the repository root: ``uv run --locked python scripts/build_bundles.py`` writes
``dist/<server>-<version>.mcpb`` for each server (``--out-dir`` elsewhere). The servers are the
workspace packages whose command serves MCP (:mod:`mcp_common.workspace`), so a new server is
bundled without edits here.

A bundle is of the ``uv`` server type of the MCPB manifest 0.4: the host (Claude Desktop) runs
``uv``, which makes an environment inside the unpacked bundle from its ``pyproject.toml`` and
``uv.lock`` and starts the server in it. Our own packages travel inside the bundle as the wheels
``uv build`` makes (they are not on PyPI); the third-party packages come from PyPI when the
bundle is installed, at exactly the versions this checkout's ``uv.lock`` tested (and with the
hashes of the bundle's own lock). So one bundle serves every platform and Python the wheels
support, with no compiled code inside it.

What a bundle holds::

    manifest.json     name, description, tools, the directory the user picks, how to start
    pyproject.toml    the server's distribution, pinned; the wheels as its sources
    uv.lock           the whole environment, with hashes
    server/main.py    the entry point: the server's own main()
    wheels/           the server's wheel and those of the workspace packages it needs
    LICENSE

The manifest derives from what the package declares elsewhere: the registry manifest
(``server.json``: title, description, the directory flags the user is asked for), the
package's ``pyproject.toml`` (version, license, authors, Python) and the committed golden
``tools/list`` (the tools shown before installing). Building needs the package index (``uv
build`` fetches the build backend, ``uv lock`` reads the index) unless uv's cache has it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from mcp_common.workspace import WorkspacePackage, read_toml, workspace_packages

ROOT = Path(__file__).resolve().parent.parent
MANIFEST_VERSION = "0.4"
"""The MCPB manifest version: the first with the ``uv`` server type."""
PLATFORMS = ["darwin", "linux"]
"""The servers need a POSIX system (process groups and resource limits for the commands they
run); Windows is not supported."""
ENTRY_POINT = "server/main.py"
WHEELS = "wheels"
DEFAULT_NOTE = re.compile(r"\s*\((?:repeatable|default)\b.*$", re.DOTALL)
"""The part of a registry argument description that is no title: its usage note."""


def wheel_name(package: WorkspacePackage) -> str:
    """The file name ``uv build`` gives the (pure-Python) wheel of ``package``."""
    return f"{package.distribution.replace('-', '_')}-{package.version}-py3-none-any.whl"


def needed(
    package: WorkspacePackage, packages: dict[str, WorkspacePackage]
) -> list[WorkspacePackage]:
    """``package`` and every workspace package it needs, directly or not."""
    found: list[WorkspacePackage] = []
    pending = [package.distribution]
    while pending:
        member = packages[pending.pop()]
        if member not in found:
            found.append(member)
            pending.extend(member.workspace_dependencies)
    return found


def third_party_pins(package: WorkspacePackage) -> list[str]:
    """The exact versions (with markers) the workspace lock gives the packages ``package``
    needs, workspace members left out: the versions its tests ran against."""
    exported = subprocess.run(
        ["uv", "export", "--frozen", "--package", package.distribution, "--no-dev",
         "--no-emit-workspace", "--no-hashes", "--no-header", "--no-annotate"],
        cwd=ROOT, capture_output=True, text=True, check=True, timeout=120,
    ).stdout  # fmt: skip
    return [line.strip() for line in exported.splitlines() if line.strip()]


def toml_strings(values: list[str]) -> str:
    """A TOML array of strings, one per line (JSON string escapes are TOML's too)."""
    return "[\n" + "".join(f"    {json.dumps(value)},\n" for value in values) + "]"


def bundle_pyproject(package: WorkspacePackage, members: list[WorkspacePackage]) -> str:
    """A project of no code of its own that depends on the server: uv installs the workspace
    packages from the bundled wheels, the rest from the index within the pins. The workspace
    packages the server needs are direct dependencies too, since uv applies a project's
    sources to its direct dependencies only."""
    project = read_toml(package.path / "pyproject.toml")["project"]
    pins = [f"{member.distribution}=={member.version}" for member in members]
    sources = "".join(
        f"{member.distribution} = {{ path = {json.dumps(f'{WHEELS}/{wheel_name(member)}')} }}\n"
        for member in members
    )
    return (
        f"# The environment of the {package.folder} bundle: the server from the wheels in\n"
        f"# {WHEELS}/, third-party packages at the versions its release was tested with.\n"
        "[project]\n"
        f'name = "{package.folder}-bundle"\n'
        f'version = "{package.version}"\n'
        f"requires-python = {json.dumps(project['requires-python'])}\n"
        f"dependencies = {toml_strings(pins)}\n\n"
        "[tool.uv]\n"
        "package = false\n"
        f"constraint-dependencies = {toml_strings(third_party_pins(package))}\n\n"
        "[tool.uv.sources]\n"
        f"{sources}"
    )


def user_config(package: WorkspacePackage) -> tuple[dict[str, Any], list[str]]:
    """What Claude Desktop asks the user, and the server arguments it fills in: one directory
    for each path flag of the registry manifest. A bundle has no meaningful working
    directory, so the directory is required (one per flag: the host would pass several
    picked directories after a single flag)."""
    registry = json.loads((package.path / "server.json").read_text("utf-8"))
    (listing,) = registry["packages"]
    config: dict[str, Any] = {}
    arguments: list[str] = []
    for argument in listing["packageArguments"]:
        if argument["type"] != "named" or argument.get("format") != "filepath":
            continue
        key = argument["name"].lstrip("-").replace("-", "_")
        config[key] = {
            "type": "directory",
            "title": DEFAULT_NOTE.sub("", argument["description"]).rstrip("."),
            "description": argument["description"],
            "required": True,
        }
        arguments += [argument["name"], f"${{user_config.{key}}}"]
    return config, arguments


def manifest(package: WorkspacePackage) -> dict[str, Any]:
    """The bundle's ``manifest.json`` (MCPB manifest 0.4, server type ``uv``)."""
    project = read_toml(package.path / "pyproject.toml")["project"]
    registry = json.loads((package.path / "server.json").read_text("utf-8"))
    golden = ROOT / "tests" / "golden" / f"{package.folder}.tools.json"
    tools = json.loads(golden.read_text("utf-8"))
    config, arguments = user_config(package)
    (author,) = project["authors"]
    return {
        "manifest_version": MANIFEST_VERSION,
        "name": package.folder,
        "display_name": registry["title"],
        "version": package.version,
        "description": registry["description"],
        "long_description": project["description"],
        "author": {"name": author["name"]},
        "license": project["license"],
        "server": {
            "type": "uv",
            "entry_point": ENTRY_POINT,
            "mcp_config": {
                "command": "uv",
                "args": ["run", "--directory", "${__dirname}", ENTRY_POINT, *arguments],
            },
        },
        "tools": [{"name": tool["name"], "description": tool["description"]} for tool in tools],
        "compatibility": {
            "platforms": PLATFORMS,
            "runtimes": {"python": project["requires-python"]},
        },
        "user_config": config,
    }


def entry_point(package: WorkspacePackage) -> str:
    return (
        f'"""Serve {package.folder} over stdio from the environment uv made for this bundle."""\n\n'
        f"from {package.import_name}.__main__ import main\n\n"
        "main()\n"
    )


def lock(directory: Path) -> None:
    """Write the bundle's ``uv.lock`` (read from the index, within the pinned versions)."""
    environment = {key: value for key, value in os.environ.items() if key != "VIRTUAL_ENV"}
    done = subprocess.run(
        ["uv", "lock", "--directory", str(directory)],
        env=environment, capture_output=True, text=True, check=False, timeout=600,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"uv lock of the {directory.name} bundle failed:\n{done.stderr}")


def build_bundle(
    package: WorkspacePackage, packages: dict[str, WorkspacePackage], wheels: Path, out: Path
) -> Path:
    """Stage the bundle of ``package`` in a scratch directory, lock it, zip it into ``out``."""
    members = needed(package, packages)
    with tempfile.TemporaryDirectory(prefix="mcpb-") as scratch:
        stage = Path(scratch) / package.folder
        (stage / "server").mkdir(parents=True)
        (stage / WHEELS).mkdir()
        for member in members:
            shutil.copyfile(wheels / wheel_name(member), stage / WHEELS / wheel_name(member))
        (stage / "pyproject.toml").write_text(bundle_pyproject(package, members), encoding="utf-8")
        (stage / ENTRY_POINT).write_text(entry_point(package), encoding="utf-8")
        (stage / "manifest.json").write_text(
            json.dumps(manifest(package), indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        shutil.copyfile(package.path / "LICENSE", stage / "LICENSE")
        lock(stage)
        target = out / f"{package.folder}-{package.version}.mcpb"
        with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in sorted(stage.rglob("*")):
                if path.is_file():
                    archive.write(path, path.relative_to(stage).as_posix())
    return target


def build_wheels(out: Path) -> None:
    subprocess.run(
        ["uv", "build", "--all-packages", "--wheel", "--out-dir", str(out)],
        cwd=ROOT, check=True, capture_output=True, timeout=900,
    )  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--out-dir", type=Path, default=ROOT / "dist", help="where the bundles go (default: dist)"
    )
    parser.add_argument(
        "--wheels",
        type=Path,
        help="use the wheels already built in this directory (uv build --all-packages --wheel)",
    )
    options = parser.parse_args()
    packages = {package.distribution: package for package in workspace_packages(ROOT)}
    options.out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="mcpb-wheels-") as scratch:
        wheels = options.wheels
        if wheels is None:
            wheels = Path(scratch)
            build_wheels(wheels)
        for package in packages.values():
            if package.server_command:
                print(build_bundle(package, packages, wheels, options.out_dir))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
