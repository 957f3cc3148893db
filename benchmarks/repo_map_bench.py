"""Benchmark of ``repo_map``: cold and warm cost against a cold ``project_tree``, budget
discipline, determinism across processes, and the top 10 against hand-labelled central files.

Run: ``uv run python benchmarks/repo_map_bench.py --files 20000 [--repo DIR --labels FILE]``.
The generated project lives in ``benchmarks/.data/`` (git-ignored). Every cold measurement
runs in a fresh process (``--child``), so no cache survives between them; the figures are
that process's CPU time, wall time and peak resident memory.

``--labels`` is a text file of root-relative paths (one a line), the files a person judged
most central before looking at the map; the script prints how many of them the map's top 10
holds.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from context_bench import DATA, generate
from context_server.core.index import IndexCache
from context_server.core.service import ContextService
from context_server.core.tokens import counter
from context_server.tools.project_tree import ProjectTreeTool
from context_server.tools.repo_map import RepoMapTool
from mcp_common import AllowedPaths, invoke

BUDGETS = (1024, 4096)


def child(action: str, root: Path, budget: int) -> dict[str, object]:
    """One cold action in this fresh process: ``tree``, ``map`` or ``map-twice``."""
    service = ContextService(AllowedPaths([root]), IndexCache())
    started_cpu, started = time.process_time(), time.perf_counter()
    text = ""
    warm = warm_cpu = 0.0
    if action == "tree":
        invoke(ProjectTreeTool(service), {"path": str(root), "limit": 1})
    else:
        tool = RepoMapTool(service)
        result = invoke(tool, {"path": str(root), "tokenBudget": budget})
        text = result.text
        if action == "map-twice":
            again, again_cpu = time.perf_counter(), time.process_time()
            invoke(tool, {"path": str(root), "tokenBudget": budget})
            warm, warm_cpu = time.perf_counter() - again, time.process_time() - again_cpu
    cpu, wall = time.process_time() - started_cpu, time.perf_counter() - started
    cpu, wall = cpu - warm_cpu, wall - warm
    files = []
    if text:
        files = [line[4:-1] for line in text.splitlines() if line.startswith("## `")]
    return {
        "cpu": cpu,
        "wall": wall,
        "warm": warm,
        "warm_cpu": warm_cpu,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "tokens": counter("cl100k")(text),
        "digest": hashlib.sha256(text.encode()).hexdigest(),
        "top": files[:10],
    }


def run_child(action: str, root: Path, budget: int, seed: str) -> dict[str, object]:
    command = [sys.executable, __file__, "--child", action, "--root", str(root)]
    command += ["--budget", str(budget)]
    environment = {**os.environ, "PYTHONHASHSEED": seed}
    done = subprocess.run(command, capture_output=True, text=True, check=True, env=environment)
    result: dict[str, object] = json.loads(done.stdout)
    return result


def measure(root: Path, labels: list[str] | None) -> list[str]:
    rows = []
    tree = run_child("tree", root, 1024, "1")
    for budget in BUDGETS:
        first = run_child("map-twice", root, budget, "1")
        second = run_child("map", root, budget, "2")
        rows.append((budget, first, second))
    out = [
        f"Project `{root.name}`; cold `project_tree`: {tree['cpu']:.2f} s CPU, "
        f"{tree['wall']:.2f} s wall, peak {tree['peak_mb']:.0f} MB.",
        "",
        "| budget | cold CPU | cold wall | cold / tree (CPU) | warm CPU | warm wall "
        "| answer tokens | same in 2 processes | peak MB |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for budget, first, second in rows:
        cpu, wall = float(first["cpu"]), float(first["wall"])  # type: ignore[arg-type]
        out.append(
            f"| {budget} | {cpu:.2f} s | {wall:.2f} s | {cpu / float(tree['cpu']):.2f}x "  # type: ignore[arg-type]
            f"| {float(first['warm_cpu']):.3f} s "  # type: ignore[arg-type]
            f"| {float(first['warm']):.3f} s | {first['tokens']} <= {budget} "  # type: ignore[arg-type]
            f"| {'yes' if first['digest'] == second['digest'] else 'NO'} "
            f"| {float(first['peak_mb']):.0f} |"  # type: ignore[arg-type]
        )
    if labels is not None:
        top = list(rows[0][1]["top"])  # type: ignore[call-overload]
        hits = [path for path in top if path in labels]
        out += [
            "",
            f"Top 10 at budget {BUDGETS[0]}: " + ", ".join(f"`{p}`" for p in top),
            f"Hand-labelled central files in it: {len(hits)} of {len(labels)}.",
        ]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=20000, help="generated source files")
    parser.add_argument("--repo", type=Path, help="also map this checkout")
    parser.add_argument("--labels", type=Path, help="hand-labelled central files of --repo")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--root", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--budget", type=int, default=1024, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        sys.stdout.write(json.dumps(child(args.child, args.root, args.budget)) + "\n")
        return 0
    root = DATA / f"repo-map-{args.files}"
    generate(root, args.files)
    lines = measure(root, None)
    if args.repo is not None:
        labels = None
        if args.labels is not None:
            labels = [x.strip() for x in args.labels.read_text().splitlines() if x.strip()]
        lines += ["", *measure(args.repo.resolve(), labels)]
    load = os.getloadavg()[0]
    sys.stdout.write("\n".join(lines) + f"\n\nLoad average at the end: {load:.1f}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
