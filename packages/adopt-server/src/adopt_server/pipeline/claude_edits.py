"""Running ``claude`` with edits allowed, and refusing what it must not do.

``claude -p ... --permission-mode acceptEdits`` reads the repository, which an attacker may
have written to steer it: it must change nothing but the guidance files. After each run the
adoption refuses a change to any other file of the checkout (a stray file would ride along
into the pull request or the next steps), a guidance file left as a symlink, and any change to
the checkout's git configuration or hooks, which would make the adoption's next git call run
a command (``core.fsmonitor``, a filter driver, a hook; see :mod:`.git_control`): that is
checked first, before git runs there again.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterator
from contextlib import contextmanager

from adopt_server.pipeline.checkout import changed_paths
from adopt_server.pipeline.claude_command import claude_argv, run_claude_prompt
from adopt_server.pipeline.context import RepoContext
from adopt_server.pipeline.errors import StepError
from adopt_server.pipeline.git_control import git_control_kept
from adopt_server.pipeline.runner import CommandError, render

GUIDANCE_FILES = ("AGENTS.md", "CLAUDE.md")


@contextmanager
def claude_edits_checked(
    ctx: RepoContext, step: str, allowed: Collection[str] = GUIDANCE_FILES
) -> Iterator[None]:
    """Around a ``claude`` run in the checkout: fail ``step`` when it changed the git
    configuration or hooks, a path other than ``allowed``, or left a guidance file a
    symlink."""
    before = _changed(ctx, step)
    # a link the repository itself holds is refused by the step that reads it, naming it so
    links = {path for path in GUIDANCE_FILES if os.path.islink(ctx.checkout / path)}
    kept = f"nothing was committed or pushed. The checkout is kept at {ctx.checkout}"
    with git_control_kept(ctx, step, "claude"):
        yield
    stray = sorted(_changed(ctx, step) - before - set(allowed))
    if stray:
        raise StepError(
            f"claude changed files it was not asked to write: {', '.join(stray)}. The adoption "
            f"commits only its own files; {kept}: review or remove those changes, then adopt "
            "again."
        )
    for path in GUIDANCE_FILES:
        if path not in links and os.path.islink(ctx.checkout / path):
            raise StepError(
                f"claude left {path} as a symlink, and the adoption reads and commits only "
                f"regular files; {kept}: replace the link with the file, then adopt again."
            )


def run_claude(ctx: RepoContext, step: str, prompt: str, shown: str) -> None:
    """Run ``claude -p <prompt>`` with edits allowed (see :mod:`.claude_command`) in the
    checkout under :func:`claude_edits_checked`; a non-zero exit fails ``step``, with
    ``shown`` standing for the command (a prompt is long)."""
    with claude_edits_checked(ctx, step):
        result = run_claude_prompt(ctx.runner, ctx.checkout, prompt)
    if not result.ok:
        raise CommandError(
            result.describe_failure(step).replace(render(claude_argv(prompt)), shown)
        )


def _changed(ctx: RepoContext, step: str) -> set[str]:
    status = ctx.git_or_fail(step, "status", "--porcelain", "--untracked-files=all")
    return set(changed_paths(status.transcript))
