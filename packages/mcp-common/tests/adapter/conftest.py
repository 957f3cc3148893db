"""Fixtures for the adapter's in-process protocol tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from adapter_tools import (
    BlockTool,
    ChattyTool,
    CountTool,
    ExplodeTool,
    GreetTool,
    RefuseTool,
    WrongTool,
)
from mcp.client.client import Client
from mcp.server import Server
from mcp_common import McpTool
from mcp_common.adapter import build_server


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def block_tool() -> BlockTool:
    return BlockTool()


@pytest.fixture
def server(block_tool: BlockTool) -> Server[Any]:
    tools: list[McpTool] = [
        GreetTool(),
        ExplodeTool(),
        RefuseTool(),
        CountTool(),
        ChattyTool(),
        block_tool,
        WrongTool(),
    ]
    return build_server("adapter-test", "1.2.3", tools, instructions="Test tools.")


@pytest.fixture(params=["legacy", "auto"], ids=["handshake-era", "modern-era"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def client(server: Server[Any], mode: str) -> AsyncIterator[Client]:
    async with Client(server, mode=mode) as connected:
        yield connected
