"""The Python guard: a pre-commit hook running claude-md-check, plus the CI workflow."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from adopt_server.conformance import claude_md_importing_agents_md, rules_for
from adopt_server.guards import install_guard, is_guard_installed
from adopt_server.guards.builds.fallback import WORKFLOW
from adopt_server.guards.builds.python import HOOK_ID, PRE_COMMIT_CONFIG
from adopt_server.guards.check_config import CONFIG
from adopt_server.guards.checker_script import SCRIPT
from adopt_testkit import GOOD_AGENTS_MD
from agent_config_check.reshape import reshape
from agent_config_check.rule_sets import STUB_BODY

RULES = rules_for("minimal", "python", ["## Testing", "## Build & run"])

EXISTING = """\
# project hooks
default_stages: [pre-commit]
repos:
- repo: https://github.com/astral-sh/ruff-pre-commit
  rev: v0.8.0
  hooks:
  - id: ruff
    # a comment inside
ci:
  autofix_prs: false
"""


def install(checkout: Path) -> list[str]:
    return install_guard(checkout, "python", RULES, None)


def our_hook(config: dict[str, Any]) -> dict[str, Any]:
    repos = config["repos"]
    assert isinstance(repos, list)
    hooks = [h for repo in repos for h in repo["hooks"] if h["id"] == "claude-md-check"]
    assert len(hooks) == 1
    hook: dict[str, Any] = hooks[0]
    return hook


def test_new_config_and_workflow(tmp_path: Path) -> None:
    assert install(tmp_path) == [PRE_COMMIT_CONFIG, WORKFLOW, SCRIPT, CONFIG]
    config = yaml.safe_load((tmp_path / PRE_COMMIT_CONFIG).read_text(encoding="utf-8"))
    hook = our_hook(config)
    # The committed script, run by the machine's Python: nothing for pre-commit to install.
    assert hook["entry"] == f"python3 {SCRIPT}"
    assert hook["language"] == "system"
    assert "additional_dependencies" not in hook
    assert hook["args"] == [
        "--rules",
        "minimal",
        "--section",
        "## Testing",
        "--section",
        "## Build & run",
    ]
    assert hook["pass_filenames"] is False
    assert hook["always_run"] is True
    workflow = yaml.safe_load((tmp_path / WORKFLOW).read_text(encoding="utf-8"))
    steps = workflow["jobs"]["claude-md-guard"]["steps"]
    assert steps[-1]["run"].strip() == (
        f"python3 {SCRIPT} --rules minimal --section '## Testing' --section '## Build & run'"
    )
    assert is_guard_installed(tmp_path, "python")
    assert install(tmp_path) == []


def test_hook_spliced_into_an_existing_config_keeping_every_line(tmp_path: Path) -> None:
    (tmp_path / PRE_COMMIT_CONFIG).write_text(EXISTING, encoding="utf-8")
    assert install(tmp_path) == [PRE_COMMIT_CONFIG, WORKFLOW, SCRIPT, CONFIG]
    text = (tmp_path / PRE_COMMIT_CONFIG).read_text(encoding="utf-8")
    head, tail = EXISTING.split("ci:\n")
    assert text.startswith(head)
    assert text.endswith("ci:\n" + tail)
    assert "\n- repo: local\n" in text
    config = yaml.safe_load(text)
    assert [repo["repo"] for repo in config["repos"]] == [
        "https://github.com/astral-sh/ruff-pre-commit",
        "local",
    ]
    assert config["ci"] == {"autofix_prs": False}
    our_hook(config)
    assert install(tmp_path) == []
    assert (tmp_path / PRE_COMMIT_CONFIG).read_text(encoding="utf-8") == text


def test_column_zero_comment_before_the_next_key_stays_with_that_key(tmp_path: Path) -> None:
    text = "repos:\n- repo: local\n  hooks: []\n\n# settings for pre-commit.ci\nci: {}\n"
    (tmp_path / PRE_COMMIT_CONFIG).write_text(text, encoding="utf-8")
    install(tmp_path)
    edited = (tmp_path / PRE_COMMIT_CONFIG).read_text(encoding="utf-8")
    assert edited.endswith("always_run: true\n\n# settings for pre-commit.ci\nci: {}\n")


def test_indented_list_and_crlf_are_followed(tmp_path: Path) -> None:
    original = "repos:\r\n  - repo: local\r\n    hooks:\r\n      - id: other\r\n"
    (tmp_path / PRE_COMMIT_CONFIG).write_bytes(original.encode())
    install(tmp_path)
    data = (tmp_path / PRE_COMMIT_CONFIG).read_bytes().decode()
    assert data.startswith(original + "  - repo: local\r\n")
    assert "\n" not in data.replace("\r\n", "")
    assert len(yaml.safe_load(data)["repos"]) == 2


def test_config_without_repos_gets_the_key(tmp_path: Path) -> None:
    (tmp_path / PRE_COMMIT_CONFIG).write_text("fail_fast: true", encoding="utf-8")
    install(tmp_path)
    config = yaml.safe_load((tmp_path / PRE_COMMIT_CONFIG).read_text(encoding="utf-8"))
    assert config["fail_fast"] is True
    our_hook(config)


def test_flow_style_repos_is_refused_untouched(tmp_path: Path) -> None:
    (tmp_path / PRE_COMMIT_CONFIG).write_text("repos: []\n", encoding="utf-8")
    with pytest.raises(ValueError, match="flow style"):
        install(tmp_path)
    assert (tmp_path / PRE_COMMIT_CONFIG).read_text(encoding="utf-8") == "repos: []\n"


def test_hook_already_declared_counts_as_installed(tmp_path: Path) -> None:
    text = (
        "repos:\n- repo: https://example.org/hooks\n  rev: v1\n  hooks:\n  - id: claude-md-check\n"
    )
    (tmp_path / PRE_COMMIT_CONFIG).write_text(text, encoding="utf-8")
    assert install(tmp_path) == [WORKFLOW, SCRIPT, CONFIG]
    assert (tmp_path / PRE_COMMIT_CONFIG).read_text(encoding="utf-8") == text


def test_foreign_workflow_is_kept_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    workflow = tmp_path / WORKFLOW
    workflow.parent.mkdir(parents=True)
    workflow.write_text("name: theirs\n", encoding="utf-8")
    assert install(tmp_path) == [PRE_COMMIT_CONFIG, SCRIPT, CONFIG]
    assert workflow.read_text(encoding="utf-8") == "name: theirs\n"
    assert "CI may not run the guard" in caplog.text
    assert not is_guard_installed(tmp_path, "python")


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def test_installed_hook_runs_under_real_pre_commit_in_a_fresh_clone(tmp_path: Path) -> None:
    """Issue 13's proof: the hook works the day it lands, with no package to install.

    The origin gets the guard; a fresh clone runs ``pre-commit run`` offline, with a PATH
    whose ``python3`` is the base interpreter, which cannot import this project.
    """
    origin = tmp_path / "origin"
    origin.mkdir()
    (origin / "pyproject.toml").write_text("[project]\nname = 'demo'\n", encoding="utf-8")
    project_rules = rules_for("project", "python", RULES.sections)
    install_guard(origin, "python", project_rules, None)
    (origin / "AGENTS.md").write_text(GOOD_AGENTS_MD, encoding="utf-8")
    claude_md = reshape(claude_md_importing_agents_md(), RULES)
    for section, body in (("## Testing", "Run pytest."), ("## Build & run", "Run make.")):
        claude_md = claude_md.replace(f"{section}\n\n{STUB_BODY}", f"{section}\n\n{body}")
    (origin / "CLAUDE.md").write_text(claude_md, encoding="utf-8")
    _git(origin, "init", "-q", "-b", "main")
    _git(origin, "add", "-A")
    _git(origin, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-qm", "seed")
    clone = tmp_path / "clone"
    _git(tmp_path, "clone", "-q", str(origin), str(clone))

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    base_python = Path(getattr(sys, "_base_executable", sys.executable)).resolve()
    (bin_dir / "python3").symlink_to(base_python)
    env = {
        "PATH": f"{bin_dir}{os.pathsep}{os.path.dirname(shutil.which('git') or '/usr/bin/git')}",
        "HOME": str(tmp_path / "home"),
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-cache"),
        "PIP_NO_INDEX": "1",
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    isolated = subprocess.run(
        ["python3", "-c", "import adopt_server"],
        env=env,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert isolated.returncode != 0, "the hook's python3 must not see this project"

    def pre_commit() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pre_commit", "run", HOOK_ID, "--all-files"],
            cwd=clone,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    passed = pre_commit()
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Passed" in passed.stdout
    agents = clone / "AGENTS.md"
    agents.write_text(
        agents.read_text(encoding="utf-8").replace(
            "One change per pull request; the subject says what changed.", "TODO"
        ),
        encoding="utf-8",
    )
    failed = pre_commit()
    assert failed.returncode == 1
    assert "AGENTS.md section '## Pull requests & commits' holds only placeholder text" in (
        failed.stdout
    )
