"""``claude-md-check`` run for real as the installed console script."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

COMMAND = Path(sys.executable).parent / "claude-md-check"
PACKAGE = Path(__file__).resolve().parents[1]
AGENTS = (
    Path(__file__).parent / "fixtures" / "parity" / "clean-project" / "project" / "AGENTS.md"
).read_text(encoding="utf-8")
GOOD = "# CLAUDE.md\n\nSee [AGENTS.md](AGENTS.md).\n\n## Testing\n\nRun pytest.\n"


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(COMMAND), *args], cwd=cwd, capture_output=True, text=True, check=False, timeout=60
    )


def test_conforming_directory_exits_zero_silently(tmp_path: Path) -> None:
    (tmp_path / "CLAUDE.md").write_text(GOOD, encoding="utf-8")
    (tmp_path / "AGENTS.md").write_text(AGENTS, encoding="utf-8")
    result = run("--section", "## Testing", cwd=tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_violations_exit_one_naming_file_and_rule(tmp_path: Path) -> None:
    (tmp_path / "CLAUDE.md").write_text("Notes\n", encoding="utf-8")
    result = run(str(tmp_path), "--section", "##  Build", cwd=tmp_path.parent)
    assert result.returncode == 1
    claude_md = tmp_path / "CLAUDE.md"
    assert result.stdout.splitlines() == [
        f"{claude_md}:1: error [claudeMdFormat] CLAUDE.md must start with the '# CLAUDE.md' "
        "title heading",
        f"{claude_md}: error [claudeMdFormat] CLAUDE.md is missing required section heading: "
        "## Build",
        f"{claude_md}: error [claudeMdFormat] CLAUDE.md must reference AGENTS.md as the source "
        "of truth",
    ]


def test_missing_claude_md_fails_only_where_the_adoption_policy_applies(tmp_path: Path) -> None:
    # Claude Code reads a CLAUDE.md when there is one; only the adoption template requires it.
    assert (run(cwd=tmp_path).returncode, run(cwd=tmp_path).stdout) == (0, "")
    for args in (["--profile", "adoption"], ["--rules", "project"]):
        result = run(*args, cwd=tmp_path)
        assert result.returncode == 1
        assert result.stdout == "CLAUDE.md: error [claudeMdFormat] CLAUDE.md is missing\n"


def test_agents_md_is_checked_under_project_rules_only(tmp_path: Path) -> None:
    (tmp_path / "CLAUDE.md").write_text(GOOD, encoding="utf-8")
    (tmp_path / "AGENTS.md").write_text("# Agent guide\n", encoding="utf-8")
    assert run(cwd=tmp_path).returncode == 0  # the default profile asks no title of AGENTS.md
    project = run("--rules", "project", cwd=tmp_path)
    assert project.returncode == 1
    assert (
        "AGENTS.md:1: error [agentsMdFormat] AGENTS.md must start with the '# AGENTS.md' title"
        in project.stdout
    )
    assert run("--rules", "MINIMAL", cwd=tmp_path).returncode == 0


def test_explicit_files_are_checked_by_their_name(tmp_path: Path) -> None:
    (tmp_path / "docs.md").write_text(GOOD, encoding="utf-8")
    (tmp_path / "AGENTS.md").write_text(AGENTS, encoding="utf-8")
    (tmp_path / "CLAUDE.md").write_text("not checked: only the named files are\n", encoding="utf-8")
    assert run("docs.md", "AGENTS.md", "--rules", "minimal", cwd=tmp_path).returncode == 0


def test_fix_reshapes_in_place_keeping_crlf_and_then_passes(tmp_path: Path) -> None:
    claude_md = tmp_path / "CLAUDE.md"
    claude_md.write_bytes(b"Project notes\r\n\r\n## Testing\r\n\r\nRun make test.\r\n")
    (tmp_path / "AGENTS.md").write_text(AGENTS, encoding="utf-8")
    result = run("--fix", "--section", "## Testing", cwd=tmp_path)
    assert result.returncode == 0, result.stdout
    fixed = claude_md.read_bytes()
    assert fixed.startswith(b"# CLAUDE.md\r\n\r\nSee [AGENTS.md](AGENTS.md)")
    assert b"\n" not in fixed.replace(b"\r\n", b"")
    assert "reshaped" in result.stderr
    again = run("--fix", "--section", "## Testing", cwd=tmp_path)
    assert (again.returncode, again.stderr) == (0, "")
    assert claude_md.read_bytes() == fixed


def test_fix_reshapes_agents_md_but_its_placeholders_still_fail(tmp_path: Path) -> None:
    (tmp_path / "CLAUDE.md").write_text(GOOD, encoding="utf-8")
    (tmp_path / "AGENTS.md").write_text("# Agent guide\n", encoding="utf-8")
    result = run("--fix", "--profile", "adoption", cwd=tmp_path)
    assert (tmp_path / "AGENTS.md").read_text(encoding="utf-8").startswith("# AGENTS.md\n")
    # The reshape adds the missing sections, but it cannot write their content for the team.
    assert result.returncode == 1
    assert "section '## Releasing' holds only placeholder text" in result.stdout
    assert "must start with" not in result.stdout


def test_file_that_is_not_utf8_is_a_violation(tmp_path: Path) -> None:
    (tmp_path / "CLAUDE.md").write_bytes(b"# CLAUDE.md\n\xff\xfe AGENTS.md\n")
    result = run(cwd=tmp_path)
    assert result.returncode == 1
    assert "CLAUDE.md is not valid UTF-8" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--section", "Build"], "Section 'Build' is not a Markdown heading"),
        (["--rules", "strict"], "Unknown rule set 'strict'. Use one of minimal, project"),
        (["--bogus"], "unrecognized arguments: --bogus"),
        (["--rules"], "expected one argument"),
        (["no-such-dir"], "no-such-dir does not exist"),
    ],
)
def test_usage_errors_exit_two_with_one_line_and_usage(
    tmp_path: Path, args: list[str], message: str
) -> None:
    result = run(*args, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith("usage: claude-md-check")
    errors = [line for line in result.stderr.splitlines() if "error:" in line]
    assert len(errors) == 1
    assert message in errors[0]
    assert "Traceback" not in result.stderr


def test_help_has_examples_and_version_prints_the_package_version(tmp_path: Path) -> None:
    helped = run("--help", cwd=tmp_path)
    assert helped.returncode == 0
    assert "Examples:" in helped.stdout
    assert "--fix" in helped.stdout
    version = run("--version", cwd=tmp_path)
    assert version.returncode == 0
    project = tomllib.loads((PACKAGE / "pyproject.toml").read_text(encoding="utf-8"))
    assert version.stdout.strip() == f"claude-md-check {project['project']['version']}"


def test_pre_commit_hook_definition_runs_the_declared_script() -> None:
    hooks = yaml.safe_load((PACKAGE / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    project = tomllib.loads((PACKAGE / "pyproject.toml").read_text(encoding="utf-8"))
    assert [hook["id"] for hook in hooks] == ["claude-md-check"]
    assert hooks[0]["entry"] in project["project"]["scripts"]
    assert hooks[0]["language"] == "python"
