"""agent-config-check on hostile repositories: patterns and globs that are linear but heavy.

Each case is a repository whose own `.claude/agent-config-check.json` and `.gitignore` make the
linear-time matchers run thousands of steps a character (issue 23.1), beside a benign twin of
the same size (the same CLAUDE.md, an ordinary pattern and `.gitignore`), both checked side by
side in one run by the committed standalone script as a fresh `python3 -I` process (what CI and
the guards run). Best of N interleaved, wall and CPU time (user + system of the child).

    uv run --locked python benchmarks/agent_config_hostile.py [--repeat 3] [--script FILE]

`--script FILE` runs another build of the script (for example one generated from an older
checkout, to measure "before"); `--timeout` stops a run that takes longer (reported as `>`).
Target: every hostile case within 30 s of CPU (before the matching budget: minutes to hours).
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
from pathlib import Path

from agent_config_check.script import script

TARGET_SECONDS = 30.0
LINES = 40  # CLAUDE.md: 40 lines of 1,000 'a' (40 KB), a '!' after each
CLAUDE_MD = "# Project\n\n" + ("a" * 1_000 + "!\n") * LINES
BENIGN_GITIGNORE = "build/\n*.log\n/.claude/settings.local.json\n"
CASES: dict[str, tuple[dict[str, object], str]] = {
    "secretPatterns (a?){900}a{900}": (
        {"rules": {"noSecrets": {"secretPatterns": ["(a?){900}a{900}"]}}},
        BENIGN_GITIGNORE,
    ),
    "secretPatterns with 100 groups": (
        {"rules": {"noSecrets": {"secretPatterns": ["(a)" * 100 + "!"]}}},
        BENIGN_GITIGNORE,
    ),
    "secretPatterns with 1,200 groups": (
        {"rules": {"noSecrets": {"secretPatterns": ["(a)" * 1_200 + "!"]}}},
        BENIGN_GITIGNORE,
    ),
    ".gitignore *a x 2,000 and x 20,000, a 3,000-character path": (
        {"rules": {"localSettingsIgnored": {"ignoredPaths": ["a" * 3_000]}}},
        "*a" * 2_000 + "\n" + "*a" * 20_000 + "\n",
    ),
    # Enough characters handed to the matchers (300 x 3,001) that the run's cap binds.
    "the run's cap: 300 paths of 3,000 characters against *a x 2,000": (
        {"rules": {"localSettingsIgnored": {"ignoredPaths": ["a" * 3_000] * 300}}},
        "*a" * 2_000 + "\n",
    ),
}
BENIGN: dict[str, object] = {
    "rules": {
        "noSecrets": {"secretPatterns": ["mycorp_[A-Za-z0-9]{32}"]},
        "localSettingsIgnored": {"ignoredPaths": [".claude/settings.local.json"]},
    }
}


def make_project(root: Path, config: dict[str, object], gitignore: str) -> None:
    """A repository with ``config`` as its configuration and ``gitignore``."""
    (root / ".claude").mkdir(parents=True)
    (root / ".claude" / "agent-config-check.json").write_text(json.dumps(config), "utf-8")
    (root / "CLAUDE.md").write_text(CLAUDE_MD, encoding="utf-8")
    (root / ".gitignore").write_text(gitignore, encoding="utf-8")


def run(command: list[str], timeout: float) -> tuple[float, float, str]:
    """Wall time, CPU time of the child, and the outcome (exit status, or a timeout)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
        outcome = f"exit {done.returncode}" + (
            ", budget finding" if "stopped: the budget of" in done.stdout else ""
        )
    except subprocess.TimeoutExpired:
        outcome = f"stopped after {timeout:.0f} s"
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, outcome


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--script", type=Path, help="the script to run (default: generated now)")
    parser.add_argument("--case", default="", help="only the cases whose name contains this")
    options = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="agent-config-hostile-") as temp:
        standalone = options.script or Path(temp) / "agent-config-check.py"
        if options.script is None:
            standalone.write_text(script("bench"), encoding="utf-8")
        benign = Path(temp) / "benign"
        make_project(benign, BENIGN, BENIGN_GITIGNORE)
        for index, (name, (config, gitignore)) in enumerate(CASES.items()):
            if options.case not in name:
                continue
            hostile = Path(temp) / f"hostile-{index}"
            make_project(hostile, config, gitignore)
            best: dict[str, tuple[float, float, str]] = {}
            for _ in range(options.repeat):
                for label, root in (("hostile", hostile), ("benign", benign)):
                    measured = run(
                        [sys.executable, "-I", str(standalone), str(root)], options.timeout
                    )
                    if label not in best or measured[0] < best[label][0]:
                        best[label] = measured
                if best["hostile"][2].startswith("stopped"):
                    break  # one run past the timeout says enough
            rows.append((name, best["hostile"], best["benign"]))
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg()[0]
    print(f"agent-config-check on hostile repositories, {now}, load average {load:.1f}")
    print(f"script: {options.script or 'generated from this checkout'}; CLAUDE.md 40 KB")
    print("| case | hostile: wall (CPU), outcome | benign twin: wall (CPU), outcome |")
    print("| --- | --- | --- |")
    worst = 0.0
    for name, (wall, cpu, outcome), (twin_wall, twin_cpu, twin_outcome) in rows:
        print(
            f"| {name} | {wall:.2f} s ({cpu:.2f} s), {outcome} | "
            f"{twin_wall:.2f} s ({twin_cpu:.2f} s), {twin_outcome} |"
        )
        worst = max(worst, cpu)
    met = worst < TARGET_SECONDS
    print(
        f"target: every hostile case under {TARGET_SECONDS:.0f} s CPU: {'met' if met else 'MISSED'}"
    )
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
