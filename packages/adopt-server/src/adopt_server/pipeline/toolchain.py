"""The ``toolchain`` step: every program the run needs is on the PATH and gh can log in."""

from __future__ import annotations

from collections.abc import Mapping

from adopt_server.pipeline.claude_command import claude_environment
from adopt_server.pipeline.context import RepoContext
from adopt_server.pipeline.errors import StepError
from adopt_server.pipeline.options import AdoptionOptions
from adopt_server.pipeline.runner import CommandError, EnvironmentFilter

PROBE_ENVIRONMENTS: Mapping[str, EnvironmentFilter] = {"claude": claude_environment}
"""A tool probed with the environment it later runs with, when that is not the server's:
``claude --version`` sees no more than ``claude -p`` will."""


def required_tools(options: AdoptionOptions) -> tuple[str, ...]:
    """git always; claude unless verifying; gh only when a pull request will be opened."""
    if options.verify_only:
        return ("git",)
    if options.dry_run:
        return ("git", "claude")
    return ("git", "claude", "gh")


def toolchain(ctx: RepoContext) -> None:
    """Probe each tool with ``--version``; name every missing one at once; probe gh's login."""
    tools = required_tools(ctx.options)
    missing: list[str] = []
    for tool in tools:
        try:
            allowed = PROBE_ENVIRONMENTS.get(tool)
            if not ctx.runner.run(
                ctx.workspace, [tool, "--version"], allowed_environment=allowed
            ).ok:
                missing.append(tool)
        except CommandError:
            missing.append(tool)
    if missing:
        raise StepError(
            f"toolchain failed: required tools were not found on the PATH: {', '.join(missing)}"
        )
    if "gh" in tools:
        # 'gh auth status' exits 0 on a rejected token and app tokens cannot read 'user'
        target = f"repos/{ctx.url.slug}" if ctx.url.slug else "user"
        if not ctx.runner.run(ctx.workspace, ["gh", "api", "--", target]).ok:
            where = ctx.url.slug or "GitHub"
            raise StepError(
                f"toolchain failed: gh is installed but cannot reach {where} with the "
                "credentials it holds, so the pull request could not be opened. Run "
                "'gh auth login', or set GH_TOKEN to a token that can write to the repository."
            )
