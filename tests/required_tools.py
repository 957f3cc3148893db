"""A test whose outside tool is missing skips on a developer's machine but fails in CI."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def missing_tool(reason: str) -> NoReturn:
    """Skip with ``reason``; in CI (``CI=true``), where ``.ci/run`` installs every tool the
    tests use, fail instead: a CI run must not pass by skipping what it promises to run."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason}; .ci/run installs it in CI")
    pytest.skip(reason)
