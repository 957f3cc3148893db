"""Campaigns over claude-adopt's real console script: many positional URLs, --org through gh,
--canary, --max-prs-per-hour, a resumable --state file, --status and --close-stale; every
bad input refused with exit 2 before anything is cloned or pushed."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from adopt_server.cli import main
from adopt_server.pipeline.campaign import CampaignError, PullRequestRateLimit
from adopt_testkit import git, log_lines, run_in_process
from conftest import AdoptEnv

SCRIPT = Path(sys.executable).parent / "claude-adopt"
BRANCH = "claude/adopt-claude-code"


def claude_adopt(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SCRIPT), *args], capture_output=True, text=True, cwd=cwd, check=False, timeout=300
    )


def refused_here(env: AdoptEnv, *args: str) -> subprocess.CompletedProcess[str]:
    """claude-adopt's entry point in this process, for input it refuses before anything runs."""
    return run_in_process("claude-adopt", main, *args, cwd=env.root)


def github(env: AdoptEnv) -> None:
    """Route https://github.com/owner/* to the local bare repositories."""
    env.git_config(f'[url "{env.remotes}/"]\n\tinsteadOf = https://github.com/owner/\n')


def pushed(bare: Path) -> bool:
    return bool(git(bare, "branch", "--list", BRANCH).strip())


def pr_dir(env: AdoptEnv, name: str) -> Path:
    return env.state / "repos" / f"owner_{name}"


def test_every_positional_url_is_adopted_and_no_workspace_is_made_of_one(
    adopt_env: AdoptEnv,
) -> None:
    github(adopt_env)
    first, second = adopt_env.remote("plain", "alpha"), adopt_env.remote("python", "beta")
    done = claude_adopt(
        "https://github.com/owner/alpha.git",
        "https://github.com/owner/beta.git",
        "--workspace",
        str(adopt_env.workspace),
        cwd=adopt_env.root,
    )
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert [r["pullRequestUrl"] for r in document["repositories"]] == [
        "https://github.com/owner/alpha/pull/1",
        "https://github.com/owner/beta/pull/1",
    ]
    assert pushed(first)
    assert pushed(second)
    assert sorted(p.name for p in adopt_env.root.iterdir() if p.name.startswith("https")) == []


def test_a_mix_of_urls_and_other_words_is_refused(adopt_env: AdoptEnv) -> None:
    github(adopt_env)
    adopt_env.remote("plain", "alpha")
    done = refused_here(
        adopt_env,
        "https://github.com/owner/alpha.git",
        "https://github.com/owner/beta.git",
        "my-branch",
    )
    assert done.returncode == 2
    assert "unrecognized arguments: my-branch" in done.stderr
    assert not pushed(adopt_env.remotes / "alpha.git")


def test_org_lists_repositories_through_gh_and_adopts_them(adopt_env: AdoptEnv) -> None:
    github(adopt_env)
    for name in ("one", "two"):
        adopt_env.remote("plain", name)
    (adopt_env.state / "orgs").mkdir()
    (adopt_env.state / "orgs" / "owner").write_text("two\none\n")
    done = claude_adopt("--org", "owner", "--workspace", str(adopt_env.workspace))
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert [r["repositoryUrl"] for r in document["repositories"]] == [
        "https://github.com/owner/one",
        "https://github.com/owner/two",
    ]
    assert "repo list owner --no-archived --source --limit 1000 --json url" in log_lines(
        adopt_env.log, "gh"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--org", "nobody-here"], "--org nobody-here: gh could not list its repositories"),
        (["--org=--x"], "--org takes a GitHub user or organisation name, not '--x'"),
        (["--max-prs-per-hour", "0", "x/r"], "--max-prs-per-hour must be between 1 and"),
        (["--canary", "0", "x/r"], "--canary must be between 1 and 10000 repositories"),
        (["--state", " ", "x/r"], "--state must not be blank"),
    ],
)
def test_bad_campaign_input_is_refused_before_anything_runs(
    adopt_env: AdoptEnv, args: list[str], message: str
) -> None:
    (adopt_env.state / "orgs").mkdir()
    done = refused_here(adopt_env, *args, "--workspace", str(adopt_env.workspace / "new"))
    assert done.returncode == 2, done.stderr
    assert message in done.stderr
    assert "Traceback" not in done.stderr
    assert not (adopt_env.workspace / "new").exists()


