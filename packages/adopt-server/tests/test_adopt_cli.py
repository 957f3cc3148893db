"""claude-adopt over its real console script: flags, refusals (exit 2, one line, masked, no
traceback), the report file on success and failure, exit status 1 when a repository failed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from adopt_server.cli import main
from adopt_testkit import git, run_in_process
from conftest import AdoptEnv

SCRIPT = Path(sys.executable).parent / "claude-adopt"


def claude_adopt(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SCRIPT), *args], capture_output=True, text=True, cwd=cwd, check=False, timeout=120
    )


def test_help_shows_examples_and_version_works() -> None:
    helped = claude_adopt("--help")
    assert helped.returncode == 0
    assert "examples:" in helped.stdout
    assert "--repos FILE" in helped.stdout
    version = claude_adopt("--version")
    assert version.returncode == 0
    assert version.stdout.startswith("claude-adopt ")


@pytest.mark.parametrize(
    "args",
    [["--timeout", "soon", "--help"], ["--help", "--repos", "/no/such"], ["--not-a-flag", "-h"]],
)
def test_help_wins_over_other_problems(args: list[str]) -> None:
    done = claude_adopt(*args)
    assert done.returncode == 0, done.stderr
    assert "examples:" in done.stdout


def test_help_in_a_value_slot_is_refused_not_help() -> None:
    done = claude_adopt("--title", "-h", "x/r")
    assert done.returncode == 2
    assert "argument --title: expected one argument" in done.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bogus", "x/r"], "unrecognized arguments: --bogus"),
        (["--parallel", "9", "x/r"], "--parallel must be between 1 and 8 repositories but was 9"),
        (["--parallel", "many", "x/r"], "--parallel takes a whole number of repositories"),
        (["--timeout", "0", "x/r"], "--timeout must be between 1 and 1440 minutes but was 0"),
        (["--timeout", "1441", "x/r"], "--timeout must be between 1 and 1440 minutes"),
        (["--timeout", "9223372036854775807", "x/r"], "--timeout takes a whole number"),
        (["--timeout", "soon", "x/r"], "--timeout takes a whole number of minutes, not 'soon'"),
        (["--retries", "11", "x/r"], "--retries must be between 0 and 10 attempts"),
        (["--retries", "-1", "x/r"], "--retries must be between 0 and 10 attempts"),
        (["--rules", "strict", "x/r"], "Unknown rule set 'strict'"),
        (["--max-lines", "29", "x/r"], "--max-lines must be between 30 and 2000 lines"),
        (["--max-lines", "many", "x/r"], "--max-lines takes a whole number of lines"),
        (["--section", "Build", "x/r"], "is not a Markdown heading"),
        (["--branch", "--draft", "x/r"], "argument --branch: expected one argument"),
        (["--branch", "a..b", "x/r"], "not a valid branch name"),
        (["--branch=refs/heads/main", "x/r"], "'refs/heads/main' (a name starting with refs/"),
        (["--rule-version", "1.0-SNAPSHOT", "x/r"], "released version"),
        (["--repos", "/no/such/file.txt"], "Could not read the repository URL list"),
        (["--dry-run"], "name at least one repository"),
        (["--", "--upload-pack=touch /tmp/x"], "must not start with '-'"),
        (
            ["https://github.com/a/tools", "--repo", "git@github.com:a/tools.git"],
            "both name the same repository",
        ),
        (["/tmp/ws", "--repo", "https://github.com/o/r"], "names no repository owner"),
        (["https://u:SECRET@github.com/o/r", "ws", "b", "extra"], "unrecognized arguments"),
        (["http://u:SECRET@github.com/o/r"], "http://***@github.com/o/r"),
    ],
)
def test_bad_input_is_one_line_exit_2_before_anything_runs(
    tmp_path: Path, args: list[str], message: str
) -> None:
    # in this process: the refusals are the entry point's; the tests above and below run the
    # real console script
    done = run_in_process(
        "claude-adopt", main, *args, "--workspace", str(tmp_path / "ws"), cwd=tmp_path
    )
    assert done.returncode == 2, done.stderr
    assert message in done.stderr
    assert "Traceback" not in done.stderr
    assert "SECRET" not in done.stderr
    assert done.stderr.startswith("usage: claude-adopt")
    assert done.stderr.rstrip().splitlines()[-1].startswith("claude-adopt: error: ")
    assert not (tmp_path / "ws").exists(), "nothing may be created for a refused run"


def test_batch_from_a_file_writes_the_report_and_fails_for_the_broken_one(
    adopt_env: AdoptEnv,
) -> None:
    good = adopt_env.remote("maven", "good")
    other = adopt_env.remote("gradle-kts", "other")
    repos = adopt_env.root / "repos.txt"
    repos.write_text(
        f"# repositories to adopt\n\n{good}\n  {adopt_env.remotes / 'missing.git'}\n{other}\n"
    )
    report = adopt_env.root / "out" / "report.json"
    done = claude_adopt(
        "--repos",
        str(repos),
        "--parallel",
        "2",
        "--report",
        str(report),
        "--workspace",
        str(adopt_env.workspace),
    )
    assert done.returncode == 1, done.stderr
    assert "Adoption failed for 1 of 3 repositories" in done.stderr
    document = json.loads(report.read_text())
    assert [r["succeeded"] for r in document["repositories"]] == [True, False, True]
    assert document["repositories"][2]["build"] == "gradle"
    assert json.loads(done.stdout) == document
    assert git(good, "branch", "--list", "claude/adopt-claude-code").strip()


def test_positional_workspace_and_branch_with_dry_run(adopt_env: AdoptEnv) -> None:
    remote = adopt_env.remote("python")
    blanks = ["--timeout", " ", "--retries", "", "--report", " ", "--rule-version", ""]
    done = claude_adopt(
        str(remote), "rel-ws", "claude/try", "--dry-run", *blanks, cwd=adopt_env.root
    )
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["branch"] == "claude/try"
    assert document["checkout"] == str(adopt_env.root / "rel-ws" / "python")
    assert "push" not in document["completedSteps"]
    assert git(remote, "branch", "--list").split() == ["*", "main"]


def test_verify_only(adopt_env: AdoptEnv) -> None:
    done = claude_adopt(
        "--verify-only",
        "--repo",
        str(adopt_env.remote("plain")),
        "--workspace",
        str(adopt_env.workspace),
    )
    assert done.returncode == 1
    document = json.loads(done.stdout)
    assert document["failure"].startswith("check-adopted: ")
