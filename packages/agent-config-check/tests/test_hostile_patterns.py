"""Issue 23.1 replayed: a repository's own configuration and ``.gitignore`` cannot make the
checker backtrack for hours, through the installed ``claude-md-check`` and through the script
the guards commit (run the way CI runs it: a fresh ``python3 -I``).

The step bound itself is proven by the matchers' property tests (``test_linear_regex``,
``test_globs``); here the attacks go through the real entry points, each with a timeout far
beyond a linear run and far below what the backtracking took (hours).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from agent_config_check.script import script

BIN = Path(sys.executable).parent
HANG_GUARD = 120  # seconds: a linear run takes well under one; the old one took hours
REGEX_ATTACK = {"rules": {"noSecrets": {"secretPatterns": ["((a)+)+!"]}}}
GLOB = "*a" * 14 + "!"
GLOB_ATTACK = {"rules": {"localSettingsIgnored": {"ignoredPaths": ["a" * 120]}}}


def project(root: Path, claude_md: str, config: dict[str, object], gitignore: str = "") -> Path:
    (root / ".claude").mkdir(parents=True)
    (root / ".claude" / "agent-config-check.json").write_text(json.dumps(config), "utf-8")
    (root / "CLAUDE.md").write_text(claude_md, encoding="utf-8")
    if gitignore:
        (root / ".gitignore").write_text(gitignore, encoding="utf-8")
    return root


def installed(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "claude-md-check"), *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        check=False,
    )


def committed(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    target = root / ".github" / "agent-config-check.py"
    target.parent.mkdir(exist_ok=True)
    target.write_text(script(), encoding="utf-8")
    return subprocess.run(
        ["python3", "-I", str(target), *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        check=False,
    )


RUNNERS = {"claude-md-check": installed, "committed script": committed}


@pytest.mark.parametrize("runner", RUNNERS)
@pytest.mark.parametrize(
    "claude_md",
    [
        "a" * 60,  # the reported attack
        "a" * 60 + "b!\n",  # with the '!' present, so no literal pre-test can rule it out
    ],
)
def test_a_catastrophic_secret_pattern_answers_at_once(
    tmp_path: Path, runner: str, claude_md: str
) -> None:
    result = RUNNERS[runner](project(tmp_path, claude_md, REGEX_ATTACK))
    assert result.returncode in (0, 1), result.stderr
    assert "Traceback" not in result.stderr
    assert "looks like a" not in result.stdout  # no match: no '!' right after the a's


@pytest.mark.parametrize("runner", RUNNERS)
def test_a_matching_catastrophic_pattern_is_reported_masked(tmp_path: Path, runner: str) -> None:
    result = RUNNERS[runner](project(tmp_path, "a" * 60 + "!\n", REGEX_ATTACK))
    assert result.returncode == 1
    assert "CLAUDE.md:1: error [noSecrets] CLAUDE.md contains what looks like a ((a)+)+!: " in (
        result.stdout
    )


@pytest.mark.parametrize("runner", RUNNERS)
def test_gitignore_globs_answer_at_once(tmp_path: Path, runner: str) -> None:
    gitignore = "".join(f"{prefix}{GLOB}\n" for prefix in ("", "/", "!", "docs/"))
    root = project(tmp_path, "# CLAUDE.md\n", GLOB_ATTACK, gitignore)
    result = RUNNERS[runner](root, "--rules", "project")
    assert result.returncode == 1, result.stderr
    assert f".gitignore: error [localSettingsIgnored] .gitignore does not cover: {'a' * 120}" in (
        result.stdout.splitlines()
    )


@pytest.mark.parametrize("runner", RUNNERS)
def test_a_pattern_that_needs_backtracking_is_a_usage_error_naming_it(
    tmp_path: Path, runner: str
) -> None:
    config = {"rules": {"noSecrets": {"secretPatterns": ["(a+)\\1"]}}}
    result = RUNNERS[runner](project(tmp_path, "a" * 60, config))
    assert result.returncode == 2
    assert result.stdout == ""
    assert (
        "rules.noSecrets.secretPatterns: '(a+)\\1' cannot be used: backreferences are not "
        "supported by the linear-time matcher at position 4"
    ) in result.stderr


@pytest.mark.parametrize("runner", RUNNERS)
def test_a_pattern_matching_everywhere_on_a_long_line_is_reported_once(
    tmp_path: Path, runner: str
) -> None:
    # 'a*b|a' matches each 'a' on its own, but only after its first branch has read on to
    # the end of the line: listing every match searched the rest of the line once per 'a'
    # (quadratic; 20,000 a's took a quarter of an hour), reporting the line once does not
    config = {"rules": {"noSecrets": {"secretPatterns": ["a*b|a"]}}}
    result = RUNNERS[runner](project(tmp_path, "# A\n\n" + "a" * 20_000 + "\n", config))
    assert result.returncode == 1, result.stderr
    findings = [line for line in result.stdout.splitlines() if "[noSecrets]" in line]
    assert findings == [
        "CLAUDE.md:3: error [noSecrets] CLAUDE.md contains what looks like a a*b|a: a..."
    ]
