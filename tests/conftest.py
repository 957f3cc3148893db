"""Settings every root test shares."""

from __future__ import annotations

import contextlib
import os
import subprocess

import pytest


def _package_caches() -> dict[str, str]:
    """uv's and pip's own caches, as they are before any test moves ``XDG_CACHE_HOME``: a test
    that installs packages reuses what was downloaded before instead of fetching every wheel
    again (the caches hold downloads only; what a test installs is its own)."""
    found = {}
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        found["UV_CACHE_DIR"] = subprocess.run(
            ["uv", "cache", "dir"], capture_output=True, text=True, check=True, timeout=60
        ).stdout.strip()
    cache_home = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    found["PIP_CACHE_DIR"] = os.environ.get("PIP_CACHE_DIR") or os.path.join(cache_home, "pip")
    return {name: value for name, value in found.items() if value}


PACKAGE_CACHES = _package_caches()


@pytest.fixture(autouse=True)
def _scratch_cache_home(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Servers the root tests run (in process or as inheriting subprocesses) keep caches such
    as context-server's index store in a scratch directory, never in the user's own (the
    context-server tests have the same fixture in their conftest); package installers keep
    their download caches."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "xdg-cache"))
    for name, value in PACKAGE_CACHES.items():
        monkeypatch.setenv(name, value)
