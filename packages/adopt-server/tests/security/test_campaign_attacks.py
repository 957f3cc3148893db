"""``claude-adopt --org`` and ``--state`` with hostile names and files (issue 23, item 8).

Run through the real console script with the fake ``gh``/``claude`` on the PATH (the cases
refused before anything runs, through its entry point in this process: the same code and
output, without an interpreter start per case). Each case is
what an attacker could hand the command: an owner name that reads as an option, walks a path,
or carries shell metacharacters or a newline; a ``gh`` answer listing repositories of someone
else or outside GitHub; a state file planted or edited to hang, exhaust or forge output. Each
asserts the harm did not happen: exit 2 with a message naming the rule, no traceback, ``gh``
never asked about a hostile owner, nothing cloned, pushed or written outside the state file.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from adopt_server.cli import main
from adopt_server.pipeline.urls import parse_repository_url
from adopt_testkit import git, log_lines, run_in_process
from conftest import AdoptEnv

SCRIPT = Path(sys.executable).parent / "claude-adopt"
BRANCH = "claude/adopt-claude-code"


def claude_adopt(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SCRIPT), *args], capture_output=True, text=True, cwd=cwd, check=False, timeout=timeout
    )


def claude_adopt_here(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_in_process("claude-adopt", main, *args, cwd=cwd)


def refused(done: subprocess.CompletedProcess[str], message: str) -> None:
    assert done.returncode == 2, done.stdout + done.stderr
    assert message in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout == ""


@pytest.mark.parametrize(
    "owner",
    [
        "-R",  # an option of gh repo list
        "--help",
        "--limit=1",
        "../../etc",
        "owner/../other",
        "owner;touch PWNED",
        "$(touch PWNED)",
        "`touch PWNED`",
        "owner\nINFO forged line",
        "owner\x1b[2K",
        "own er",
        "ownér",  # not ASCII
        "x" * 40,
        "-",
    ],
)
def test_a_hostile_org_name_never_reaches_gh(adopt_env: AdoptEnv, owner: str) -> None:
    (adopt_env.state / "orgs").mkdir()
    done = claude_adopt_here(f"--org={owner}", "--workspace", "new-ws", cwd=adopt_env.root)
    refused(done, "--org takes a GitHub user or organisation name, not ")
    assert "\nINFO forged line" not in done.stderr, "the name is quoted on one line"
    assert "\x1b" not in done.stderr
    assert not [c for c in log_lines(adopt_env.log, "gh") if c.startswith("repo ")]
    assert not (adopt_env.root / "PWNED").exists()
    assert not (adopt_env.root / "new-ws").exists()


@pytest.mark.parametrize(
    "listed",
    [
        "https://github.com/someone-else/repo",  # another owner's repository
        "file:///etc",  # a local directory
        "/home/victim/private-repo",
        "ssh://git@evil.example/owner/repo",
        "https://github.com/owner/repo\nINFO forged",  # not even one URL
        "ext::sh -c touch% PWNED",
    ],
)
def test_gh_listing_other_repositories_adopts_none(adopt_env: AdoptEnv, listed: str) -> None:
    (adopt_env.state / "orgs").mkdir()
    (adopt_env.state / "orgs" / "owner").write_text(f"good\n{listed}\n")
    adopt_env.remote("plain", "good")
    done = claude_adopt_here("--org", "owner", "--workspace", "new-ws", cwd=adopt_env.root)
    refused(done, "--org owner: gh listed repositories that are not https URLs of owner's")
    assert "\nINFO forged" not in done.stderr
    assert not (adopt_env.root / "new-ws").exists(), "nothing was cloned"
    assert not (adopt_env.root / "PWNED").exists()
    assert not git(adopt_env.remotes / "good.git", "branch", "--list", BRANCH).strip()


def state_file(path: Path, **document: object) -> Path:
    path.write_text(json.dumps({"version": 1, "repositories": [], **document}))
    return path


def entry(**fields: object) -> dict[str, object]:
    return {
        "repositoryUrl": "https://github.com/owner/repo.git",
        "status": "succeeded",
        "branch": BRANCH,
        "mode": "adopt",
        "pullRequestUrl": "https://github.com/owner/repo/pull/1",
        "updatedAt": "2026-01-01T00:00:00+00:00",
        **fields,
    }


STATE_ATTACKS: dict[str, tuple[object, str]] = {
    # a campaign that resumes waits until lastPullRequestAt + one interval
    "a pull request in 2100 stalls the campaign": (
        {"lastPullRequestAt": 4102444800.0},
        "lastPullRequestAt: Value error, lies in the future",
    ),
    "a negative time": ({"lastPullRequestAt": -1.0}, "lastPullRequestAt: Input should be"),
    "a forged skip message": (
        {"repositories": [entry(updatedAt="2026\n\x1b[31mERROR forged")]},
        "repositories.0.updatedAt: Input should be a valid datetime",
    ),
    "a forged pull request URL": (
        {"repositories": [entry(pullRequestUrl="https://x/1\nINFO all fine")]},
        "repositories.0.pullRequestUrl: String should match pattern",
    ),
    "javascript in the pull request URL": (
        {"repositories": [entry(pullRequestUrl="javascript:alert(1)")]},
        "repositories.0.pullRequestUrl: String should match pattern",
    ),
    "an option as repository": (
        {"repositories": [entry(repositoryUrl="--upload-pack=touch PWNED")]},
        "repositories.0.repositoryUrl: Value error, repositoryUrl must not start with '-'",
    ),
    "a remote helper as repository": (
        {"repositories": [entry(repositoryUrl="ext::sh -c touch% PWNED")]},
        "repositories.0.repositoryUrl: Value error, repositoryUrl must not contain whitespace",
    ),
    "a newline in the repository": (
        {"repositories": [entry(repositoryUrl="https://github.com/o/r\nINFO forged")]},
        "repositoryUrl must not contain whitespace: https://github.com/o/r\\nINFO forged",
    ),
    "a newline in the branch": (
        {"repositories": [entry(branch="b\nINFO forged")]},
        "repositories.0.branch: String should match pattern",
    ),
}


@pytest.mark.parametrize("attack", list(STATE_ATTACKS))
def test_a_hostile_state_file_is_refused_before_anything_runs(
    adopt_env: AdoptEnv, attack: str
) -> None:
    document, message = STATE_ATTACKS[attack]
    assert isinstance(document, dict)
    state = state_file(adopt_env.root / "campaign.json", **document)
    before = state.read_bytes()
    repo = adopt_env.remote("plain", "repo")
    for mode in ([], ["--status"]):
        done = claude_adopt_here(
            *mode, "--state", str(state), str(repo), "--workspace", "new-ws", cwd=adopt_env.root
        )
        refused(done, f"The campaign state {state} is not a claude-adopt state file: ")
        assert message in done.stderr
        assert "\nINFO" not in done.stderr
        assert "\nERROR forged" not in done.stderr
    assert state.read_bytes() == before, "a refused state file is left as it was"
    assert not (adopt_env.root / "new-ws").exists()
    assert not (adopt_env.root / "PWNED").exists()


def test_deeply_nested_and_oversized_state_files_are_refused(adopt_env: AdoptEnv) -> None:
    deep = adopt_env.root / "deep.json"
    deep.write_text("[" * 200_000 + "]" * 200_000)
    done = claude_adopt("--state", str(deep), "x/r", cwd=adopt_env.root)
    refused(done, f"The campaign state {deep} nests its JSON too deeply")
    huge = adopt_env.root / "huge.json"
    with huge.open("wb") as stream:
        stream.truncate(17 * 1024 * 1024)  # sparse: costs no disk
    done = claude_adopt("--state", str(huge), "x/r", cwd=adopt_env.root)
    refused(done, f"Could not read the campaign state {huge}: {huge} is larger than 16 MiB")


def test_a_state_path_naming_a_device_or_a_fifo_is_refused_without_waiting(
    adopt_env: AdoptEnv,
) -> None:
    fifo = adopt_env.root / "campaign.fifo"
    os.mkfifo(fifo)
    for path in (Path("/dev/zero"), fifo):
        started = time.monotonic()
        done = claude_adopt("--state", str(path), "x/r", cwd=adopt_env.root, timeout=30)
        refused(done, f"Could not read the campaign state {path}: {path} is not a regular file")
        assert time.monotonic() - started < 20


def test_a_planted_state_symlink_never_writes_through_to_its_target(adopt_env: AdoptEnv) -> None:
    """Someone plants ``/shared/campaign.json`` as a link to a file of the victim's; the
    campaign reads it (a valid state) but replaces the link, never the file it points at."""
    victim = state_file(adopt_env.root / "victim-notes.json")
    before = victim.read_bytes()
    link = adopt_env.root / "shared" / "campaign.json"
    link.parent.mkdir()
    link.symlink_to(victim)
    repo = adopt_env.remote("plain", "repo")
    done = claude_adopt(
        "--dry-run", "--state", str(link), str(repo), "--workspace", "new-ws", cwd=adopt_env.root
    )
    assert done.returncode == 0, done.stderr
    assert victim.read_bytes() == before
    assert not link.is_symlink()
    assert json.loads(link.read_text())["repositories"][0]["status"] == "succeeded"


@pytest.mark.parametrize("name", ["-state.json", "a;touch PWNED.json", "new\nline.json", "$(x)"])
def test_a_state_file_name_is_only_ever_a_file_name(adopt_env: AdoptEnv, name: str) -> None:
    repo = adopt_env.remote("plain", "repo")
    done = claude_adopt(
        "--dry-run", f"--state={name}", str(repo), "--workspace", "new-ws", cwd=adopt_env.root
    )
    assert done.returncode == 0, done.stderr
    assert (adopt_env.root / name).is_file(), "written under exactly that name"
    assert not (adopt_env.root / "PWNED.json").exists()
    assert sorted(p.name for p in adopt_env.root.iterdir() if "PWNED" in p.name) == (
        [name] if "PWNED" in name else []
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # json reads it, but Python will not turn 5,000 digits into an int: was a traceback
        (
            '{"version": 1, "lastPullRequestAt": ' + "1" * 5000 + ', "repositories": []}',
            "Exceeds the limit (4300 digits) for integer string conversion",
        ),
        # valid JSON, no text: the first save after a repository ran failed with a traceback,
        # ending the campaign unrecorded
        (
            json.dumps({"version": 1, "repositories": [entry(status="failed", failure="x\ud800")]}),
            "it holds a string that is not valid Unicode (a lone surrogate escape)",
        ),
        (
            json.dumps({"version": 1, "repositories": [entry(repositoryUrl="/r\udfff")]}),
            "it holds a string that is not valid Unicode (a lone surrogate escape)",
        ),
    ],
    ids=["5000 digits", "surrogate in a failure", "surrogate in a URL"],
)
def test_state_values_python_cannot_hold_are_refused_before_anything_runs(
    adopt_env: AdoptEnv, text: str, message: str
) -> None:
    state = adopt_env.root / "campaign.json"
    state.write_text(text, encoding="utf-8")
    before = state.read_bytes()
    repo = adopt_env.remote("plain", "repo")
    done = claude_adopt(
        "--dry-run", "--state", str(state), str(repo), "--workspace", "new-ws", cwd=adopt_env.root
    )
    refused(done, f"The campaign state {state} is not a claude-adopt state file: {message}")
    assert state.read_bytes() == before
    assert not (adopt_env.root / "new-ws").exists(), "nothing was cloned"


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_a_state_file_of_another_user_is_refused(adopt_env: AdoptEnv) -> None:
    """Another user's file (one planted in a shared directory) could mark repositories
    as done and show a forged pull request link for each: never read."""
    repo = adopt_env.remote("plain", "repo")
    state = state_file(
        adopt_env.root / "campaign.json",
        repositories=[entry(repositoryUrl=str(repo), pullRequestUrl="https://evil.example/pr/1")],
    )
    os.chown(state, 65534, 65534)
    done = claude_adopt_here(
        "--state", str(state), str(repo), "--workspace", "new-ws", cwd=adopt_env.root
    )
    refused(
        done,
        f"Could not read the campaign state {state}: {state} is owned by another user; a "
        "campaign trusts only its own",
    )
    assert "evil.example" not in done.stderr
    assert not (adopt_env.root / "new-ws").exists()


def test_a_repository_named_like_another_checkout_never_shares_it(adopt_env: AdoptEnv) -> None:
    """``alice/tools`` and ``bob/tools`` check out into ``tools`` and ``tools-<digest of
    bob's URL>``; that digest is no secret, so mallory names a repository exactly so and
    lists it first: bob's adoption used to find mallory's checkout in its directory and
    fail. Each repository gets a directory of its own and every one is adopted."""
    owners = {name: adopt_env.remotes / name for name in ("alice", "bob", "mallory")}
    for folder in owners.values():
        folder.mkdir()
    bob = owners["bob"] / "tools"
    digest = hashlib.sha256(parse_repository_url(str(bob)).identity.encode()).hexdigest()[:8]
    urls = [owners["mallory"] / f"tools-{digest}", owners["alice"] / "tools", bob]
    for url in urls:
        shutil.copytree(adopt_env.templates["plain"], url)
    done = claude_adopt(
        "--dry-run",
        *map(str, urls),
        "--workspace",
        "ws2",
        "--report",
        "report.json",
        cwd=adopt_env.root,
    )
    assert done.returncode == 0, done.stderr
    reports = json.loads((adopt_env.root / "report.json").read_text())["repositories"]
    assert [r["succeeded"] for r in reports] == [True, True, True]
    checkouts = [Path(r["checkout"]) for r in reports]
    assert len(set(checkouts)) == 3, checkouts
    for url, checkout in zip(urls, checkouts, strict=True):
        origin = git(checkout, "config", "--get", "remote.origin.url").strip()
        assert origin == str(url)


@pytest.mark.parametrize(
    "second",
    [
        "https://github.com:443/owner/repo",  # the default port
        "https://github.com./owner/repo",  # the root of DNS
        "https://github.com//owner/repo",
        "https://github.com/owner/./repo",
        "https://github.com/owner/x/../repo",
        "ssh://git@github.com:22/owner/repo",
    ],
)
def test_one_repository_spelled_two_ways_is_refused_before_anything_runs(
    adopt_env: AdoptEnv, second: str
) -> None:
    """Both spellings would push one branch (one run failing on the other's push)."""
    done = claude_adopt_here(
        "https://github.com/owner/repo", second, "--workspace", "new-ws", cwd=adopt_env.root
    )
    refused(done, "both name the same repository, and both would push one branch")
    assert not (adopt_env.root / "new-ws").exists()


def test_one_local_repository_named_through_a_symlink_is_refused(adopt_env: AdoptEnv) -> None:
    """Two runs pushed one branch at once: the second push was rejected and reported as a
    failure after its whole adoption ran."""
    repo = adopt_env.remote("plain", "repo")
    link = adopt_env.remotes / "link.git"
    link.symlink_to(repo)
    done = claude_adopt_here(str(repo), str(link), "--workspace", "new-ws", cwd=adopt_env.root)
    refused(done, "both name the same repository, and both would push one branch")
    assert not (adopt_env.root / "new-ws").exists()
    assert not git(repo, "branch", "--list", BRANCH).strip()


@pytest.mark.parametrize("mark", ["\u202e", "\u200b", "\x9b"], ids=["RLO", "ZWSP", "C1 CSI"])
def test_an_invisible_or_control_character_in_a_url_is_refused(
    adopt_env: AdoptEnv, mark: str
) -> None:
    """U+202E reversed the rest of every log line naming the repository; a C1 control starts
    an escape sequence on some terminals."""
    listed = adopt_env.root / "repos.txt"
    listed.write_text(f"https://github.com/owner/repo{mark}\n", encoding="utf-8")
    done = claude_adopt_here("--repos", str(listed), "--workspace", "new-ws", cwd=adopt_env.root)
    refused(done, "repositoryUrl must not contain control or invisible characters")
    assert mark not in done.stderr
    assert not (adopt_env.root / "new-ws").exists()
