"""The ``adopt_repo`` tool: a thin adapter over :func:`adopt_repositories`."""

from __future__ import annotations

from mcp_common import (
    AllowedPaths,
    ErrorCode,
    ToolAnnotations,
    ToolArguments,
    ToolContext,
    ToolDefinition,
    ToolResult,
    object_schema,
)

from adopt_server.pipeline import REPORT_SCHEMA, adopt_repositories
from adopt_server.pipeline.steps import steps_for
from adopt_server.tools.progress import ProgressObserver
from adopt_server.tools.request import (
    ADOPT_ALIASES,
    ADOPT_PROPERTIES,
    REPOSITORY_PROPERTIES,
    RULE_PROPERTIES,
    RUN_PROPERTIES,
    read_request,
)
from adopt_server.tools.summary import client_report, markdown_summary

DEFINITION = ToolDefinition(
    name="adopt_repo",
    description=(
        "Adopt Claude Code into one or more GitHub repositories: clone, branch, generate and "
        "conform CLAUDE.md, wire a CLAUDE.md guard into the build, verify, push and open a "
        "pull request. Needs git, claude and gh on the server's PATH; use dryRun to review "
        "first."
    ),
    input_schema=object_schema(
        {**REPOSITORY_PROPERTIES, **ADOPT_PROPERTIES, **RULE_PROPERTIES, **RUN_PROPERTIES}
    ),
    annotations=ToolAnnotations(
        read_only=False,
        destructive=False,
        idempotent=True,
        open_world=True,
        title="Adopt Claude Code",
    ),
    output_schema=REPORT_SCHEMA,
    deprecated_aliases=ADOPT_ALIASES,
)


def run_request(
    arguments: ToolArguments, context: ToolContext, root: AllowedPaths, *, verify: bool
) -> ToolResult:
    """Shared by both tools: read, run with progress and cancellation, answer the report."""
    request = read_request(arguments, root, verify=verify)
    steps = len(steps_for(request.options))
    observer = ProgressObserver(context, len(request.urls), steps)
    reports = adopt_repositories(request.urls, request.workspace, request.options, observer)
    context.check_cancelled()
    document = client_report(reports, root)
    text = markdown_summary(document, verify=verify, dry_run=request.options.dry_run)
    if document["succeeded"]:
        return ToolResult.success(text, document)
    return ToolResult.error(text, ErrorCode.FAILED, document)


class AdoptRepoTool:
    """Adopts Claude Code into repositories cloned under the workspace root."""

    def __init__(self, root: AllowedPaths) -> None:
        self._root = root

    @property
    def definition(self) -> ToolDefinition:
        """The tool's schema and hints."""
        return DEFINITION

    def call(self, arguments: ToolArguments, context: ToolContext) -> ToolResult:
        """Run the adoption and return the report."""
        return run_request(arguments, context, self._root, verify=False)
