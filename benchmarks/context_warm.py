"""Warm calls of context-server against the protocol floor, at any repository size (issue 26).

Both servers are real subprocesses over stdio, driven by the SDK client and measured side by
side in one run, call for call: the floor is a bare MCP SDK server answering ``echo``
(``adapter_overhead.py --serve raw``); ours is ``context-server`` answering ``find_context``,
``find_usages``, ``project_tree`` and ``repo_map`` on a project it has indexed already (the
first call of each is the warm-up). Each measured call of ours follows one call of the
floor, so both see the same machine load.

Modes (any combination; each prints a Markdown table):

- ``--repo DIR --class NAME``: a small real repository. Target: each warm call within the
  floor + 10 ms (medians).
- ``--repo DIR --class NAME --edit FILE``: the first call after an edit. Each round edits
  FILE (a root-relative source file; a comment line appended, a new one each time) and then
  calls one tool, which pays for bringing the index up to date; the same tool is called
  once more right after (warm). No target: before and after are compared in
  docs/benchmarks.md. The file is restored at the end.
- ``--sizes 2000,20000``: generated Java/Kotlin projects, the larger one being the smaller
  plus other packages that nothing in it uses, so that find_context and find_usages give
  the same answer in both (checked). Target: the largest warm cost within 2x of the
  smallest's, per tool.
- ``--monorepo DIR --mono-class NAME``: a large tree (``--from-git GIT_DIR --copies 10``
  builds it first when DIR does not exist: that many ``git archive`` copies of a fetched
  repository, e.g. spring-framework, side by side; keep DIR outside the repository): cold
  index (first call, wall), warm calls,
  restart from the index store (first call of a new process), peak RSS of the server
  (``VmHWM``). Targets: cold <= 120 s, warm < 100 ms, restart < 5 s, peak RSS < 1 GB.
- ``--side-by-side DIR:NAME --aider PYTHON`` (repeatable): our ``repo_map`` focused on NAME
  and Aider's RepoMap with NAME mentioned (``aider_repo_map.py`` run by PYTHON, an
  environment of its own holding Aider), on the same tree: cold (a new server with an empty
  store; Aider without its tags cache), warm (ours: later calls to that server; Aider: the
  map forced to be recomputed in its process), a new process on the kept store or cache,
  CPU beside wall, peak RSS, and whether each answer names NAME. No target: a comparison.

Run: ``uv run python benchmarks/context_warm.py --repo DIR --class Engine --sizes 2000,20000``.
Exits non-zero when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from context_bench import generate  # noqa: E402

SERVER = Path(sys.executable).with_name("context-server")
FLOOR = [
    sys.executable,
    str(HERE / "adapter_overhead.py"),
    "--serve",
    "raw",
    "--transport",
    "stdio",
]
DATA = HERE / ".data" / "context-warm"
AIDER_SCRIPT = HERE / "aider_repo_map.py"
MAP_BUDGET = 1024
TOOLS = ("find_context", "find_usages", "project_tree", "repo_map")
TIMEOUT = 3600.0


def arguments(tool: str, name: str) -> dict[str, Any]:
    if tool in {"find_context", "find_usages"}:
        return {"path": ".", "className": name}
    return {"path": "."}


_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass
class Server:
    client: Client
    log_file: Path

    def cpu(self) -> float:
        """The server process's CPU time so far (user + system, every thread)."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _TICKS

    def children_cpu(self) -> float:
        """CPU time of the server's children (the parse workers) so far: those that ended
        and those still running (a small project's parse child lives as long as the server)."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks = int(fields[13]) + int(fields[14])
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                child = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue  # ended meanwhile: then counted above, on the next reading
            if int(child[1]) == self.pid:
                ticks += sum(int(value) for value in child[11:15])
        return ticks / _TICKS

    @property
    def pid(self) -> int:
        """The server process (found by its unique marker on its command line or in its
        environment: the log file, or the floor's pid file)."""
        wanted = str(self.log_file).encode()
        pid_file = self.log_file.with_suffix(".pid")
        if pid_file.is_file():
            return int(pid_file.read_text())
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    if wanted in (entry / "cmdline").read_bytes():
                        return int(entry.name)
                except OSError:
                    continue
        raise RuntimeError("server process not found")

    def peak_rss_mb(self, pid: int | None = None) -> float:
        for line in Path(f"/proc/{pid or self.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def live_children_peak_rss_mb(self) -> float:
        """The peak RSS of the server's children still running, added up."""
        total = 0.0
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    child = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                    if int(child[1]) == self.pid:
                        total += self.peak_rss_mb(int(entry.name))
                except OSError:
                    continue
        return total

    async def call(self, tool: str, args: dict[str, Any]) -> tuple[float, dict[str, Any]]:
        start = time.perf_counter()
        result = await self.client.call_tool(tool, args, read_timeout_seconds=TIMEOUT)
        elapsed = time.perf_counter() - start
        if result.is_error:
            raise RuntimeError(f"{tool} failed: {result.content}")
        return elapsed, result.structured_content or {}


@asynccontextmanager
async def serve(command: list[str], log_file: Path, cwd: Path) -> AsyncIterator[Server]:
    # the floor writes its pid here (adapter_overhead.py's convention)
    env = {**os.environ, "ADAPTER_BENCH_PID_FILE": str(log_file.with_suffix(".pid"))}
    params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(cwd), env=env)
    async with Client(params, read_timeout_seconds=TIMEOUT) as client:
        yield Server(client, log_file)


def ours(root: Path, log_file: Path, store: Path) -> list[str]:
    return [str(SERVER), "--allowed-dir", str(root), "--log-file", str(log_file),
            "--index-store-dir", str(store)]  # fmt: skip


@dataclass
class Warm:
    ours: dict[str, list[float]]
    floor: list[float]
    answers: dict[str, dict[str, Any]]
    # server CPU seconds per call (the stable figure on a loaded machine)
    ours_cpu: dict[str, float]
    floor_cpu: float
    # this (client) process's CPU seconds per call: reading, parsing and validating the answer
    client_cpu: dict[str, float]
    floor_client_cpu: float


async def warm_calls(server: Server, floor: Server, name: str, calls: int) -> Warm:
    """``calls`` rounds of every tool, each call after one floor call."""
    times: dict[str, list[float]] = {tool: [] for tool in TOOLS}
    floor_times: list[float] = []
    answers: dict[str, dict[str, Any]] = {}
    cpu: dict[str, float] = dict.fromkeys(TOOLS, 0.0)
    client: dict[str, float] = dict.fromkeys(TOOLS, 0.0)
    floor_cpu = floor_client = 0.0
    for tool in TOOLS:  # warm-up: the first call of each tool
        await server.call(tool, arguments(tool, name))
    await floor.call("echo", {"text": "x"})
    for _ in range(calls):
        for tool in TOOLS:
            before, mine = floor.cpu(), time.process_time()
            elapsed, _ = await floor.call("echo", {"text": "x"})
            floor_client += time.process_time() - mine
            floor_cpu += floor.cpu() - before
            floor_times.append(elapsed)
            before, mine = server.cpu(), time.process_time()
            elapsed, answers[tool] = await server.call(tool, arguments(tool, name))
            client[tool] += time.process_time() - mine
            cpu[tool] += server.cpu() - before
            times[tool].append(elapsed)
    per_call = {tool: cpu[tool] / calls for tool in TOOLS}
    client_per_call = {tool: client[tool] / calls for tool in TOOLS}
    rounds = calls * len(TOOLS)
    return Warm(
        times, floor_times, answers, per_call, floor_cpu / rounds, client_per_call,
        floor_client / rounds,
    )  # fmt: skip


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


async def small_repository(root: Path, name: str, calls: int, scratch: Path) -> bool:
    print(f"\n### Warm calls on `{root.name}` ({calls} rounds, medians)\n")
    async with (
        serve(FLOOR, scratch / "floor.log", root) as floor,
        serve(
            ours(root, scratch / "small.log", scratch / "store"), scratch / "small.log", root
        ) as server,
    ):
        warm = await warm_calls(server, floor, name, calls)
    base = median(warm.floor)
    print(
        "| tool | ours p50 ms | ours p90 ms | floor p50 ms | ours - floor ms | target "
        "| ours server CPU ms/call | floor server CPU ms/call | ours client CPU ms/call "
        "| floor client CPU ms/call | answer |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    ok = True
    for tool in TOOLS:
        values = sorted(warm.ours[tool])
        extra = median(values) - base
        met = extra <= 0.010
        ok &= met
        p90 = values[int(len(values) * 0.9) - 1]
        print(
            f"| {tool} | {ms(median(values))} | {ms(p90)} | {ms(base)} | {ms(extra)} "
            f"| floor + 10 ms: {'met' if met else 'MISSED'} | {ms(warm.ours_cpu[tool])} "
            f"| {ms(warm.floor_cpu)} | {ms(warm.client_cpu[tool])} "
            f"| {ms(warm.floor_client_cpu)} | {summary(tool, warm.answers[tool])} |"
        )
    return ok


def summary(tool: str, answer: dict[str, Any]) -> str:
    """What the answer holds, in a few words (to see that it answers the question)."""
    if tool == "find_context":
        target = answer["target"]
        return f"`{target['symbol']}` in {target['path']}, {len(answer['dependencies'])} deps"
    if tool == "find_usages":
        return f"`{answer['symbol']}`: {answer['page']['total']} users"
    if tool == "project_tree":
        return f"{answer['page']['returned']} of {answer['page']['total']} nodes"
    return f"{len(answer['files'])} of {answer['rankedFiles']} files, {answer['tokens']} tokens"


COMMENTS = {".py": "#"}
"""How a line comment starts, by file suffix (``//`` otherwise)."""


async def edited_repository(
    root: Path, name: str, relative: str, calls: int, scratch: Path
) -> None:
    """Rounds of: edit ``relative``, call one tool (the first call after the edit), call it
    again (warm); each call after one floor call."""
    path = root / relative
    original = path.read_text(encoding="utf-8")
    comment = COMMENTS.get(path.suffix, "//")
    first: dict[str, list[float]] = {tool: [] for tool in TOOLS}
    warm: dict[str, list[float]] = {tool: [] for tool in TOOLS}
    first_cpu: dict[str, float] = dict.fromkeys(TOOLS, 0.0)
    warm_cpu: dict[str, float] = dict.fromkeys(TOOLS, 0.0)
    floor_times: list[float] = []
    log_file = scratch / "edited.log"
    print(f"\n### First call after editing `{relative}` in `{root.name}` ({calls} rounds)\n")
    async with (
        serve(FLOOR, scratch / "floor.log", root) as floor,
        serve(ours(root, log_file, scratch / "store"), log_file, root) as server,
    ):
        try:
            for tool in TOOLS:  # warm-up: the index and what each tool derives from it
                await server.call(tool, arguments(tool, name))
            for number in range(calls):
                for tool in TOOLS:
                    path.write_text(
                        f"{original}\n{comment} context_warm edit {number} {tool}\n",
                        encoding="utf-8",
                    )
                    for times, cpu in ((first, first_cpu), (warm, warm_cpu)):
                        floor_times.append((await floor.call("echo", {"text": "x"}))[0])
                        before = server.cpu()
                        elapsed, _ = await server.call(tool, arguments(tool, name))
                        cpu[tool] += server.cpu() - before
                        times[tool].append(elapsed)
        finally:
            path.write_text(original, encoding="utf-8")
    print(
        "| tool | first call after an edit p50 ms | p90 ms | server CPU ms/call "
        "| warm call p50 ms | warm server CPU ms/call | floor p50 ms |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for tool in TOOLS:
        values = sorted(first[tool])
        p90 = values[max(int(len(values) * 0.9) - 1, 0)]
        print(
            f"| {tool} | {ms(median(values))} | {ms(p90)} | {ms(first_cpu[tool] / calls)} "
            f"| {ms(median(warm[tool]))} | {ms(warm_cpu[tool] / calls)} "
            f"| {ms(median(floor_times))} |"
        )


def sized_project(size: int, smallest: int) -> Path:
    """``size`` files: the ``smallest`` project plus packages nothing in it uses."""
    root = DATA / f"sized-{size}"
    generate(root / "core", smallest)
    if size > smallest:
        generate(root / "zextra", size - smallest, seed=8, package="org.extra", prefix="Extra")
    return root


def comparable(tool: str, answer: dict[str, Any]) -> object:
    if tool == "project_tree":
        return [node for node in answer.get("nodes", []) if node["path"].startswith("core")]
    if tool == "repo_map":
        return None  # ranked over the whole project: not the same answer
    return answer


async def sizes(values: list[int], calls: int, scratch: Path) -> bool:
    smallest = min(values)
    name = "Type00042"
    print(f"\n### Warm cost against repository size ({calls} rounds, medians)\n")
    results: dict[int, tuple[Warm, float]] = {}
    for size in values:
        root = sized_project(size, smallest)
        log_file = scratch / f"sized-{size}.log"
        async with (
            serve(FLOOR, scratch / "floor.log", root) as floor,
            serve(ours(root, log_file, scratch / "store"), log_file, root) as server,
        ):
            results[size] = (await warm_calls(server, floor, name, calls), 0.0)
    first = results[smallest][0]
    header = " | ".join(f"{size} files ms" for size in values)
    cpu_header = " | ".join(f"{size} files CPU ms" for size in values)
    print(
        f"| tool | {header} | floor p50 ms | largest / smallest (minus floor) | target "
        f"| {cpu_header} | CPU largest / smallest |"
    )
    columns = 2 * len(values) + 5
    print("| " + " | ".join("---" for _ in range(columns)) + " |")
    ok = True
    for tool in TOOLS:
        medians = {size: median(results[size][0].ours[tool]) for size in values}
        floors = [median(results[size][0].floor) for size in values]
        base = min(floors)
        largest = max(values)
        ratio = (medians[largest] - base) / max(medians[smallest] - base, 1e-4)
        raw = medians[largest] / medians[smallest]
        met = raw <= 2.0
        same = all(
            comparable(tool, results[size][0].answers[tool])
            == comparable(tool, first.answers[tool])
            for size in values
        )
        ok &= met and same
        cells = " | ".join(ms(medians[size]) for size in values)
        cpus = {size: results[size][0].ours_cpu[tool] for size in values}
        cpu_cells = " | ".join(ms(cpus[size]) for size in values)
        cpu_ratio = cpus[largest] / max(cpus[smallest], 1e-4)
        print(
            f"| {tool} | {cells} | {ms(base)} | {raw:.2f}x ({ratio:.2f}x) "
            f"| <= 2x{'' if same else ', ANSWERS DIFFER'}: {'met' if met else 'MISSED'} "
            f"| {cpu_cells} | {cpu_ratio:.2f}x |"
        )
    return ok


def build_monorepo(root: Path, git_dir: Path, copies: int) -> None:
    """``copies`` copies of the ``HEAD`` of ``git_dir`` under ``root/copyN``."""
    for number in range(copies):
        target = root / f"copy{number}"
        target.mkdir(parents=True)
        archive = subprocess.Popen(
            ["git", f"--git-dir={git_dir}", "archive", "HEAD"], stdout=subprocess.PIPE
        )
        subprocess.run(["tar", "-x", "-C", str(target)], stdin=archive.stdout, check=True)
        if archive.wait() != 0:
            raise RuntimeError(f"git archive of {git_dir} failed")


async def monorepo(root: Path, name: str, calls: int, scratch: Path) -> bool:
    files = sum(len(f) for _, _, f in os.walk(root))
    print(f"\n### Monorepo `{root.name}` ({files} files)\n")
    store = scratch / "mono-store"
    shutil.rmtree(store, ignore_errors=True)
    rows: list[tuple[str, str, str, bool]] = []
    log_file = scratch / "mono-1.log"
    async with (
        serve(FLOOR, scratch / "floor.log", root) as floor,
        serve(ours(root, log_file, store), log_file, root) as server,
    ):
        before, workers = server.cpu(), server.children_cpu()
        cold, _ = await server.call("project_tree", {"path": "."})
        spent, workers = server.cpu() - before, server.children_cpu() - workers
        rows.append(
            (
                "cold index (first project_tree)",
                f"{cold:.1f} s (server CPU {spent:.1f} s, parse workers {workers:.1f} s)",
                "<= 120 s",
                cold <= 120,
            )
        )
        warm = await warm_calls(server, floor, name, calls)
        for tool in TOOLS:
            value = median(warm.ours[tool])
            shown = f"{ms(value)} ms (server CPU {ms(warm.ours_cpu[tool])} ms)"
            rows.append((f"warm {tool} (p50)", shown, "< 100 ms", value < 0.1))
        rows.append(("floor echo (p50)", f"{ms(median(warm.floor))} ms", "", True))
        rss = server.peak_rss_mb()
        rows.append(("peak RSS, first process", f"{rss:.0f} MB", "< 1 GB", rss < 1024))
    log_file = scratch / "mono-2.log"
    async with serve(ours(root, log_file, store), log_file, root) as server:
        before = server.cpu()
        restart, _ = await server.call("project_tree", {"path": "."})
        spent = server.cpu() - before
        rows.append(("restart from the store (first call)",
                     f"{restart:.2f} s (server CPU {spent:.2f} s)", "< 5 s",
                     restart < 5))  # fmt: skip
        again, _ = await server.call("project_tree", {"path": "."})
        rows.append(("warm project_tree after restart", f"{ms(again)} ms", "< 100 ms", again < 0.1))
        rss = server.peak_rss_mb()
        rows.append(("peak RSS, restarted process", f"{rss:.0f} MB", "< 1 GB", rss < 1024))
    print("| measure | value | target | |")
    print("| --- | --- | --- | --- |")
    for measure, figure, target, met in rows:
        verdict = "met" if met else "MISSED" if target else ""
        print(f"| {measure} | {figure} | {target} | {verdict} |")
    return all(met for _, _, _, met in rows)


async def our_map(root: Path, name: str, calls: int, scratch: Path) -> list[str]:
    """Table cells for our repo_map focused on ``name``: cold, warm, a restart."""
    store = scratch / f"map-store-{root.name}"
    args = {"path": ".", "focus": [name], "tokenBudget": MAP_BUDGET}
    log_file = scratch / f"map-{root.name}-1.log"
    async with serve(ours(root, log_file, store), log_file, root) as server:
        before, workers = server.cpu(), server.children_cpu()
        started = time.perf_counter()
        first = await server.client.call_tool("repo_map", args, read_timeout_seconds=TIMEOUT)
        cold = time.perf_counter() - started
        spent = server.cpu() - before + server.children_cpu() - workers
        text = first.content[0].text if first.content and not first.is_error else ""
        tokens = (first.structured_content or {}).get("tokens", "?")
        before = server.cpu()
        warm = [(await server.call("repo_map", args))[0] for _ in range(calls)]
        warm_cpu = (server.cpu() - before) / calls
        rss = server.peak_rss_mb()
        children_rss = server.live_children_peak_rss_mb()
    log_file = scratch / f"map-{root.name}-2.log"
    async with serve(ours(root, log_file, store), log_file, root) as server:
        before, workers = server.cpu(), server.children_cpu()
        restart, _ = await server.call("repo_map", args)
        restart_cpu = server.cpu() - before + server.children_cpu() - workers
    return [
        f"{cold:.2f} s", f"{spent:.2f} s", f"{ms(median(warm))} ms", f"{ms(warm_cpu)} ms",
        f"{restart:.2f} s / {restart_cpu:.2f} s",
        f"{rss:.0f} MB (+ {children_rss:.0f} MB parse child)", str(tokens),
        "yes" if name in text else "**no**",
    ]  # fmt: skip


def aider_map(python: Path, root: Path, name: str, calls: int) -> list[str]:
    # (a warm Aider map of a large tree costs tens of seconds: ``calls`` is kept small there)
    """The same cells for Aider's RepoMap with ``name`` mentioned, in processes of its own."""
    command = [str(python), str(AIDER_SCRIPT), str(root), str(MAP_BUDGET), "--mention", name,
               "--no-top"]  # fmt: skip
    try:
        cold = json.loads(
            subprocess.run(
                [*command, "--repeat", str(calls)], capture_output=True, text=True, check=True
            ).stdout
        )
        again = json.loads(
            subprocess.run(
                [*command, "--keep-cache"], capture_output=True, text=True, check=True
            ).stdout
        )
    finally:
        for cache in root.glob(".aider.tags.cache*"):
            shutil.rmtree(cache)
    same = "" if cold["warm_same"] else " (text changed)"
    return [
        f"{cold['wall']:.2f} s", f"{cold['cpu']:.2f} s", f"{ms(cold['warm_wall'])} ms{same}",
        f"{ms(cold['warm_cpu'])} ms", f"{again['wall']:.2f} s / {again['cpu']:.2f} s",
        f"{cold['peak_mb']:.0f} MB", str(cold["tokens"]), "yes" if cold["mentions"] else "**no**",
    ]  # fmt: skip


async def side_by_side(
    pairs: list[str], aider: Path, calls: int, aider_calls: int, scratch: Path
) -> None:
    print(
        f"\n### repo_map beside Aider's RepoMap (budget {MAP_BUDGET}; warm: ours {calls} "
        f"calls, Aider {aider_calls})\n"
    )
    print(
        "| tree | files | focus / mentioned | map | cold wall | cold CPU | warm p50 wall "
        "| warm CPU/call | new process on the kept store: wall / CPU | peak RSS "
        "| answer tokens | names it |"
    )
    print("| " + " | ".join("---" for _ in range(12)) + " |")
    for pair in pairs:
        directory, _, name = pair.rpartition(":")
        root = Path(directory).resolve()
        files = sum(len(f) for _, _, f in os.walk(root))
        for tool, cells in (
            ("ours", await our_map(root, name, calls, scratch)),
            ("Aider", aider_map(aider, root, name, aider_calls)),
        ):
            print(f"| `{root.name}` | {files} | `{name}` | {tool} | " + " | ".join(cells) + " |")


async def run(options: argparse.Namespace) -> bool:
    ok = True
    with tempfile.TemporaryDirectory(prefix="context-warm-") as temporary:
        scratch = Path(temporary)
        if options.repo and options.edit:
            await edited_repository(
                options.repo.resolve(), options.name, options.edit, options.calls, scratch
            )
        elif options.repo:
            ok &= await small_repository(
                options.repo.resolve(), options.name, options.calls, scratch
            )
        if options.sizes:
            values = sorted(int(v) for v in options.sizes.split(","))
            ok &= await sizes(values, options.calls, scratch)
        if options.side_by_side:
            await side_by_side(
                options.side_by_side, options.aider, options.calls, options.aider_calls, scratch
            )
        if options.monorepo:
            if options.from_git and not options.monorepo.exists():
                build_monorepo(options.monorepo, options.from_git, options.copies)
            ok &= await monorepo(
                options.monorepo.resolve(), options.mono_class, options.calls, scratch
            )
    return ok


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--repo", type=Path, help="a small real repository")
    parser.add_argument("--class", dest="name", default="Engine", help="class asked for there")
    parser.add_argument(
        "--edit", metavar="FILE", help="with --repo: measure the first call after editing FILE"
    )
    parser.add_argument("--sizes", help="generated project sizes, e.g. 2000,20000")
    parser.add_argument("--monorepo", type=Path, help="a large tree (ten copies of a repository)")
    parser.add_argument("--mono-class", default="DispatcherServlet", help="class asked for there")
    parser.add_argument("--from-git", type=Path, help="bare git directory to build it from")
    parser.add_argument("--copies", type=int, default=10, help="copies of --from-git")
    parser.add_argument(
        "--side-by-side", action="append", metavar="DIR:NAME", help="a tree and a class name"
    )
    parser.add_argument("--aider", type=Path, help="interpreter of an environment with Aider")
    parser.add_argument("--aider-calls", type=int, default=3, help="Aider's warm maps per tree")
    parser.add_argument("--calls", type=int, default=30, help="measured rounds per project")
    options = parser.parse_args(argv)
    if options.side_by_side and not options.aider:
        parser.error("--side-by-side needs --aider")
    if options.edit and not options.repo:
        parser.error("--edit needs --repo")
    print(f"load average before: {os.getloadavg()}")
    ok = anyio.run(run, options)
    print(f"\nload average after: {os.getloadavg()}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
