"""Shared scaffolding for MCP servers: the tool SPI, argument and result models, masking, path
confinement, Markdown building blocks and (in :mod:`mcp_common.adapter`) the transports.

Each name below loads its module on first use: a command that only needs a light part (its
``--help`` from :mod:`mcp_common.command_line`, say) does not pay for pydantic.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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
    from mcp_common.result import (
        ErrorCode,
        StructuredResult,
        ToolCancelledError,
        ToolError,
        ToolResult,
    )
    from mcp_common.settings import ConfinedSettings, Flag, Repeatable, ServerSettings
    from mcp_common.tool import McpTool, invoke
    from mcp_common.version import DISTRIBUTION, package_version

_MODULES = {
    "Arguments": "mcp_common.arguments",
    "Between": "mcp_common.arguments",
    "Bool": "mcp_common.arguments",
    "Clamp": "mcp_common.arguments",
    "Deprecated": "mcp_common.arguments",
    "Int": "mcp_common.arguments",
    "NoArguments": "mcp_common.arguments",
    "NonEmpty": "mcp_common.arguments",
    "OneOf": "mcp_common.arguments",
    "Str": "mcp_common.arguments",
    "StrList": "mcp_common.arguments",
    "parse_arguments": "mcp_common.arguments",
    "ToolContext": "mcp_common.context",
    "ToolAnnotations": "mcp_common.definition",
    "ToolDefinition": "mcp_common.definition",
    "IsolatedWorkError": "mcp_common.isolation",
    "IsolationLimits": "mcp_common.isolation",
    "run_isolated": "mcp_common.isolation",
    "stop_isolated_work": "mcp_common.isolation",
    "code_block": "mcp_common.markdown",
    "escape_cell": "mcp_common.markdown",
    "escape_inline": "mcp_common.markdown",
    "front_matter": "mcp_common.markdown",
    "guard_output": "mcp_common.markdown",
    "key_value_table": "mcp_common.markdown",
    "markdown_table": "mcp_common.markdown",
    "FailureMessage": "mcp_common.masking",
    "mask_arguments": "mcp_common.masking",
    "mask_credentials": "mcp_common.masking",
    "redact": "mcp_common.masking",
    "Offset": "mcp_common.pagination",
    "Page": "mcp_common.pagination",
    "PageInfo": "mcp_common.pagination",
    "Pagination": "mcp_common.pagination",
    "limit_reached_notice": "mcp_common.pagination",
    "AllowedPaths": "mcp_common.paths",
    "ErrorCode": "mcp_common.result",
    "StructuredResult": "mcp_common.result",
    "ToolCancelledError": "mcp_common.result",
    "ToolError": "mcp_common.result",
    "ToolResult": "mcp_common.result",
    "ConfinedSettings": "mcp_common.settings",
    "Flag": "mcp_common.settings",
    "Repeatable": "mcp_common.settings",
    "ServerSettings": "mcp_common.settings",
    "McpTool": "mcp_common.tool",
    "invoke": "mcp_common.tool",
    "DISTRIBUTION": "mcp_common.version",
    "package_version": "mcp_common.version",
}
"""Where each public name lives."""

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


def __getattr__(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
