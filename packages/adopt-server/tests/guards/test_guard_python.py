"""The Python guard: a pre-commit hook running claude-md-check, plus the CI workflow."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from adopt_server.conformance import reshape, rules_for
from adopt_server.guards import install_guard, is_guard_installed
from adopt_server.guards.fallback import WORKFLOW
from adopt_server.guards.python import PRE_COMMIT_CONFIG

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
    assert install(tmp_path) == [PRE_COMMIT_CONFIG, WORKFLOW]
    config = yaml.safe_load((tmp_path / PRE_COMMIT_CONFIG).read_text(encoding="utf-8"))
    hook = our_hook(config)
    assert hook["entry"] == "claude-md-check"
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
    assert hook["additional_dependencies"][0].startswith("adopt-server")
    workflow = yaml.safe_load((tmp_path / WORKFLOW).read_text(encoding="utf-8"))
    steps = workflow["jobs"]["claude-md-guard"]["steps"]
    assert "pre-commit run claude-md-check --all-files" in steps[-1]["run"]
    assert is_guard_installed(tmp_path, "python")
    assert install(tmp_path) == []


def test_hook_spliced_into_an_existing_config_keeping_every_line(tmp_path: Path) -> None:
    (tmp_path / PRE_COMMIT_CONFIG).write_text(EXISTING, encoding="utf-8")
    assert install(tmp_path) == [PRE_COMMIT_CONFIG, WORKFLOW]
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
    assert install(tmp_path) == [WORKFLOW]
    assert (tmp_path / PRE_COMMIT_CONFIG).read_text(encoding="utf-8") == text


def test_foreign_workflow_is_kept_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    workflow = tmp_path / WORKFLOW
    workflow.parent.mkdir(parents=True)
    workflow.write_text("name: theirs\n", encoding="utf-8")
    assert install(tmp_path) == [PRE_COMMIT_CONFIG]
    assert workflow.read_text(encoding="utf-8") == "name: theirs\n"
    assert "CI may not run the guard" in caplog.text
    assert not is_guard_installed(tmp_path, "python")


def test_the_configured_hook_command_passes_a_reshaped_file_and_fails_an_empty_one(
    tmp_path: Path,
) -> None:
    install(tmp_path)
    hook = our_hook(yaml.safe_load((tmp_path / PRE_COMMIT_CONFIG).read_text(encoding="utf-8")))
    entry = Path(sys.executable).parent / str(hook["entry"])
    args = hook["args"]
    assert isinstance(args, list)
    claude_md = tmp_path / "CLAUDE.md"
    claude_md.write_text(reshape("Project notes.\n", RULES), encoding="utf-8")

    def run_hook() -> int:
        # pre-commit runs the entry from the repository root with the configured args.
        return subprocess.run(
            [str(entry), *args], cwd=tmp_path, capture_output=True, check=False, timeout=60
        ).returncode

    assert run_hook() == 0
    claude_md.write_text("", encoding="utf-8")
    assert run_hook() == 1
