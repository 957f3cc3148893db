"""The ``push`` and ``pull-request`` steps."""

from __future__ import annotations

import json
import logging

from mcp_common import mask_credentials

from adopt_server.pipeline.context import RepoContext
from adopt_server.pipeline.runner import CommandError

_log = logging.getLogger(__name__)

_TOLERATED = ("a pull request for branch", "a pull request already exists", "no commits between")


def push(ctx: RepoContext) -> None:
    """Push the feature branch (and only it) to origin, credentials via the prompt helper."""
    ctx.git_or_fail("push", "push", "-u", "--", "origin", ctx.options.branch, remote=True)


def _repo_flag(ctx: RepoContext) -> list[str]:
    return ["--repo", ctx.url.slug] if ctx.url.slug else []


def find_pull_request_url(output: str) -> str | None:
    """The ``url`` of the first pull request in ``gh pr list --json url`` output, tolerating
    noise before the JSON array."""
    decoder = json.JSONDecoder()
    start = output.find("[")
    while start >= 0:
        try:
            value, _ = decoder.raw_decode(output, start)
        except json.JSONDecodeError:
            start = output.find("[", start + 1)
            continue
        if isinstance(value, list):
            if not value:
                return None
            first = value[0]
            url = first.get("url") if isinstance(first, dict) else None
            return url if isinstance(url, str) and url else None
        start = output.find("[", start + 1)
    return None


def _open_pull_request(ctx: RepoContext) -> str | None:
    argv = [
        "gh",
        "pr",
        "list",
        "--head",
        ctx.options.branch,
        "--state",
        "open",
        "--json",
        "url",
        *_repo_flag(ctx),
    ]
    result = ctx.runner.run(ctx.checkout, argv)
    if not result.ok:
        _log.warning("listing pull requests failed: %s", mask_credentials(result.transcript))
        return None
    return find_pull_request_url(result.transcript)


def pull_request(ctx: RepoContext) -> str | None:
    """Open the pull request unless one is open for the branch; return its URL."""
    existing = _open_pull_request(ctx)
    if existing:
        return existing
    options = ctx.options
    argv = [
        "gh",
        "pr",
        "create",
        "--title",
        options.title,
        "--body",
        options.body,
        "--head",
        options.branch,
        *_repo_flag(ctx),
    ]
    if options.draft:
        argv.append("--draft")
    for flag, values in (
        ("--reviewer", options.reviewers),
        ("--label", options.labels),
        ("--assignee", options.assignees),
    ):
        for value in values:
            argv += [flag, value]
    result = ctx.runner.run(ctx.checkout, argv)
    if not result.ok and not any(t in result.transcript.lower() for t in _TOLERATED):
        raise CommandError(result.describe_failure("pull-request"))
    url = _open_pull_request(ctx)
    if url is None:
        _log.warning("the pull request was opened but its URL could not be read back")
    return url
