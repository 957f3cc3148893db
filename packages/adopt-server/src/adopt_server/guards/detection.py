"""Which build system a checkout uses, and so which guard it gets."""

from __future__ import annotations

from pathlib import Path

from adopt_server.checkout_files import CheckoutFiles

_PYTHON_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg")
BUILD_DESCRIPTIONS = {
    "maven": "Maven (pom.xml)",
    "gradle": "Gradle (build.gradle or build.gradle.kts)",
    "python": "Python (pyproject.toml, setup.py or setup.cfg)",
    "github-actions": "none found (no Maven, Gradle or Python build file)",
}
"""How a prompt or a message names each build system ``detect_build`` answers."""


def detect_build(checkout: Path) -> str:
    """``maven`` | ``gradle`` | ``python`` | ``github-actions`` (the fallback, always matches).

    Maven first (``pom.xml``), then Gradle (either DSL), then a Python project, so a Java
    project that also carries a ``setup.py`` for tooling still gets the Java guard.
    """
    files = CheckoutFiles(checkout)
    if files.is_file("pom.xml"):
        return "maven"
    if files.is_file("build.gradle") or files.is_file("build.gradle.kts"):
        return "gradle"
    if any(files.is_file(marker) for marker in _PYTHON_MARKERS):
        return "python"
    return "github-actions"
