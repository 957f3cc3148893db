"""The command that builds and tests a checkout, read from its files (nothing is run).

The guidance an adoption asks for must name a command the repository really has, so the
pipeline tells ``claude`` which one it found and checks that the "Build, test, and run"
section names it. Each guard detects its own (``BuildGuard.build_command``); this module
holds what they share. Detection reads files only, through the confined
:class:`CheckoutFiles`, and answers ``None`` when the repository shows no command.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass

from adopt_server.checkout_files import CheckoutFiles

_MAKE_TARGET = re.compile(r"^(test|check)\s*:(?!=)", re.MULTILINE)
_TEST_FILE = re.compile(r"(?:^|/)(?:test_[^/]*|[^/]*_test)\.py$")


@dataclass(frozen=True, slots=True)
class BuildCommand:
    """``command`` builds and tests the project; naming any of ``programs`` in a guide
    counts as naming a command the repository has (``./mvnw`` and ``mvn`` both do)."""

    command: str
    programs: tuple[str, ...]


def make_target(files: CheckoutFiles) -> bool:
    """Whether a ``Makefile`` at the root has a ``test`` or ``check`` target."""
    return files.is_file("Makefile") and bool(
        _MAKE_TARGET.search(files.read_text("Makefile", errors="replace"))
    )


def npm_test(files: CheckoutFiles) -> bool:
    """Whether ``package.json`` declares a ``test`` script."""
    try:
        manifest = json.loads(files.read_text("package.json", errors="replace"))
    except ValueError:
        return False
    scripts = manifest.get("scripts") if isinstance(manifest, dict) else None
    return isinstance(scripts, dict) and isinstance(scripts.get("test"), str)


def has_python_tests(files: CheckoutFiles) -> bool:
    """Whether the checkout shows pytest tests (a configuration, ``tests``, a test file)."""
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
