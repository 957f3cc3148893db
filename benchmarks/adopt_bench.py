"""adopt-server batch benchmark: 20 local repositories, a fake `claude` that takes one second.

Runs the same batch serially and with `parallel 4`, side by side in one process, each against
its own fresh bare repositories, and checks the reports are identical once timings and
workspace paths are normalised. Target: parallel 4 takes at most 0.35x the serial time.

    uv run python benchmarks/adopt_bench.py [--repositories 20] [--claude-seconds 1]

With ``--campaign`` it measures a fleet campaign instead: 100 repositories (GitHub-style URLs
routed to local bare remotes, so the fake `gh` keeps one pull request per repository) adopted
with `parallel 8`, first without a rate limit, then with `--max-prs-per-hour`, then resumed
from the state file. It reports wall times, the rate limit's floor (the time the spacing alone
needs) and peak memory (this process, and the largest child process). Targets: every
repository succeeds, the limited run is no faster than its floor (the limit holds) and at most
1.5x max(unlimited run, floor) (the limit costs nothing beyond its spacing), and the resumed
run starts no git or gh command.

    uv run python benchmarks/adopt_bench.py --campaign [--repositories 100] [--parallel 8]
        [--max-prs-per-hour 18000] [--claude-seconds 0.2]

With ``--isolation`` it measures what running a check of repository content where it can be
stopped costs: the guard's check of one adopted checkout, in process and through
``run_isolated`` (a fresh child process), alternated in one run, medians of ``--rounds`` each.

    uv run python benchmarks/adopt_bench.py --isolation [--rounds 15]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from adopt_server.pipeline import AdoptionOptions, adopt_repositories, batch_json
from adopt_server.pipeline.campaign import CampaignControls, CampaignState, run_campaign

FAKES = Path(__file__).resolve().parents[1] / "packages" / "adopt-server" / "tests" / "fakes"
TARGET_RATIO = 0.35


def _claude_env(**values: str) -> None:
    """Set variables for the fake ``claude`` under ``env`` in the user's Claude Code settings:
    the adoption gives claude an allow-listed environment, without the fake's controls."""
    settings = Path(os.environ["HOME"]) / ".claude" / "settings.json"
    settings.parent.mkdir(exist_ok=True)
    data = json.loads(settings.read_text()) if settings.exists() else {}
    data.setdefault("env", {}).update(values)
    settings.write_text(json.dumps(data))


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def _make_remotes(root: Path, count: int) -> list[str]:
    seed = root / "seed"
    seed.mkdir()
    _git(seed, "init", "-q", "--initial-branch=main")
    (seed / "README.md").write_text("# sample\n")
    (seed / "pyproject.toml").write_text('[project]\nname = "sample"\nversion = "0.1.0"\n')
    _git(seed, "add", "-A")
    _git(seed, "-c", "user.name=B", "-c", "user.email=b@example.com", "commit", "-q", "-m", "seed")
    urls = []
    for index in range(count):
        bare = root / f"repo{index:02d}.git"
        _git(root, "clone", "-q", "--bare", str(seed), str(bare))
        urls.append(str(bare))
    return urls


def _normalised(document: dict[str, Any], root: Path) -> str:
    # timings set to 0 field by field: replacing their text could hit another number
    for entry in document["repositories"]:
        entry["elapsedSeconds"] = 0
    return json.dumps(document, sort_keys=True).replace(str(root), "<root>")


def _run(parallel: int, count: int, scratch: Path) -> tuple[float, str, bool]:
    root = scratch / f"parallel-{parallel}"
    root.mkdir()
    (root / "remotes").mkdir()
    urls = _make_remotes(root / "remotes", count)
    # the state dir holds the fake gh's pull request record; one per run keeps runs apart
    state = root / "state"
    state.mkdir()
    os.environ["FAKE_STATE"] = str(state)
    options = AdoptionOptions(parallel=parallel)
    started = time.perf_counter()
    reports = adopt_repositories(urls, root / "ws", options)
    elapsed = time.perf_counter() - started
    document = batch_json(reports)
    return elapsed, _normalised(document, root), bool(document["succeeded"])


def _campaign_run(
    label: str, urls: list[str], root: Path, parallel: int, controls: CampaignControls
) -> tuple[float, bool, int]:
    log = root / "fake.log"
    log.unlink(missing_ok=True)
    os.environ["FAKE_LOG"] = str(log)
    _claude_env(FAKE_LOG=str(log))
    started = time.perf_counter()
    reports = run_campaign(urls, root / "ws", AdoptionOptions(parallel=parallel), controls)
    elapsed = time.perf_counter() - started
    ok = all(r.succeeded for r in reports)
    commands = len(log.read_text().splitlines()) if log.exists() else 0
    print(f"{label}: {elapsed:.2f}s, all succeeded: {ok}, fake gh/claude calls: {commands}")
    return elapsed, ok, commands


