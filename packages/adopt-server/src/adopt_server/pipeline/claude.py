"""The ``trust``, ``claude-init`` and ``conform`` steps: a CLAUDE.md in the guard's shape."""

from __future__ import annotations

from mcp_common import ToolError

from adopt_server.checks import conformed_guidance
from adopt_server.conformance import claude_md_importing_agents_md, rules_for
from adopt_server.guards import detect_build
from adopt_server.pipeline.claude_command import claude_argv, run_claude_prompt
from adopt_server.pipeline.claude_edits import GUIDANCE_FILES, claude_edits_checked
from adopt_server.pipeline.context import RepoContext
from adopt_server.pipeline.errors import StepError
from adopt_server.pipeline.runner import CommandError, CommandResult
from adopt_server.pipeline.untrusted import run_untrusted

INIT = "/init"
_INIT_WAITS = (5.0, 10.0, 20.0, 30.0)


def trust(ctx: RepoContext) -> None:
    """Mark the checkout trusted so ``claude -p`` runs there without a dialog (for this run
    only: the repository's run takes the trust back when it ends)."""
    ctx.trust.grant()


def claude_init(ctx: RepoContext) -> None:
    """Generate the guidance with ``claude -p /init`` unless the project already has some (a
    CLAUDE.md, or an AGENTS.md the new CLAUDE.md will import); ``/init`` may write only those
    two files (see :mod:`.claude_edits`)."""
    if ctx.files.is_file("CLAUDE.md") or _has_agents_md(ctx):
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
        f"{' '.join(claude_argv(INIT))} exited {result.exit_code} and said:\n"
        f"{result.transcript.rstrip()}"
    )


def _has_agents_md(ctx: RepoContext) -> bool:
    try:
        return ctx.files.exists("AGENTS.md")
    except ToolError:
        return False  # not guidance this adoption may read: conform refuses it


def _run_init_keeping_nested(ctx: RepoContext) -> CommandResult:
    # claude /init edits an existing .claude/CLAUDE.md instead of writing the root file, so it
    # is set aside (in memory) while claude runs and put back through the confined writer
    nested = ".claude/CLAUDE.md"
    kept: bytes | None = None
    if ctx.files.is_file(nested):
        kept = ctx.files.read_bytes(nested)
        ctx.files.remove(nested)
    try:
        with claude_edits_checked(ctx, "claude-init", GUIDANCE_FILES):
            return run_claude_prompt(ctx.runner, ctx.checkout, INIT)
    finally:
        if kept is not None:
            ctx.files.write_bytes(nested, kept)


def conform(ctx: RepoContext) -> None:
    """Put the guidance where the guard expects it, writing only what changed.

    AGENTS.md is the source of truth: an existing one is kept as it is, and CLAUDE.md gains an
    ``@AGENTS.md`` import when it lacks one. Without one, the guidance CLAUDE.md holds moves
    into AGENTS.md (reshaped to its sections) and CLAUDE.md becomes a short file importing
    it. Only when the rules demand sections of CLAUDE.md itself (the Maven guard's Java
    sections) does CLAUDE.md keep the guidance, reshaped, beside a drafted AGENTS.md. A
    required section the guidance lacks holds the adoption's placeholder, which the
    ``guidance`` step then has ``claude`` replace. CRLF files keep their line endings. The
    reshaping reads the repository's text, so it runs where a cancel can stop it.
    """
    rules = rules_for(ctx.options.rules, detect_build(ctx.checkout), ctx.options.sections)
    has_agents = ctx.files.exists("AGENTS.md")
    if not ctx.files.is_file("CLAUDE.md"):
        if not has_agents:
            raise StepError(f"conform requires CLAUDE.md but it was not found in {ctx.checkout}")
        ctx.files.write_text("CLAUDE.md", claude_md_importing_agents_md())
        return
    written = run_untrusted(
        "conform",
        ctx.cancelled,
        conformed_guidance,
        ctx.files.read_text("CLAUDE.md"),
        has_agents,
        rules.name,
        rules.build,
        list(rules.sections),
        what="the reshaping of the guidance",
    )
    if "AGENTS.md" in written:
        ctx.files.create_text("AGENTS.md", written["AGENTS.md"])
    if "CLAUDE.md" in written:
        ctx.files.write_text("CLAUDE.md", written["CLAUDE.md"])
