"""adopt_repo and verify_adoption: called directly, through the contract checks, the golden
tools/list, an in-process SDK client (progress, structured report) and the fuzzer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from adopt_server.server import APP
from adopt_server.tools import build_tools
from adopt_testkit import commit_subjects, git, log_lines
from conftest import AdoptEnv
from mcp_common import AllowedPaths, ErrorCode, ToolContext, ToolError, ToolResult, invoke
from mcp_common.testing import (
    assert_golden_tools_list,
    fetch_tools_list,
    fuzz_tools,
    in_process_client,
    result_text,
    run_contract_checks,
)

GOLDEN_DIR = Path(__file__).resolve().parents[3] / "tests" / "golden"
BRANCH = "claude/adopt-claude-code"


def call(env: AdoptEnv, name: str, arguments: dict[str, Any]) -> ToolResult:
    [tool] = [t for t in build_tools(AllowedPaths([env.root])) if t.definition.name == name]
    return invoke(tool, arguments, ToolContext())


def test_adopt_repo_returns_the_report_and_a_summary(adopt_env: AdoptEnv) -> None:
    remote = adopt_env.remote("maven")
    result = call(
        adopt_env,
        "adopt_repo",
        {"repositoryUrl": str(remote), "reviewers": ["octocat", " "], "labels": "a, b"},
    )
    assert not result.is_error, result.text
    [create] = [c for c in log_lines(adopt_env.log, "gh") if c.startswith("pr create")]
    assert create.endswith(f"--head {BRANCH} --reviewer octocat --label a --label b")
    assert result.structured is not None
    [entry] = result.structured["repositories"]
    assert entry["succeeded"] is True
    assert entry["pullRequestUrl"] == "https://github.com/owner/repo/pull/1"
    assert entry["checkout"].startswith("claude-adopt-"), "checkouts shown relative to the root"
    assert result.text.startswith("# Adoption report\n\n1 of 1 repositories adopted")
    assert "| Repository | Result |" in result.text
    assert str(adopt_env.root) not in result.text + json.dumps(result.structured)
    assert commit_subjects(remote, BRANCH)[0] == "Adopt Claude Code: add the CLAUDE.md guard"


def test_deprecated_snake_case_names_still_work(adopt_env: AdoptEnv) -> None:
    remote = adopt_env.remote("plain")
    result = call(
        adopt_env,
        "adopt_repo",
        {"repository_url": str(remote), "dry_run": True, "workspace": "ws/a"},
    )
    assert not result.is_error, result.text
    assert (adopt_env.root / "ws" / "a" / "plain" / "CLAUDE.md").is_file()
    assert git(remote, "branch", "--list").split() == ["*", "main"]


def test_a_partial_batch_is_an_error_that_carries_every_report(adopt_env: AdoptEnv) -> None:
    good = adopt_env.remote("plain")
    (adopt_env.remotes / "empty").mkdir()
    result = call(
        adopt_env,
        "adopt_repo",
        {"repositoryUrls": [str(good), str(adopt_env.remotes / "empty")], "dryRun": "true"},
    )
    assert result.is_error
    assert result.structured is not None
    assert [r["succeeded"] for r in result.structured["repositories"]] == [True, False]
    failure = result.structured["repositories"][1]["failure"]
    assert failure.startswith("clone: clone failed (exit 128)")
    assert str(adopt_env.root) not in failure


def test_verify_adoption_of_a_never_adopted_repository(adopt_env: AdoptEnv) -> None:
    result = call(adopt_env, "verify_adoption", {"repositoryUrl": str(adopt_env.remote("plain"))})
    assert result.is_error
    assert result.structured is not None
    [entry] = result.structured["repositories"]
    assert entry["completedSteps"] == ["toolchain", "clone"]
    assert entry["failure"].startswith("check-adopted: ")
    assert result.text.startswith("# Verification report\n\n0 of 1 repositories verified.")


@pytest.mark.parametrize(
    ("arguments", "code", "message"),
    [
        ({}, ErrorCode.INVALID_ARGUMENT, "repositoryUrl or repositoryUrls"),
        ({"repositoryUrl": "--upload-pack=x"}, ErrorCode.INVALID_ARGUMENT, "must not start"),
        ({"repositoryUrl": "http://h.example.com/o/r"}, ErrorCode.INVALID_ARGUMENT, "scheme"),
        ({"repositoryUrl": "/etc"}, ErrorCode.ACCESS_DENIED, "outside the allowed"),
        ({"repositoryUrl": "file:///etc"}, ErrorCode.ACCESS_DENIED, "outside the allowed"),
        ({"repositoryUrl": "x/r", "workspace": "/tmp/elsewhere"}, ErrorCode.ACCESS_DENIED, ""),
        ({"repositoryUrl": "x/r", "workspace": "../up"}, ErrorCode.ACCESS_DENIED, ""),
        ({"repositoryUrl": "x/r", "parallel": 50}, ErrorCode.INVALID_ARGUMENT, "parallel"),
        ({"repositoryUrl": "x/r", "timeoutMinutes": 0}, ErrorCode.INVALID_ARGUMENT, "timeout"),
        ({"repositoryUrl": "x/r", "retries": 11}, ErrorCode.INVALID_ARGUMENT, "retries"),
        ({"repositoryUrl": "x/r", "rules": "strict"}, ErrorCode.INVALID_ARGUMENT, "rules"),
        (
            {"repositoryUrl": "x/r", "claudeMdSections": "Build"},
            ErrorCode.INVALID_ARGUMENT,
            "not a Markdown heading",
        ),
        ({"repositoryUrl": "x/r", "branch": "-f"}, ErrorCode.INVALID_ARGUMENT, "branch"),
        (
            {"repositoryUrls": ["https://github.com/a/tools", "ssh://git@github.com/a/tools.git"]},
            ErrorCode.INVALID_ARGUMENT,
            "both name the same repository",
        ),
    ],
)
def test_bad_input_is_refused_before_anything_is_written(
    adopt_env: AdoptEnv, arguments: dict[str, Any], code: ErrorCode, message: str
) -> None:
    before = sorted(p.name for p in adopt_env.root.iterdir())
    with pytest.raises(ToolError) as caught:
        call(adopt_env, "adopt_repo", arguments)
    assert caught.value.code == code
    assert message in str(caught.value)
    assert sorted(p.name for p in adopt_env.root.iterdir()) == before
    assert not adopt_env.log.exists(), "nothing ran"


def _samples(env: AdoptEnv) -> dict[str, list[dict[str, Any]]]:
    adopt_env = env
    full = {
        "repositoryUrl": str(adopt_env.remote("plain", "one")),
        "repositoryUrls": [str(adopt_env.remote("python", "two"))],
        "workspace": "sample-ws",
        "branch": "claude/sample",
        "title": "Sample",
        "body": "Sample body",
        "reviewers": ["octocat"],
        "labels": "claude",
        "assignees": ["octocat"],
        "draft": True,
        "assets": True,
        "ruleVersion": "1.2.0",
        "rules": "minimal",
        "claudeMdSections": ["## Build, test, and run"],
        "parallel": 2,
        "keepWorkspace": True,
        "dryRun": False,
        "closeStale": False,
        "timeoutMinutes": 5,
        "retries": 1,
    }
    adopted = adopt_env.remote("gradle", "adopted")
    verify = {
        "repositoryUrl": str(adopted),
        "workspace": "verify-ws",
        "rules": "project",
        "claudeMdSections": ["## Project"],
        "parallel": 1,
        "timeoutMinutes": 1,
        "retries": 0,
    }
    status = {"repositoryUrls": [str(adopted)], "branch": BRANCH, "parallel": 2}
    return {"adopt_repo": [full], "verify_adoption": [verify], "adoption_status": [status]}


def test_contract_over_the_real_registry(adopt_env: AdoptEnv) -> None:
    samples = _samples(adopt_env)
    # the verification sample must succeed: adopt it and merge the branch first
    tools = build_tools(AllowedPaths([adopt_env.root]))
    adopted = samples["verify_adoption"][0]["repositoryUrl"]
    first = call(
        adopt_env, "adopt_repo", {"repositoryUrl": adopted, "claudeMdSections": ["## Project"]}
    )
    assert not first.is_error, first.text
    git(Path(adopted), "update-ref", "refs/heads/main", f"refs/heads/{BRANCH}")
    run_contract_checks(tools, samples, min_tools=2)


def test_golden_tools_list(tmp_path: Path) -> None:
    tools_list = fetch_tools_list(APP, ["--workspace-root", str(tmp_path)])
    assert [t["name"] for t in tools_list] == ["adopt_repo", "verify_adoption", "adoption_status"]
    assert_golden_tools_list("adopt-server", tools_list, GOLDEN_DIR, min_tools=2)


def test_readme_catalog_matches_the_registry() -> None:
    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    for tool in build_tools(AllowedPaths([Path.cwd()])):
        definition = tool.definition
        assert f"`{definition.name}`" in readme
        for name in definition.properties:
            assert f"`{name}`" in readme, f"{definition.name}.{name} missing from the README"
        for alias, canonical in definition.deprecated_aliases.items():
            assert f"`{alias}` → `{canonical}`" in readme


def test_protocol_call_reports_progress_per_step_and_repository(adopt_env: AdoptEnv) -> None:
    remote = adopt_env.remote("plain")
    messages: list[str] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        messages.append(f"{progress}/{total} {message}")

    async def scenario() -> Any:
        async with in_process_client(APP, ["--workspace-root", str(adopt_env.root)]) as client:
            return await client.call_tool(
                "adopt_repo",
                {"repositoryUrl": str(remote), "dryRun": True},
                progress_callback=on_progress,
            )

    result = anyio.run(scenario)
    assert not result.is_error, result_text(result)
    assert result.structured_content["repositories"][0]["succeeded"] is True
    assert result_text(result).startswith("# Adoption report\n\n1 of 1 repositories adopted")
    steps = [m for m in messages if ": step " in m]
    assert len(steps) == 12
    assert steps[0].startswith("1.0/13.0 ")
    assert steps[0].endswith("step 1/12 toolchain")
    assert messages[-1].endswith("done (1 of 1 repositories)")
    assert str(adopt_env.root) not in "\n".join(messages)


def test_protocol_bad_argument_is_a_tool_error(adopt_env: AdoptEnv) -> None:
    async def scenario() -> Any:
        async with in_process_client(APP, ["--workspace-root", str(adopt_env.root)]) as client:
            return await client.call_tool("adopt_repo", {"repositoryUrl": "x/r", "parallel": 9})

    result = anyio.run(scenario)
    assert result.is_error
    assert result_text(result) == ("adopt_repo failed: parallel must be between 1 and 8 but was 9")


def test_fuzzing_the_tools(adopt_env: AdoptEnv) -> None:
    adopt_env.claude_env(FAKE_CLAUDE_MODE="nothing")
    fuzz_tools(
        APP,
        ["--workspace-root", str(adopt_env.root)],
        forbidden=[str(adopt_env.root)],
        max_examples=40,
    )


def test_adoption_status_reads_branch_pull_request_and_checks(adopt_env: AdoptEnv) -> None:
    adopt_env.git_config(f'[url "{adopt_env.remotes}/"]\n\tinsteadOf = https://github.com/owner/\n')
    adopt_env.remote("plain", "fleet1")
    adopt_env.remote("plain", "fleet2")
    url = "https://x-access-token:ghs_STATUSTOKEN1234567890abcdef@github.com/owner/fleet1.git"
    assert not call(adopt_env, "adopt_repo", {"repositoryUrl": url}).is_error
    checks = adopt_env.state / "repos" / "owner_fleet1" / "pr-checks"
    checks.write_text('[{"status":"IN_PROGRESS","conclusion":null,"name":"build"}]')
    result = call(
        adopt_env,
        "adoption_status",
        {"repositoryUrls": [url, "https://github.com/owner/fleet2", str(adopt_env.home)]},
    )
    assert not result.is_error, result.text
    assert result.structured is not None
    first, second, third = result.structured["repositories"]
    assert first["repositoryUrl"] == "https://***@github.com/owner/fleet1.git"
    assert (first["branchPushed"], first["pullRequest"], first["checks"]) == (
        True,
        "open",
        "pending",
    )
    assert (second["branchPushed"], second["pullRequest"]) == (False, "none")
    assert third["branchPushed"] is None
    assert third["problems"]
    assert "| https://***@github.com/owner/fleet1.git | yes | open |" in result.text
    assert "STATUSTOKEN" not in result.text + json.dumps(result.structured)
    assert not git(adopt_env.remotes / "fleet2.git", "branch", "--list", BRANCH).strip()


def test_adoption_status_refuses_paths_outside_the_root(adopt_env: AdoptEnv) -> None:
    with pytest.raises(ToolError) as caught:
        call(adopt_env, "adoption_status", {"repositoryUrls": ["/etc"]})
    assert caught.value.code == ErrorCode.ACCESS_DENIED
    with pytest.raises(ToolError) as caught:
        call(adopt_env, "adoption_status", {"repositoryUrls": []})
    assert caught.value.code == ErrorCode.INVALID_ARGUMENT
