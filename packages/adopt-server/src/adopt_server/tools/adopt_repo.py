"""The ``adopt_repo`` tool: a thin adapter over :func:`adopt_repositories`."""

from __future__ import annotations

from mcp_common import (
    AllowedPaths,
    ErrorCode,
    ToolAnnotations,
    ToolContext,
    ToolDefinition,
    ToolResult,
)

from adopt_server.pipeline import BatchOutcome, adopt_repositories
from adopt_server.pipeline.steps import steps_for
from adopt_server.tools.progress import ProgressObserver
from adopt_server.tools.request import AdoptArguments, VerifyArguments, read_request
from adopt_server.tools.retention import finish
from adopt_server.tools.summary import client_report, markdown_summary

DEFINITION = ToolDefinition(
    name="adopt_repo",
    description=(
        "Adopt Claude Code into one or more GitHub repositories: clone, branch, have claude "
        "write AGENTS.md section by section (CLAUDE.md imports it), wire a guard into the "
        "build, verify, push and open a pull request. Runs the repository's build wrapper, and "
        "claude without the repository's own Claude settings, hooks or MCP servers, with an "
        "allow-listed environment (no GitHub token; only claude gets its API key). Needs git, "
        "claude and gh on the server's PATH; use dryRun to review first."
    ),
    arguments=AdoptArguments,
    annotations=ToolAnnotations(
        read_only=False,
        destructive=False,
        idempotent=True,
        open_world=True,
        title="Adopt Claude Code",
    ),
    result=BatchOutcome,
)


def run_request(arguments: VerifyArguments, context: ToolContext, root: AllowedPaths) -> ToolResult:
    """Shared by both tools: read, run with progress and cancellation, answer the report."""
    request = read_request(arguments, root)
    steps = len(steps_for(request.options))
    observer = ProgressObserver(context, len(request.urls), steps)
    try:
        reports = adopt_repositories(request.urls, request.workspace, request.options, observer)
    finally:
        if request.fresh:
            finish(request.workspace)
    context.check_cancelled()
    document = client_report(reports, root)
    verify = request.options.verify_only
    text = markdown_summary(document, verify=verify, dry_run=request.options.dry_run)
    if document.succeeded:
        return ToolResult.success(text, document)
    return ToolResult.error(text, ErrorCode.FAILED, document)


class AdoptRepoTool:
    """Adopts Claude Code into repositories cloned under the workspace root."""

    definition = DEFINITION

    def __init__(self, root: AllowedPaths) -> None:
        self._root = root

    def call(self, arguments: AdoptArguments, context: ToolContext) -> ToolResult:
        """Run the adoption and return the report."""
        return run_request(arguments, context, self._root)
