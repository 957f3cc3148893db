"""The ordered step lists, by the names the report records."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from adopt_server.pipeline import build, checkout, claude, guidance, publish
from adopt_server.pipeline.commit import commit_step
from adopt_server.pipeline.context import RepoContext
from adopt_server.pipeline.options import AdoptionOptions
from adopt_server.pipeline.toolchain import toolchain


@dataclass(frozen=True, slots=True)
class Step:
    """One named step. ``action`` returns a pull request URL when it found or opened one."""

    name: str
    action: Callable[[RepoContext], str | None]


def steps_for(options: AdoptionOptions) -> tuple[Step, ...]:
    """The adoption steps for ``options``; verification wins over a dry run."""
    if options.verify_only:
        return (
            Step("toolchain", toolchain),
            Step("clone", checkout.clone),
            Step("check-adopted", build.check_adopted),
            Step("verify", build.verify),
        )
    steps = [
        Step("toolchain", toolchain),
        Step("clone", checkout.clone),
        Step("build-toolchain", build.build_toolchain),
        Step("branch", checkout.branch),
        Step("trust", claude.trust),
        Step("claude-init", claude.claude_init),
        Step("conform", claude.conform),
        Step("guidance", guidance.guidance),
        Step("commit:claude-md", commit_step("claude-md")),
        Step("enforcer", build.enforcer),
        Step("commit:guard", commit_step("guard")),
    ]
    if options.assets:
        steps += [Step("assets", build.assets), Step("commit:assets", commit_step("assets"))]
    steps.append(Step("verify", build.verify))
    if not options.dry_run:
        steps += [Step("push", publish.push), Step("pull-request", publish.pull_request)]
    return tuple(steps)
