"""The MCP tools of context-server: thin adapters over :mod:`context_server.core`."""

from __future__ import annotations

from mcp_common import AllowedPaths, McpTool

from context_server.core.index import IndexCache
from context_server.core.service import ContextService
from context_server.tools.estimate_tokens import EstimateTokensTool
from context_server.tools.find_context import FindContextTool
from context_server.tools.find_usages import FindUsagesTool
from context_server.tools.okf_bundle import OkfBundleTool
from context_server.tools.project_tree import ProjectTreeTool
from context_server.tools.repo_map import RepoMapTool


def build_tools(allowed: AllowedPaths, cache: IndexCache | None = None) -> list[McpTool]:
    """The tools, sharing one service (and so one index cache)."""
    service = ContextService(allowed, cache)
    return [
        ProjectTreeTool(service),
        FindContextTool(service),
        EstimateTokensTool(service),
        OkfBundleTool(service),
        RepoMapTool(service),
        FindUsagesTool(service),
    ]


__all__ = [
    "EstimateTokensTool",
    "FindContextTool",
    "FindUsagesTool",
    "OkfBundleTool",
    "ProjectTreeTool",
    "RepoMapTool",
    "build_tools",
]
