"""The tool SPI: what a server contributes. Tools never import the MCP SDK."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from mcp_common.arguments import parse_arguments
from mcp_common.context import ToolContext
from mcp_common.definition import ToolDefinition
from mcp_common.result import ToolResult


@runtime_checkable
class McpTool(Protocol):
    """A tool: a definition plus a synchronous call.

    ``call`` receives an instance of ``definition.arguments``, already validated by the
    adapter (or by :func:`mcp_common.arguments.parse_arguments` in a plain Python caller).

    The adapter runs ``call`` in a worker thread, so it may block; it should poll
    ``context.check_cancelled()`` in long loops and report progress through ``context``.
    Raise :class:`~mcp_common.result.ToolError` (or any exception) for failures, or return
    ``ToolResult.error``; both reach the client as an ``isError`` result.
    """

    @property
    def definition(self) -> ToolDefinition:
        """The tool's name, description, schemas and annotations."""
        ...

    def call(self, arguments: Any, context: ToolContext) -> ToolResult:
        """Run the tool on validated arguments (an instance of ``definition.arguments``)."""
        ...


def invoke(tool: McpTool, raw_arguments: object, context: ToolContext | None = None) -> ToolResult:
    """Call ``tool`` on a raw payload as the adapter would, without MCP: validate the
    arguments into the tool's model (a :class:`~mcp_common.ToolError` if they are refused),
    then run the call."""
    definition = tool.definition
    arguments = parse_arguments(raw_arguments, definition.arguments, tool=definition.name)
    return tool.call(arguments, context or ToolContext())
