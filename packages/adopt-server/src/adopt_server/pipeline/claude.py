"""The ``trust``, ``claude-init`` and ``conform`` steps: a CLAUDE.md in the guard's shape."""

from __future__ import annotations

from adopt_server.conformance import agents_md_text, reshape, rules_for
from adopt_server.guards import detect_build
from adopt_server.pipeline.context import RepoContext
from adopt_server.pipeline.errors import StepError
from adopt_server.pipeline.runner import CommandError, CommandResult

CLAUDE_INIT = ("claude", "-p", "/init", "--permission-mode", "acceptEdits")
_INIT_WAITS = (5.0, 10.0, 20.0, 30.0)


def trust(ctx: RepoContext) -> None:
    """Mark the checkout trusted so ``claude -p`` runs there without a dialog (for this run
    only: the repository's run takes the trust back when it ends)."""
    ctx.trust.grant()


def claude_init(ctx: RepoContext) -> None:
    """Generate CLAUDE.md with ``claude -p /init`` unless the project already has one."""
    if ctx.files.is_file("CLAUDE.md"):
        return
    attempts = ctx.options.retries + 1
    result: CommandResult | None = None
    for attempt in range(attempts):
        if attempt:
            ctx.runner.pause(_INIT_WAITS[min(attempt - 1, len(_INIT_WAITS) - 1)])
        result = _run_init_keeping_nested(ctx)
        if not result.ok:
            raise CommandError(result.describe_failure("claude-init"))
        if ctx.files.is_file("CLAUDE.md"):
            return
    assert result is not None
    raise StepError(
        f"claude-init completed but CLAUDE.md was not found in {ctx.checkout}. "
        f"{' '.join(CLAUDE_INIT)} exited {result.exit_code} and said:\n"
        f"{result.transcript.rstrip()}"
    )


def _run_init_keeping_nested(ctx: RepoContext) -> CommandResult:
    # claude /init edits an existing .claude/CLAUDE.md instead of writing the root file, so it
    # is set aside (in memory) while claude runs and put back through the confined writer
    nested = ".claude/CLAUDE.md"
    kept: bytes | None = None
    if ctx.files.is_file(nested):
        kept = ctx.files.read_bytes(nested)
        ctx.files.remove(nested)
    try:
        return ctx.runner.run(ctx.checkout, CLAUDE_INIT)
    finally:
        if kept is not None:
            ctx.files.write_bytes(nested, kept)


def conform(ctx: RepoContext) -> None:
    """Write the companion AGENTS.md if absent and reshape CLAUDE.md to the guard's rules,
    keeping the file's own line endings; write only when something changed."""
    ctx.files.create_text("AGENTS.md", agents_md_text())
    if not ctx.files.is_file("CLAUDE.md"):
        raise StepError(f"conform requires CLAUDE.md but it was not found in {ctx.checkout}")
    original = ctx.files.read_text("CLAUDE.md")
    rules = rules_for(ctx.options.rules, detect_build(ctx.checkout), ctx.options.sections)
    shaped = reshape(original, rules)
    if "\r\n" in original and "\r\n" not in shaped:
        shaped = shaped.replace("\n", "\r\n")
    if shaped != original:
        ctx.files.write_text("CLAUDE.md", shaped)
