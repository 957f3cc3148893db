"""Shared scaffolding for MCP servers: the tool SPI, argument reading, masking, path
confinement, Markdown building blocks and (in :mod:`mcp_common.adapter`) the transports."""

from mcp_common.arguments import ToolArguments
from mcp_common.context import ToolContext
from mcp_common.definition import ToolAnnotations, ToolDefinition, object_schema
from mcp_common.markdown import (
    escape_cell,
    escape_inline,
    front_matter,
    guard_output,
    key_value_table,
    markdown_table,
)
from mcp_common.masking import FailureMessage, mask_arguments, mask_credentials, redact
from mcp_common.pagination import PAGE_SCHEMA, Page, Pagination, limit_reached_notice
from mcp_common.paths import AllowedPaths
from mcp_common.result import ErrorCode, ToolCancelledError, ToolError, ToolResult
from mcp_common.tool import McpTool
from mcp_common.version import package_version

__all__ = [
    "PAGE_SCHEMA",
    "AllowedPaths",
    "ErrorCode",
    "FailureMessage",
    "McpTool",
    "Page",
    "Pagination",
    "ToolAnnotations",
    "ToolArguments",
    "ToolCancelledError",
    "ToolContext",
    "ToolDefinition",
    "ToolError",
    "ToolResult",
    "escape_cell",
    "escape_inline",
    "front_matter",
    "guard_output",
    "key_value_table",
    "limit_reached_notice",
    "markdown_table",
    "mask_arguments",
    "mask_credentials",
    "object_schema",
    "package_version",
    "redact",
]
