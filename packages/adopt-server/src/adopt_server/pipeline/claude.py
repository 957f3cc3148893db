"""The ``trust``, ``claude-init`` and ``conform`` steps: a CLAUDE.md in the guard's shape."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from adopt_server.conformance import agents_md_text, reshape, rules_for
from adopt_server.guards import detect_build
from adopt_server.pipeline.context import RepoContext
from adopt_server.pipeline.errors import StepError
from adopt_server.pipeline.runner import CommandError, CommandResult
from adopt_server.pipeline.trust import trust_project

CLAUDE_INIT = ("claude", "-p", "/init", "--permission-mode", "acceptEdits")
_INIT_WAITS = (5.0, 10.0, 20.0, 30.0)


def trust(ctx: RepoContext) -> None:
    """Mark the checkout trusted so ``claude -p`` runs there without a dialog."""
    trust_project(ctx.checkout)


def claude_init(ctx: RepoContext) -> None:
    """Generate CLAUDE.md with ``claude -p /init`` unless the project already has one."""
    target = ctx.checkout / "CLAUDE.md"
    if target.is_file():
        return
    attempts = ctx.options.retries + 1
    result: CommandResult | None = None
    for attempt in range(attempts):
        if attempt:
            ctx.runner.pause(_INIT_WAITS[min(attempt - 1, len(_INIT_WAITS) - 1)])
        result = _run_init_keeping_nested(ctx)
        if not result.ok:
            raise CommandError(result.describe_failure("claude-init"))
        if target.is_file():
            return
    assert result is not None
    raise StepError(
        f"claude-init completed but CLAUDE.md was not found in {ctx.checkout}. "
        f"{' '.join(CLAUDE_INIT)} exited {result.exit_code} and said:\n"
        f"{result.transcript.rstrip()}"
    )


def _run_init_keeping_nested(ctx: RepoContext) -> CommandResult:
    # claude /init edits an existing .claude/CLAUDE.md instead of writing the root file
    nested = ctx.checkout / ".claude" / "CLAUDE.md"
    backup_dir: Path | None = None
    if nested.is_file():
        backup_dir = Path(tempfile.mkdtemp(prefix="claude-adopt-nested-"))
        shutil.move(nested, backup_dir / "CLAUDE.md")
    try:
        return ctx.runner.run(ctx.checkout, CLAUDE_INIT)
    finally:
        if backup_dir is not None:
            nested.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(backup_dir / "CLAUDE.md", nested)
            shutil.rmtree(backup_dir, ignore_errors=True)


def conform(ctx: RepoContext) -> None:
    """Write the companion AGENTS.md if absent and reshape CLAUDE.md to the guard's rules,
    keeping the file's own line endings; write only when something changed."""
    agents = ctx.checkout / "AGENTS.md"
    if not ctx.path_exists("AGENTS.md"):
        agents.write_text(agents_md_text(), encoding="utf-8", newline="\n")
    target = ctx.checkout / "CLAUDE.md"
    if not target.is_file():
        raise StepError(f"conform requires CLAUDE.md but it was not found in {ctx.checkout}")
    original = target.read_bytes().decode("utf-8", errors="strict")
    rules = rules_for(ctx.options.rules, detect_build(ctx.checkout), ctx.options.sections)
    shaped = reshape(original, rules)
    if "\r\n" in original and "\r\n" not in shaped:
        shaped = shaped.replace("\n", "\r\n")
    if shaped != original:
        target.write_bytes(shaped.encode("utf-8"))
