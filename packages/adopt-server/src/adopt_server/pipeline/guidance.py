"""The ``guidance`` step: ``claude -p`` writes the sections the guard requires, asked by name.

``/init`` writes a CLAUDE.md with headings of its own choosing ("Project Overview", "Common
Commands", ...), and ``conform`` moves it into the shape the guard checks, leaving the
adoption's placeholder under every required section the guidance did not cover. This step asks
``claude`` to write those sections from what is in the repository: the first request names
every required heading of each file that still has a gap, each on its own line, with what the
pipeline already knows (build system, build and test command, guard); one more request names
only the sections still unwritten. Whatever is still unwritten then fails the repository with
every gap named and how to continue; nothing is committed, pushed or opened.

The prompts are the reviewable templates in ``prompts/`` (see the package README).
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from importlib import resources
from string import Template

from agent_config_check.rule_sets import AGENTS_MD_SECTIONS, AGENTS_MD_TITLE, RuleSet

from adopt_server.checks import NO_COMMAND, guidance_gaps
from adopt_server.conformance import rules_for
from adopt_server.guards import BuildCommand, BuildGuard, build_command, detect_guard
from adopt_server.guards.budget import DEFAULT_MAX_LINES, MAX_BYTES
from adopt_server.pipeline.claude_edits import run_claude
from adopt_server.pipeline.context import RepoContext
from adopt_server.pipeline.errors import StepError
from adopt_server.pipeline.options import DEFAULT_BRANCH
from adopt_server.pipeline.untrusted import run_untrusted

BUILD_SECTION = "## Build, test, and run"
_WHY = {
    "missing": "is missing",
    "empty": "is empty",
    "placeholder": "holds only placeholder text",
}


@dataclass(frozen=True, slots=True)
class GuidanceFile:
    """A file the guard checks and the sections it requires there. Without ``required``
    only a section holding the adoption's placeholder (or nothing) counts as unwritten: a
    file of the project's own that the rules do not hold to these sections is left alone."""

    path: str
    title: str
    sections: tuple[str, ...]
    mentions: str = ""
    required: bool = True


@dataclass(frozen=True, slots=True)
class Gap:
    """Something a guidance file still lacks: a section (``None`` = the whole file) and why."""

    path: str
    section: str | None
    reason: str

    @property
    def why(self) -> str:
        """The reason as a sentence's predicate: ``is missing``, ``holds only placeholder
        text``, ``does not name the command ...``, ``has 412 lines ...``."""
        return _WHY.get(self.reason, self.reason)


def guidance_files(rules: RuleSet) -> tuple[GuidanceFile, ...]:
    """AGENTS.md with the guide's sections (required under the ``project`` rules, which
    check AGENTS.md), and CLAUDE.md too when the rules demand sections there (the Maven
    guard's Java sections, or ``claudeMdSections``)."""
    files = [
        GuidanceFile(
            "AGENTS.md", AGENTS_MD_TITLE, AGENTS_MD_SECTIONS, required=rules.checks_agents_md
        )
    ]
    if rules.sections:
        files.append(GuidanceFile("CLAUDE.md", rules.title, rules.sections, mentions="AGENTS.md"))
    return tuple(files)


def guidance(ctx: RepoContext) -> None:
    """Ask ``claude`` for every unwritten section; re-ask once; fail naming what is left."""
    guard = detect_guard(ctx.checkout)
    rules = rules_for(ctx.options.rules, guard.name, ctx.options.sections)
    files = guidance_files(rules)
    command = build_command(ctx.checkout, guard.name)
    facts = _facts(guard, command)
    gaps = find_gaps(ctx, files, command)
    if not gaps:
        return
    asked = {f.path for f in files if any(g.path == f.path for g in gaps)}
    budget = ctx.options.max_lines
    _ask(ctx, _first_prompt([f for f in files if f.path in asked], facts, command, budget))
    gaps = find_gaps(ctx, files, command)
    if not gaps:
        return
    _ask(ctx, _again_prompt(gaps, facts, command, budget))
    gaps = find_gaps(ctx, files, command)
    if gaps:
        raise StepError(_unwritten_message(ctx, gaps))


def find_gaps(
    ctx: RepoContext, files: tuple[GuidanceFile, ...], command: BuildCommand | None
) -> list[Gap]:
    """What the guidance files still lack: unwritten sections, a build section naming no
    command the repository has, a file over its budget. The sections are judged in one
    isolated child for all the files (their text is the repository's or claude's)."""
    texts = {file.path: _read(ctx, file.path) for file in files}
    present = [file for file in files if texts[file.path] is not None]
    answer = (
        run_untrusted(
            "guidance",
            ctx.cancelled,
            guidance_gaps,
            [[texts[file.path], list(file.sections), file.required] for file in present],
            BUILD_SECTION,
            command.command if command else None,
            list(command.programs) if command else [],
            what="the check of the guidance",
        )
        if present
        else []
    )
    found = dict(zip([file.path for file in present], answer, strict=True))
    gaps: list[Gap] = []
    for file in files:
        text = texts[file.path]
        if text is None:
            if file.required:
                gaps += [Gap(file.path, s, "missing") for s in file.sections]
            continue
        for section, problem in found[file.path]:
            reason = (
                f"does not name the build and test command `{command.command}`"
                if problem == NO_COMMAND and command
                else problem
            )
            gaps.append(Gap(file.path, section, reason))
        size = len(text.encode("utf-8"))
        lines = len(text.splitlines())
        budget = ctx.options.max_lines
        if size > MAX_BYTES or lines > budget:
            gaps.append(
                Gap(
                    file.path,
                    None,
                    f"has {lines} lines and {size} bytes, over the budget of {budget} "
                    f"lines and {MAX_BYTES // 1024} KiB",
                )
            )
    return gaps


