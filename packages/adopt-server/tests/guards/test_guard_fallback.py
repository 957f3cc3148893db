"""The fallback guard: a workflow running a portable shell script, which really runs under sh."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from adopt_server.conformance import rules_for
from adopt_server.guards import install_guard, is_guard_installed
from adopt_server.guards.fallback import MARKER, SCRIPT, WORKFLOW

RULES = rules_for()
SH = shutil.which("sh") or "/bin/sh"


def install(checkout: Path) -> list[str]:
    return install_guard(checkout, "github-actions", RULES, None)


def run_script(checkout: Path) -> subprocess.CompletedProcess[str]:
    # Started from elsewhere: the script finds the repository root itself.
    return subprocess.run(
        [SH, str(checkout / SCRIPT)],
        cwd=checkout.parent,
        capture_output=True,
        text=True,
        check=False,
        timeout=30,
    )


def test_both_files_written_with_lf_and_the_marker(tmp_path: Path) -> None:
    assert install(tmp_path) == [WORKFLOW, SCRIPT]
    for relative in (WORKFLOW, SCRIPT):
        data = (tmp_path / relative).read_bytes()
        assert MARKER.encode() in data
        assert b"\r" not in data
    workflow = (tmp_path / WORKFLOW).read_text(encoding="utf-8")
    assert "on: [push, pull_request]" in workflow
    assert f"run: sh {SCRIPT}" in workflow
    assert (tmp_path / SCRIPT).read_text(encoding="utf-8").startswith("#!/bin/sh\n")
    assert is_guard_installed(tmp_path, "github-actions")
    assert install(tmp_path) == []


def test_script_passes_on_a_good_claude_md(tmp_path: Path) -> None:
    install(tmp_path)
    (tmp_path / "CLAUDE.md").write_text("# CLAUDE.md\n\nSee AGENTS.md.\n", encoding="utf-8")
    result = run_script(tmp_path)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("content", [None, "", " \n\t\n"])
def test_script_fails_on_a_missing_or_blank_claude_md(tmp_path: Path, content: str | None) -> None:
    install(tmp_path)
    if content is not None:
        (tmp_path / "CLAUDE.md").write_text(content, encoding="utf-8")
    result = run_script(tmp_path)
    assert result.returncode == 1
    assert result.stderr.strip() == "CLAUDE.md is missing or empty"


def test_foreign_workflow_is_kept_and_the_missing_script_written(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    workflow = tmp_path / WORKFLOW
    workflow.parent.mkdir(parents=True)
    workflow.write_text("name: theirs\n", encoding="utf-8")
    assert install(tmp_path) == [SCRIPT]
    assert workflow.read_text(encoding="utf-8") == "name: theirs\n"
    assert "CI may not run the guard" in caplog.text
    assert not is_guard_installed(tmp_path, "github-actions")


def test_deleted_script_is_written_back(tmp_path: Path) -> None:
    install(tmp_path)
    (tmp_path / SCRIPT).unlink()
    assert not is_guard_installed(tmp_path, "github-actions")
    assert install(tmp_path) == [SCRIPT]
