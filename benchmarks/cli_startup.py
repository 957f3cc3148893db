"""How fast every command of the workspace answers ``--version`` and ``--help``, beside a bare
``python -c pass`` (the floor: an interpreter that starts and exits).

The commands are the console scripts of every workspace package (read from the packages'
``pyproject.toml``, so a new command is measured without edits here). Each round runs every
command once, in alternation with the floor, so machine load hits all of them alike; the table
shows the median and minimum wall time and the minimum CPU time (user + system, from the
child's resource usage: less sensitive to other processes than wall time) and each command's
median over the floor's. Goal: under 0.3 s wall on a quiet machine.

Run: ``uv run --locked python benchmarks/cli_startup.py [--rounds N]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from mcp_common.workspace import workspace_packages

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
FLOOR = "python -c pass"


def commands() -> dict[str, list[str]]:
    """The floor and every ``<command> --version`` / ``<command> --help`` of the workspace."""
    measured = {FLOOR: [sys.executable, "-c", "pass"]}
    for package in workspace_packages(ROOT):
        for command, _ in package.scripts:
            for flag in ("--version", "--help"):
                measured[f"{command} {flag}"] = [str(BIN / command), flag]
    return measured


def run_once(argv: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run of ``argv`` (its output discarded)."""
    started = time.perf_counter()
    process = subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited with {process.returncode}")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=9, help="timed runs per command")
    options = parser.parse_args()
    measured = commands()
    for argv in measured.values():  # warm the file cache and the bytecode once
        run_once(argv)
    walls: dict[str, list[float]] = {name: [] for name in measured}
    cpus: dict[str, list[float]] = {name: [] for name in measured}
    print(f"load average before: {' '.join(f'{v:.1f}' for v in os.getloadavg())}")
    for _ in range(options.rounds):
        for name, argv in measured.items():
            wall, cpu = run_once(argv)
            walls[name].append(wall)
            cpus[name].append(cpu)
    floor = statistics.median(walls[FLOOR])
    print("| command | median wall s | min wall s | min CPU s | median / floor |")
    print("|---|---|---|---|---|")
    for name in measured:
        median = statistics.median(walls[name])
        print(
            f"| `{name}` | {median:.3f} | {min(walls[name]):.3f} | {min(cpus[name]):.3f} "
            f"| {median / floor:.1f} |"
        )
    print(f"load average after: {' '.join(f'{v:.1f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
