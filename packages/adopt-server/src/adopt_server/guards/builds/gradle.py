"""The Gradle guard: an ``enforceClaudeMd`` task, wired into ``check``, that runs the
committed checker script (Groovy or Kotlin DSL)."""

from __future__ import annotations

import re
from pathlib import Path

from agent_config_check.rule_sets import RuleSet

from adopt_server.checkout_files import CheckoutFiles
from adopt_server.guards.checker_script import (
    SCRIPT,
    checker_args,
    install_script,
    script_is_installed,
)
from adopt_server.guards.commands import BuildCommand
from adopt_server.guards.guard import BuildTool
from adopt_server.guards.style import indent_unit, reindent

GROOVY = "build.gradle"
KOTLIN = "build.gradle.kts"
MARKER = "Added by claude-code-adopt"
_BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
_REGISTRATION = re.compile(
    r"""\b(?:register|create)(?:<[\w.]+>)?\(\s*(["'])enforceClaudeMd\1|\btask\s+enforceClaudeMd\b"""
)

_GROOVY_BLOCK = """\

// {marker}: fail the build when the Claude Code configuration (CLAUDE.md, AGENTS.md,
// imports, .mcp.json, sub-agents, commands, skills) breaks its rules. Needs python3.
tasks.register('enforceClaudeMd', Exec) {{
    group = 'verification'
    description = 'Checks the Claude Code configuration with {script}.'
    workingDir = project.projectDir
    commandLine {groovy_args}
}}
tasks.matching {{ it.name == 'check' }}.configureEach {{ dependsOn('enforceClaudeMd') }}
afterEvaluate {{
    if (tasks.findByName('check') == null) {{
        tasks.register('check') {{ dependsOn('enforceClaudeMd') }}
    }}
}}
"""

_KOTLIN_BLOCK = """\

// {marker}: fail the build when the Claude Code configuration (CLAUDE.md, AGENTS.md,
// imports, .mcp.json, sub-agents, commands, skills) breaks its rules. Needs python3.
tasks.register<Exec>("enforceClaudeMd") {{
    group = "verification"
    description = "Checks the Claude Code configuration with {script}."
    workingDir = project.projectDir
    commandLine({kotlin_args})
}}
tasks.matching {{ it.name == "check" }}.configureEach {{ dependsOn("enforceClaudeMd") }}
afterEvaluate {{
    if (tasks.findByName("check") == null) {{
        tasks.register("check") {{ dependsOn("enforceClaudeMd") }}
    }}
}}
"""


def _groovy_string(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _kotlin_string(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$")
    return f'"{escaped}"'


def task_block(kotlin: bool, rules: RuleSet) -> str:
    """The task registration appended to the build script (LF endings)."""
    argv = ["python3", SCRIPT, *checker_args(rules)]
    template = _KOTLIN_BLOCK if kotlin else _GROOVY_BLOCK
    return template.format(
        marker=MARKER,
        script=SCRIPT,
        groovy_args=", ".join(_groovy_string(a) for a in argv),
        kotlin_args=", ".join(_kotlin_string(a) for a in argv),
    )


def build_script(checkout: Path) -> str | None:
    """The name of the Gradle build script, Groovy preferred when both exist."""
    files = CheckoutFiles(checkout)
    return next((name for name in (GROOVY, KOTLIN) if files.is_file(name)), None)


def declares_task(script: str) -> bool:
    """Whether ``script`` registers ``enforceClaudeMd`` in code (comments do not count)."""
    code = "\n".join(_cut_line_comment(line) for line in _BLOCK_COMMENT.sub("", script).split("\n"))
    return _REGISTRATION.search(code) is not None


def _cut_line_comment(line: str) -> str:
    quote = ""
    index = 0
    while index < len(line):
        char = line[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif line.startswith("//", index):
            return line[:index]
        index += 1
    return line


class GradleGuard:
    """The guard of a project built with Gradle (either DSL): a task appended to the build
    script."""

    name = "gradle"
    description = "Gradle (build.gradle or build.gradle.kts)"
    summary = (
        f"the enforceClaudeMd task, run by `check`, runs {SCRIPT}, which fails while a "
        "required section of CLAUDE.md or AGENTS.md is missing or holds placeholder text"
    )
    paths = (GROOVY, KOTLIN, SCRIPT)
    sections = ()
    tool = BuildTool(
        wrapper="gradlew",
        program="gradle",
        verify_args=("-q", "enforceClaudeMd"),
        download_advice="gradlew could not fetch the Gradle distribution named by "
        "distributionUrl in gradle/wrapper/gradle-wrapper.properties (no network?). Run it "
        "once where it can download so the distribution is cached under "
        "~/.gradle/wrapper/dists, or point distributionUrl at a mirror this machine reaches, "
        "then adopt again.",
    )

    def applies_to(self, files: CheckoutFiles) -> bool:
        """A Groovy or Kotlin build script at the root."""
        return files.is_file(GROOVY) or files.is_file(KOTLIN)

    def build_command(self, files: CheckoutFiles) -> BuildCommand:
        """``build`` through the project's wrapper when it has one."""
        if files.is_file("gradlew"):
            return BuildCommand("./gradlew build", ("./gradlew", "gradlew", "gradle"))
        return BuildCommand("gradle build", ("gradle", "./gradlew"))

    def missing(self, checkout: Path) -> list[str]:
        """A build script without the ``enforceClaudeMd`` task, and a missing checker."""
        script = build_script(checkout)
        if script is None:
            return [f"there is no {GROOVY} or {KOTLIN} to wire the guard into"]
        gaps = []
        if not declares_task(CheckoutFiles(checkout).read_text(script, newline=None)):
            gaps.append(f"{script} registers no enforceClaudeMd task (run by `check`)")
        if not script_is_installed(checkout):
            gaps.append(f"the checker script {SCRIPT} is missing")
        return gaps

    def notes(self, checkout: Path) -> list[str]:
        """Nothing beyond installed or not."""
        return []

    def install(self, checkout: Path, rules: RuleSet, rule_version: str | None) -> list[str]:
        """Append the task to the build script (unless it is declared) and write the checker
        script; ``rule_version`` is Maven's and ignored."""
        script = build_script(checkout)
        if script is None:
            raise ValueError(f"no {GROOVY} or {KOTLIN} to wire the CLAUDE.md guard into")
        files = CheckoutFiles(checkout)
        source = files.read_text(script)
        written = [SCRIPT] if install_script(checkout) else []
        if declares_task(source):
            return written
        newline = "\r\n" if "\r\n" in source else "\n"
        # the block is written with four spaces a level; the file's own step replaces them
        block = reindent(task_block(script == KOTLIN, rules), indent_unit(source))
        if source and not source.endswith("\n"):
            block = "\n" + block
        files.write_text(script, block.replace("\n", newline), mode="append")
        return [script, *written]


GUARD = GradleGuard()
