"""The build-system steps: ``build-toolchain``, ``enforcer``, ``assets``, ``verify`` and the
verification pipeline's ``check-adopted``."""

from __future__ import annotations

import os
import re
from pathlib import Path

from mcp_common import mask_credentials

from adopt_server.assets import install_assets
from adopt_server.checkout_files import CheckoutFiles
from adopt_server.checks import guard_errors
from adopt_server.conformance import rules_for
from adopt_server.guards import (
    BuildGuard,
    BuildTool,
    detect_guard,
    guard_gaps,
    guard_notes,
    install_guard,
)
from adopt_server.guards.checker_script import SCRIPT, script_is_ours
from adopt_server.guards.style import declared_formatters
from adopt_server.pipeline.context import RepoContext
from adopt_server.pipeline.errors import StepError
from adopt_server.pipeline.git_control import git_control_kept
from adopt_server.pipeline.runner import (
    CommandError,
    CommandResult,
    build_environment,
    excerpt,
    render,
)
from adopt_server.pipeline.untrusted import run_untrusted

_DOWNLOAD_FAILURE = re.compile(
    r"downloading https?://|could not (?:download|install|resolve)|unknownhostexception|"
    r"connectexception|unable to tunnel|failed to fetch|cannot download",
    re.IGNORECASE,
)


def launcher(checkout: Path, tool: BuildTool) -> list[str]:
    """How to start the build tool: the project's wrapper (by absolute path, through ``sh``
    when it lacks the exec bit) before the tool on the PATH. A wrapper that is a symlink
    leading outside the checkout is refused."""
    files = CheckoutFiles(checkout)
    if files.is_file(tool.wrapper):
        wrapper = files.real(tool.wrapper)
        return [str(wrapper)] if os.access(wrapper, os.X_OK) else ["sh", str(wrapper)]
    return [tool.program]


def run_repository_code(ctx: RepoContext, step: str, argv: list[str]) -> CommandResult:
    """``argv`` (the repository's wrapper, its build tool or a formatter reading its
    configuration) run in the checkout with :func:`build_environment` only; a change it made
    to what git there would run fails ``step`` (see :mod:`.git_control`)."""
    with git_control_kept(ctx, step, f"the repository's build ({render(argv)})"):
        return ctx.runner.run(ctx.checkout, argv, allowed_environment=build_environment)


def build_toolchain(ctx: RepoContext) -> None:
    """Prove the detected build tool can run, before anything is written."""
    guard = detect_guard(ctx.checkout)
    if guard.tool is None:
        return  # the guard is the committed checker script, run with this server's Python
    probe = [*launcher(ctx.checkout, guard.tool), "--version"]
    advice = "Install it on the PATH, or commit the project's build wrapper."
    try:
        result: CommandResult | str = run_repository_code(ctx, "build-toolchain", probe)
    except CommandError as error:
        result = str(error)
    if isinstance(result, str) or not result.ok:
        output = result if isinstance(result, str) else result.transcript
        if Path(probe[-2]).name == guard.tool.wrapper and _DOWNLOAD_FAILURE.search(output):
            advice = guard.tool.download_advice
        shown = excerpt(output)
        said = f" It said:\n{shown}\n" if shown else " "
        raise StepError(
            f"build-toolchain failed: {ctx.checkout} builds with {guard.name} but {render(probe)} "
            f"could not be run, so the CLAUDE.md guard could not be verified.{said}{advice}"
        )


def enforcer(ctx: RepoContext) -> None:
    """Wire the build system's CLAUDE.md guard in (a no-op when it is already there)."""
    build = detect_guard(ctx.checkout).name
    rules = rules_for(ctx.options.rules, build, ctx.options.sections)
    try:
        changed = install_guard(
            ctx.checkout, build, rules, ctx.options.rule_version, ctx.options.max_lines
        )
    except ValueError as error:
        raise StepError(f"enforcer failed: {error}") from None
    ctx.log(f"guard for {build}: " + (", ".join(changed) if changed else "already installed"))
    for note in guard_notes(ctx.checkout, build, ctx.options.max_lines):
        ctx.warn(note)
    format_written(ctx, changed)


