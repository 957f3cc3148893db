"""Settings every root test shares."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _scratch_cache_home(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Servers the root tests run (in process or as inheriting subprocesses) keep caches such
    as context-server's index store in a scratch directory, never in the user's own (the
    context-server tests have the same fixture in their conftest)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "xdg-cache"))
