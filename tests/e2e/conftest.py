"""Fixtures for the end-to-end tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .e2e_support import HttpServers


@pytest.fixture
def http_servers(tmp_path: Path) -> Iterator[HttpServers]:
    """Starts example servers over HTTP; stops every one at teardown."""
    servers = HttpServers(tmp_path)
    try:
        yield servers
    finally:
        servers.stop_all()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
