"""Which build system a checkout uses, and so which guard it gets."""

from __future__ import annotations

from pathlib import Path

_PYTHON_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg")


def detect_build(checkout: Path) -> str:
    """``maven`` | ``gradle`` | ``python`` | ``github-actions`` (the fallback, always matches).

    Maven first (``pom.xml``), then Gradle (either DSL), then a Python project, so a Java
    project that also carries a ``setup.py`` for tooling still gets the Java guard.
    """
    if (checkout / "pom.xml").is_file():
        return "maven"
    if (checkout / "build.gradle").is_file() or (checkout / "build.gradle.kts").is_file():
        return "gradle"
    if any((checkout / marker).is_file() for marker in _PYTHON_MARKERS):
        return "python"
    return "github-actions"
