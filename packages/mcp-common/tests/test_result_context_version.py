"""ToolResult, ToolError, ToolContext, ToolDefinition helpers and the version lookup."""

from __future__ import annotations

import threading
from importlib import metadata

import pytest
from mcp_common import (
    Arguments,
    ErrorCode,
    McpTool,
    Str,
    StructuredResult,
    ToolAnnotations,
    ToolCancelledError,
    ToolContext,
    ToolDefinition,
    ToolError,
    ToolResult,
    invoke,
    package_version,
)
from pydantic import Field


def test_error_results_never_carry_a_blank_message() -> None:
    assert ToolResult.error(None).text == "Unknown error"
    assert ToolResult.error("  ", "not_found").code is ErrorCode.NOT_FOUND
    result = ToolResult.error(" missing x ", ErrorCode.NOT_FOUND)
    assert (result.text, result.is_error) == ("missing x", True)
    with pytest.raises(ValueError, match="bogus"):
        ToolResult.error("x", "bogus")


class Counted(StructuredResult):
    row_count: int


def test_success_results_carry_markdown_and_structured_content_on_the_wire() -> None:
    result = ToolResult.success("# ok", Counted(row_count=1))
    assert (result.text, result.structured, result.is_error, result.code) == (
        "# ok",
        {"rowCount": 1},
        False,
        None,
    )


def test_tool_errors_keep_their_code() -> None:
    error = ToolError("no such table", "not_found")
    assert (str(error), error.code) == ("no such table", ErrorCode.NOT_FOUND)
    assert ToolCancelledError().code is ErrorCode.CANCELLED


def test_context_reports_progress_until_cancelled_and_is_thread_safe() -> None:
    seen: list[tuple[float, float | None, str | None]] = []
    context = ToolContext(lambda p, t, m: seen.append((p, t, m)))
    worker = threading.Thread(target=lambda: context.report_progress(1, 2, "half"))
    worker.start()
    worker.join()
    context.check_cancelled()
    context.cancel()
    context.report_progress(2, 2, "done")
    assert seen == [(1, 2, "half")]
    assert context.cancelled
    with pytest.raises(ToolCancelledError):
        context.check_cancelled()


def test_plain_context_is_a_no_op() -> None:
    context = ToolContext()
    context.report_progress(1)
    assert not context.cancelled


class ReadFileArguments(Arguments):
    path: Str = Field(description="A file.")


def test_definitions_and_the_tool_protocol() -> None:
    definition = ToolDefinition(
        "read_file", "Reads a file.", ReadFileArguments, ToolAnnotations.read_only_tool()
    )
    assert definition.input_schema == {
        "type": "object",
        "properties": {"path": {"type": "string", "description": "A file."}},
        "additionalProperties": False,
        "required": ["path"],
    }
    assert definition.required == ("path",)
    assert definition.output_schema is None
    assert definition.annotations.idempotent
    assert not definition.annotations.destructive

    class Echo:
        @property
        def definition(self) -> ToolDefinition:
            return definition

        def call(self, arguments: ReadFileArguments, context: ToolContext) -> ToolResult:
            return ToolResult.success(arguments.path)

    assert isinstance(Echo(), McpTool)
    assert invoke(Echo(), {"path": "a"}).text == "a"


def test_version_comes_from_installed_metadata() -> None:
    assert package_version("mcp-tools-common") == metadata.version("mcp-tools-common")
    assert package_version("no-such-distribution-xyz") == "unknown"
