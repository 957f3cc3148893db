"""The Gradle guard: an ``enforceClaudeMd`` task wired into ``check`` (Groovy or Kotlin DSL)."""

from __future__ import annotations

import re
from pathlib import Path

from adopt_server.checkout_files import CheckoutFiles
from adopt_server.guards.style import indent_unit, reindent

GROOVY = "build.gradle"
KOTLIN = "build.gradle.kts"
MARKER = "Added by claude-code-adopt"
_BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
_REGISTRATION = re.compile(
    r"""\b(?:register|create)\(\s*(["'])enforceClaudeMd\1|\btask\s+enforceClaudeMd\b"""
)

_GROOVY_BLOCK = """\

// {marker}: fail the build when CLAUDE.md is missing or empty.
tasks.register('enforceClaudeMd') {{
    group = 'verification'
    description = 'Fails the build when CLAUDE.md is missing or empty.'
    // Resolved while configuring, so the action holds a File, not the project.
    def claudeMd = project.file('CLAUDE.md')
    doLast {{
        if (!claudeMd.isFile() || claudeMd.text.trim().isEmpty()) {{
            throw new GradleException('CLAUDE.md is missing or empty')
        }}
    }}
}}
tasks.matching {{ it.name == 'check' }}.configureEach {{ dependsOn('enforceClaudeMd') }}
afterEvaluate {{
    if (tasks.findByName('check') == null) {{
        tasks.register('check') {{ dependsOn('enforceClaudeMd') }}
    }}
}}
"""

_KOTLIN_BLOCK = """\

// {marker}: fail the build when CLAUDE.md is missing or empty.
tasks.register("enforceClaudeMd") {{
    group = "verification"
    description = "Fails the build when CLAUDE.md is missing or empty."
    // Resolved while configuring, so the action holds a File, not the project.
    val claudeMd = project.file("CLAUDE.md")
    doLast {{
        if (!claudeMd.isFile || claudeMd.readText().trim().isEmpty()) {{
            throw GradleException("CLAUDE.md is missing or empty")
        }}
    }}
}}
tasks.matching {{ it.name == "check" }}.configureEach {{ dependsOn("enforceClaudeMd") }}
afterEvaluate {{
    if (tasks.findByName("check") == null) {{
        tasks.register("check") {{ dependsOn("enforceClaudeMd") }}
    }}
}}
"""


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
    """Whether a Gradle build script exists and declares the task."""
    script = build_script(checkout)
    return script is not None and declares_task(
        CheckoutFiles(checkout).read_text(script, newline=None)
    )


def install(checkout: Path) -> list[str]:
    """Append the task to the build script; ``[]`` when it is already declared."""
    script = build_script(checkout)
    if script is None:
        raise ValueError(f"no {GROOVY} or {KOTLIN} to wire the CLAUDE.md guard into")
    files = CheckoutFiles(checkout)
    source = files.read_text(script)
    if declares_task(source):
        return []
    template = _KOTLIN_BLOCK if script == KOTLIN else _GROOVY_BLOCK
    newline = "\r\n" if "\r\n" in source else "\n"
    # the template is written with four spaces a level; the file's own step replaces them
    block = reindent(template.format(marker=MARKER), indent_unit(source))
    if source and not source.endswith("\n"):
        block = "\n" + block
    files.write_text(script, block.replace("\n", newline), mode="append")
    return [script]
