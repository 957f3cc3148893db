"""The adapter over the SDK's in-process client, in both protocol eras."""

from __future__ import annotations

import logging
from typing import Any

import anyio
import mcp_types as types
import pytest
from adapter_tools import PRIVATE_PATH, BlockTool, RawCallRequest
from mcp.client.client import Client
from mcp.server import Server
from mcp_common import NoArguments, ToolAnnotations, ToolDefinition
from mcp_common.adapter import build_server
from mcp_common.adapter.logging_setup import MaskingFormatter

pytestmark = pytest.mark.anyio

GREET_WIRE = {
    "name": "greet",
    "description": "Greet someone by name.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "Who to greet, e.g. 'Ada'.", "maxLength": 50},
            "times": {
                "type": "integer",
                "default": 1,
                "minimum": 1,
                "maximum": 3,
                "description": "Repetitions (1..3, default 1).",
            },
        },
        "additionalProperties": False,
        "required": ["name"],
    },
    "outputSchema": {
        "type": "object",
        "properties": {"greeting": {"type": "string"}},
        "required": ["greeting"],
    },
    "annotations": {
        "title": "Greet",
        "readOnlyHint": True,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": False,
    },
}
EXPLODE_WIRE = {
    "name": "explode",
    "description": "Raise an exception naming a credential and a server path.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "password": {"type": "string", "description": "A secret the log must mask."}
        },
        "additionalProperties": False,
    },
    "annotations": {
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": False,
        "openWorldHint": True,
    },
}


def text_of(result: types.CallToolResult) -> str:
    assert len(result.content) == 1
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


async def assert_still_serving(client: Client) -> None:
    result = await client.call_tool("greet", {"name": "Ada"})
    assert not result.is_error
    assert text_of(result) == "Hello, Ada!"


async def test_tools_list_wire_json_is_pinned(client: Client) -> None:
    listed = await client.list_tools()
    wire = {
        t.name: t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in listed.tools
    }
    assert list(wire) == ["greet", "explode", "refuse", "count", "chatty", "block", "wrong"]
    assert wire["greet"] == GREET_WIRE
    assert wire["explode"] == EXPLODE_WIRE
    for tool in wire.values():
        assert set(tool["annotations"]) >= {
            "readOnlyHint",
            "destructiveHint",
            "idempotentHint",
            "openWorldHint",
        }


async def test_success_carries_markdown_and_structured_content(client: Client) -> None:
    result = await client.call_tool("greet", {"name": "Ada", "times": 2})
    assert not result.is_error
    assert text_of(result) == "Hello, Ada! Hello, Ada!"
    assert result.structured_content == {"greeting": "Hello, Ada! Hello, Ada!"}


async def test_deprecated_alias_is_accepted(client: Client) -> None:
    result = await client.call_tool("greet", {"person_name": "Ada"})
    assert text_of(result) == "Hello, Ada!"


async def test_handshake_advertises_name_version_and_instructions(server: Server[Any]) -> None:
    async with Client(server, mode="legacy") as client:
        assert client.server_info is not None
        assert (client.server_info.name, client.server_info.version) == ("adapter-test", "1.2.3")
        assert client.instructions == "Test tools."


async def test_exception_becomes_masked_error_result(
    client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="mcp_common")
    result = await client.call_tool("explode", {"password": "hunter2"})
    assert result.is_error
    text = text_of(result)
    assert text == (
        "explode failed: cannot connect to https://***@db.example.com/x while reading .../file.csv"
    )
    assert "Traceback" not in text
    assert result.structured_content == {"error": {"code": "failed", "message": text}}
    # the log names the tool, masks the arguments and keeps the traceback and the path,
    # and the formatter the servers use masks the credential in the exception text
    records = [r for r in caplog.records if r.getMessage().startswith("explode failed")]
    assert records
    assert records[-1].exc_info is not None
    logged = MaskingFormatter().format(records[-1])
    assert "Traceback" in logged
    assert PRIVATE_PATH in logged
    assert "hunter2" not in logged
    assert "user:secret" not in logged
    assert "https://***@db.example.com/x" in logged
    await assert_still_serving(client)


async def test_tool_error_result_passes_through_masked_with_code(client: Client) -> None:
    result = await client.call_tool("refuse", {})
    assert result.is_error
    assert text_of(result) == "no such file: .../file.csv"
    assert result.structured_content == {
        "error": {"code": "not_found", "message": "no such file: .../file.csv"}
    }


async def test_unknown_tool_is_a_tool_error(client: Client) -> None:
    result = await client.call_tool("greeet", {"name": "Ada"})
    assert result.is_error
    assert text_of(result).startswith("unknown tool 'greeet'. Did you mean 'greet'?")
    assert "Available tools: block, chatty, count, explode, greet, refuse, wrong" in text_of(result)
    await assert_still_serving(client)


