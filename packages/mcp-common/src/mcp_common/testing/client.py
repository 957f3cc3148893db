"""An SDK client connected in-process to a server the adapter builds, for protocol-level tests."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Literal

import anyio
import httpx2
import mcp_types as types
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from mcp_common.adapter import ServerApp, build_server, build_server_for
from mcp_common.tool import McpTool

ConnectMode = Literal["legacy", "auto"]


class _RawToolCall(types.Request[dict[str, Any], Literal["tools/call"]]):
    """A ``tools/call`` whose ``arguments`` may be anything, as a careless client sends it."""

    method: Literal["tools/call"] = "tools/call"
    params: dict[str, Any]
    name_param = "name"


@asynccontextmanager
async def in_process_client(
    target: ServerApp[Any] | Sequence[McpTool],
    argv: Sequence[str] = (),
    *,
    environ: Mapping[str, str] | None = None,
    mode: ConnectMode = "legacy",
) -> AsyncIterator[Client]:
    """An SDK :class:`~mcp.client.client.Client` talking to ``target`` in this process.

    ``target`` is a :class:`ServerApp` (built exactly as its command line ``argv`` would build
    it; ``environ`` defaults to an empty environment so the test's variables cannot leak in)
    or a plain list of tools. ``mode="legacy"`` goes through JSON-RPC framing and the
    initialize handshake, so what the client sees is what the wire carries.
    """
    if isinstance(target, ServerApp):
        server = build_server_for(target, list(argv), dict(environ or {}))
    else:
        server = build_server("in-process-test-server", "0", list(target))
    async with Client(server, mode=mode) as client:
        yield client


@asynccontextmanager
async def http_client(
    url: str, *, token: str | None = None, mode: ConnectMode = "legacy", **options: Any
) -> AsyncIterator[Client]:
    """An SDK :class:`~mcp.client.client.Client` talking streamable HTTP to ``url``, sending
    ``Authorization: Bearer <token>`` when ``token`` is given (servers require one unless
    started with ``--no-auth``); ``options`` go to the HTTP client (``verify=`` for TLS)."""
    headers = {"authorization": f"Bearer {token}"} if token else {}
    async with (
        httpx2.AsyncClient(headers=headers, **options) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode) as client,
    ):
        yield client


@asynccontextmanager
async def stdio_client(
    command: Path, *args: str, cwd: Path, drop_prefix: str | None = None
) -> AsyncIterator[Client]:
    """An SDK :class:`~mcp.client.client.Client` talking over stdio to the installed server
    ``command``, started with ``args`` in ``cwd``. With ``drop_prefix`` (a server's variable
    prefix, such as ``CONTEXT_SERVER_``) no variable of that prefix is passed on, so the shell
    running the tests cannot change what the server under test does."""
    assert command.is_file(), f"{command} is not installed; run uv sync"
    env = None
    if drop_prefix is not None:
        env = {k: v for k, v in os.environ.items() if not k.startswith(drop_prefix)}
    params = StdioServerParameters(command=str(command), args=list(args), env=env, cwd=str(cwd))
    async with Client(params) as client:
        yield client


async def wire_tools_list(client: Client) -> list[dict[str, Any]]:
    """The ``tools`` array of ``tools/list`` as wire JSON (camelCase keys, no null fields)."""
    listing = await client.list_tools()
    return [
        tool.model_dump(by_alias=True, exclude_none=True, mode="json") for tool in listing.tools
    ]


def fetch_tools_list(
    target: ServerApp[Any] | Sequence[McpTool],
    argv: Sequence[str] = (),
    *,
    environ: Mapping[str, str] | None = None,
) -> list[dict[str, Any]]:
    """Synchronous :func:`wire_tools_list` of a fresh in-process connection (for golden tests)."""

    async def fetch() -> list[dict[str, Any]]:
        async with in_process_client(target, argv, environ=environ) as client:
            return await wire_tools_list(client)

    return anyio.run(fetch)


async def call_tool_raw(client: Client, name: str, arguments: object) -> types.CallToolResult:
    """Call ``name`` with ``arguments`` sent as given, even when they are not a JSON object
    (the SDK's own ``call_tool`` refuses to send such a request)."""
    request = _RawToolCall(params={"name": name, "arguments": arguments})
    return await client.session.send_request(request, types.CallToolResult)


def result_text(result: types.CallToolResult) -> str:
    """Every text part of a call result, joined by newlines."""
    return "\n".join(part.text for part in result.content if isinstance(part, types.TextContent))


def everything_in(result: types.CallToolResult) -> str:
    """The text parts and the structured content of a call result as one string, to search
    for what must not be in an answer anywhere."""
    return result_text(result) + json.dumps(result.structured_content)
