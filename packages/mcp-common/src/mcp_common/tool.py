"""The tool SPI: what a server contributes. Tools never import the MCP SDK."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from mcp_common.arguments import ToolArguments
from mcp_common.context import ToolContext
from mcp_common.definition import ToolDefinition
from mcp_common.result import ToolResult


@runtime_checkable
class McpTool(Protocol):
    """A tool: a definition plus a synchronous call.

    The adapter runs ``call`` in a worker thread, so it may block; it should poll
    ``context.check_cancelled()`` in long loops and report progress through ``context``.
    Raise :class:`~mcp_common.result.ToolError` (or any exception) for failures, or return
    ``ToolResult.error``; both reach the client as an ``isError`` result.
    """

    @property
    def definition(self) -> ToolDefinition:
        """The tool's name, description, schemas and annotations."""
        ...

    def call(self, arguments: ToolArguments, context: ToolContext) -> ToolResult:
        """Run the tool on validated arguments."""
        ...
