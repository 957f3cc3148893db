"""Settings every test of the workspace shares (the root conftest: pytest loads it for
the root tests and for each package's)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _scratch_cache_home(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Servers the tests run (in process or as inheriting subprocesses) keep caches such
    as context-server's index store in a scratch directory, never in the user's own."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "xdg-cache"))
