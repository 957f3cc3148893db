"""context-server's on-disk index store: is a restarted server warm?

Run: ``uv run python benchmarks/context_store.py --repo DIR`` (any checkout; it is copied to a
scratch directory first, the copy is changed, the checkout never is).

Every phase runs in a fresh Python process, as a restarted server would, and times the first
``project_tree`` call (indexing included) with the wall clock, reading what the index did from
the server's own log line (``indexed …: N files parsed, … restored from the index store``):

- ``cold, no store``: the baseline, parsing everything (``--no-index-store``);
- ``cold, empty store``: the same plus writing the store;
- ``restart``: a new process with the store filled (goal: under 2 s on an 11,000-file
  framework), then ``warm`` the second call in that process (the in-memory cache);
- ``one file changed``: a source edited between two processes (exactly 1 file parsed);
- ``every file touched``: all mtimes changed, no content (a branch switched and back): read
  and hashed, nothing parsed.

"Whole process" adds the interpreter's start-up and imports (what a client waiting for a
restarted server sees before its first answer). Peak RSS is the process's own high-water
mark. Restarts are ranked by CPU time (the stable figure on a shared machine) for the
median. Wall times depend on the machine's load; compare the ratios to the cold baseline
measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

GOAL_SECONDS = 2.0
_SOURCE_SUFFIXES = (".java", ".kt", ".py", ".ts", ".go", ".rs", ".cs", ".scala", ".js")


class _IndexLines(logging.Handler):
    """Keeps the service's ``indexed …`` log lines: what each build did, as a user sees it."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if message.startswith("indexed "):
            self.lines.append(message.split(": ", 1)[1])


def worker(root: Path, store: str, calls: int) -> dict[str, Any]:
    """Time ``calls`` project_tree calls in this (fresh) process."""
    from context_server.server import ContextSettings, tools_from_settings
    from mcp_common import invoke

    lines = _IndexLines()
    logger = logging.getLogger("context_server")
    logger.addHandler(lines)
    logger.setLevel(logging.DEBUG)
    flags: dict[str, Any] = {"allowed_dir": [str(root)]}
    if store == "none":
        flags["no_index_store"] = True
    else:
        flags["index_store_dir"] = store
    (tree,) = [
        t
        for t in tools_from_settings(ContextSettings(**flags))
        if t.definition.name == "project_tree"
    ]
    seconds, cpu = [], []
    for _ in range(calls):
        started, used = time.perf_counter(), time.process_time()
        result = invoke(tree, {"path": str(root)})
        seconds.append(time.perf_counter() - started)
        cpu.append(time.process_time() - used)
        assert not result.is_error, result.text
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"seconds": seconds, "cpu": cpu, "index": lines.lines, "peak_mb": peak}


def _run(root: Path, store: str, calls: int = 1) -> dict[str, Any]:
    command = [sys.executable, __file__, "--worker", str(root), "--store", store]
    command += ["--calls", str(calls)]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    result: dict[str, Any] = json.loads(done.stdout)
    result["process"] = time.perf_counter() - started
    return result


def _row(phase: str, run: dict[str, Any], cold: dict[str, Any], call: int = 0) -> str:
    seconds, cpu = run["seconds"][call], run["cpu"][call]
    line = run["index"][call] if call < len(run["index"]) else "(from memory)"
    process = "" if call else f"{run['process']:.2f}"
    return (
        f"| {phase} | {seconds:.2f} | {cpu:.2f} | {cold['cpu'][0] / cpu:.1f}x | {process} "
        f"| {line} | {run['peak_mb']:.0f} |"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, help="the checkout to measure (copied first)")
    parser.add_argument("--restarts", type=int, default=3, help="restarts to take the median of")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--store", default="none", help=argparse.SUPPRESS)
    parser.add_argument("--calls", type=int, default=1, help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.worker is not None:
        json.dump(worker(options.worker, options.store, options.calls), sys.stdout)
        return 0
    if options.repo is None:
        parser.error("--repo is required")
    with tempfile.TemporaryDirectory(prefix="context-store-bench-") as scratch:
        root = Path(scratch) / options.repo.resolve().name
        shutil.copytree(options.repo, root, ignore=shutil.ignore_patterns(".git"), symlinks=True)
        store = str(Path(scratch) / "store")
        cold = _run(root, "none")
        base = cold
        rows = [
            _row("cold, no store", cold, base),
            _row("cold, empty store", _run(root, store), base),
        ]
        restarts = sorted(
            (_run(root, store, calls=2) for _ in range(options.restarts)),
            key=lambda run: float(run["cpu"][0]),
        )
        middle = restarts[len(restarts) // 2]
        rows.append(_row("restart (median)", middle, base))
        rows.append(_row("warm, same process", middle, base, call=1))
        sources = sorted(
            path for path in root.rglob("*") if path.suffix in _SOURCE_SUFFIXES and path.is_file()
        )
        with sources[len(sources) // 2].open("a", encoding="utf-8") as changed:
            changed.write("\n// changed by benchmarks/context_store.py\n")
        rows.append(_row("one file changed", _run(root, store), base))
        later = time.time() + 60
        for path in sources:
            os.utime(path, (later, later))
        rows.append(_row("every file touched", _run(root, store), base))
    print(f"# context-server index store on {options.repo.name} ({len(sources)} source files)\n")
    print(
        "| Phase | Call wall (s) | Call CPU (s) | vs cold (CPU) | Whole process wall (s) "
        "| What the index did | Peak RSS (MB) |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    print("\n".join(rows))
    wall, cpu = float(middle["seconds"][0]), float(middle["cpu"][0])
    verdict = "met" if wall < GOAL_SECONDS else "missed"
    measured = ", ".join(f"{run['seconds'][0]:.2f}/{run['cpu'][0]:.2f}" for run in restarts)
    print(
        f"\nRestart goal (first call < {GOAL_SECONDS:.0f} s wall): {verdict} here "
        f"({wall:.2f} s wall, {cpu:.2f} s CPU; every restart wall/CPU: {measured})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
