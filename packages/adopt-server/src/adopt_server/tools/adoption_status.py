"""The ``adoption_status`` tool: where each repository of a campaign stands (read-only)."""

from __future__ import annotations

from typing import Annotated

from mcp_common import (
    AllowedPaths,
    Arguments,
    Between,
    ErrorCode,
    Int,
    Str,
    StrList,
    ToolAnnotations,
    ToolContext,
    ToolDefinition,
    ToolError,
    ToolResult,
    guard_output,
    markdown_table,
    redact,
)
from pydantic import Field

from adopt_server.pipeline import AdoptionOptions, OptionsError, validate_options
from adopt_server.pipeline.batch import unique_urls
from adopt_server.pipeline.options import DEFAULT_BRANCH, MAX_PARALLEL
from adopt_server.pipeline.status import StatusOutcome, adoption_status
from adopt_server.pipeline.urls import RepositoryUrlError, parse_repository_url
from adopt_server.tools.request import confined_source


class StatusArguments(Arguments):
    """Which repositories and which branch to look at."""

    repository_urls: StrList = Field(
        default_factory=list,
        description="The repositories (array or comma-separated): https, ssh, "
        "user@host:owner/repo, file:// or a path under the workspace root.",
    )
    branch: Str = Field(
        DEFAULT_BRANCH, description=f"The adoption's feature branch (default {DEFAULT_BRANCH})."
    )
    parallel: Annotated[Int, Between(1, MAX_PARALLEL)] = Field(
        4, description=f"Repositories read at once, 1..{MAX_PARALLEL} (default 4)."
    )


DEFINITION = ToolDefinition(
    name="adoption_status",
    description=(
        "List where each repository of an adoption campaign stands: whether the feature "
        "branch is pushed (git ls-remote), and the state of its latest pull request "
        "(open, merged, closed) and of that pull request's checks (passing, failing, "
        "pending) as gh reports them. Changes nothing."
    ),
    arguments=StatusArguments,
    annotations=ToolAnnotations.read_only_tool(open_world=True, title="Adoption status"),
    result=StatusOutcome,
)


def _yes_no(value: bool | None) -> str:
    return "unknown" if value is None else ("yes" if value else "no")


def markdown_status(outcome: StatusOutcome) -> str:
    """A heading, counts and one table row per repository."""
    repositories = outcome.repositories
    open_count = sum(1 for r in repositories if r.pull_request == "open")
    merged = sum(1 for r in repositories if r.pull_request == "merged")
    rows = [
        [
            r.repository_url,
            _yes_no(r.branch_pushed),
            r.pull_request,
            r.pull_request_url or "",
            r.checks,
            "; ".join(r.problems),
        ]
        for r in repositories
    ]
    table = markdown_table(
        ["Repository", "Branch pushed", "Pull request", "URL", "Checks", "Problems"], rows
    )
    text = (
        f"# Adoption status\n\n{len(repositories)} repositories: {open_count} pull requests "
        f"open, {merged} merged.\n\n{table}\n"
    )
    return guard_output(text, levers="fewer repositories per call")


class AdoptionStatusTool:
    """Reads the adoption status of repositories without changing them."""

    definition = DEFINITION

    def __init__(self, root: AllowedPaths) -> None:
        self._root = root

    def call(self, arguments: StatusArguments, context: ToolContext) -> ToolResult:
        """Read every repository's status and return the table."""
        texts = unique_urls(arguments.repository_urls)
        if not texts:
            raise ToolError("Missing required argument: repositoryUrls", ErrorCode.INVALID_ARGUMENT)
        try:
            options = validate_options(
                AdoptionOptions(branch=arguments.branch, parallel=arguments.parallel)
            )
            parsed = [parse_repository_url(text) for text in texts]
        except (OptionsError, RepositoryUrlError) as error:
            raise ToolError(str(error), ErrorCode.INVALID_ARGUMENT) from None
        sources = [confined_source(url, self._root) for url in parsed]
        outcome = adoption_status(sources, options, cwd=self._root.roots[0])
        context.check_cancelled()
        shown = outcome.model_copy(
            update={
                "repositories": [
                    status.model_copy(
                        update={
                            "repository_url": redact(status.repository_url),
                            "problems": [redact(p) for p in status.problems],
                        }
                    )
                    for status in outcome.repositories
                ]
            }
        )
        return ToolResult.success(markdown_status(shown), shown)
