"""Where an adoption campaign stands: per repository, whether the feature branch is pushed,
the state of its pull request and of that pull request's checks. Reads only."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Literal

from mcp_common import StructuredResult, mask_credentials
from pydantic import Field

from adopt_server.pipeline.batch import unique_urls
from adopt_server.pipeline.context import CredentialHelper
from adopt_server.pipeline.options import AdoptionOptions
from adopt_server.pipeline.publish import first_json_array
from adopt_server.pipeline.runner import CommandError, CommandRunner, excerpt
from adopt_server.pipeline.urls import RepositoryUrl, RepositoryUrlError, parse_repository_url

Checks = Literal["passing", "failing", "pending", "none", "unknown"]
PullRequestState = Literal["open", "merged", "closed", "none", "unknown"]

_FAILED = frozenset({"FAILURE", "ERROR", "CANCELLED", "TIMED_OUT", "ACTION_REQUIRED", "STALE"})
_PASSED = frozenset({"SUCCESS", "NEUTRAL", "SKIPPED"})


class RepositoryStatus(StructuredResult):
    """One repository's adoption status."""

    repository_url: str = Field(description="The URL, credentials masked.")
    branch: str = Field(description="The feature branch looked at.")
    branch_pushed: bool | None = Field(
        description="Whether the remote has the branch; null when the remote could not be read."
    )
    pull_request_url: str | None = Field(description="The branch's latest pull request.")
    pull_request: PullRequestState = Field(
        description="open, merged, closed, none (no pull request) or unknown (gh failed)."
    )
    checks: Checks = Field(
        description="The pull request's checks: passing, failing, pending, none or unknown."
    )
    problems: list[str] = Field(description="What could not be read, and why.")


class StatusOutcome(StructuredResult):
    """Every repository's adoption status, in input order."""

    repositories: list[RepositoryStatus] = Field(description="One status per repository.")


def summarize_checks(rollup: Any) -> Checks:
    """One word for a ``statusCheckRollup``: any failure fails, anything unfinished is
    pending, and only an all-green (or neutral/skipped) set passes."""
    if not isinstance(rollup, list):
        return "unknown"
    if not rollup:
        return "none"
    verdicts: list[str] = []
    for check in rollup:
        if not isinstance(check, dict):
            return "unknown"
        # CheckRun: status + conclusion; StatusContext: state
        status = str(check.get("status") or "COMPLETED").upper()
        verdict = str(check.get("conclusion") or check.get("state") or "").upper()
        verdicts.append(verdict if status == "COMPLETED" else "PENDING")
    if any(v in _FAILED for v in verdicts):
        return "failing"
    if all(v in _PASSED for v in verdicts):
        return "passing"
    return "pending"


def _pull_request(
    url: RepositoryUrl, branch: str, runner: CommandRunner, cwd: Path
) -> tuple[PullRequestState, str | None, Checks, str | None]:
    if url.slug is None:
        return "unknown", None, "unknown", "gh reads pull requests of GitHub repositories only"
    argv = [
        "gh",
        "pr",
        "list",
        "--head",
        branch,
        "--state",
        "all",
        "--limit",
        "1",
        "--json",
        "url,state,statusCheckRollup",
        "--repo",
        url.slug,
    ]
    try:
        result = runner.run(cwd, argv)
    except CommandError as error:
        return "unknown", None, "unknown", str(error)
    listed = first_json_array(result.transcript) if result.ok else None
    if listed is None:
        return "unknown", None, "unknown", f"gh pr list failed: {excerpt(result.transcript, 5)}"
    if not listed or not isinstance(listed[0], dict):
        return "none", None, "none", None
    entry = listed[0]
    state = str(entry.get("state", "")).lower()
    pr_state: PullRequestState = (
        "open" if state == "open" else "merged" if state == "merged" else "closed"
    )
    link = entry.get("url")
    return (
        pr_state,
        link if isinstance(link, str) else None,
        summarize_checks(entry.get("statusCheckRollup")),
        None,
    )


def _status_of(
    text: str, branch: str, runner: CommandRunner, helper: CredentialHelper, cwd: Path
) -> RepositoryStatus:
    try:
        url = parse_repository_url(text)
    except RepositoryUrlError as error:
        return RepositoryStatus(
            repository_url=mask_credentials(text),
            branch=branch,
            branch_pushed=None,
            pull_request_url=None,
            pull_request="unknown",
            checks="unknown",
            problems=[str(error)],
        )
    problems: list[str] = []
    argv = ["git", "-c", "credential.helper=", "ls-remote", "--heads", "--", url.credential_free]
    pushed: bool | None
    try:
        listed = runner.run(cwd, [*argv, f"refs/heads/{branch}"], env=helper.environment(url))
        pushed = bool(listed.transcript.strip()) if listed.ok else None
        if not listed.ok:
            problems.append(f"git ls-remote failed: {excerpt(listed.transcript, 5)}")
    except CommandError as error:
        pushed = None
        problems.append(str(error))
    state, link, checks, problem = _pull_request(url, branch, runner, cwd)
    if problem:
        problems.append(problem)
    return RepositoryStatus(
        repository_url=url.masked,
        branch=branch,
        branch_pushed=pushed,
        pull_request_url=link,
        pull_request=state,
        checks=checks,
        problems=[mask_credentials(p) for p in problems],
    )


def adoption_status(
    urls: Sequence[str], options: AdoptionOptions, cwd: Path | None = None
) -> StatusOutcome:
    """The status of every repository on ``options.branch`` (``parallel`` at once, input
    order); a repository that cannot be read reports its problem, never stops the others."""
    runner = CommandRunner(
        timeout_seconds=options.timeout_seconds,
        retries=options.retries,
        backoff_unit=options.backoff_unit,
    )
    texts = unique_urls(urls)
    where = cwd or Path(tempfile.gettempdir())
    with CredentialHelper() as helper, ThreadPoolExecutor(max_workers=options.parallel) as pool:
        statuses = list(
            pool.map(lambda t: _status_of(t, options.branch, runner, helper, where), texts)
        )
    return StatusOutcome(repositories=statuses)