def _read(ctx: RepoContext, path: str) -> str | None:
    """The text of a guidance file, ``None`` when there is none; a file that is not a regular
    file of the checkout (a symlink, a directory) is refused."""
    if not os.path.lexists(ctx.checkout / path):
        return None
    if os.path.islink(ctx.checkout / path) or not (ctx.checkout / path).is_file():
        raise StepError(
            f"{path} in {ctx.checkout} is not a regular file (a symlink or a directory), and "
            "the adoption reads and commits only regular files. Remove it, then adopt again."
        )
    return ctx.files.read_text(path, errors="replace")


def _facts(guard: BuildGuard, command: BuildCommand | None) -> str:
    found = (
        f"`{command.command}`"
        if command
        else "none found (no build file, Makefile test target or package.json test script)"
    )
    return "\n".join(
        [
            f"- Build system: {guard.description}",
            f"- Build and test command: {found}",
            f"- Guard: {guard.summary}",
        ]
    )


def _template(name: str) -> Template:
    return Template(
        resources.files("adopt_server.pipeline").joinpath("prompts", name).read_text("utf-8")
    )


def _first_prompt(
    files: list[GuidanceFile], facts: str, command: BuildCommand | None, max_lines: int
) -> str:
    blocks = []
    for file in files:
        also = f", mention {file.mentions} in it," if file.mentions else ""
        block = [
            f"{file.path}: start it with the title line `{file.title}`{also} and give it these "
            "sections, each heading exactly as written, on a line of its own:",
            "",
            *file.sections,
        ]
        if command and BUILD_SECTION in file.sections:
            block += ["", f'Under "{BUILD_SECTION}", name the command `{command.command}`.']
        blocks.append("\n".join(block))
    return _render("guidance.txt", facts, "\n\n".join(blocks), max_lines)


def _again_prompt(gaps: list[Gap], facts: str, command: BuildCommand | None, max_lines: int) -> str:
    blocks = []
    for path in dict.fromkeys(g.path for g in gaps):
        mine = [g for g in gaps if g.path == path]
        sections = [g.section for g in mine if g.section]
        block = (
            [f"{path}: these sections have no real content yet:", "", *sections]
            if sections
            else [f"{path}:"]
        )
        reasons = [f'"{g.section}" {g.why}' if g.section else f"it {g.why}" for g in mine]
        block += ["", "Why: " + "; ".join(reasons) + "."]
        if command and BUILD_SECTION in sections:
            block.append(f'Under "{BUILD_SECTION}", name the command `{command.command}`.')
        blocks.append("\n".join(block))
    return _render("guidance-again.txt", facts, "\n\n".join(blocks), max_lines)


def _render(name: str, facts: str, documents: str, max_lines: int) -> str:
    return _template(name).substitute(
        facts=facts, documents=documents, max_lines=max_lines, max_kib=MAX_BYTES // 1024
    )


def _ask(ctx: RepoContext, prompt: str) -> None:
    """Run ``claude -p <prompt>`` with edits allowed; refuse what it must not do (see
    :mod:`.claude_edits`)."""
    run_claude(ctx, "guidance", prompt, "claude -p <guidance prompt>")


def _rerun_flags(ctx: RepoContext) -> list[str]:
    """The ``claude-adopt`` flags that run this adoption again in the same checkout: the
    workspace, and every option that shapes the guidance when it is not the default."""
    options = ctx.options
    flags = ["--workspace", str(ctx.workspace)]
    if options.branch != DEFAULT_BRANCH:
        flags += ["--branch", options.branch]
    if options.rules != "project":
        flags += ["--rules", options.rules]
    for section in options.sections or ():
        flags += ["--section", section]
    if options.max_lines != DEFAULT_MAX_LINES:
        flags += ["--max-lines", str(options.max_lines)]
    return flags


def _unwritten_message(ctx: RepoContext, gaps: list[Gap]) -> str:
    rerun = shlex.join(["claude-adopt", ctx.url.masked, *_rerun_flags(ctx)])
    unwritten = "; ".join(
        f"{path}: "
        + ", ".join(f"{g.section or 'the file'} {g.why}" for g in gaps if g.path == path)
        for path in dict.fromkeys(g.path for g in gaps)
    )
    return (
        f"claude was asked twice but did not write the guidance the guard requires. "
        f"{unwritten}. Nothing was pushed and no pull request was opened. The checkout is kept at "
        f"{ctx.checkout}: write those sections there (or leave them to claude), then run the "
        f"same adoption again with the same workspace ({rerun}, or adopt_repo with the same "
        "workspace); it resumes that checkout and asks claude only for what is still missing."
    )
