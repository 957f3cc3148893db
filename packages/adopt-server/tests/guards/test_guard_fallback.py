"""The fallback guard: a workflow running the committed checker script, which really runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from adopt_server.conformance import (
    claude_md_importing_agents_md,
    rules_for,
)
from adopt_server.guards import guard_notes, install_guard, is_guard_installed
from adopt_server.guards.budget import DEFAULT_MAX_LINES as MAX_LINES
from adopt_server.guards.builds.fallback import MARKER, SCRIPT, WORKFLOW
from adopt_server.guards.check_config import CONFIG
from adopt_server.guards.checker_script import script_text
from adopt_testkit import GOOD_AGENTS_MD

RULES = rules_for()


def install(checkout: Path) -> list[str]:
    return install_guard(checkout, "github-actions", RULES, None)


def run_script(checkout: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # Started the way the workflow starts it: from the repository root, by path.
    return subprocess.run(
        [sys.executable, SCRIPT, *args],
        cwd=checkout,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


def test_both_files_written_with_lf_and_the_marker(tmp_path: Path) -> None:
    assert install(tmp_path) == [WORKFLOW, SCRIPT, CONFIG]
    for relative in (WORKFLOW, SCRIPT):
        data = (tmp_path / relative).read_bytes()
        assert MARKER.encode() in data
        assert b"\r" not in data
    workflow = yaml.safe_load((tmp_path / WORKFLOW).read_text(encoding="utf-8"))
    job = workflow["jobs"]["claude-md-guard"]
    assert job["timeout-minutes"] == 10  # not GitHub's default of six hours
    assert job["steps"][-1]["run"].strip() == f"python3 {SCRIPT} --rules project"
    assert (tmp_path / SCRIPT).read_text(encoding="utf-8") == script_text()
    assert is_guard_installed(tmp_path, "github-actions")
    assert install(tmp_path) == []


def test_the_committed_configuration_holds_agents_md_to_the_line_budget(tmp_path: Path) -> None:
    install(tmp_path)
    config = json.loads((tmp_path / CONFIG).read_text(encoding="utf-8"))
    assert config["rules"]["contextBudget"]["maxLines"] == MAX_LINES
    (tmp_path / "CLAUDE.md").write_text(claude_md_importing_agents_md(), encoding="utf-8")
    padding = "".join(f"- note {n}\n" for n in range(MAX_LINES))
    (tmp_path / "AGENTS.md").write_text(GOOD_AGENTS_MD + padding, encoding="utf-8")
    skill = tmp_path / ".claude/skills/release/SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: release\ndescription: Cut a release.\n---\n" + padding * 2)
    long = run_script(tmp_path)
    assert long.returncode == 1
    lines = len((GOOD_AGENTS_MD + padding).splitlines())
    assert f"AGENTS.md has {lines} lines, over the {MAX_LINES}-line budget" in long.stdout
    # a skill has budgets of its own (skillSize, a warning), not the guidance files' budget
    assert not [
        line
        for line in long.stdout.splitlines()
        if "[contextBudget]" in line and "SKILL.md" in line
    ]
    assert "[skillSize] .claude/skills/release/SKILL.md has a body of 600 lines" in long.stdout
    (tmp_path / "AGENTS.md").write_text(GOOD_AGENTS_MD, encoding="utf-8")
    assert run_script(tmp_path).returncode == 0


def test_a_project_configuration_is_kept_and_a_missing_budget_reported(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    own = '{"skippedRules": ["okfBundleFormat"]}\n'
    (tmp_path / CONFIG).write_text(own, encoding="utf-8")
    assert CONFIG not in install(tmp_path)
    assert (tmp_path / CONFIG).read_text(encoding="utf-8") == own
    [note] = guard_notes(tmp_path, "github-actions")
    assert note.startswith(f"{CONFIG} is the project's own and sets no line budget")


def test_a_section_with_a_hash_stays_one_argument_in_the_workflow(tmp_path: Path) -> None:
    install_guard(tmp_path, "github-actions", rules_for("project", sections=["## C# #1"]), None)
    workflow = yaml.safe_load((tmp_path / WORKFLOW).read_text(encoding="utf-8"))
    run = workflow["jobs"]["claude-md-guard"]["steps"][-1]["run"]
    assert run.strip() == f"python3 {SCRIPT} --rules project --section '## C# #1'"


def test_script_passes_on_a_good_configuration(tmp_path: Path) -> None:
    install(tmp_path)
    (tmp_path / "CLAUDE.md").write_text(claude_md_importing_agents_md(), encoding="utf-8")
    (tmp_path / "AGENTS.md").write_text(GOOD_AGENTS_MD, encoding="utf-8")
    result = run_script(tmp_path, "--rules", "project")
    assert (result.returncode, result.stdout) == (0, ""), result.stderr


def test_script_fails_on_a_missing_claude_md_and_on_placeholders(tmp_path: Path) -> None:
    install(tmp_path)
    missing = run_script(tmp_path)
    assert missing.returncode == 1
    assert "CLAUDE.md is missing" in missing.stdout
    agents = GOOD_AGENTS_MD.replace(
        "Tags on `main` are released to PyPI by the release workflow.",
        "_Not documented yet — replace this line with the project's own guidance._",
    )
    (tmp_path / "AGENTS.md").write_text(agents, encoding="utf-8")
    (tmp_path / "CLAUDE.md").write_text(claude_md_importing_agents_md(), encoding="utf-8")
    placeholder = run_script(tmp_path)
    assert placeholder.returncode == 1
    assert "AGENTS.md section '## Releasing' holds only placeholder text" in placeholder.stdout


def test_foreign_workflow_is_kept_and_the_missing_script_written(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    workflow = tmp_path / WORKFLOW
    workflow.parent.mkdir(parents=True)
    workflow.write_text("name: theirs\n", encoding="utf-8")
    assert install(tmp_path) == [SCRIPT, CONFIG]
    assert workflow.read_text(encoding="utf-8") == "name: theirs\n"
    assert "CI may not run the guard" in caplog.text
    assert not is_guard_installed(tmp_path, "github-actions")


def test_deleted_script_is_written_back(tmp_path: Path) -> None:
    install(tmp_path)
    (tmp_path / SCRIPT).unlink()
    assert not is_guard_installed(tmp_path, "github-actions")
    assert install(tmp_path) == [SCRIPT]


def test_outdated_script_of_ours_is_refreshed_and_a_foreign_one_kept(tmp_path: Path) -> None:
    install(tmp_path)
    script = tmp_path / SCRIPT
    script.write_text(f"#!/usr/bin/env python3\n# {MARKER}: an older version\n", encoding="utf-8")
    assert install(tmp_path) == [SCRIPT]
    assert script.read_text(encoding="utf-8") == script_text()
    script.write_text("# our own checker\n", encoding="utf-8")
    assert install(tmp_path) == []
    assert script.read_text(encoding="utf-8") == "# our own checker\n"