def campaign(args: argparse.Namespace, scratch: Path) -> int:
    root = scratch / "campaign"
    (root / "remotes").mkdir(parents=True)
    bare = _make_remotes(root / "remotes", args.repositories)
    urls = [f"https://github.com/bench/{Path(b).stem}.git" for b in bare]
    with (scratch / "home" / ".gitconfig").open("a") as config:
        config.write(f'[url "{root / "remotes"}/"]\n\tinsteadOf = https://github.com/bench/\n')
    os.environ["FAKE_STATE"] = str(root / "state")
    (root / "state").mkdir()
    unlimited, ok_unlimited, _ = _campaign_run(
        "no rate limit", urls, root / "unlimited", args.parallel, CampaignControls()
    )
    shutil.rmtree(root / "state")
    (root / "state").mkdir()
    for remote in bare:  # the second run must open every pull request again, from scratch
        subprocess.run(
            ["git", "branch", "-D", "claude/adopt-claude-code"], cwd=remote, capture_output=True
        )
    state_file = root / "campaign.json"
    limited_controls = CampaignControls(
        max_prs_per_hour=args.max_prs_per_hour, state=CampaignState.load(state_file)
    )
    floor = (args.repositories - 1) * 3600.0 / args.max_prs_per_hour
    limited, ok_limited, _ = _campaign_run(
        f"max-prs-per-hour {args.max_prs_per_hour}",
        urls,
        root / "limited",
        args.parallel,
        limited_controls,
    )
    resumed_controls = CampaignControls(
        max_prs_per_hour=args.max_prs_per_hour, state=CampaignState.load(state_file)
    )
    _, ok_resumed, resumed_commands = _campaign_run(
        "resumed", urls, root / "limited", args.parallel, resumed_controls
    )
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"date: {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC")
    print(
        f"repositories: {args.repositories}, parallel {args.parallel}, fake claude: "
        f"{args.claude_seconds:g}s per /init, load average {os.getloadavg()[0]:.1f}"
    )
    print(f"rate-limit floor ({args.repositories - 1} spacings): {floor:.2f}s")
    print(f"peak memory: this process {own:.0f} MiB, largest child {child:.0f} MiB")
    ceiling = 1.5 * max(unlimited, floor)
    ok = (
        ok_unlimited
        and ok_limited
        and ok_resumed
        and floor <= limited <= ceiling
        and resumed_commands == 0
    )
    print(
        f"limited run within [floor, 1.5 x max(unlimited, floor) = {ceiling:.2f}s]: "
        f"{floor <= limited <= ceiling}"
    )
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


def isolation(rounds: int, scratch: Path) -> int:
    """The guard's check in process and isolated, alternated; medians and the difference."""
    from adopt_server.checks import guard_errors
    from adopt_server.conformance import claude_md_importing_agents_md, rules_for
    from adopt_server.guards import install_guard
    from mcp_common import run_isolated

    checkout = scratch / "adopted"
    checkout.mkdir()
    install_guard(checkout, "github-actions", rules_for(), None)
    (checkout / "CLAUDE.md").write_text(claude_md_importing_agents_md())
    sections = (
        "Project overview",
        "Module layout",
        "Environment & toolchain",
        "Build, test, and run",
        "Code style & conventions",
        "Releasing",
        "Pull requests & commits",
    )
    (checkout / "AGENTS.md").write_text(
        "# AGENTS.md\n" + "".join(f"\n## {s}\n\nRun `make check`.\n" for s in sections)
    )
    arguments = (str(checkout), "project", [])
    inline: list[float] = []
    isolated: list[float] = []
    for _ in range(rounds):
        started = time.perf_counter()
        first = guard_errors(*arguments)
        inline.append(time.perf_counter() - started)
        started = time.perf_counter()
        second = run_isolated(guard_errors, *arguments, what="the guard's check")
        isolated.append(time.perf_counter() - started)
        assert first == second == {"errors": []}, (first, second)
    inline.sort()
    isolated.sort()
    median_inline, median_isolated = inline[rounds // 2], isolated[rounds // 2]
    print(f"date: {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC")
    print(f"load average: {os.getloadavg()[0]:.1f}")
    print(f"guard check in process:  median {median_inline * 1000:.0f} ms of {rounds}")
    print(f"guard check isolated:    median {median_isolated * 1000:.0f} ms of {rounds}")
    print(f"cost of isolation per check: {(median_isolated - median_inline) * 1000:.0f} ms")
    print("answers identical: True")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repositories", type=int, default=None)
    parser.add_argument("--claude-seconds", type=float, default=None)
    parser.add_argument("--campaign", action="store_true", help="measure a fleet campaign")
    parser.add_argument("--parallel", type=int, default=8)
    parser.add_argument("--max-prs-per-hour", type=int, default=18000)
    parser.add_argument(
        "--isolation", action="store_true", help="measure the cost of an isolated check"
    )
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    if args.repositories is None:
        args.repositories = 100 if args.campaign else 20
    if args.claude_seconds is None:
        args.claude_seconds = 0.2 if args.campaign else 1.0
    scratch = Path(tempfile.mkdtemp(prefix="adopt-bench-"))
    home = scratch / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("")
    os.environ.update(
        {
            "HOME": str(home),
            "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
            "GIT_CONFIG_NOSYSTEM": "1",
            "PATH": f"{FAKES / 'bin'}{os.pathsep}{os.environ['PATH']}",
        }
    )
    _claude_env(FAKE_CLAUDE_SLEEP=str(args.claude_seconds))
    if args.isolation:
        try:
            return isolation(args.rounds, scratch)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    if args.campaign:
        try:
            return campaign(args, scratch)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    try:
        serial, serial_report, serial_ok = _run(1, args.repositories, scratch)
        parallel, parallel_report, parallel_ok = _run(4, args.repositories, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    ratio = parallel / serial
    identical = serial_report == parallel_report
    print(f"date: {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC")
    print(
        f"repositories: {args.repositories}, fake claude: {args.claude_seconds:g}s per call "
        "(/init and the guidance request)"
    )
    print(f"serial (parallel 1): {serial:.2f}s, all succeeded: {serial_ok}")
    print(f"parallel 4:          {parallel:.2f}s, all succeeded: {parallel_ok}")
    print(f"ratio parallel/serial: {ratio:.3f} (target <= {TARGET_RATIO})")
    print(f"reports identical after normalising timings and paths: {identical}")
    ok = serial_ok and parallel_ok and identical and ratio <= TARGET_RATIO
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
