"""The ``commit:<what>`` steps: commit the adoption's own paths, and nothing else."""

from __future__ import annotations

from collections.abc import Callable

from mcp_common import mask_credentials

from adopt_server.guards import written_paths
from adopt_server.pipeline.context import RepoContext
from adopt_server.pipeline.errors import StepError

FALLBACK_NAME = "Claude Code Adopt"
FALLBACK_EMAIL = "claude-code-adopt@users.noreply.github.com"

COMMIT_MESSAGES = {
    "claude-md": "Adopt Claude Code: add CLAUDE.md",
    "guard": "Adopt Claude Code: add the CLAUDE.md guard",
    "assets": "Add Claude Code configuration assets",
}


def commit_step(what: str) -> Callable[[RepoContext], None]:
    """The step that commits the adoption's paths with the message for ``what``."""
    step = f"commit:{what}"
    message = COMMIT_MESSAGES[what]

    def commit(ctx: RepoContext) -> None:
        present = [p for p in sorted(written_paths()) if ctx.path_exists(p)]
        if not present:
            return
        ignored = ctx.git("ls-files", "--others", "--ignored", "--exclude-standard", "--", *present)
        blocked = sorted({line.strip() for line in ignored.transcript.splitlines()} & set(present))
        if blocked:
            raise StepError(
                f"{step} cannot commit {', '.join(blocked)} in {ctx.checkout}: the checkout's "
                "ignore rules exclude those paths, and the adoption never force-adds files."
            )
        # only the adoption's own paths are staged: whatever else a tool left behind stays out
        ctx.git_or_fail(step, "add", "-A", "--", *present)
        staged = ctx.git("diff", "--cached", "--quiet")
        if staged.exit_code == 0:
            return
        if staged.exit_code != 1:
            raise StepError(
                f"{step} could not ask git what is staged in {ctx.checkout}: "
                f"{mask_credentials(staged.transcript.strip())}"
            )
        identity: list[str] = []
        if not ctx.git("config", "--get", "user.name").transcript.strip():
            identity += ["-c", f"user.name={FALLBACK_NAME}"]
        if not ctx.git("config", "--get", "user.email").transcript.strip():
            identity += ["-c", f"user.email={FALLBACK_EMAIL}"]
        ctx.git_or_fail(step, *identity, "commit", "-m", message)

    commit.__name__ = f"commit_{what.replace('-', '_')}"
    return commit
