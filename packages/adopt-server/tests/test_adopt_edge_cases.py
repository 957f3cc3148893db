"""The reference's remaining edge cases: status parsing, pull request list parsing, linked
worktrees, build wrappers, concurrent trust updates, CRLF, cancellation."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from adopt_server.pipeline import AdoptionOptions, adopt_repositories
from adopt_server.pipeline.checkout import changed_paths
from adopt_server.pipeline.publish import find_pull_request_url
from adopt_server.pipeline.trust import ProjectTrust, trust_project
from adopt_server.tools import build_tools
from adopt_testkit import POM, git, log_lines, make_bare_repository
from agent_config_check.document_format import unwritten_sections
from agent_config_check.rule_sets import AGENTS_MD_SECTIONS
from conftest import AdoptEnv
from mcp_common import AllowedPaths, ToolCancelledError, ToolContext, invoke

FAST = AdoptionOptions(backoff_unit=0.001, timeout_seconds=60.0, dry_run=True)


def test_status_lines_name_both_sides_of_renames_and_skip_noise() -> None:
    porcelain = (
        "warning: in the working copy of 'x', LF will be replaced by CRLF\n"
        "    continuation line\n"
        " M CLAUDE.md\n"
        "?? .claude/settings.json\n"
        "R  docs/CLAUDE.md -> CLAUDE.md\n"
        '?? "with space.md"\n'
    )
    assert changed_paths(porcelain) == [
        "CLAUDE.md",
        ".claude/settings.json",
        "docs/CLAUDE.md",
        "CLAUDE.md",
        "with space.md",
    ]


@pytest.mark.parametrize(
    ("output", "url"),
    [
        ('[{"url": "https://x/pull/1"}]', "https://x/pull/1"),
        ('Warning: [beta] feature\n[{"url": "https://x/pull/2"}]', "https://x/pull/2"),
        ("[notice]\n[]", None),
        ('[{"url": "https://x/pu', None),
        ("not json at all", None),
        ('[{"number": 3}]', None),
    ],
)
def test_pull_request_list_parsing(output: str, url: str | None) -> None:
    assert find_pull_request_url(output) == url


def test_a_linked_worktree_counts_as_cloned(adopt_env: AdoptEnv) -> None:
    remote = adopt_env.remote("plain")
    main_clone = adopt_env.root / "main-clone"
    git(adopt_env.root, "clone", "-q", str(remote), str(main_clone))
    git(main_clone, "worktree", "add", "-q", str(adopt_env.workspace / "plain"))
    assert (adopt_env.workspace / "plain" / ".git").is_file()
    [report] = adopt_repositories([str(remote)], adopt_env.workspace, FAST)
    # a fresh clone into that non-empty directory would have failed: it was resumed
    assert report.succeeded, report.failure
    assert (adopt_env.workspace / "plain" / ".git").is_file()


def test_project_wrapper_without_exec_bit_runs_through_sh(adopt_env: AdoptEnv) -> None:
    # the build runs with an allow-listed environment: the wrapper finds the log from HOME
    wrapper = '#!/bin/sh\nprintf "mvnw\\t%s\\t%s\\n" "$PWD" "$*" >> "$HOME/../fake.log"\nexit 0\n'
    remote = make_bare_repository(adopt_env.remotes, "wrapped", {"pom.xml": POM, "mvnw": wrapper})
    [report] = adopt_repositories([str(remote)], adopt_env.workspace, FAST)
    assert report.succeeded, report.failure
    assert log_lines(adopt_env.log, "mvnw") == ["--version", "-q -N validate"]
    assert log_lines(adopt_env.log, "mvn") == [], "the project's wrapper wins over mvn"


def test_concurrent_trust_updates_are_all_recorded(tmp_path: Path) -> None:
    config = tmp_path / ".claude.json"
    config.write_text(json.dumps({"keep": True}))
    checkouts = [tmp_path / f"repo{i}" for i in range(12)]
    threads = [threading.Thread(target=trust_project, args=(c, config)) for c in checkouts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    data = json.loads(config.read_text())
    assert data["keep"] is True
    assert sorted(data["projects"]) == sorted(str(c) for c in checkouts)
    assert trust_project(checkouts[0], config) is False, "already trusted: nothing written"


GUIDE = "".join(
    f"\n{section}\n\nWhat the team wrote about {section[3:].lower()}.\n"
    for section in AGENTS_MD_SECTIONS
)


def test_crlf_guidance_moves_to_agents_md_keeping_its_line_endings(adopt_env: AdoptEnv) -> None:
    text = ("# Notes\n\nSome guidance.\n" + GUIDE).replace("\n", "\r\n")
    remote = make_bare_repository(adopt_env.remotes, "crlf", {"CLAUDE.md": text})
    [report] = adopt_repositories([str(remote)], adopt_env.workspace, FAST)
    assert report.succeeded, report.failure
    checkout = adopt_env.workspace / "crlf"
    agents = (checkout / "AGENTS.md").read_bytes()
    assert agents.startswith(b"# AGENTS.md\r\n\r\nSome guidance.\r\n")
    assert b"\n" not in agents.replace(b"\r\n", b"")
    claude_md = (checkout / "CLAUDE.md").read_bytes()
    assert claude_md.startswith(b"# CLAUDE.md\r\n")
    assert b"\r\n@AGENTS.md\r\n" in claude_md
    assert b"\n" not in claude_md.replace(b"\r\n", b"")


def test_thin_guidance_keeps_its_text_and_claude_writes_the_missing_sections(
    adopt_env: AdoptEnv,
) -> None:
    remote = make_bare_repository(
        adopt_env.remotes, "thin", {"CLAUDE.md": "# Notes\n\nSome guidance.\n"}
    )
    [report] = adopt_repositories([str(remote)], adopt_env.workspace, FAST)
    assert report.succeeded, report.failure
    agents = (adopt_env.workspace / "thin" / "AGENTS.md").read_text()
    assert "Some guidance." in agents, "the project's own guidance moved into AGENTS.md"
    assert unwritten_sections(agents, AGENTS_MD_SECTIONS) == []
    asked = [c for c in log_lines(adopt_env.log, "claude") if c.startswith("-p ")]
    assert len(asked) == 1, "no /init (CLAUDE.md existed), one request for the sections"


def test_cancellation_stops_before_the_next_step(adopt_env: AdoptEnv) -> None:
    remote = adopt_env.remote("plain")
    [tool] = [
        t for t in build_tools(AllowedPaths([adopt_env.root])) if t.definition.name == "adopt_repo"
    ]
    context = ToolContext()
    context.cancel()
    with pytest.raises(ToolCancelledError):
        invoke(tool, {"repositoryUrl": str(remote)}, context)
    assert not adopt_env.log.exists(), "no step ran after the cancellation"


def test_a_checker_script_the_project_wrote_itself_is_kept_and_fails_verify(
    adopt_env: AdoptEnv,
) -> None:
    own = "print('our own checker')\n"
    remote = make_bare_repository(
        adopt_env.remotes,
        "own-script",
        {"CLAUDE.md": "# Notes\n\nSome guidance.\n" + GUIDE, ".github/agent-config-check.py": own},
    )
    [report] = adopt_repositories([str(remote)], adopt_env.workspace, FAST)
    assert report.failure is not None
    assert report.failure.startswith("verify: ")
    assert "was not written by an adoption" in report.failure
    assert (adopt_env.workspace / "own-script" / ".github/agent-config-check.py").read_text() == own


def test_trust_is_taken_back_exactly(tmp_path: Path) -> None:
    config = tmp_path / ".claude.json"
    original = '{"projects": {"/kept": {"hasTrustDialogAccepted": true}, "/other": {"a": 1}}}'
    config.write_text(original)
    fresh, known, trusted = (ProjectTrust(tmp_path / p, config) for p in ("new", "x", "kept"))
    known.project = "/other"
    trusted.project = "/kept"
    assert fresh.grant()
    assert known.grant()
    assert not trusted.grant(), "already trusted: nothing added, nothing to take back"
    data = json.loads(config.read_text())
    assert data["projects"][fresh.project] == {"hasTrustDialogAccepted": True}
    assert data["projects"]["/other"] == {"a": 1, "hasTrustDialogAccepted": True}
    # claude writes to the file meanwhile: the revocation removes only what the grants added
    data["projects"][fresh.project]["history"] = ["claude ran here"]
    data["theme"] = "dark"
    config.write_text(json.dumps(data))
    for grant in (fresh, known, trusted):
        grant.revoke()
    assert json.loads(config.read_text()) == {
        "projects": {"/kept": {"hasTrustDialogAccepted": True}, "/other": {"a": 1}},
        "theme": "dark",
    }
    fresh.revoke()  # twice is harmless
    assert not list(tmp_path.glob(".claude-adopt-*")), "no temporary or lock file is left"


def test_an_untouched_configuration_gets_its_own_bytes_back(tmp_path: Path) -> None:
    config = tmp_path / ".claude.json"
    grant = ProjectTrust(tmp_path / "repo", config)
    assert grant.grant()
    grant.revoke()
    assert not config.exists(), "a file the grant created is removed again"
    config.write_bytes(b'{"theme":"dark"}')
    assert grant.grant()
    assert config.read_bytes() != b'{"theme":"dark"}'
    grant.revoke()
    assert config.read_bytes() == b'{"theme":"dark"}'
    assert sorted(p.name for p in tmp_path.iterdir()) == [".claude.json"]
