"""The ``clone`` and ``branch`` steps: a checkout of the right repository on the feature
branch, fresh or resumed, never touching the default branch."""

from __future__ import annotations

import re

from mcp_common import mask_credentials

from adopt_server.guards import written_paths
from adopt_server.pipeline.context import RepoContext
from adopt_server.pipeline.errors import StepError
from adopt_server.pipeline.git_control import refuse_planted
from adopt_server.pipeline.urls import same_repository

_PORCELAIN = re.compile(r"^(?P<status>[ MTADRCU?!]{2}) (?P<path>.+)$")


def clone(ctx: RepoContext) -> None:
    """Clone into the checkout, or resume the existing checkout of the same repository."""
    if ctx.reused:
        refuse_planted(ctx, "clone")
        _confirm_origin(ctx)
        _confirm_only_adoption_changes(ctx)
        ctx.git_or_fail("clone", "fetch", "--no-write-fetch-head", "--", "origin", remote=True)
        if ctx.options.verify_only:
            _to_fetched_default(ctx)
        return
    argv = ["git", "clone", "--", ctx.url.credential_free, str(ctx.checkout)]
    if ctx.git_env:
        argv = ["git", "-c", "credential.helper=", *argv[1:]]
    ctx.runner.run_or_fail("clone", ctx.workspace, argv, env=ctx.git_env)


def _confirm_origin(ctx: RepoContext) -> None:
    # --get-all reads the stored value; 'git remote get-url' would apply insteadOf rewrites
    result = ctx.git("config", "--get-all", "remote.origin.url")
    where = ctx.checkout
    if not result.ok:
        raise StepError(
            f"{where} is a checkout with no 'origin' remote, so it can be neither confirmed to "
            f"be {ctx.url.masked} nor pushed to it: {mask_credentials(result.transcript.strip())}"
        )
    lines = [line.strip() for line in result.transcript.splitlines() if line.strip()]
    if not any(same_repository(line, ctx.url) for line in lines):
        found = mask_credentials(", ".join(lines) or "nothing")
        raise StepError(
            f"{where} already holds a checkout of {found}, not of {ctx.url.masked}. Adopt this "
            "repository into its own workspace, or remove that directory first."
        )


def _to_fetched_default(ctx: RepoContext) -> None:
    """Move a kept checkout to the default branch's tip just fetched (detached: its branches
    stay as they are), so that verification checks what the remote holds now, as a fresh
    clone would, never files of an earlier run."""
    result = ctx.git("status", "--porcelain", "--untracked-files=all")
    changed = changed_paths(result.transcript) if result.ok else ["(status unreadable)"]
    if changed:
        raise StepError(
            f"{ctx.checkout} has uncommitted changes ({', '.join(sorted(set(changed)))}); "
            "verification checks the default branch as the remote holds it, not a checkout's "
            "own work. Commit or remove them, or verify into a fresh workspace."
        )
    target = default_branch(ctx)
    ref = f"refs/remotes/origin/{target}" if target else "refs/remotes/origin/HEAD"
    ctx.git_or_fail("clone", "checkout", "--quiet", "--detach", ref, "--")


def changed_paths(porcelain: str) -> list[str]:
    """Paths named by ``git status --porcelain`` lines (both sides of a rename or copy);
    anything that is not a status line (warnings, continuation lines) is ignored."""
    paths: list[str] = []
    for line in porcelain.splitlines():
        match = _PORCELAIN.match(line)
        if match is None or match["status"] == "  ":
            continue
        for part in match["path"].split(" -> "):
            path = part.strip()
            if len(path) >= 2 and path.startswith('"') and path.endswith('"'):
                path = path[1:-1]
            paths.append(path)
    return paths


def _confirm_only_adoption_changes(ctx: RepoContext) -> None:
    result = ctx.git("status", "--porcelain", "--untracked-files=all")
    if not result.ok:
        raise StepError(
            f"{ctx.checkout} is a checkout whose status could not be read, so it cannot be "
            f"shown to be free of uncommitted work: {mask_credentials(result.transcript.strip())}"
        )
    ours = written_paths()
    foreign = [p for p in changed_paths(result.transcript) if p not in ours]
    if foreign:
        raise StepError(
            f"{ctx.checkout} has uncommitted changes that are not the adoption's: "
            f"{', '.join(sorted(set(foreign)))}. The adoption commits everything it writes, so "
            f"these would be pushed to {ctx.options.branch} too. Commit or stash them, or adopt "
            "into a fresh workspace."
        )


def default_branch(ctx: RepoContext) -> str | None:
    """The remote's default branch as the clone recorded it (``origin/HEAD``), if known."""
    result = ctx.git("symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD")
    name = result.transcript.strip()
    return name.removeprefix("origin/") if result.ok and name else None


def branch(ctx: RepoContext) -> None:
    """Switch to the feature branch: create it, resume it locally, or resume its published
    tip so the push fast-forwards. The default branch is never checked out for writing."""
    name = ctx.options.branch
    if name == default_branch(ctx):
        raise StepError(
            f"branch {name} is the repository's default branch; the adoption never writes it. "
            "Name a feature branch."
        )
    local = ctx.git("rev-parse", "--verify", "--quiet", f"refs/heads/{name}").ok
    if local:
        ctx.git_or_fail("branch", "checkout", name, "--")
        return
    remote = ctx.git("rev-parse", "--verify", "--quiet", f"refs/remotes/origin/{name}").ok
    if remote:
        ctx.git_or_fail("branch", "checkout", "-b", name, f"origin/{name}", "--")
    else:
        ctx.git_or_fail("branch", "checkout", "-b", name, "--")
