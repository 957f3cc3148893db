"""The ``push`` and ``pull-request`` steps."""

from __future__ import annotations

import json
import logging
from typing import Any

from mcp_common import mask_credentials

from adopt_server.pipeline.checkout import default_branch
from adopt_server.pipeline.context import RepoContext
from adopt_server.pipeline.runner import CommandError

_log = logging.getLogger(__name__)

_TOLERATED = ("a pull request for branch", "a pull request already exists", "no commits between")


CLOSE_COMMENT = (
    "Closed by claude-adopt: the default branch already holds everything this pull request "
    "adds, so nothing is left to change."
)


def nothing_to_change(ctx: RepoContext) -> bool:
    """Whether the feature branch's tree equals the default branch's: the adoption found
    nothing to add (an unknown default branch counts as something to change)."""
    default = default_branch(ctx)
    if default is None:
        return False
    return ctx.git("diff", "--quiet", f"refs/remotes/origin/{default}", "HEAD", "--").ok


def push(ctx: RepoContext) -> None:
    """Push the feature branch (and only it) to origin, credentials via the prompt helper;
    a branch that changes nothing is not pushed."""
    if nothing_to_change(ctx):
        ctx.log("nothing to change against the default branch: not pushing")
        return
    ctx.git_or_fail("push", "push", "-u", "--", "origin", ctx.options.branch, remote=True)


def _repo_flag(ctx: RepoContext) -> list[str]:
    return ["--repo", ctx.url.slug] if ctx.url.slug else []


def first_json_array(output: str) -> list[Any] | None:
    """The first JSON array in a command's output, tolerating noise (notices, warnings)
    before it; ``None`` when there is none."""
    decoder = json.JSONDecoder()
    start = output.find("[")
    while start >= 0:
        try:
            value, _ = decoder.raw_decode(output, start)
        except json.JSONDecodeError:
            start = output.find("[", start + 1)
            continue
        if isinstance(value, list):
            return value
        start = output.find("[", start + 1)
    return None


def find_pull_request_url(output: str) -> str | None:
    """The ``url`` of the first pull request in ``gh pr list --json url`` output, tolerating
    noise before the JSON array."""
    listed = first_json_array(output)
    if not listed:
        return None
    first = listed[0]
    url = first.get("url") if isinstance(first, dict) else None
    return url if isinstance(url, str) and url else None


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


def _close_stale(ctx: RepoContext, stale: str | None) -> None:
    if stale is None:
        return
    if not ctx.options.close_stale:
        ctx.warn(
            f"{stale} is stale: the default branch already holds everything it adds. Close it, "
            "or re-run with --close-stale (closeStale) to let the adoption close it."
        )
        return
    argv = ["gh", "pr", "close", stale, "--comment", CLOSE_COMMENT, *_repo_flag(ctx)]
    ctx.runner.run_or_fail("pull-request", ctx.checkout, argv)
    ctx.closed(stale)
    ctx.log(f"closed the stale pull request {stale}")


def pull_request(ctx: RepoContext) -> str | None:
    """Open the pull request unless one is open for the branch; return its URL.

    When the default branch leaves nothing to change, no pull request is opened, and the
    branch's open one is stale: closed with ``close_stale``, else reported as a warning."""
    existing = _open_pull_request(ctx)
    if nothing_to_change(ctx):
        _close_stale(ctx, existing)
        return None
    if existing:
        return existing
    ctx.pull_request_gate()
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
