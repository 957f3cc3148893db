"""Shared scaffolding for MCP servers: the tool SPI, argument and result models, masking, path
confinement, Markdown building blocks and (in :mod:`mcp_common.adapter`) the transports."""

from mcp_common.arguments import (
    Arguments,
    Between,
    Bool,
    Clamp,
    Deprecated,
    Int,
    NoArguments,
    NonEmpty,
    OneOf,
    Str,
    StrList,
    parse_arguments,
)
from mcp_common.context import ToolContext
from mcp_common.definition import ToolAnnotations, ToolDefinition
from mcp_common.isolation import (
    IsolatedWorkError,
    IsolationLimits,
    run_isolated,
    stop_isolated_work,
)
from mcp_common.markdown import (
    code_block,
    escape_cell,
    escape_inline,
    front_matter,
    guard_output,
    key_value_table,
    markdown_table,
)
from mcp_common.masking import FailureMessage, mask_arguments, mask_credentials, redact
from mcp_common.pagination import Offset, Page, PageInfo, Pagination, limit_reached_notice
from mcp_common.paths import AllowedPaths
from mcp_common.result import ErrorCode, StructuredResult, ToolCancelledError, ToolError, ToolResult
from mcp_common.settings import ConfinedSettings, Flag, Repeatable, ServerSettings
from mcp_common.tool import McpTool, invoke
from mcp_common.version import DISTRIBUTION, package_version

__all__ = [
    "DISTRIBUTION",
    "AllowedPaths",
    "Arguments",
    "Between",
    "Bool",
    "Clamp",
    "ConfinedSettings",
    "Deprecated",
    "ErrorCode",
    "FailureMessage",
    "Flag",
    "Int",
    "IsolatedWorkError",
    "IsolationLimits",
    "McpTool",
    "NoArguments",
    "NonEmpty",
    "Offset",
    "OneOf",
    "Page",
    "PageInfo",
    "Pagination",
    "Repeatable",
    "ServerSettings",
    "Str",
    "StrList",
    "StructuredResult",
    "ToolAnnotations",
    "ToolCancelledError",
    "ToolContext",
    "ToolDefinition",
    "ToolError",
    "ToolResult",
    "code_block",
    "escape_cell",
    "escape_inline",
    "front_matter",
    "guard_output",
    "invoke",
    "key_value_table",
    "limit_reached_notice",
    "markdown_table",
    "mask_arguments",
    "mask_credentials",
    "package_version",
    "parse_arguments",
    "redact",
    "run_isolated",
    "stop_isolated_work",
]