async def test_unknown_argument_suggests_the_declared_one(client: Client) -> None:
    result = await client.call_tool("greet", {"nme": "Ada"})
    assert result.is_error
    assert text_of(result) == (
        "greet failed: unknown argument 'nme'. Did you mean 'name'? Accepted arguments: name, times"
    )
    # greet declares an output schema: the error carries no structured block that would not
    # match it
    assert result.structured_content is None
    await assert_still_serving(client)


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({}, "greet failed: missing required argument: name"),
        ({"name": "Ada", "times": "many"}, "greet failed: times must be an integer but was 'many'"),
        ({"name": "Ada", "times": 2.5}, "greet failed: times must be an integer but was 2.5"),
        ({"name": "Ada", "times": True}, "greet failed: times must be an integer but was true"),
        ({"name": "Ada", "times": 7}, "greet failed: times must be between 1 and 3 but was 7"),
        ({"name": ["Ada"]}, 'greet failed: name must be a string but was ["Ada"]'),
        ({"name": "A" * 51}, "greet failed: name is 51 characters long; at most 50 are accepted"),
    ],
)
async def test_bad_arguments_name_the_argument(
    client: Client, arguments: dict[str, Any], expected: str
) -> None:
    result = await client.call_tool("greet", arguments)
    assert result.is_error
    assert text_of(result) == expected
    await assert_still_serving(client)


async def test_oversized_string_is_refused_by_default_limit(client: Client) -> None:
    result = await client.call_tool("explode", {"password": "p" * 100_001})
    assert result.is_error
    assert "password is 100001 characters long; at most 100000 are accepted" in text_of(result)
    await assert_still_serving(client)


@pytest.mark.parametrize("arguments", [[1, 2], "name=Ada", 42, True])
async def test_non_object_arguments_are_a_tool_error(client: Client, arguments: object) -> None:
    request = RawCallRequest(params={"name": "greet", "arguments": arguments})
    result = await client.session.send_request(request, types.CallToolResult)
    assert result.is_error
    assert text_of(result).startswith("greet failed: arguments must be a JSON object")
    await assert_still_serving(client)


async def test_null_arguments_mean_no_arguments(client: Client) -> None:
    request = RawCallRequest(params={"name": "refuse", "arguments": None})
    result = await client.session.send_request(request, types.CallToolResult)
    assert text_of(result) == "no such file: .../file.csv"


@pytest.mark.parametrize("from_thread", [False, True])
async def test_progress_reaches_the_callback(client: Client, from_thread: bool) -> None:
    # from_thread: reported by a thread the tool started (not an AnyIO worker thread), as
    # the uniqueness server's query watcher reports a scan's progress
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    arguments = {"n": 3, "fromThread": from_thread}
    result = await client.call_tool("count", arguments, progress_callback=on_progress)
    assert text_of(result) == "counted to 3"
    assert seen == [(1, 3, "counted 1"), (2, 3, "counted 2"), (3, 3, "counted 3")]


async def test_progress_without_a_listener_is_harmless(client: Client) -> None:
    result = await client.call_tool("count", {"n": 5})
    assert text_of(result) == "counted to 5"


async def test_output_is_guarded(client: Client) -> None:
    result = await client.call_tool("chatty", {})
    text = text_of(result)
    assert not result.is_error
    assert len(text) < 101_000
    assert "[OUTPUT TRUNCATED] showing 100000 of 250000 characters" in text


async def test_non_result_return_is_a_tool_error(client: Client) -> None:
    result = await client.call_tool("wrong", {})
    assert result.is_error
    assert text_of(result) == "wrong failed: the tool returned str instead of a result"


async def test_system_exit_in_a_tool_is_a_tool_error(client: Client) -> None:
    result = await client.call_tool("wrong", {"exit": True})
    assert result.is_error
    assert text_of(result) == "wrong failed: the tool tried to exit the process (status 2)"
    await assert_still_serving(client)


async def test_cancelled_call_sets_the_tool_flag_and_server_keeps_serving(
    client: Client, block_tool: BlockTool
) -> None:
    async with anyio.create_task_group() as group:
        group.start_soon(client.call_tool, "block", {})
        await anyio.to_thread.run_sync(block_tool.started.wait, 10)
        group.cancel_scope.cancel()
    assert await anyio.to_thread.run_sync(block_tool.saw_cancel.wait, 10)
    await assert_still_serving(client)


async def test_a_slow_call_does_not_block_a_fast_one(client: Client, block_tool: BlockTool) -> None:
    async with anyio.create_task_group() as group:
        group.start_soon(client.call_tool, "block", {})
        await anyio.to_thread.run_sync(block_tool.started.wait, 10)
        with anyio.fail_after(5):
            await assert_still_serving(client)
        group.cancel_scope.cancel()


def test_duplicate_tool_names_are_refused() -> None:
    definition = ToolDefinition(
        name="twin",
        description="A tool.",
        arguments=NoArguments,
        annotations=ToolAnnotations.read_only_tool(),
    )

    class Twin:
        def __init__(self) -> None:
            self.definition = definition

        def call(self, arguments: object, context: object) -> object:
            raise NotImplementedError

    with pytest.raises(ValueError, match="duplicate tool name: twin"):
        build_server("twins", "1", [Twin(), Twin()])  # type: ignore[list-item]
