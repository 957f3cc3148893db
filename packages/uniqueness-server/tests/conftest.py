"""Fixtures for the uniqueness-server tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp_common import McpTool
from uniqueness_testkit import household_csv, tools_for, write


@pytest.fixture
def data_root(tmp_path: Path) -> Path:
    """An allowed directory holding the household fixture."""
    root = tmp_path / "data"
    write(root / "household.csv", household_csv())
    return root


@pytest.fixture
def tools(data_root: Path) -> dict[str, McpTool]:
    """The three tools confined to ``data_root``."""
    return tools_for(data_root)
