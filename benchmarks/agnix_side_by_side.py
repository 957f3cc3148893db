"""agent-config-check beside agnix, on public repositories and on a generated collection.

Both checkers run with their defaults, side by side in one run (interleaved, best of N), on:

- the agent configuration of public repositories, each extracted from a local mirror (a bare
  git directory, as ``fetch`` leaves them under ``/work/.mirror/<owner>+<name>/repo``);
- a generated collection of 4,000 Claude Code definition files (sub-agents, commands, skills);
- an empty directory (start-up).

Ours runs as the script the guards commit (a fresh ``python3 -I``), agnix as its released
binary from PyPI, installed for the benchmark only (nothing here downloads: populate uv's cache
once with ``uvx --from agnix==0.59.3 agnix --version``). Wall times are the best of
``--repeat``; CPU times (user + system, of the child) are reported beside them because they
survive a loaded machine. Each repository's findings of both tools are written to
``--details`` for reading side by side; docs/agent-config-check.md records what that reading
found (agreements, differences, who is right).

    uv run --locked python benchmarks/agnix_side_by_side.py [--repeat 3] [--details DIR]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from agent_config_check.script import script

MIRRORS = Path("/work/.mirror")
REPOSITORIES = (
    "anthropics/claude-code",
    "anthropics/skills",
    "anthropics/claude-plugins-official",
    "wshobson/agents",
    "obra/superpowers",
    "VoltAgent/awesome-claude-code-subagents",
    "davila7/claude-code-templates",
    "github/awesome-copilot",
    "hesreallyhim/awesome-claude-code",
    "modelcontextprotocol/python-sdk",
    "pydantic/pydantic-ai",
    "jlowin/fastmcp",
    "getsentry/sentry-python",
    "astral-sh/ruff",
    "colinhacks/zod",
    "adamw7/tools",
)
"""Sixteen repositories: Claude Code itself and its plugin marketplace, skill and agent
collections, a Copilot collection, and projects that keep CLAUDE.md/AGENTS.md."""
AGNIX_PACKAGE = "agnix==0.59.3"
COLLECTION_SIZE = 4000


def extract(git_dir: Path, target: Path) -> int:
    """Write the files of ``HEAD`` under ``target`` (symbolic links kept, executable bits
    kept, blobs the mirror lacks skipped); returns how many files were written."""
    listing = subprocess.run(
        ["git", "--git-dir", str(git_dir), "ls-tree", "-r", "-z", "HEAD"],
        capture_output=True,
        check=True,
    ).stdout
    entries = []
    for item in listing.split(b"\0"):
        if item:
            meta, raw_path = item.split(b"\t", 1)
            mode, kind, sha = meta.split()
            if kind == b"blob":
                entries.append((mode, sha, os.fsdecode(raw_path)))
    reader = subprocess.Popen(
        ["git", "--git-dir", str(git_dir), "cat-file", "--batch"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert reader.stdin is not None
    assert reader.stdout is not None
    written = 0
    for mode, sha, path in entries:
        reader.stdin.write(sha + b"\n")
        reader.stdin.flush()
        header = reader.stdout.readline().split()
        if header[1] == b"missing":
            continue
        data = reader.stdout.read(int(header[2]))
        reader.stdout.read(1)
        destination = target / path
        destination.parent.mkdir(parents=True, exist_ok=True)
        if mode == b"120000":
            destination.symlink_to(os.fsdecode(data))
        else:
            destination.write_bytes(data)
            if mode == b"100755":
                destination.chmod(0o755)
        written += 1
    reader.stdin.close()
    reader.wait()
    return written


def make_collection(root: Path, size: int) -> None:
    """A collection of ``size`` definition files, a third each sub-agents, commands and
    skills, each with front matter and a 40-line body, beside a CLAUDE.md."""
    root.mkdir()
    (root / "CLAUDE.md").write_text("# Collection\n\nDefinitions for every team.\n", "utf-8")
    body = "\n".join(f"Step {i}: do the thing carefully and report." for i in range(40))
    for index in range(size):
        name = f"task-{index:04d}"
        front = f"---\nname: {name}\ndescription: Handles task number {index}.\n"
        if index % 3 == 0:
            path = root / ".claude" / "agents" / f"{name}.md"
            text = f"{front}tools: Read, Grep, Glob\nmodel: sonnet\n---\n\n{body}\n"
        elif index % 3 == 1:
            path = root / ".claude" / "commands" / f"{name}.md"
            head = f"---\ndescription: Runs task {index}.\nallowed-tools: Bash(make:*)\n---\n"
            text = f"{head}\n{body}\n"
        else:
            path = root / ".claude" / "skills" / name / "SKILL.md"
            text = f"{front}---\n\n{body}\n"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def timed(command: list[str], cwd: Path) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """Wall and CPU seconds of one run of ``command``, and its result."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done


