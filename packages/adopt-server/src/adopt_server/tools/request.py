"""Reading an adoption request from tool arguments: the shared parameter declarations and
the translation into the pipeline's options, workspace and repository list."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp_common import AllowedPaths, ErrorCode, ToolArguments, ToolError

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
from adopt_server.pipeline.urls import RepositoryUrl

# an array, or one comma-separated string (ToolArguments reads both)
_LIST: dict[str, Any] = {
    "anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "string"}]
}

REPOSITORY_PROPERTIES: dict[str, dict[str, Any]] = {
    "repositoryUrl": {
        "type": "string",
        "description": "One repository to adopt, e.g. https://github.com/owner/repo.git "
        "(https, ssh, user@host:owner/repo, file:// or a path under the workspace root).",
    },
    "repositoryUrls": {
        **_LIST,
        "description": "More repositories (array or comma-separated), combined with "
        "repositoryUrl; at least one of the two is required.",
    },
    "workspace": {
        "type": "string",
        "description": "Directory under the server's workspace root to clone into "
        "(default: a fresh claude-adopt-* directory there).",
    },
}
RULE_PROPERTIES: dict[str, dict[str, Any]] = {
    "rules": {
        "type": "string",
        "enum": ["project", "minimal"],
        "description": "CLAUDE.md rule set the guard enforces (default project).",
    },
    "claudeMdSections": {
        **_LIST,
        "description": "CLAUDE.md headings the guard requires, e.g. ['## Testing'] "
        "(default: the build system's own).",
    },
}
RUN_PROPERTIES: dict[str, dict[str, Any]] = {
    "parallel": {
        "type": "integer",
        "minimum": 1,
        "maximum": MAX_PARALLEL,
        "description": f"Repositories handled at once, 1..{MAX_PARALLEL} (default 1).",
    },
    "timeoutMinutes": {
        "type": "integer",
        "minimum": 1,
        "maximum": MAX_TIMEOUT_MINUTES,
        "description": f"Timeout per external command in minutes, 1..{MAX_TIMEOUT_MINUTES} "
        f"(default {DEFAULT_TIMEOUT_MINUTES}).",
    },
    "retries": {
        "type": "integer",
        "minimum": 0,
        "maximum": MAX_RETRIES,
        "description": f"Further attempts after a transient git/gh network failure, "
        f"0..{MAX_RETRIES} (default {DEFAULT_RETRIES}; 0 reports the first failure).",
    },
}
ADOPT_PROPERTIES: dict[str, dict[str, Any]] = {
    "branch": {
        "type": "string",
        "description": f"Feature branch to commit to and push (default {DEFAULT_BRANCH}).",
    },
    "title": {"type": "string", "description": f"Pull request title (default {DEFAULT_TITLE})."},
    "body": {"type": "string", "description": "Pull request body (default: a short summary)."},
    "reviewers": {**_LIST, "description": "Pull request reviewers (GitHub logins)."},
    "labels": {**_LIST, "description": "Pull request labels."},
    "assignees": {**_LIST, "description": "Pull request assignees (GitHub logins)."},
    "draft": {"type": "boolean", "description": "Open the pull request as a draft."},
    "assets": {
        "type": "boolean",
        "description": "Also add starter assets (.claude/settings.json, .mcp.json, ...) "
        "where absent.",
    },
    "ruleVersion": {
        "type": "string",
        "description": "Released claude-code-enforcer version pinned into a Maven POM.",
    },
    "keepWorkspace": {
        "type": "boolean",
        "description": "Keep successful checkouts (failed ones are always kept).",
    },
    "dryRun": {
        "type": "boolean",
        "description": "Do everything but push and open the pull request.",
    },
}

ALIASES = {
    "repository_url": "repositoryUrl",
    "repository_urls": "repositoryUrls",
    "claude_md_sections": "claudeMdSections",
    "timeout_minutes": "timeoutMinutes",
}
ADOPT_ALIASES = {
    **ALIASES,
    "rule_version": "ruleVersion",
    "keep_workspace": "keepWorkspace",
    "dry_run": "dryRun",
}


@dataclass(frozen=True, slots=True)
class Request:
    """A validated request: repositories, a prepared workspace and the run's options."""

    urls: list[str]
    workspace: Path
    options: AdoptionOptions


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


def read_request(arguments: ToolArguments, root: AllowedPaths, *, verify: bool) -> Request:
    """Read every argument, validate everything, then (and only then) create the workspace."""
    urls = [arguments.optional_string("repositoryUrl") or ""]
    urls += arguments.optional_string_list("repositoryUrls") or []
    workspace_text = arguments.optional_string("workspace")
    sections = arguments.optional_string_list("claudeMdSections")
    common: dict[str, Any] = {
        "rules": arguments.optional_enum("rules", ("project", "minimal"), "project"),
        "sections": tuple(sections) if sections else None,
        "parallel": arguments.optional_bounded_int("parallel", 1, 1, MAX_PARALLEL),
        "timeout_seconds": 60.0
        * arguments.optional_bounded_int(
            "timeoutMinutes", DEFAULT_TIMEOUT_MINUTES, 1, MAX_TIMEOUT_MINUTES
        ),
        "retries": arguments.optional_bounded_int("retries", DEFAULT_RETRIES, 0, MAX_RETRIES),
    }
    if verify:
        options = AdoptionOptions(verify_only=True, **common)
    else:
        options = AdoptionOptions(
            branch=arguments.optional_string("branch", DEFAULT_BRANCH) or DEFAULT_BRANCH,
            title=arguments.optional_string("title", DEFAULT_TITLE) or DEFAULT_TITLE,
            body=arguments.optional_string("body", DEFAULT_BODY) or DEFAULT_BODY,
            reviewers=tuple(arguments.optional_string_list("reviewers") or ()),
            labels=tuple(arguments.optional_string_list("labels") or ()),
            assignees=tuple(arguments.optional_string_list("assignees") or ()),
            draft=arguments.optional_boolean("draft", False),
            assets=arguments.optional_boolean("assets", False),
            rule_version=arguments.optional_string("ruleVersion"),
            keep_workspace=arguments.optional_boolean("keepWorkspace", False),
            dry_run=arguments.optional_boolean("dryRun", False),
            **common,
        )
    try:
        options = validate_options(options)
    except OptionsError as error:
        raise _invalid(str(error)) from None
    given = [url for url in urls if url.strip()]
    if not given:
        raise _invalid("Missing required argument: repositoryUrl or repositoryUrls")
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
        workspace = Path(tempfile.mkdtemp(prefix="claude-adopt-", dir=root.roots[0]))
    try:
        workspace = prepare_workspace(workspace)
    except OptionsError as error:
        raise ToolError(str(error), ErrorCode.ACCESS_DENIED) from None
    return Request(sources, workspace, options)
