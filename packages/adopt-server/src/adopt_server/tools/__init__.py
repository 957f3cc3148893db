"""MCP tools of adopt-server: thin adapters over :mod:`adopt_server.pipeline`."""

from __future__ import annotations

from mcp_common import AllowedPaths, McpTool

from adopt_server.tools.adopt_repo import AdoptRepoTool
from adopt_server.tools.adoption_status import AdoptionStatusTool
from adopt_server.tools.verify_adoption import VerifyAdoptionTool


def build_tools(root: AllowedPaths) -> list[McpTool]:
    """Every tool, confined to the workspace root ``root``."""
    return [AdoptRepoTool(root), VerifyAdoptionTool(root), AdoptionStatusTool(root)]


__all__ = ["AdoptRepoTool", "AdoptionStatusTool", "VerifyAdoptionTool", "build_tools"]
