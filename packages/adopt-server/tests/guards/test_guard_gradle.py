"""The Gradle guard: an ``enforceClaudeMd`` task appended in the script's own DSL."""

from __future__ import annotations

from pathlib import Path

import pytest
from adopt_server.conformance import rules_for
from adopt_server.guards import install_guard, is_guard_installed
from adopt_server.guards.builds.gradle import declares_task
from adopt_server.guards.check_config import CONFIG
from adopt_server.guards.checker_script import SCRIPT

RULES = rules_for("project", "gradle", ["## Build", '## It\'s "$quoted" \\ here'])
GROOVY = "plugins {\n    id 'java'\n}\n"
KOTLIN = "plugins {\n    java\n}\n"


def install(checkout: Path) -> list[str]:
    return install_guard(checkout, "gradle", RULES, None)


def test_groovy_script_gets_the_groovy_block_once(tmp_path: Path) -> None:
    script = tmp_path / "build.gradle"
    script.write_text(GROOVY, encoding="utf-8")
    assert install(tmp_path) == ["build.gradle", SCRIPT, CONFIG]
    text = script.read_text(encoding="utf-8")
    assert text.startswith(GROOVY + "\n// Added by claude-code-adopt")
    assert "tasks.register('enforceClaudeMd', Exec)" in text
    # Every guard runs the one committed checker with the same arguments; Groovy strings
    # escape the quote and the backslash of the section heading.
    assert (
        f"commandLine 'python3', '{SCRIPT}', '--rules', 'project', '--section', '## Build', "
        "'--section', '## It\\'s \"$quoted\" \\\\ here'"
    ) in text
    assert "tasks.matching { it.name == 'check' }" in text
    assert "afterEvaluate" in text
    assert install(tmp_path) == []
    assert script.read_text(encoding="utf-8") == text
    assert is_guard_installed(tmp_path, "gradle")


def test_kotlin_script_gets_the_kotlin_block(tmp_path: Path) -> None:
    script = tmp_path / "build.gradle.kts"
    script.write_text(KOTLIN, encoding="utf-8")
    assert install(tmp_path) == ["build.gradle.kts", SCRIPT, CONFIG]
    text = script.read_text(encoding="utf-8")
    assert 'tasks.register<Exec>("enforceClaudeMd")' in text
    # Kotlin strings escape the quote, the backslash and the template dollar.
    assert (
        f'commandLine("python3", "{SCRIPT}", "--rules", "project", "--section", "## Build", '
        '"--section", "## It\'s \\"\\$quoted\\" \\\\ here")'
    ) in text
    assert declares_task(text)
    assert install(tmp_path) == []


def test_groovy_is_chosen_when_both_scripts_exist(tmp_path: Path) -> None:
    (tmp_path / "build.gradle").write_text(GROOVY, encoding="utf-8")
    (tmp_path / "build.gradle.kts").write_text(KOTLIN, encoding="utf-8")
    assert install(tmp_path) == ["build.gradle", SCRIPT, CONFIG]
    assert (tmp_path / "build.gradle.kts").read_text(encoding="utf-8") == KOTLIN


def test_crlf_and_a_missing_final_newline_are_followed(tmp_path: Path) -> None:
    script = tmp_path / "build.gradle"
    original = b"plugins {\r\n    id 'java'\r\n}"
    script.write_bytes(original)
    install(tmp_path)
    data = script.read_bytes()
    assert data.startswith(original + b"\r\n\r\n// Added by claude-code-adopt")
    assert b"\n" not in data.replace(b"\r\n", b"")


@pytest.mark.parametrize(
    "script",
    [
        "// tasks.register('enforceClaudeMd')\n",
        "apply plugin: 'java' // tasks.register('enforceClaudeMd')\n",
        "/*\ntasks.register('enforceClaudeMd') {}\n*/\n",
        'def note = "task enforceClaudeMdLater"\n',
    ],
)
def test_mentions_in_comments_do_not_count(script: str) -> None:
    assert not declares_task(script)


@pytest.mark.parametrize(
    "script",
    [
        "maven { url 'https://x.example/m2' } }; tasks.register('enforceClaudeMd')\n",
        'tasks.register(\n    "enforceClaudeMd"\n) {\n}\n',
        "tasks.create('enforceClaudeMd')\n",
        "task enforceClaudeMd {\n}\n",
        "/* unterminated\ntasks.register('enforceClaudeMd')\n",
        'val s = "a\\"//b"; tasks.register("enforceClaudeMd")\n',
    ],
)
def test_real_registrations_are_recognised(script: str) -> None:
    assert declares_task(script)


def test_no_script_is_a_failure(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"no build\.gradle"):
        install(tmp_path)
    assert not is_guard_installed(tmp_path, "gradle")
