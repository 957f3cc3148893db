"""Whole adoptions end to end: real git against local bare repositories, fake claude/gh/mvn/
gradle on the PATH, the plain Python API (no MCP)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from adopt_server.conformance import claude_md_importing_agents_md
from adopt_server.pipeline import (
    AdoptionOptions,
    RepositoryReport,
    adopt_repositories,
    batch_json,
)
from adopt_testkit import branch_files, commit_subjects, git, log_lines, make_bare_repository
from agent_config_check.rule_sets import AGENTS_MD_SECTIONS
from conftest import AdoptEnv

BRANCH = "claude/adopt-claude-code"
ADOPTION_STEPS = [
    "toolchain",
    "clone",
    "build-toolchain",
    "branch",
    "trust",
    "claude-init",
    "conform",
    "guidance",
    "commit:claude-md",
    "enforcer",
    "commit:guard",
    "verify",
    "push",
    "pull-request",
]
VERIFY_STEPS = ["toolchain", "clone", "check-adopted", "verify"]


def fast(**overrides: Any) -> AdoptionOptions:
    """Options with tiny retry waits so the real retry logic runs quickly."""
    return AdoptionOptions(**{"backoff_unit": 0.001, "timeout_seconds": 60.0, **overrides})


def adopt_one(env: AdoptEnv, url: str | Path, **overrides: Any) -> RepositoryReport:
    [report] = adopt_repositories([str(url)], env.workspace, fast(**overrides))
    return report


@pytest.mark.parametrize(
    ("kind", "build", "guard_file", "guard_text"),
    [
        ("maven", "maven", "pom.xml", "enforce-claude-md"),
        ("gradle", "gradle", "build.gradle", "enforceClaudeMd"),
        ("gradle-kts", "gradle", "build.gradle.kts", "enforceClaudeMd"),
        ("python", "python", ".pre-commit-config.yaml", "claude-md-check"),
        ("plain", "github-actions", ".github/agent-config-check.py", "agent-config-check"),
    ],
)
def test_whole_adoption_pushes_a_branch_and_opens_a_pull_request(
    adopt_env: AdoptEnv, kind: str, build: str, guard_file: str, guard_text: str
) -> None:
    remote = adopt_env.remote(kind)
    report = adopt_one(adopt_env, remote)
    assert report.failure is None
    assert report.completed_steps == ADOPTION_STEPS
    assert report.build == build
    assert report.pull_request_url == "https://github.com/owner/repo/pull/1"
    files = branch_files(remote, BRANCH)
    assert {"CLAUDE.md", "AGENTS.md", guard_file} <= set(files)
    guard = git(remote, "show", f"{BRANCH}:{guard_file}")
    assert guard_text in guard
    assert commit_subjects(remote, BRANCH)[:2] == [
        "Adopt Claude Code: add the CLAUDE.md guard",
        "Adopt Claude Code: add CLAUDE.md",
    ]
    assert commit_subjects(remote, "main") == ["seed"], "the default branch was written"
    authors = git(remote, "log", "--format=%an <%ae>", "-2", BRANCH).splitlines()
    assert authors == ["Claude Code Adopt <claude-code-adopt@users.noreply.github.com>"] * 2
    claude_md = git(remote, "show", f"{BRANCH}:CLAUDE.md")
    assert claude_md.startswith("# CLAUDE.md\n")
    assert "AGENTS.md" in claude_md
    agents_md = git(remote, "show", f"{BRANCH}:AGENTS.md")
    if build == "maven":
        # The Maven guard's Java sections live in CLAUDE.md itself, beside the companion.
        assert "## Java version" in claude_md
    else:
        # One source of truth: the generated guidance is AGENTS.md, CLAUDE.md imports it.
        assert "\n@AGENTS.md\n" in claude_md
        assert agents_md.startswith("# AGENTS.md\n")
        assert "## Module layout" in agents_md
        assert "## Module layout" not in claude_md
    creates = [c for c in log_lines(adopt_env.log, "gh") if c.startswith("pr create")]
    assert creates == [
        "pr create --title Adopt Claude Code --body " + AdoptionOptions().body + f" --head {BRANCH}"
    ]
    prompts = [c for c in log_lines(adopt_env.log, "claude") if c.startswith("-p ")]
    # edits allowed; the repository's own settings (hooks) and MCP servers left out
    isolated = "--permission-mode acceptEdits --setting-sources user --strict-mcp-config"
    assert prompts[0] == f"-p /init {isolated}"
    assert len(prompts) == 2, "one request for the guidance sections, followed at once"
    assert prompts[1].endswith(isolated)
    assert not (adopt_env.workspace / kind).exists(), "a successful checkout is removed"
    assert not (adopt_env.home / ".claude.json").exists(), "the run's trust is taken back"


def test_maven_guard_is_verified_with_the_build_tool(adopt_env: AdoptEnv) -> None:
    report = adopt_one(adopt_env, adopt_env.remote("maven"))
    assert report.succeeded
    assert "-q -N validate" in log_lines(adopt_env.log, "mvn")


def test_dry_run_pushes_nothing_and_opens_no_pull_request(adopt_env: AdoptEnv) -> None:
    remote = adopt_env.remote("maven")
    report = adopt_one(adopt_env, remote, dry_run=True)
    assert report.succeeded
    assert report.completed_steps == ADOPTION_STEPS[:-2]
    assert git(remote, "branch", "--list").split() == ["*", "main"]
    assert log_lines(adopt_env.log, "gh") == [], "a dry run needs no gh at all"
    checkout = adopt_env.workspace / "maven"
    assert (checkout / "CLAUDE.md").is_file(), "a dry run keeps its checkout for review"
    assert git(checkout, "rev-parse", "--abbrev-ref", "HEAD").strip() == BRANCH


def test_adopting_twice_commits_nothing_new(adopt_env: AdoptEnv) -> None:
    remote = adopt_env.remote("gradle")
    first = adopt_one(adopt_env, remote, keep_workspace=True)
    assert first.succeeded
    tip = git(remote, "rev-parse", BRANCH)
    second = adopt_one(adopt_env, remote, keep_workspace=True)
    assert second.succeeded, second.failure
    assert git(remote, "rev-parse", BRANCH) == tip
    creates = [c for c in log_lines(adopt_env.log, "gh") if c.startswith("pr create")]
    assert len(creates) == 1, "the open pull request is found, not opened again"
    assert second.pull_request_url == first.pull_request_url
    asked = [c for c in log_lines(adopt_env.log, "claude") if c.startswith("-p")]
    assert len(asked) == 2, "claude -p ran in the first adoption only (/init, guidance)"


def test_second_run_resumes_from_a_fresh_workspace_on_the_published_branch(
    adopt_env: AdoptEnv, tmp_path: Path
) -> None:
    remote = adopt_env.remote("plain")
    assert adopt_one(adopt_env, remote).succeeded
    tip = git(remote, "rev-parse", BRANCH)
    [again] = adopt_repositories([str(remote)], tmp_path / "ws2", fast())
    assert again.succeeded, again.failure
    assert git(remote, "rev-parse", BRANCH) == tip


def test_existing_claude_md_and_agents_md_are_never_regenerated(adopt_env: AdoptEnv) -> None:
    claude_md = (
        "# CLAUDE.md\n\nSee [AGENTS.md](AGENTS.md) for the companion agent guide.\n\nOurs.\n"
    )
    agents = "# Our own agent guide\n"
    remote = make_bare_repository(
        adopt_env.remotes, "mine", {"CLAUDE.md": claude_md, "AGENTS.md": agents}
    )
    report = adopt_one(adopt_env, remote, dry_run=True, rules="minimal")
    assert report.succeeded, report.failure
    checkout = adopt_env.workspace / "mine"
    assert (checkout / "AGENTS.md").read_text() == agents
    # CLAUDE.md keeps every line and gains the import that makes AGENTS.md the source of truth.
    assert (checkout / "CLAUDE.md").read_text() == claude_md.replace(
        "# CLAUDE.md\n", "# CLAUDE.md\n\n@AGENTS.md\n", 1
    )
    assert log_lines(adopt_env.log, "claude") == ["--version"], "claude -p must not run"


def test_an_existing_agents_md_is_kept_and_imported_by_a_new_claude_md(
    adopt_env: AdoptEnv,
) -> None:
    agents = "# AGENTS.md\n" + "".join(
        f"\n{section}\n\nWhat the team wrote about {section[3:].lower()}: `make check`.\n"
        for section in AGENTS_MD_SECTIONS
    )
    remote = make_bare_repository(adopt_env.remotes, "guided", {"AGENTS.md": agents})
    report = adopt_one(adopt_env, remote)
    assert report.succeeded, report.failure
    assert git(remote, "show", f"{BRANCH}:AGENTS.md") == agents
    assert git(remote, "show", f"{BRANCH}:CLAUDE.md") == claude_md_importing_agents_md()
    assert log_lines(adopt_env.log, "claude") == ["--version"], "the guidance exists already"


def test_verification_of_an_adopted_repository(adopt_env: AdoptEnv) -> None:
    remote = adopt_env.remote("maven")
    assert adopt_one(adopt_env, remote).succeeded
    git(remote, "update-ref", "refs/heads/main", f"refs/heads/{BRANCH}")  # "merge" the PR
    builds = len(log_lines(adopt_env.log, "mvn"))
    report = adopt_one(adopt_env, remote, verify_only=True)
    assert report.failure is None
    assert report.completed_steps == VERIFY_STEPS
    assert (adopt_env.workspace / "maven").is_dir(), "verification keeps its checkout"
    assert len(log_lines(adopt_env.log, "mvn")) == builds, "verification runs no build tool"


def test_verification_reusing_its_checkout_checks_the_newest_default_branch(
    adopt_env: AdoptEnv,
) -> None:
    remote = adopt_env.remote("plain")
    assert adopt_one(adopt_env, remote).succeeded
    git(remote, "update-ref", "refs/heads/main", f"refs/heads/{BRANCH}")  # "merge" the PR
    assert adopt_one(adopt_env, remote, verify_only=True).failure is None
    assert (adopt_env.workspace / "plain").is_dir(), "verification keeps its checkout"
    # a new commit on the default branch undoes the adoption
    work = adopt_env.root / "work"
    git(adopt_env.root, "clone", "-q", str(remote), str(work))
    git(work, "rm", "-q", "CLAUDE.md")
    git(work, "commit", "-q", "-m", "drop CLAUDE.md")
    git(work, "push", "-q", "origin", "HEAD:refs/heads/main")

    again = adopt_one(adopt_env, remote, verify_only=True)
    assert again.failure is not None, "the kept checkout's stale files were verified"
    assert "no CLAUDE.md at its root" in again.failure
    # uncommitted files in the kept checkout are not what the remote holds: refused
    (adopt_env.workspace / "plain" / "CLAUDE.md").write_text("# local\n", encoding="utf-8")
    local = adopt_one(adopt_env, remote, verify_only=True)
    assert local.failure is not None
    assert "has uncommitted changes (CLAUDE.md)" in local.failure


def test_verification_of_a_never_adopted_repository(adopt_env: AdoptEnv) -> None:
    report = adopt_one(adopt_env, adopt_env.remote("plain"), verify_only=True)
    assert report.completed_steps == ["toolchain", "clone"]
    assert report.failure is not None
    assert report.failure.startswith("check-adopted: ")
    assert "no CLAUDE.md at its root" in report.failure
    assert (
        "its github-actions guard: there is no .github/workflows/claude-md-guard.yml written by "
        "an adoption; its github-actions guard: the checker script .github/agent-config-check.py "
        "is missing. Adopt it again to add what is missing"
    ) in report.failure
    assert log_lines(adopt_env.log, "claude") == [], "verification needs only git"


def test_verifying_an_adoption_older_than_the_maven_checker_names_what_it_lacks(
    adopt_env: AdoptEnv,
) -> None:
    # Adoptions made before the Maven guard ran the committed checker wired in the enforcer's
    # CLAUDE.md rule alone: no exec-plugin execution, no checker script.
    remote = adopt_env.remote("maven")
    assert adopt_one(adopt_env, remote).succeeded
    older = adopt_env.root / "older"
    git(adopt_env.root, "clone", "-q", "--branch", BRANCH, str(remote), str(older))
    pom = (older / "pom.xml").read_text(encoding="utf-8")
    exec_plugin = re.compile(
        r"\n\s*<plugin>(?:(?!</plugin>).)*?exec-maven-plugin.*?</plugin>", re.S
    )
    (older / "pom.xml").write_text(exec_plugin.sub("", pom, count=1), encoding="utf-8")
    assert "exec-maven-plugin" not in (older / "pom.xml").read_text(encoding="utf-8")
    git(older, "rm", "-q", ".github/agent-config-check.py")
    git(older, "commit", "-q", "-am", "the guard as an older adoption left it")
    git(older, "push", "-q", "origin", "HEAD:refs/heads/main")

    report = adopt_one(adopt_env, remote, verify_only=True)
    assert report.failure is not None
    assert report.failure.startswith("check-adopted: ")
    assert report.failure.endswith(
        "is not adopted: its maven guard: pom.xml does not run the checker "
        ".github/agent-config-check.py (the exec-maven-plugin execution 'agent-config-check' in "
        "the validate phase, which adoptions before the Maven guard ran the checker did not "
        "add); its maven guard: the checker script .github/agent-config-check.py is missing. "
        "Adopt it again to add what is missing (an adoption keeps what is there and adds only "
        "the missing parts)."
    )

    # the advice works: adopting again adds exactly what was missing
    shutil.rmtree(adopt_env.workspace / "maven")
    again = adopt_one(adopt_env, remote)
    assert again.succeeded, again.failure
    git(remote, "update-ref", "refs/heads/main", f"refs/heads/{BRANCH}")
    assert adopt_one(adopt_env, remote, verify_only=True).failure is None


def test_batch_keeps_going_after_a_failure_and_reports_in_input_order(
    adopt_env: AdoptEnv,
) -> None:
    urls = [
        str(adopt_env.remote("maven", "first")),
        str(adopt_env.remotes / "missing.git"),
        str(adopt_env.remote("python", "third")),
    ]
    reports = adopt_repositories(urls, adopt_env.workspace, fast(parallel=3, dry_run=True))
    assert [r.repository_url for r in reports] == urls
    assert [r.succeeded for r in reports] == [True, False, True]
    assert reports[1].failure is not None
    assert reports[1].failure.startswith("clone: clone failed (exit 128) running: git clone --")
    assert reports[1].completed_steps == ["toolchain"]
    assert reports[1].checkout == str(adopt_env.workspace / "missing")
    assert (adopt_env.workspace / "missing").exists() is False
    document = batch_json(reports)
    assert document["succeeded"] is False
    assert [r["succeeded"] for r in document["repositories"]] == [True, False, True]


def test_two_repositories_with_one_name_get_their_own_checkouts(adopt_env: AdoptEnv) -> None:
    (adopt_env.remotes / "alice").mkdir()
    (adopt_env.remotes / "bob").mkdir()
    first = adopt_env.remote("plain", "alice/tools")
    second = adopt_env.remote("python", "bob/tools")
    urls = [str(first), str(second)]
    reports = adopt_repositories(urls, adopt_env.workspace, fast(parallel=2, dry_run=True))
    assert [r.failure for r in reports] == [None, None]
    assert [r.build for r in reports] == ["github-actions", "python"]
    assert reports[0].checkout == str(adopt_env.workspace / "tools")
    assert reports[1].checkout is not None
    assert Path(reports[1].checkout).name.startswith("tools-")
    # a re-run resumes each checkout in its own directory
    again = adopt_repositories(urls, adopt_env.workspace, fast(parallel=2, dry_run=True))
    assert [r.checkout for r in again] == [r.checkout for r in reports]
    assert all(r.succeeded for r in again), [r.failure for r in again]


def test_one_repository_named_twice_is_refused_for_the_second(adopt_env: AdoptEnv) -> None:
    remote = adopt_env.remote("plain", "tools")
    reports = adopt_repositories(
        [str(remote), remote.as_uri()], adopt_env.workspace, fast(parallel=2, dry_run=True)
    )
    assert reports[0].succeeded, reports[0].failure
    assert reports[1].completed_steps == []
    assert reports[1].failure is not None
    assert "both name the same repository" in reports[1].failure


def test_duplicate_urls_are_adopted_once(adopt_env: AdoptEnv) -> None:
    url = str(adopt_env.remote("plain"))
    reports = adopt_repositories([url, f" {url} ", url], adopt_env.workspace, fast(dry_run=True))
    assert len(reports) == 1


def test_transient_clone_failures_are_retried(adopt_env: AdoptEnv) -> None:
    adopt_env.use_flaky_git()
    adopt_env.monkeypatch.setenv("FAKE_GIT_FAILURES", "2")
    report = adopt_one(adopt_env, adopt_env.remote("plain"), dry_run=True, retries=2)
    assert report.succeeded, report.failure
    assert (adopt_env.state / "git-fail-count").read_text().strip() == "3"


def test_permanent_clone_failure_is_not_retried(adopt_env: AdoptEnv) -> None:
    adopt_env.use_flaky_git()
    adopt_env.monkeypatch.setenv("FAKE_GIT_FAILURES", "5")
    adopt_env.monkeypatch.setenv("FAKE_GIT_MESSAGE", "remote: Repository not found.")
    report = adopt_one(adopt_env, adopt_env.remote("plain"), dry_run=True, retries=3)
    assert report.failure is not None
    assert "Repository not found" in report.failure
    assert (adopt_env.state / "git-fail-count").read_text().strip() == "1"


def test_transient_gh_failure_is_retried(adopt_env: AdoptEnv) -> None:
    adopt_env.monkeypatch.setenv("FAKE_GH_TRANSIENT", "1")
    report = adopt_one(adopt_env, adopt_env.remote("plain"))
    assert report.succeeded, report.failure
    creates = [c for c in log_lines(adopt_env.log, "gh") if c.startswith("pr create")]
    assert len(creates) == 2


def test_rejected_pull_request_fails_the_last_step(adopt_env: AdoptEnv) -> None:
    adopt_env.monkeypatch.setenv(
        "FAKE_GH_CREATE_ERROR", "GraphQL: Resource not accessible by integration"
    )
    report = adopt_one(adopt_env, adopt_env.remote("plain"))
    assert report.completed_steps == ADOPTION_STEPS[:-1]
    assert report.failure is not None
    assert report.failure.startswith("pull-request: pull-request failed (exit 1)")
    assert (adopt_env.workspace / "plain").is_dir(), "a failed checkout is kept"


def test_tolerated_gh_wording_reads_the_url_back(adopt_env: AdoptEnv) -> None:
    adopt_env.monkeypatch.setenv(
        "FAKE_GH_CREATE_ERROR", 'a pull request for branch "x" into branch "main" already exists'
    )
    (adopt_env.state / "pr-url").write_text("https://github.com/owner/repo/pull/7\n")
    # list finds the PR first; the tolerated wording only matters when it does not
    report = adopt_one(adopt_env, adopt_env.remote("plain"))
    assert report.pull_request_url == "https://github.com/owner/repo/pull/7"


def test_a_hanging_command_is_killed_at_its_timeout(adopt_env: AdoptEnv) -> None:
    adopt_env.claude_env(FAKE_CLAUDE_MODE="hang")
    report = adopt_one(adopt_env, adopt_env.remote("plain"), dry_run=True, timeout_seconds=1.0)
    assert report.failure is not None
    assert report.failure.startswith("claude-init: Timed out after 1s running: claude -p /init")
    assert "thinking..." in report.failure


def test_claude_that_writes_nothing_is_retried_then_reported(adopt_env: AdoptEnv) -> None:
    adopt_env.claude_env(FAKE_CLAUDE_MODE="late")
    assert adopt_one(adopt_env, adopt_env.remote("plain", "late"), dry_run=True).succeeded
    adopt_env.claude_env(FAKE_CLAUDE_MODE="nothing")
    report = adopt_one(adopt_env, adopt_env.remote("plain", "never"), dry_run=True, retries=1)
    assert report.failure is not None
    assert report.failure.startswith("claude-init: claude-init completed but CLAUDE.md was not")
    inits = [c for c in log_lines(adopt_env.log, "claude") if c.startswith("-p /init")]
    assert len(inits) == 2 + 2


def test_claude_failure_is_not_retried_and_masked(adopt_env: AdoptEnv) -> None:
    adopt_env.claude_env(FAKE_CLAUDE_MODE="fail")
    report = adopt_one(adopt_env, adopt_env.remote("plain"), dry_run=True, retries=3)
    assert report.failure is not None
    assert "s3cret-claude" not in report.failure
    assert "https://***@api.example.com" in report.failure
    assert len([c for c in log_lines(adopt_env.log, "claude") if c.startswith("-p")]) == 1


def test_missing_tools_are_all_named_before_cloning(adopt_env: AdoptEnv, tmp_path: Path) -> None:
    only_git = tmp_path / "only-git"
    only_git.mkdir()
    (only_git / "git").symlink_to(Path(git.__globals__["REAL_GIT"]))
    adopt_env.monkeypatch.setenv("PATH", str(only_git))
    report = adopt_one(adopt_env, adopt_env.remote("plain"))
    assert report.failure == (
        "toolchain: toolchain failed: required tools were not found on the PATH: claude, gh"
    )
    assert not (adopt_env.workspace / "plain").exists()


def test_gh_without_access_aborts_before_cloning(adopt_env: AdoptEnv) -> None:
    adopt_env.monkeypatch.setenv("FAKE_GH_API_EXIT", "1")
    report = adopt_one(adopt_env, adopt_env.remote("plain"))
    assert report.failure is not None
    assert "gh is installed but cannot reach GitHub" in report.failure
    assert log_lines(adopt_env.log, "gh")[-1] == "api -- user"


def test_the_default_branch_is_never_written(adopt_env: AdoptEnv) -> None:
    remote = adopt_env.remote("plain")
    report = adopt_one(adopt_env, remote, branch="main")
    assert report.failure is not None
    assert report.failure.startswith("branch: branch main is the repository's default branch")
    assert commit_subjects(remote, "main") == ["seed"]


def test_reused_checkout_with_foreign_changes_is_refused(adopt_env: AdoptEnv) -> None:
    remote = adopt_env.remote("plain")
    assert adopt_one(adopt_env, remote, dry_run=True).succeeded
    checkout = adopt_env.workspace / "plain"
    (checkout / "CLAUDE.md").write_text("# CLAUDE.md\n\nedited by the adoption's own path\n")
    assert adopt_one(adopt_env, remote, dry_run=True).succeeded
    (checkout / "notes.txt").write_text("someone's work in progress\n")
    report = adopt_one(adopt_env, remote, dry_run=True)
    assert report.failure is not None
    assert "has uncommitted changes that are not the adoption's: notes.txt" in report.failure
    assert (checkout / "notes.txt").read_text() == "someone's work in progress\n"


def test_reused_checkout_of_another_repository_is_refused(adopt_env: AdoptEnv) -> None:
    (adopt_env.remotes / "other").mkdir()
    a = adopt_env.remote("plain", "tools")
    b = adopt_env.remote("plain", "other/tools")
    assert adopt_one(adopt_env, a, dry_run=True).succeeded
    report = adopt_one(adopt_env, b, dry_run=True)
    assert report.failure is not None
    assert "already holds a checkout of" in report.failure


def test_a_reused_checkout_is_never_deleted(adopt_env: AdoptEnv) -> None:
    remote = adopt_env.remote("plain")
    git(adopt_env.workspace, "clone", "-q", str(remote), "plain")
    report = adopt_one(adopt_env, remote)
    assert report.succeeded, report.failure
    assert (adopt_env.workspace / "plain" / ".git").exists()


def test_unreadable_claude_json_is_refused_not_clobbered(adopt_env: AdoptEnv) -> None:
    config = adopt_env.home / ".claude.json"
    config.write_text("{not json")
    report = adopt_one(adopt_env, adopt_env.remote("plain"), dry_run=True)
    assert report.failure is not None
    assert report.failure.startswith("trust: trust failed:")
    assert config.read_text() == "{not json"


def test_trust_goes_to_the_claude_json_of_claude_config_dir_when_that_is_set(
    adopt_env: AdoptEnv,
) -> None:
    """claude reads ``$CLAUDE_CONFIG_DIR/.claude.json`` when the variable is set (it reaches
    claude through the allow-list): the trust must be granted there, not in ``~``."""
    config_dir = adopt_env.root / "claude-config"
    config_dir.mkdir()
    saw = adopt_env.root / "claude-saw.json"
    settings = json.loads((adopt_env.home / ".claude" / "settings.json").read_text())
    settings["env"]["FAKE_CLAUDE_SNAPSHOT"] = str(saw)
    (config_dir / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    config = config_dir / ".claude.json"
    original = b'{"theme": "dark"}'
    config.write_bytes(original)
    adopt_env.monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config_dir))
    report = adopt_one(adopt_env, adopt_env.remote("plain"), dry_run=True)
    assert report.succeeded, report.failure
    trusted = json.loads(saw.read_text(encoding="utf-8"))["projects"]
    assert [p for p, e in trusted.items() if e["hasTrustDialogAccepted"]] == [
        str(adopt_env.workspace / "plain")
    ], "claude ran with its checkout trusted in the file it reads"
    assert config.read_bytes() == original, "the trust is taken back"
    assert not (adopt_env.home / ".claude.json").exists(), "the home directory's file untouched"


def test_trust_keeps_unrelated_fields(adopt_env: AdoptEnv) -> None:
    config = adopt_env.home / ".claude.json"
    config.write_text(json.dumps({"theme": "dark", "projects": {"/x": {"a": 1}}}))
    assert adopt_one(adopt_env, adopt_env.remote("plain"), dry_run=True).succeeded
    data = json.loads(config.read_text())
    assert data["theme"] == "dark"
    assert data["projects"]["/x"] == {"a": 1}
    assert not list(adopt_env.home.glob(".claude-adopt-*.json")), "a temp file was left behind"


def test_assets_are_committed_without_overwriting(adopt_env: AdoptEnv) -> None:
    remote = adopt_env.remote("plain")
    report = adopt_one(adopt_env, remote, assets=True)
    assert report.succeeded, report.failure
    assert report.completed_steps[11:13] == ["assets", "commit:assets"]
    files = branch_files(remote, BRANCH)
    assert {".claude/settings.json", ".mcp.json", ".github/workflows/claude.yml"} <= set(files)
    assert commit_subjects(remote, BRANCH)[0] == "Add Claude Code configuration assets"


def test_a_nested_claude_md_is_set_aside_while_claude_runs_and_put_back(
    adopt_env: AdoptEnv,
) -> None:
    nested = "# Team notes\r\n\r\nKeep these bytes.\r\n"
    remote = make_bare_repository(
        adopt_env.remotes, "nested", {"README.md": "# r\n", ".claude/CLAUDE.md": nested}
    )
    report = adopt_one(adopt_env, remote, dry_run=True)
    assert report.succeeded, report.failure
    checkout = adopt_env.workspace / "nested"
    assert (checkout / ".claude" / "CLAUDE.md").read_bytes() == nested.encode(), "not edited"
    assert (checkout / "CLAUDE.md").read_text().startswith("# CLAUDE.md\n"), "claude wrote it"


def test_a_content_check_starts_without_the_build_guards() -> None:
    # every adoption runs its content checks (conform, guidance, verify) in fresh interpreters
    # that import adopt_server.checks; the guards of every build system (with pydantic and the
    # XML reader) tripled each one's start-up
    done = subprocess.run(
        [sys.executable, "-c", "import sys, adopt_server.checks; print(*sorted(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    )
    heavy = ("adopt_server.guards", "pydantic", "xml.")
    assert [name for name in done.stdout.split() if name.startswith(heavy)] == []
