"""The in-process client reaches the adapter's server; the fuzzer passes sound tools and
catches leaky ones."""

from __future__ import annotations

import logging
import traceback
from collections.abc import Sequence

import pytest
from kit_tools import CountAnswer, KitTool, RepeatArguments
from mcp_common import McpTool, ServerSettings, ToolResult
from mcp_common.adapter import ServerApp
from mcp_common.testing import (
    CANARY_SECRET,
    call_tool_raw,
    fuzz_tools,
    in_process_client,
    result_text,
    wire_tools_list,
)
from pydantic import Field
from pydantic_settings import SettingsConfigDict


class KitSettings(ServerSettings):
    model_config = SettingsConfigDict(env_prefix="KIT_SERVER_")

    port: int = Field(8098, description="HTTP port")
    prefix: str = Field("repeat", description="tool name prefix")


def _tools(settings: KitSettings) -> Sequence[McpTool]:
    return [KitTool(name=f"{settings.prefix}_text")]


APP = ServerApp(
    name="kit-server",
    distribution="mcp-tools-common",
    description="A server for testing the testing kit.",
    epilog="",
    settings=KitSettings,
    build_tools=_tools,
)


@pytest.mark.anyio
async def test_client_talks_to_the_server_the_command_line_builds() -> None:
    async with in_process_client(APP, ["--prefix", "echo"]) as client:
        assert [tool["name"] for tool in await wire_tools_list(client)] == ["echo_text"]
        result = await client.call_tool("echo_text", {"text": "ab", "repeat": 2})
        assert (result_text(result), result.structured_content) == (
            "4 characters",
            {"count": 2, "characters": 4},
        )


@pytest.mark.anyio
async def test_environment_is_empty_unless_given() -> None:
    async with in_process_client(APP, environ={"KIT_SERVER_PREFIX": "env"}) as client:
        assert [tool["name"] for tool in await wire_tools_list(client)] == ["env_text"]


@pytest.mark.anyio
async def test_raw_calls_reach_the_tool_with_non_object_arguments() -> None:
    async with in_process_client([KitTool()]) as client:
        result = await call_tool_raw(client, "repeat_text", ["not", "an", "object"])
    assert result.is_error
    assert "arguments must be a JSON object" in result_text(result)


def test_fuzzing_a_sound_tool_passes() -> None:
    fuzz_tools(APP, max_examples=40)


def _echoes(arguments: RepeatArguments) -> ToolResult:
    return ToolResult.success(f"got {arguments.text}", CountAnswer(count=arguments.repeat))


def _echoes_unmasked(arguments: RepeatArguments) -> ToolResult:
    # without its '@' the URL's user-info no longer looks like one to the masking
    return ToolResult.success(f"got {arguments.text.split('@')[0]}", CountAnswer(count=1))


def _traceback(arguments: RepeatArguments) -> ToolResult:
    try:
        int(arguments.text)
    except ValueError:
        return ToolResult.success(traceback.format_exc(), CountAnswer(count=arguments.repeat))
    return ToolResult.success("fine", CountAnswer(count=1))


def test_an_echoing_tool_passes_because_the_adapter_masks_answers() -> None:
    fuzz_tools([KitTool(run=_echoes)], max_examples=300)


def test_fuzzing_catches_a_credential_the_masking_cannot_see() -> None:
    with pytest.raises(AssertionError, match="leaks a credential") as caught:
        fuzz_tools([KitTool(run=_echoes_unmasked)], max_examples=300)
    assert f"fuzzer:{CANARY_SECRET}" in str(caught.value)


def test_fuzzing_catches_a_credential_in_a_log_line() -> None:
    def logs_userinfo(arguments: RepeatArguments) -> ToolResult:
        # without its '@' the URL's user-info no longer looks like one to the masking
        logging.getLogger("careless").warning("cloning %s", arguments.text.split("@")[0])
        return ToolResult.success("done", CountAnswer(count=arguments.repeat))

    with pytest.raises(AssertionError, match="the log leaks a credential"):
        fuzz_tools([KitTool(run=logs_userinfo)], max_examples=300)


def test_fuzzing_catches_traceback_text() -> None:
    with pytest.raises(AssertionError, match="traceback text in the answer"):
        fuzz_tools([KitTool(run=_traceback)], max_examples=300)


def test_fuzzing_catches_a_forbidden_path() -> None:
    def shows_root(arguments: RepeatArguments) -> ToolResult:
        return ToolResult.success("root is /srv/data/root", CountAnswer(count=arguments.repeat))

    with pytest.raises(AssertionError, match="the answer contains '/srv/data/root'"):
        fuzz_tools([KitTool(run=shows_root)], forbidden=["/srv/data/root"], max_examples=100)


def test_fuzzing_refuses_a_server_without_tools() -> None:
    with pytest.raises(AssertionError, match="lists no tools"):
        fuzz_tools([], max_examples=5)
