"""One thin :class:`~mcp_common.McpTool` per tool, over the engine."""

from mcp_common import AllowedPaths, McpTool

from uniqueness_server.engine import DatabaseRegistry
from uniqueness_server.read_limits import ReadLimits
from uniqueness_server.tools.find_keys import FindKeysTool
from uniqueness_server.tools.list_columns import ListColumnsTool
from uniqueness_server.tools.sources import SourceOpener
from uniqueness_server.tools.uniqueness_check import UniquenessCheckTool


def build_tools(
    allowed: AllowedPaths, databases: DatabaseRegistry, limits: ReadLimits | None = None
) -> list[McpTool]:
    """The server's tools over one path policy, one set of database connections and one set
    of read limits (default: the defaults)."""
    sources = SourceOpener(allowed, databases, limits or ReadLimits())
    return [UniquenessCheckTool(sources), FindKeysTool(sources), ListColumnsTool(sources)]


__all__ = ["FindKeysTool", "ListColumnsTool", "SourceOpener", "UniquenessCheckTool", "build_tools"]
