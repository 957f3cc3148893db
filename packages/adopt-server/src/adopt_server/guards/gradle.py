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


def is_installed(checkout: Path) -> bool:
    """Whether a Gradle build script declares the task and the checker script is there."""
    script = build_script(checkout)
    return (
        script is not None
        and declares_task(CheckoutFiles(checkout).read_text(script, newline=None))
        and script_is_installed(checkout)
    )


def install(checkout: Path, rules: RuleSet) -> list[str]:
    """Append the task to the build script (unless it is declared) and write the checker
    script; ``[]`` when both are already there."""
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
