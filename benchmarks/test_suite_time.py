"""What the README's test command costs, session by session: wall time and CPU time.

Each nox session runs alone, one after the other (``uv run --locked nox -s <session>``), and
its wall time and CPU time (user + system of nox and everything it waited for: pytest, its
xdist workers, the servers the tests start) are measured from the session's resource usage.
On a machine shared with other work, wall time says more about the neighbours than about the
suite; CPU time does not, so the total CPU time is the figure to hold against the budget (the
whole command in 10 minutes on 2 idle cores: at most 20 CPU minutes, less the part that cannot
run in parallel). ``--durations N`` passes pytest's slowest-tests report through to the pytest
sessions (printed after the table); ``--sessions`` picks sessions (default: those ``nox`` alone
runs, read from ``nox --list``). The default command itself (``uv run --locked nox``, which may
run sessions side by side) is timed last with ``--whole``.

Run: ``uv run --locked python benchmarks/test_suite_time.py [--durations 50] [--whole]``.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOX = ["uv", "run", "--locked", "nox", "--no-color"]
LISTED = re.compile(r"^([*-]) (\S+)(?: -> |$)")
SUMMARY = re.compile(r"^=+ (.*(?:passed|failed|error|skipped).*) in [\d.]+s", re.MULTILINE)


def default_sessions() -> list[str]:
    """The sessions a bare ``nox`` runs (marked ``*`` by ``nox --list``)."""
    listing = subprocess.run(
        [*NOX, "--list"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    return [
        m.group(2) for line in listing.splitlines() if (m := LISTED.match(line)) and m[1] == "*"
    ]


def timed(argv: list[str]) -> tuple[float, float, int, str]:
    """Wall seconds, CPU seconds, exit status and output of one command."""
    started = time.perf_counter()
    process = subprocess.Popen(
        argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    assert process.stdout is not None
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return (
        time.perf_counter() - started,
        usage.ru_utime + usage.ru_stime,
        process.returncode,
        output,
    )


def load() -> str:
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--sessions", nargs="*", help="sessions to time (default: all)")
    parser.add_argument("--durations", type=int, default=0, help="pytest's slowest N tests")
    parser.add_argument("--whole", action="store_true", help="also time `nox` as a whole")
    parser.add_argument("--log", type=Path, help="write every session's output here")
    options = parser.parse_args()
    sessions = options.sessions or default_sessions()
    print(f"load average before: {load()}", flush=True)
    rows = []
    logs = []
    for session in sessions:
        # sessions that run no pytest ignore the extra arguments
        extra = ["--", f"--durations={options.durations}"] if options.durations else []
        argv = [*NOX, "-s", session, *extra]
        wall, cpu, status, output = timed(argv)
        found = SUMMARY.findall(output)
        result = found[-1] if found else ("ok" if status == 0 else f"exit {status}")
        rows.append((session, wall, cpu, status, result, load()))
        logs.append(f"===== {session} (exit {status})\n{output}")
        print(
            f"{session}: wall {wall:.0f} s, CPU {cpu:.0f} s, exit {status}, {result}, "
            f"load {load()}",
            flush=True,
        )
    if options.whole:
        wall, cpu, status, output = timed(NOX)
        rows.append(("(whole `nox`)", wall, cpu, status, "", load()))
        logs.append(f"===== whole nox (exit {status})\n{output}")
    if options.log:
        options.log.write_text("\n".join(logs), encoding="utf-8")
    print("\n| session | wall s | CPU s | exit | tests | load after |")
    print("|---|---|---|---|---|---|")
    for session, wall, cpu, status, result, after in rows:
        print(f"| {session} | {wall:.0f} | {cpu:.0f} | {status} | {result} | {after} |")
    parts = [row for row in rows if not row[0].startswith("(")]
    print(
        f"| sum of sessions | {sum(r[1] for r in parts):.0f} | {sum(r[2] for r in parts):.0f} "
        "| | | |"
    )
    print(f"load average after: {load()}")
    if any(row[3] for row in rows):
        sys.exit(1)


if __name__ == "__main__":
    main()
