"""Reading an adoption request from tool arguments: the shared parameter declarations and
the translation into the pipeline's options, workspace and repository list."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated

from mcp_common import (
    AllowedPaths,
    Arguments,
    Between,
    Bool,
    Deprecated,
    ErrorCode,
    Int,
    OneOf,
    Str,
    StrList,
    ToolError,
)
from pydantic import Field

from adopt_server.guards.budget import DEFAULT_MAX_LINES, LINE_BUDGET_RANGE
from adopt_server.pipeline import (
    AdoptionOptions,
    OptionsError,
    check_repositories,
    prepare_workspace,
    validate_options,
)
from adopt_server.pipeline.options import (
    DEFAULT_BODY,
    DEFAULT_BRANCH,
    DEFAULT_RETRIES,
    DEFAULT_TIMEOUT_MINUTES,
    DEFAULT_TITLE,
    MAX_PARALLEL,
    MAX_RETRIES,
    MAX_TIMEOUT_MINUTES,
)
from adopt_server.pipeline.urls import RepositoryUrl, one_line
from adopt_server.tools.retention import fresh_workspace


class VerifyArguments(Arguments):
    """Which repositories, where to clone them, the rule set and how to run."""

    repository_url: Annotated[Str | None, Deprecated("repository_url")] = Field(
        None,
        description="One repository, e.g. https://github.com/owner/repo.git "
        "(https, ssh, user@host:owner/repo, file:// or a path under the workspace root).",
    )
    repository_urls: Annotated[StrList | None, Deprecated("repository_urls")] = Field(
        None,
        description="More repositories (array or comma-separated), combined with "
        "repositoryUrl; at least one of the two is required.",
    )
    workspace: Str | None = Field(
        None,
        description="Directory under the server's workspace root to clone into "
        "(default: a fresh claude-adopt-* directory there, removed after 7 days unchanged).",
    )
    rules: Annotated[Str, OneOf(("project", "minimal"))] = Field(
        "project", description="CLAUDE.md rule set the guard enforces (default project)."
    )
    claude_md_sections: Annotated[StrList | None, Deprecated("claude_md_sections")] = Field(
        None,
        description="CLAUDE.md headings the guard requires, e.g. ['## Testing'] "
        "(default: the build system's own).",
    )
    parallel: Annotated[Int, Between(1, MAX_PARALLEL)] = Field(
        1, description=f"Repositories handled at once, 1..{MAX_PARALLEL} (default 1)."
    )
    timeout_minutes: Annotated[
        Int, Between(1, MAX_TIMEOUT_MINUTES), Deprecated("timeout_minutes")
    ] = Field(
        DEFAULT_TIMEOUT_MINUTES,
        description=f"Timeout per external command in minutes, 1..{MAX_TIMEOUT_MINUTES} "
        f"(default {DEFAULT_TIMEOUT_MINUTES}).",
    )
    retries: Annotated[Int, Between(0, MAX_RETRIES)] = Field(
        DEFAULT_RETRIES,
        description=f"Further attempts after a transient git/gh network failure, "
        f"0..{MAX_RETRIES} (default {DEFAULT_RETRIES}; 0 reports the first failure).",
    )


class AdoptArguments(VerifyArguments):
    """A verification's arguments plus the branch, the pull request and the run's mode."""

    branch: Str = Field(
        DEFAULT_BRANCH,
        description=f"Feature branch to commit to and push (default {DEFAULT_BRANCH}).",
    )
    title: Str = Field(DEFAULT_TITLE, description=f"Pull request title (default {DEFAULT_TITLE}).")
    body: Str = Field(DEFAULT_BODY, description="Pull request body (default: a short summary).")
    reviewers: StrList = Field(
        default_factory=list, description="Pull request reviewers (GitHub logins)."
    )
    labels: StrList = Field(default_factory=list, description="Pull request labels.")
    assignees: StrList = Field(
        default_factory=list, description="Pull request assignees (GitHub logins)."
    )
    draft: Bool = Field(False, description="Open the pull request as a draft.")
    assets: Bool = Field(
        False,
        description="Also add starter assets (.claude/settings.json, .mcp.json, ...) where absent.",
    )
    rule_version: Annotated[Str | None, Deprecated("rule_version")] = Field(
        None, description="Released claude-code-enforcer version pinned into a Maven POM."
    )
    keep_workspace: Annotated[Bool, Deprecated("keep_workspace")] = Field(
        False, description="Keep successful checkouts (failed ones are always kept)."
    )
    dry_run: Annotated[Bool, Deprecated("dry_run")] = Field(
        False, description="Do everything but push and open the pull request."
    )
    close_stale: Bool = Field(
        False,
        description="When the default branch leaves nothing to change, close the branch's "
        "open pull request (default: leave it open and warn).",
    )
    max_lines: Annotated[Int, Between(*LINE_BUDGET_RANGE)] = Field(
        DEFAULT_MAX_LINES,
        description="Line budget of CLAUDE.md and AGENTS.md, "
        f"{LINE_BUDGET_RANGE[0]}..{LINE_BUDGET_RANGE[1]} (default {DEFAULT_MAX_LINES}): the "
        "committed checker configuration holds it and claude is asked to stay under it.",
    )


@dataclass(frozen=True, slots=True)
class Request:
    """A validated request: repositories, a prepared workspace and the run's options."""

    urls: list[str]
    workspace: Path
    options: AdoptionOptions
    fresh: bool = False
    """Whether the workspace is one the server made for this call (see :mod:`.retention`)."""


