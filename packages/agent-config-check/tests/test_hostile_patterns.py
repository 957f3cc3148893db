"""Issue 23.1 replayed: a repository's own configuration and ``.gitignore`` cannot make the
checker backtrack for hours, through the installed ``claude-md-check`` and through the script
the guards commit (run the way CI runs it: a fresh ``python3 -I``).

The step bound itself is proven by the matchers' property tests (``test_linear_regex``,
``test_globs``); here the attacks go through the real entry points, each with a timeout far
beyond a linear run and far below what the backtracking took (hours).
"""

from __future__ import annotations

import json
import re
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


HEAVY_PATTERN = "(a?){900}a{900}"  # 4,503 instructions: thousands of steps a character
BUDGET_ATTACK = {
    "rules": {
        "noSecrets": {"secretPatterns": [HEAVY_PATTERN]},
        "localSettingsIgnored": {"ignoredPaths": ["a" * 3_000]},
    }
}
KEY = "sk-ant-" + "k" * 24
BUDGET_LIMIT = re.compile(
    r"stopped: the budget of ([\d,]+) steps is spent \(100,000 \+ 64 per character examined, "
    r"at most 50,000,000 a run\); simplify it \(patterns and globs from the repository run on "
    r"a bounded linear-time matcher\)$"
)


@pytest.mark.parametrize("runner", RUNNERS)
def test_a_heavy_pattern_and_thousands_of_stars_stop_at_the_budget(
    tmp_path: Path, runner: str
) -> None:
    """Issue 23.1's second pass: linear but thousands of steps a character (hours on a
    hostile repository) now stop at the run's budget with a finding naming the pattern, the
    file and the limit, and every other check still answers (here: a real key found by the
    default patterns in the same rule, and a glob line over the length cap)."""
    claude_md = "# Project\n\n" + ("a" * 1_000 + "\n") * 20 + f"key: {KEY}\n"
    gitignore = "*a" * 20_000 + "\n" + "*a" * 2_000 + "\n"
    result = RUNNERS[runner](
        project(tmp_path, claude_md, BUDGET_ATTACK, gitignore), "--format", "json"
    )
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    found = [
        (v["rule"], v["path"], v["line"], v["message"])
        for v in json.loads(result.stdout)["violations"]
    ]
    messages = {(rule, file, line): message for rule, file, line, message in found}
    assert messages[("noSecrets", "CLAUDE.md", 23)] == (
        f"CLAUDE.md contains what looks like a Anthropic API key: {KEY[:8]}..."
    )
    assert messages[("localSettingsIgnored", ".gitignore", 1)] == (
        ".gitignore line 1 is 40,000 characters long, over the 4,096 the checker matches: it "
        "was not used"
    )
    secret = messages[("noSecrets", "CLAUDE.md", 0)]
    assert secret.startswith(f"matching secret pattern '{HEAVY_PATTERN}' against CLAUDE.md ")
    globs = messages[("localSettingsIgnored", ".gitignore", 0)]
    assert globs.startswith(
        f"matching the globs of .gitignore against {'a' * 60}... (3,000 characters) "
    )
    # The limits: the base plus 64 steps for each character the matchers were handed.
    examined = 2 * (3_000 + 1) + 3 * (len(claude_md) + 1)
    for message in (secret, globs):
        limit = BUDGET_LIMIT.search(message)
        assert limit is not None, message
        assert int(limit.group(1).replace(",", "")) <= 100_000 + 64 * examined


@pytest.mark.parametrize("runner", RUNNERS)
@pytest.mark.parametrize(
    ("pattern", "refusal"),
    [
        (
            "(a)" * 1_200 + "!",
            "more than 100 capturing groups are not supported by the "
            "linear-time matcher (use (?:...) for grouping) at position 300",
        ),
        ("(a?){1000}a{1000}", "the pattern compiles to more than 5000 instructions"),
    ],
)
def test_a_pattern_over_the_size_caps_is_a_usage_error_naming_the_limit(
    tmp_path: Path, runner: str, pattern: str, refusal: str
) -> None:
    config = {"rules": {"noSecrets": {"secretPatterns": [pattern]}}}
    result = RUNNERS[runner](project(tmp_path, "a" * 60, config))
    assert result.returncode == 2
    assert result.stdout == ""
    assert f"rules.noSecrets.secretPatterns: '{pattern}' cannot be used: {refusal}" in (
        result.stderr
    )


@pytest.mark.parametrize("runner", RUNNERS)
def test_every_rule_reading_repository_patterns_stops_at_the_budget(
    tmp_path: Path, runner: str
) -> None:
    """consistentPatterns and forbiddenEntryPatterns draw on the same budget: each rule reports
    its own finding, and the rest of the run answers (a duplicate permission is still found)."""
    entry = "Bash(" + "a" * 3_000 + ")"
    config = {
        "rules": {
            "crossDocConsistency": {"consistentPatterns": [HEAVY_PATTERN]},
            "permissionsFormat": {"forbiddenEntryPatterns": ["Bash\\((a?){800}a{800}\\)"]},
        }
    }
    root = project(tmp_path, "# Project\n\n" + "a" * 20_000 + "\n", config)
    (root / "AGENTS.md").write_text("# Agents\n\n" + "a" * 20_000 + "\n", encoding="utf-8")
    settings = {"permissions": {"allow": [entry, "Read", "Read"]}}
    (root / ".claude" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    result = RUNNERS[runner](root, "--format", "json")
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    found = {
        (v["rule"], v["message"].split(" stopped: ")[0])
        for v in json.loads(result.stdout)["violations"]
        if BUDGET_LIMIT.search(v["message"])
    }
    assert found == {
        (
            "crossDocConsistency",
            f"matching pattern '{HEAVY_PATTERN}' against CLAUDE.md and AGENTS.md",
        ),
        (
            "permissionsFormat",
            "matching forbidden pattern 'Bash\\((a?){800}a{800}\\)' against the allow entries "
            "of .claude/settings.json",
        ),
    }
    assert "settings.json 'permissions.allow' lists 'Read' more than once" in result.stdout