def test_a_malformed_url_list_names_its_line(adopt_env: AdoptEnv) -> None:
    good = adopt_env.remote("plain", "good")
    repos = adopt_env.root / "repos.txt"
    repos.write_text(f"# fleet\n{good}\n\nhttp://example.com/o/r.git\n")
    done = refused_here(adopt_env, "--repos", str(repos), "--workspace", str(adopt_env.workspace))
    assert done.returncode == 2
    assert f"{repos} line 4: repositoryUrl scheme 'http' is not accepted" in done.stderr
    assert not pushed(good)


def test_a_corrupt_state_file_names_line_and_column_and_nothing_is_pushed(
    adopt_env: AdoptEnv,
) -> None:
    good = adopt_env.remote("plain", "good")
    state = adopt_env.root / "campaign.json"
    state.write_text('{"version": 1,\n "repositories": [\n')
    done = refused_here(
        adopt_env, str(good), "--state", str(state), "--workspace", str(adopt_env.workspace)
    )
    assert done.returncode == 2
    assert f"The campaign state {state} is not JSON (line 3, column 1" in done.stderr
    assert not pushed(good)
    state.write_text('{"version": 1, "repositories": [{"repositoryUrl": "x"}]}')
    done = refused_here(
        adopt_env, str(good), "--state", str(state), "--workspace", str(adopt_env.workspace)
    )
    assert done.returncode == 2
    assert "is not a claude-adopt state file: repositories.0.status: Field required" in (
        done.stderr
    )
    assert not pushed(good)


def test_a_failed_canary_stops_the_campaign(adopt_env: AdoptEnv) -> None:
    canary = str(adopt_env.remote("plain", "canary"))
    rest = [adopt_env.remote("plain", "later1"), adopt_env.remote("plain", "later2")]
    adopt_env.claude_env(FAKE_CLAUDE_MODE="fail")
    done = claude_adopt(
        canary, *map(str, rest), "--canary", "1", "--workspace", str(adopt_env.workspace)
    )
    assert done.returncode == 1
    document = json.loads(done.stdout)
    entries = document["repositories"]
    assert entries[0]["failure"].startswith("claude-init: ")
    for entry in entries[1:]:
        assert entry["skipped"].startswith("not run: 1 of the 1 canary repositories failed")
        assert entry["completedSteps"] == []
    assert not any(pushed(bare) for bare in rest)


def test_a_successful_canary_lets_the_rest_run(adopt_env: AdoptEnv) -> None:
    remotes = [adopt_env.remote("plain", f"r{i}") for i in range(3)]
    done = claude_adopt(
        *map(str, remotes),
        "--canary",
        "1",
        "--parallel",
        "2",
        "--workspace",
        str(adopt_env.workspace),
    )
    assert done.returncode == 0, done.stderr
    assert all(pushed(bare) for bare in remotes)


def test_the_state_file_resumes_an_interrupted_campaign(adopt_env: AdoptEnv) -> None:
    github(adopt_env)
    adopt_env.remote("plain", "done")
    state = adopt_env.root / "campaign.json"
    urls = ["https://github.com/owner/done.git", "https://github.com/owner/later.git"]
    first = claude_adopt(*urls, "--state", str(state), "--workspace", str(adopt_env.workspace))
    assert first.returncode == 1  # 'later' does not exist yet
    recorded = json.loads(state.read_text())
    assert [(e["repositoryUrl"], e["status"]) for e in recorded["repositories"]] == [
        ("https://github.com/owner/done.git", "succeeded"),
        ("https://github.com/owner/later.git", "failed"),
    ]
    adopt_env.remote("python", "later")
    adopt_env.log.unlink()
    second = claude_adopt(*urls, "--state", str(state), "--workspace", str(adopt_env.workspace))
    assert second.returncode == 0, second.stderr
    entries = json.loads(second.stdout)["repositories"]
    assert entries[0]["skipped"].startswith("done in an earlier run of this campaign")
    assert entries[0]["pullRequestUrl"] == "https://github.com/owner/done/pull/1"
    assert entries[1]["pullRequestUrl"] == "https://github.com/owner/later/pull/1"
    assert not [line for line in log_lines(adopt_env.log, "gh") if "owner/done" in line]
    assert {e["status"] for e in json.loads(state.read_text())["repositories"]} == {"succeeded"}


