"""The ``verify_adoption`` tool: the read-only verification pipeline."""

from __future__ import annotations

from mcp_common import (
    AllowedPaths,
    ToolAnnotations,
    ToolArguments,
    ToolContext,
    ToolDefinition,
    ToolResult,
    object_schema,
)

from adopt_server.pipeline import REPORT_SCHEMA
from adopt_server.tools.adopt_repo import run_request
from adopt_server.tools.request import (
    ALIASES,
    REPOSITORY_PROPERTIES,
    RULE_PROPERTIES,
    RUN_PROPERTIES,
)

DEFINITION = ToolDefinition(
    name="verify_adoption",
    description=(
        "Verify that repositories are adopted: their default branch has a root CLAUDE.md and "
        "a CLAUDE.md guard wired into the build, and the guard passes. Pushes nothing; needs "
        "only git (and the build tool) on the server's PATH."
    ),
    input_schema=object_schema({**REPOSITORY_PROPERTIES, **RULE_PROPERTIES, **RUN_PROPERTIES}),
    annotations=ToolAnnotations.read_only_tool(open_world=True, title="Verify adoption"),
    output_schema=REPORT_SCHEMA,
    deprecated_aliases=ALIASES,
)


class VerifyAdoptionTool:
    """Checks already adopted repositories without changing them."""

    def __init__(self, root: AllowedPaths) -> None:
        self._root = root

    @property
    def definition(self) -> ToolDefinition:
        """The tool's schema and hints."""
        return DEFINITION

    def call(self, arguments: ToolArguments, context: ToolContext) -> ToolResult:
        """Run the verification and return the report."""
        return run_request(arguments, context, self._root, verify=True)
