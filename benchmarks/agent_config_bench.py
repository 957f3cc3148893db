"""agent-config-check benchmark: a project with 1,000 Claude Code definition files.

Generates sub-agents, slash commands and skills (front matter, bodies), a CLAUDE.md importing
AGENTS.md, an `.mcp.json`, a `.claude/settings.json` with permissions and a hook, a `.gitignore`
and an OKF bundle, then times, side by side in one run (best of N, interleaved):

- baseline: reading every file of the project once (the I/O any checker must do);
- the checker in process (`run_check`, every rule that applies);
- the committed standalone script run as a fresh `python3 -I` process (what a guard runs).

Target: the standalone script checks the project in under 2 s.

    uv run python benchmarks/agent_config_bench.py [--definitions 1000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from adopt_server.conformance import claude_md_importing_agents_md
from agent_config_check.command import run_check
from agent_config_check.rule_sets import AGENTS_MD_SECTIONS, AGENTS_MD_TITLE
from agent_config_check.script import script

TARGET_SECONDS = 2.0


def _front(name: str, description: str, extra: str = "") -> str:
    body = "\n".join(f"Step {i}: do the {name} thing carefully." for i in range(40))
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\n\n{body}\n"


def make_project(root: Path, definitions: int) -> int:
    """Write the project; returns how many definition files it holds."""
    (root / "CLAUDE.md").write_text(claude_md_importing_agents_md(), encoding="utf-8")
    guide = "".join(
        f"\n{s}\n\nWhat the project says about {s[3:].lower()}.\n" for s in AGENTS_MD_SECTIONS
    )
    (root / "AGENTS.md").write_text(f"{AGENTS_MD_TITLE}\n{guide}", encoding="utf-8")
    servers = {f"server-{i}": {"command": "npx", "args": [f"pkg-{i}"]} for i in range(50)}
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    agents, commands, skills = (root / ".claude" / d for d in ("agents", "commands", "skills"))
    for directory in (agents, commands, skills):
        directory.mkdir(parents=True, exist_ok=True)
    written = 0
    for index in range(definitions):
        kind = index % 3
        name = f"task-{index:04d}"
        if kind == 0:
            text = _front(name, f"Sub-agent number {index}.", "model: sonnet\n")
            (agents / f"{name}.md").write_text(text, encoding="utf-8")
        elif kind == 1:
            text = _front(name, f"Command number {index}.").replace(f"name: {name}\n", "")
            (commands / f"{name}.md").write_text(text, encoding="utf-8")
        else:
            (skills / name).mkdir()
            text = _front(name, f"Skill number {index}.")
            (skills / name / "SKILL.md").write_text(text, encoding="utf-8")
        written += 1
    hooks = root / ".claude" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "start.sh").write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    (hooks / "start.sh").chmod(0o755)
    command = {"type": "command", "command": "$CLAUDE_PROJECT_DIR/.claude/hooks/start.sh"}
    settings = {
        "permissions": {"allow": [f"Bash(tool-{i} *)" for i in range(50)], "deny": ["Read(.env)"]},
        "hooks": {"SessionStart": [{"hooks": [command]}]},
    }
    (root / ".claude" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    (root / ".gitignore").write_text("build/\n/.claude/settings.local.json\n", encoding="utf-8")
    okf = root / "okf" / "concepts"
    okf.mkdir(parents=True)
    for index in range(20):
        text = f"---\ntype: concept\nstatus: stable\n---\n# Concept {index}\n"
        (okf / f"c{index}.md").write_text(text, encoding="utf-8")
    return written


def read_everything(root: Path) -> int:
    """The baseline: read every file once."""
    total = 0
    for current, _, names in os.walk(root):
        for name in names:
            total += len((Path(current) / name).read_bytes())
    return total


def timed(action: object) -> float:
    assert callable(action)
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--definitions", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="agent-config-bench-") as temp:
        root = Path(temp) / "project"
        root.mkdir()
        count = make_project(root, options.definitions)
        standalone = Path(temp) / "agent-config-check.py"
        standalone.write_text(script("bench"), encoding="utf-8")
        outcome = run_check(root)
        command = [sys.executable, "-I", str(standalone), str(root)]
        probe = subprocess.run(command, capture_output=True, text=True, check=False)
        errors = [v for v in outcome.violations if v.severity == "error"]
        assert probe.returncode == (1 if errors else 0), probe.stderr  # warnings exit 0
        times: dict[str, list[float]] = {"baseline": [], "in_process": [], "script": []}
        for _ in range(options.repeat):
            times["baseline"].append(timed(lambda: read_everything(root)))
            times["in_process"].append(timed(lambda: run_check(root)))
            times["script"].append(
                timed(lambda: subprocess.run(command, capture_output=True, check=False))
            )
    best = {key: min(values) for key, values in times.items()}
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"agent-config-check benchmark, {now}, load average {load:.1f}")
    print(f"definition files: {count}; rules run: {', '.join(outcome.checked)}")
    print(f"violations: {len(outcome.violations)}")
    print("| measure | best wall time |")
    print("| --- | --- |")
    print(f"| baseline: read every file | {best['baseline']:.3f} s |")
    print(f"| checker in process | {best['in_process']:.3f} s |")
    print(f"| standalone script, fresh process | {best['script']:.3f} s |")
    ratio = best["in_process"] / best["baseline"] if best["baseline"] else float("nan")
    print(
        f"in process / baseline: {ratio:.1f}x; target script < {TARGET_SECONDS:.0f} s: "
        f"{'met' if best['script'] < TARGET_SECONDS else 'MISSED'}"
    )
    return 0 if best["script"] < TARGET_SECONDS else 1


if __name__ == "__main__":
    raise SystemExit(main())
