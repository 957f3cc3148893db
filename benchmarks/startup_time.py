"""Startup time of each server command: from spawn to the first ``tools/list`` answer.

Each server runs as a real subprocess over stdio, driven by the SDK client; the time covers
interpreter start, imports, building the tools (the schemas included) and the handshake. With
``--baseline DIR`` (a checkout of an earlier commit with its own ``uv sync`` done) the same
commands of that checkout are timed in alternation with this one's, so both face the same
machine load. Prints the median and the minimum per command and the ratios.

Run: ``uv run python benchmarks/startup_time.py [--baseline DIR] [--rounds N]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import anyio
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = {
    "uniqueness-server": ["--allowed-dir", "{tmp}"],
    "context-server": ["--allowed-dir", "{tmp}"],
    "adopt-server": ["--workspace-root", "{tmp}/adopt"],
}


async def _first_listing(executable: Path, argv: list[str]) -> float:
    parameters = StdioServerParameters(
        command=str(executable), args=argv, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    )
    started = time.perf_counter()
    async with Client(parameters, mode="legacy") as client:
        listing = await client.list_tools()
        elapsed = time.perf_counter() - started
    assert listing.tools
    return elapsed


def _time(checkout: Path, command: str, tmp: str) -> float:
    executable = checkout / ".venv" / "bin" / command
    argv = [word.format(tmp=tmp) for word in COMMANDS[command]]
    return anyio.run(_first_listing, executable, argv)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--baseline", type=Path, help="an earlier checkout to compare with")
    parser.add_argument("--rounds", type=int, default=7, help="timed starts per command")
    options = parser.parse_args()
    checkouts = {"current": ROOT}
    if options.baseline:
        checkouts = {"baseline": options.baseline.resolve(), **checkouts}
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "adopt").mkdir()
        print(f"load average before: {os.getloadavg()[0]:.1f}")
        print("| command | checkout | median s | min s |")
        print("|---|---|---|---|")
        medians: dict[tuple[str, str], float] = {}
        for command in COMMANDS:
            samples: dict[str, list[float]] = {name: [] for name in checkouts}
            for checkout in checkouts.values():  # warm the file cache once each
                _time(checkout, command, tmp)
            for _ in range(options.rounds):
                for name, checkout in checkouts.items():
                    samples[name].append(_time(checkout, command, tmp))
            for name, values in samples.items():
                medians[(command, name)] = statistics.median(values)
                print(
                    f"| {command} | {name} | {medians[(command, name)]:.3f} | {min(values):.3f} |"
                )
        if options.baseline:
            for command in COMMANDS:
                ratio = medians[(command, "current")] / medians[(command, "baseline")]
                print(f"{command}: current / baseline median = {ratio:.3f}")
        print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
