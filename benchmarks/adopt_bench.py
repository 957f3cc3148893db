"""adopt-server batch benchmark: 20 local repositories, a fake `claude` that takes one second.

Runs the same batch serially and with `parallel 4`, side by side in one process, each against
its own fresh bare repositories, and checks the reports are identical once timings and
workspace paths are normalised. Target: parallel 4 takes at most 0.35x the serial time.

    uv run python benchmarks/adopt_bench.py [--repositories 20] [--claude-seconds 1]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from adopt_server.pipeline import AdoptionOptions, adopt_repositories, batch_json

FAKES = Path(__file__).resolve().parents[1] / "packages" / "adopt-server" / "tests" / "fakes"
TARGET_RATIO = 0.35


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
    text = json.dumps(document, sort_keys=True)
    for entry in document["repositories"]:
        text = text.replace(json.dumps(entry["elapsedSeconds"]), "0")
    return text.replace(str(root), "<root>")


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repositories", type=int, default=20)
    parser.add_argument("--claude-seconds", type=float, default=1.0)
    args = parser.parse_args()
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
            "FAKE_CLAUDE_SLEEP": str(args.claude_seconds),
        }
    )
    try:
        serial, serial_report, serial_ok = _run(1, args.repositories, scratch)
        parallel, parallel_report, parallel_ok = _run(4, args.repositories, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    ratio = parallel / serial
    identical = serial_report == parallel_report
    print(f"date: {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC")
    print(f"repositories: {args.repositories}, fake claude: {args.claude_seconds:g}s per /init")
    print(f"serial (parallel 1): {serial:.2f}s, all succeeded: {serial_ok}")
    print(f"parallel 4:          {parallel:.2f}s, all succeeded: {parallel_ok}")
    print(f"ratio parallel/serial: {ratio:.3f} (target <= {TARGET_RATIO})")
    print(f"reports identical after normalising timings and paths: {identical}")
    ok = serial_ok and parallel_ok and identical and ratio <= TARGET_RATIO
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
