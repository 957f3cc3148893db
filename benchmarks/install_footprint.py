"""What installing each server costs, beside peers installed the same way and the floor.

For each target a fresh virtual environment is made and the target installed into it with
``uv pip install`` (a first, untimed install fills uv's cache, so the timed one measures
resolving, unpacking and linking, not the network): our servers from the wheels of this
checkout (``uv build --all-packages --wheel``; third-party packages from the index, the optional
extras left out), the peers from PyPI, and the floor, a bare ``mcp`` (the SDK every Python MCP
server needs). Reported: install wall time, the environment's size on disk and its number of
distributions, and the best of five ``--help`` runs of the installed command.

Run: ``uv run --locked python benchmarks/install_footprint.py`` (needs the package index).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from mcp_common.workspace import workspace_packages

ROOT = Path(__file__).resolve().parent.parent
PEERS = {"mcp-server-git": "mcp-server-git", "mcp-server-motherduck": "mcp-server-motherduck"}
"""Peer distributions and their commands: the reference git server and the DuckDB server."""


@dataclass(frozen=True)
class Target:
    label: str
    requirement: list[str]
    command: str | None


def targets(wheels: Path) -> list[Target]:
    found = [Target("floor: mcp (the SDK alone)", ["mcp"], None)]
    for package in workspace_packages(ROOT):
        if package.server_command:
            found.append(
                Target(
                    package.distribution,
                    ["--find-links", str(wheels), package.distribution],
                    package.server_command,
                )
            )
    found += [Target(f"peer: {name}", [name], command) for name, command in PEERS.items()]
    return found


def run(argv: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=True)


def install(target: Target, venv: Path) -> float:
    run(["uv", "venv", "--quiet", "--python", sys.executable, str(venv)])
    started = time.perf_counter()
    python = str(venv / "bin" / "python")
    run(["uv", "pip", "install", "--quiet", "--python", python, *target.requirement])
    return time.perf_counter() - started


def size_of(directory: Path) -> int:
    return sum(path.stat().st_size for path in directory.rglob("*") if path.is_file())


def best_help(command: Path) -> float:
    best = float("inf")
    for _ in range(5):
        started = time.perf_counter()
        subprocess.run([str(command), "--help"], capture_output=True, check=False, timeout=120)
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    print(f"load average before: {' '.join(f'{v:.1f}' for v in os.getloadavg())}")
    with tempfile.TemporaryDirectory(prefix="install-footprint-") as scratch:
        base = Path(scratch)
        wheels = base / "wheels"
        run(["uv", "build", "--all-packages", "--wheel", "--out-dir", str(wheels)], cwd=ROOT)
        print("| install | time s, warm cache | MB | distributions | `--help` s, best of 5 |")
        print("|---|---|---|---|---|")
        for index, target in enumerate(targets(wheels)):
            install(target, base / f"warm-{index}")  # fills uv's cache
            shutil.rmtree(base / f"warm-{index}")
            venv = base / f"venv-{index}"
            seconds = install(target, venv)
            listed = run(["uv", "pip", "list", "--python", str(venv / "bin" / "python")])
            count = len(listed.stdout.strip().splitlines()) - 2  # the two header lines
            help_time = best_help(venv / "bin" / target.command) if target.command else None
            shown = f"{help_time:.2f}" if help_time is not None else "—"
            print(
                f"| {target.label} | {seconds:.1f} | {size_of(venv) / 1e6:.0f} | {count} "
                f"| {shown} |"
            )
            shutil.rmtree(venv)
    print(f"load average after: {' '.join(f'{v:.1f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
