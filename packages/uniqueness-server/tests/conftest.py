"""Fixtures for the uniqueness-server tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp_common import McpTool
from spark_local import SHORT_LIVED, LocalSpark, local_spark, missing_reason
from uniqueness_server.engine import DatabaseRegistry
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


@pytest.fixture(scope="session")
def spark() -> Iterator[LocalSpark]:
    """One local Spark Connect server for the whole session (the Spark tests and the Spark
    attacks of ``security/`` share it)."""
    reason = missing_reason()
    if reason:
        pytest.skip(reason)
    with local_spark(java_options=SHORT_LIVED) as server:
        yield server


@pytest.fixture(scope="session")
def lake(spark: LocalSpark) -> DatabaseRegistry:
    """The registry of a server started with ``--database lake=<the local Spark URL>``, whose
    operations may take 10 minutes: a 30-million-row job of these tests passed the default
    60 s on a loaded 2-core machine (the timeout's own test sets a short one)."""
    return DatabaseRegistry.from_options([f"lake={spark.url};statement_timeout=10min"])
