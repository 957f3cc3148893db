"""The command that builds and tests a checkout, read from its files (nothing is run).

The guidance an adoption asks for must name a command the repository really has, so the
pipeline tells ``claude`` which one it found and checks that the "Build, test, and run"
section names it. One detector per build system; each reads files only, through the
confined :class:`CheckoutFiles`, and answers ``None`` when the repository shows no command.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from mcp_common import ToolError

from adopt_server.checkout_files import CheckoutFiles

_MAKE_TARGET = re.compile(r"^(test|check)\s*:(?!=)", re.MULTILINE)
_TEST_FILE = re.compile(r"(?:^|/)(?:test_[^/]*|[^/]*_test)\.py$")


@dataclass(frozen=True, slots=True)
class BuildCommand:
    """``command`` builds and tests the project; naming any of ``programs`` in a guide
    counts as naming a command the repository has (``./mvnw`` and ``mvn`` both do)."""

    command: str
    programs: tuple[str, ...]


def build_command(checkout: Path, build: str) -> BuildCommand | None:
    """The build/test command of ``checkout`` for the detected ``build``, or ``None``."""
    files = CheckoutFiles(checkout)
    try:
        return _DETECTORS[build](files)
    except (ToolError, OSError, UnicodeDecodeError):
        return None  # an unreadable build file shows no command; the guard step reports it


def _maven(files: CheckoutFiles) -> BuildCommand:
    if files.is_file("mvnw"):
        return BuildCommand("./mvnw verify", ("./mvnw", "mvnw", "mvn"))
    return BuildCommand("mvn verify", ("mvn", "./mvnw"))


def _gradle(files: CheckoutFiles) -> BuildCommand:
    if files.is_file("gradlew"):
        return BuildCommand("./gradlew build", ("./gradlew", "gradlew", "gradle"))
    return BuildCommand("gradle build", ("gradle", "./gradlew"))


def _python(files: CheckoutFiles) -> BuildCommand:
    if files.is_file("noxfile.py"):
        return BuildCommand("nox", ("nox",))
    if files.is_file("tox.ini"):
        return BuildCommand("tox", ("tox",))
    if _make_target(files):
        return BuildCommand("make test", ("make",))
    runner = "uv run pytest" if files.is_file("uv.lock") else "python -m pytest"
    if _has_python_tests(files):
        return BuildCommand(runner, ("pytest", "uv run", "tox", "nox", "make"))
    return BuildCommand("python -m pip install .", ("pip", "uv", "python -m build", "pytest"))


def _no_build(files: CheckoutFiles) -> BuildCommand | None:
    if _make_target(files):
        return BuildCommand("make test", ("make",))
    if files.is_file("package.json") and _npm_test(files):
        return BuildCommand("npm test", ("npm", "yarn", "pnpm", "npx"))
    if files.is_file("Cargo.toml"):
        return BuildCommand("cargo test", ("cargo",))
    if files.is_file("go.mod"):
        return BuildCommand("go test ./...", ("go test", "go build", "go vet"))
    return None


def _make_target(files: CheckoutFiles) -> bool:
    return files.is_file("Makefile") and bool(
        _MAKE_TARGET.search(files.read_text("Makefile", errors="replace"))
    )


def _npm_test(files: CheckoutFiles) -> bool:
    try:
        manifest = json.loads(files.read_text("package.json", errors="replace"))
    except ValueError:
        return False
    scripts = manifest.get("scripts") if isinstance(manifest, dict) else None
    return isinstance(scripts, dict) and isinstance(scripts.get("test"), str)


def _has_python_tests(files: CheckoutFiles) -> bool:
    if any(files.is_file(name) for name in ("pytest.ini", "conftest.py")) or files.exists("tests"):
        return True
    if files.is_file("pyproject.toml"):
        try:
            project = tomllib.loads(files.read_text("pyproject.toml", errors="replace"))
        except tomllib.TOMLDecodeError:
            return False
        if "pytest" in project.get("tool", {}):
            return True
    root = files.real(".")
    return any(_TEST_FILE.search(p.name) for p in root.iterdir() if p.is_file())


_DETECTORS: dict[str, Callable[[CheckoutFiles], BuildCommand | None]] = {
    "maven": _maven,
    "gradle": _gradle,
    "python": _python,
    "github-actions": _no_build,
}