def ours_counts(output: str) -> Counter[str]:
    document = json.loads(output)
    return Counter(v["severity"] for v in document["violations"])


def agnix_counts(output: str) -> Counter[str]:
    document = json.loads(output)
    return Counter(d["level"] for d in document["diagnostics"])


def agnix_binary() -> str:
    """The agnix executable of uv's cached tool environment (run directly, so uv's own
    start-up is not counted as agnix's)."""
    found = subprocess.run(
        [
            "uvx",
            "--offline",
            "--from",
            AGNIX_PACKAGE,
            "python",
            "-c",
            "import os, sys; print(os.path.join(os.path.dirname(sys.executable), 'agnix'))",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return found.stdout.strip()


def compare(
    name: str, target: Path, checker: Path, agnix: str, repeat: int, details: Path | None
) -> dict:
    ours = [sys.executable, "-I", str(checker), "--format", "json", "."]
    theirs = [agnix, "--format", "json", "."]
    best: dict[str, tuple[float, float]] = {}
    results: dict[str, subprocess.CompletedProcess[str]] = {}
    for _ in range(repeat):
        for label, command in (("ours", ours), ("agnix", theirs)):
            wall, cpu, done = timed(command, target)
            previous = best.get(label, (float("inf"), float("inf")))
            best[label] = (min(previous[0], wall), min(previous[1], cpu))
            results[label] = done
    if details is not None:
        for label, done in results.items():
            (details / f"{name.replace('/', '+')}.{label}.json").write_text(done.stdout, "utf-8")
    return {
        "name": name,
        "ours": (results["ours"].returncode, ours_counts(results["ours"].stdout), best["ours"]),
        "agnix": (
            results["agnix"].returncode,
            agnix_counts(results["agnix"].stdout),
            best["agnix"],
        ),
    }


def row(entry: dict) -> str:
    cells = [entry["name"]]
    for label in ("ours", "agnix"):
        code, counts, (wall, cpu) = entry[label]
        errors = counts.get("error", 0)
        warnings = counts.get("warn", 0) + counts.get("warning", 0)
        cells.append(f"{code} / {errors} / {warnings} / {wall:.2f} s ({cpu:.2f} s CPU)")
    return "| " + " | ".join(cells) + " |"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--details", type=Path, help="write both tools' findings here")
    parser.add_argument("--mirrors", type=Path, default=MIRRORS)
    options = parser.parse_args()
    if options.details:
        options.details.mkdir(parents=True, exist_ok=True)
    header = (
        "| input | ours: exit / errors / warnings / best time | "
        "agnix: exit / errors / warnings / best time |\n| --- | --- | --- |"
    )
    with tempfile.TemporaryDirectory(prefix="agnix-bench-") as scratch:
        work = Path(scratch)
        checker = work / "agent-config-check.py"
        checker.write_text(script(), encoding="utf-8")
        print(f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, load {os.getloadavg()}")
        agnix = agnix_binary()
        print(f"agnix {AGNIX_PACKAGE} (its binary); ours: python3 -I {checker.name} (committed)\n")
        print(header)
        empty = work / "empty"
        empty.mkdir()
        print(
            row(compare("empty directory (start-up)", empty, checker, agnix, options.repeat, None))
        )
        collection = work / "collection"
        make_collection(collection, COLLECTION_SIZE)
        entry = compare(
            f"generated collection, {COLLECTION_SIZE} definitions",
            collection,
            checker,
            agnix,
            options.repeat,
            None,
        )
        print(row(entry))
        for repository in REPOSITORIES:
            mirror = options.mirrors / repository.replace("/", "+") / "repo"
            if not mirror.is_dir():
                print(f"| {repository} | not mirrored here | |")
                continue
            target = work / repository.replace("/", "+")
            target.mkdir()
            extract(mirror, target)
            print(row(compare(repository, target, checker, agnix, options.repeat, options.details)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