def assets(ctx: RepoContext) -> None:
    """Install the starter assets that are not there yet (never overwrites)."""
    written = install_assets(ctx.checkout)
    ctx.log("assets: " + (", ".join(written) if written else "all present"))
    format_written(ctx, written)


def format_written(ctx: RepoContext, written: list[str]) -> None:
    """Run the formatter the repository declares for each written file, when it is on the
    PATH; warn (with how to format by hand) when it is missing, fails, or runs only inside
    the build (Spotless)."""
    for formatter in declared_formatters(ctx.checkout, written):
        if formatter.command is None:
            ctx.warn(formatter.advice)
            continue
        try:
            result = run_repository_code(ctx, "format", list(formatter.command))
        except CommandError:
            ctx.warn(f"{formatter.name} is not on the PATH here. {formatter.advice}")
            continue
        if result.ok:
            ctx.log(f"formatted {formatter.path} with {formatter.name}")
        else:
            ctx.warn(
                f"{formatter.name} failed on {formatter.path}:\n"
                f"{excerpt(result.transcript, lines=5)}\n{formatter.advice}"
            )


def verify(ctx: RepoContext) -> None:
    """Check the adoption with the guard's rules, then (adopting only) run the guard as the
    project's build will.

    The check reads files only: the same checker the committed script is built from runs, in
    an isolated child process that a cancel stops (see :mod:`.untrusted`), for every build
    system (one rule set: no required section of CLAUDE.md or
    AGENTS.md may be missing, empty or placeholder), after confirming the committed script is
    one an adoption wrote (an adoption refreshes it to this version). Verification stops
    there: it never runs anything of the repository. An adoption then runs the Maven or
    Gradle guard through the project's own wrapper or build tool, with only
    :func:`build_environment` of the server's environment (no token, no API key).
    """
    guard = detect_guard(ctx.checkout)
    problems = []
    if not script_is_ours(ctx.checkout):
        problems.append(
            f"{SCRIPT} is missing or was not written by an adoption, so the guard does not run "
            "this checker; re-run the adoption to install it"
        )
    rules = rules_for(ctx.options.rules, guard.name, ctx.options.sections)
    checked = run_untrusted(
        "verify",
        ctx.cancelled,
        guard_errors,
        str(ctx.checkout),
        rules.name,
        list(rules.sections),
        what="the guard's check",
    )
    if "config" in checked:
        raise StepError(f"verify failed: {checked['config']}")
    problems += checked["errors"]
    if problems:
        raise StepError("verify failed: " + "; ".join(problems))
    if guard.tool is None or ctx.options.verify_only:
        return
    argv = [*launcher(ctx.checkout, guard.tool), *guard.tool.verify_args]
    result = run_repository_code(ctx, "verify", argv)
    if not result.ok:
        raise StepError(
            f"verify failed (exit {result.exit_code}) running: {render(argv)}\n"
            f"{excerpt(result.transcript)}\nThe CLAUDE.md guard did not pass in the "
            "project's own build: read its output above, fix CLAUDE.md or the build, then "
            "adopt again."
        )


def check_adopted(ctx: RepoContext) -> None:
    """Read-only: the default branch has a root CLAUDE.md and a wired guard; a failure names
    each missing part (an adoption made by an older version lacks what it did not add yet)."""
    missing: list[str] = []
    if not ctx.files.is_file("CLAUDE.md"):
        missing.append("no CLAUDE.md at its root")
    guard = detect_guard(ctx.checkout)
    missing += _guard_gaps(ctx.checkout, guard)
    if missing:
        raise StepError(
            mask_credentials(
                f"{ctx.url.masked} is not adopted: {'; '.join(missing)}. Adopt it again to add "
                "what is missing (an adoption keeps what is there and adds only the missing "
                "parts)."
            )
        )


def _guard_gaps(checkout: Path, guard: BuildGuard) -> list[str]:
    try:
        gaps = guard_gaps(checkout, guard.name)
    except ValueError as error:
        return [f"its {guard.name} build files cannot be read ({error})"]
    return [f"its {guard.name} guard: {gap}" for gap in gaps]
