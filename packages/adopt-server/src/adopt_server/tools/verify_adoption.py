"""The ``verify_adoption`` tool: the read-only verification pipeline."""

from __future__ import annotations

from mcp_common import (
    AllowedPaths,
    ToolAnnotations,
    ToolContext,
    ToolDefinition,
    ToolResult,
)

from adopt_server.pipeline import BatchOutcome
from adopt_server.tools.adopt_repo import run_request
from adopt_server.tools.request import VerifyArguments

DEFINITION = ToolDefinition(
    name="verify_adoption",
    description=(
        "Verify that repositories are adopted: their default branch has a root CLAUDE.md, a "
        "guard wired into the build, and guidance that passes the guard's rules. Reads files "
        "only: runs nothing of the repository and pushes nothing; needs only git on the "
        "server's PATH."
    ),
    arguments=VerifyArguments,
    annotations=ToolAnnotations.read_only_tool(open_world=True, title="Verify adoption"),
    result=BatchOutcome,
)


class VerifyAdoptionTool:
    """Checks already adopted repositories without changing them."""

    definition = DEFINITION

    def __init__(self, root: AllowedPaths) -> None:
        self._root = root

    def call(self, arguments: VerifyArguments, context: ToolContext) -> ToolResult:
        """Run the verification and return the report."""
        return run_request(arguments, context, self._root)