def test_status_lists_branch_pull_request_and_checks(adopt_env: AdoptEnv) -> None:
    github(adopt_env)
    adopt_env.remote("plain", "adopted")
    adopt_env.remote("plain", "untouched")
    state = adopt_env.root / "campaign.json"
    done = claude_adopt(
        "https://github.com/owner/adopted.git",
        "--state",
        str(state),
        "--workspace",
        str(adopt_env.workspace),
    )
    assert done.returncode == 0, done.stderr
    (pr_dir(adopt_env, "adopted") / "pr-checks").write_text(
        '[{"__typename":"CheckRun","name":"build","status":"COMPLETED","conclusion":"SUCCESS"},'
        '{"__typename":"StatusContext","context":"ci/lint","state":"FAILURE"}]'
    )
    from_state = claude_adopt("--status", "--state", str(state))
    assert from_state.returncode == 0, from_state.stderr
    [only] = json.loads(from_state.stdout)["repositories"]
    assert only == {
        "repositoryUrl": "https://github.com/owner/adopted.git",
        "branch": BRANCH,
        "branchPushed": True,
        "pullRequestUrl": "https://github.com/owner/adopted/pull/1",
        "pullRequest": "open",
        "checks": "failing",
        "problems": [],
    }
    both = claude_adopt(
        "--status", "https://github.com/owner/adopted.git", "https://github.com/owner/untouched"
    )
    untouched = json.loads(both.stdout)["repositories"][1]
    assert (untouched["branchPushed"], untouched["pullRequest"], untouched["checks"]) == (
        False,
        "none",
        "none",
    )
    assert git(adopt_env.remotes / "untouched.git", "branch", "--list").split() == ["*", "main"]


def _merge_branch_into_main(bare: Path) -> None:
    git(bare, "update-ref", "refs/heads/main", f"refs/heads/{BRANCH}")


def test_a_rerun_with_nothing_to_change_closes_the_stale_pull_request_on_request(
    adopt_env: AdoptEnv,
) -> None:
    github(adopt_env)
    bare = adopt_env.remote("plain", "stale")
    url = "https://github.com/owner/stale.git"
    assert claude_adopt(url, "--workspace", str(adopt_env.workspace)).returncode == 0
    _merge_branch_into_main(bare)  # someone merged the same change by hand; the PR stayed open
    kept = claude_adopt(url, "--workspace", str(adopt_env.root / "ws2"))
    assert kept.returncode == 0, kept.stderr
    document = json.loads(kept.stdout)
    assert document["closedPullRequestUrl"] is None
    assert "is stale" in document["warnings"][0]
    assert (pr_dir(adopt_env, "stale") / "pr-state").read_text().strip() == "OPEN"
    closed = claude_adopt(url, "--close-stale", "--workspace", str(adopt_env.root / "ws3"))
    assert closed.returncode == 0, closed.stderr
    document = json.loads(closed.stdout)
    assert document["closedPullRequestUrl"] == "https://github.com/owner/stale/pull/1"
    assert document["pullRequestUrl"] is None
    assert (pr_dir(adopt_env, "stale") / "pr-state").read_text().strip() == "CLOSED"
    assert not [line for line in log_lines(adopt_env.log, "gh") if line.startswith("pr create")][1:]


def test_the_rate_limit_spaces_pull_requests_evenly() -> None:
    now = [1000.0]
    slept: list[float] = []
    opened: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)

    limit = PullRequestRateLimit(
        4, clock=lambda: now[0], sleep=sleep, opened=opened.append, not_before=1300.0
    )
    for _ in range(3):
        limit.acquire()
    assert limit.interval == 900.0
    assert opened == [1300.0, 2200.0, 3100.0]
    assert slept == [300.0, 1200.0, 2100.0]
    with pytest.raises(CampaignError, match="--max-prs-per-hour must be between 1 and 100000"):
        PullRequestRateLimit(0)


def test_the_rate_limit_paces_a_real_campaign(adopt_env: AdoptEnv) -> None:
    from adopt_server.pipeline import AdoptionOptions
    from adopt_server.pipeline.campaign import CampaignControls, CampaignState, run_campaign

    github(adopt_env)
    remotes = [
        f"https://github.com/owner/{adopt_env.remote('plain', f'p{i}').stem}.git" for i in range(3)
    ]
    state = CampaignState.load(adopt_env.root / "state.json")
    started = time.time()
    reports = run_campaign(
        remotes,
        adopt_env.workspace,
        AdoptionOptions(parallel=3),
        CampaignControls(max_prs_per_hour=2, hour_seconds=2.0, state=state),
    )
    assert all(r.succeeded for r in reports), [r.failure for r in reports]
    recorded = json.loads((adopt_env.root / "state.json").read_text())
    # 2 an 'hour' of 2 seconds: the three pull requests got slots one second apart
    assert recorded["lastPullRequestAt"] >= started + 2.0
    assert len({r.pull_request_url for r in reports}) == 3