def _invalid(message: str) -> ToolError:
    return ToolError(message, ErrorCode.INVALID_ARGUMENT)


def confined_source(url: RepositoryUrl, root: AllowedPaths) -> str:
    """What the pipeline is handed for ``url``: a local path or ``file://`` URL only when the
    directory git will read is inside the workspace root (a :class:`ToolError` otherwise)."""
    if url.kind == "local":
        # a local source is client-chosen server file access: confine it like any path,
        # relative to the workspace root rather than the server's working directory
        return str(root.resolve(url.text, must_exist=True, kind="dir"))
    if url.kind == "file":
        # credential_free is the path git is given, decoded exactly as git decodes the URL
        root.resolve(url.credential_free, must_exist=True, kind="dir")
    return url.text


def read_request(arguments: VerifyArguments, root: AllowedPaths) -> Request:
    """Validate everything the arguments ask for, then (and only then) create the workspace.

    :class:`AdoptArguments` make an adoption request, plain :class:`VerifyArguments` a
    verification."""
    urls = [arguments.repository_url or "", *(arguments.repository_urls or [])]
    workspace_text = arguments.workspace
    sections = arguments.claude_md_sections
    options = AdoptionOptions(
        verify_only=True,
        rules=arguments.rules,
        sections=tuple(sections) if sections else None,
        parallel=arguments.parallel,
        timeout_seconds=60.0 * arguments.timeout_minutes,
        retries=arguments.retries,
    )
    if isinstance(arguments, AdoptArguments):
        options = replace(
            options,
            verify_only=False,
            branch=arguments.branch,
            title=arguments.title,
            body=arguments.body,
            reviewers=tuple(arguments.reviewers),
            labels=tuple(arguments.labels),
            assignees=tuple(arguments.assignees),
            draft=arguments.draft,
            assets=arguments.assets,
            rule_version=arguments.rule_version,
            keep_workspace=arguments.keep_workspace,
            dry_run=arguments.dry_run,
            close_stale=arguments.close_stale,
            max_lines=arguments.max_lines,
        )
    try:
        options = validate_options(options)
    except OptionsError as error:
        raise _invalid(str(error)) from None
    given = [url for url in urls if url.strip()]
    if not given:
        raise _invalid("Missing required argument: repositoryUrl or repositoryUrls")
    if workspace_text and not workspace_text.isprintable():
        # a newline or U+202E in a directory name reaches every report and log line naming it
        raise _invalid(
            "workspace must not contain control or invisible characters: "
            f"{one_line(workspace_text)}"
        )
    workspace = (
        root.resolve(workspace_text, must_exist=False, kind="dir")
        if workspace_text
        else root.roots[0]
    )
    try:
        parsed = check_repositories(given, workspace)
    except ValueError as error:
        raise _invalid(str(error)) from None
    sources = [confined_source(url, root) for url in parsed]
    if not workspace_text:
        workspace = fresh_workspace(root.roots[0])
    try:
        workspace = prepare_workspace(workspace)
    except OptionsError as error:
        raise ToolError(str(error), ErrorCode.ACCESS_DENIED) from None
    return Request(sources, workspace, options, fresh=not workspace_text)
