"""Indexing speed and memory of context-server per language, Java as the baseline; and the
precision and recall of ``find_context`` and ``find_usages`` on labelled real code.

Run: ``uv run python benchmarks/context_languages.py --files 2000`` (``--languages a,b``).
For each language it generates a deterministic project (``benchmarks/.data/languages/``,
git-ignored) of N files in 50 packages/modules, each file importing 5 others the way the
language does, with comments and a few members; then it indexes the project cold in a fresh
child process (so each language's peak memory is its own) and reports files/s, CPU time and
peak RSS, and the ratio of CPU time to Java's in the same run. Prints a Markdown block for
``docs/benchmarks.md``.

Accuracy: ``uv run python benchmarks/context_languages.py --accuracy DIR [DIR ...]`` scores
checkouts of public repositories (fetched for measurement only, never committed) against
``benchmarks/labels/<folder>_context.json``: per labelled type, the files its declaration
depends on directly (``find_context``, depth 1) and the files using it (``find_usages``),
each set written by reading the code (see the file's ``method``). It prints precision and
recall per language, micro-averaged over the labelled types (every file found or labelled
counts once per type), and with ``--diffs`` every file found but not labelled or labelled
but not found.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / ".data" / "languages"
PACKAGES = 50
IMPORTS = 5
# Bumped whenever the generated text changes, so a stale project is regenerated.
_LAYOUT = 3

_BODY = """
  // Computes a value from {other}; "{other}" in a string is no use.
  {method}
"""


def _java(i: int, others: list[int]) -> tuple[str, str]:
    package = f"p{i % PACKAGES:02d}"
    imports = "".join(f"import p{j % PACKAGES:02d}.T{j:05d};\n" for j in others)
    fields = "".join(f"  private T{j:05d} f{j};\n" for j in others)
    body = "".join(
        _BODY.format(other=f"T{j:05d}", method=f"int m{j}(int x) {{ return x + {j}; }}")
        for j in others
    )
    text = f"package {package};\n\n{imports}\npublic class T{i:05d} {{\n{fields}{body}}}\n"
    return f"src/{package}/T{i:05d}.java", text


def _script(extension: str) -> Callable[[int, list[int]], tuple[str, str]]:
    def make(i: int, others: list[int]) -> tuple[str, str]:
        package = f"p{i % PACKAGES:02d}"
        imports = "".join(
            f'import {{ T{j:05d} }} from "../p{j % PACKAGES:02d}/t{j:05d}";\n' for j in others
        )
        typed = extension == ".ts"
        fields = "".join(
            f"  f{j}{': T' + format(j, '05d') + ' | null' if typed else ''} = null;\n"
            for j in others
        )
        body = "".join(
            _BODY.format(
                other=f"T{j:05d}",
                method=f"m{j}(x{': number' if typed else ''}) {{ return new T{j:05d}() && x; }}",
            )
            for j in others
        )
        text = f"{imports}\nexport class T{i:05d} {{\n{fields}{body}}}\n"
        return f"src/{package}/t{i:05d}{extension}", text

    return make


def _go(i: int, others: list[int]) -> tuple[str, str]:
    package = f"p{i % PACKAGES:02d}"
    foreign = sorted({j % PACKAGES for j in others} - {i % PACKAGES})
    imports = "".join(f'\tq{k:02d} "bench.example/m/p{k:02d}"\n' for k in foreign)
    fields = "".join(
        f"\tF{j} {'' if j % PACKAGES == i % PACKAGES else f'q{j % PACKAGES:02d}.'}T{j:05d}\n"
        for j in others
    )
    body = "".join(
        _BODY.format(other=f"T{j:05d}", method=f"func (t *T{i:05d}) M{j}(x int) int {{ return x }}")
        for j in others
    )
    block = f"import (\n{imports})\n" if imports else ""
    text = f"package {package}\n\n{block}\ntype T{i:05d} struct {{\n{fields}}}\n{body}"
    return f"{package}/t{i:05d}.go", text


def _rust(i: int, others: list[int]) -> tuple[str, str]:
    package = f"p{i % PACKAGES:02d}"
    imports = "".join(f"use crate::p{j % PACKAGES:02d}::t{j:05d}::T{j:05d};\n" for j in others)
    fields = "".join(f"    f{j}: Option<Box<T{j:05d}>>,\n" for j in others)
    body = "".join(
        _BODY.format(other=f"T{j:05d}", method=f"fn m{j}(x: u32) -> u32 {{ x + {j} }}")
        for j in others
    )
    text = f"{imports}\npub struct T{i:05d} {{\n{fields}}}\n{body}"
    return f"src/{package}/t{i:05d}.rs", text


def _csharp(i: int, others: list[int]) -> tuple[str, str]:
    package = f"P{i % PACKAGES:02d}"
    usings = "".join(
        f"using P{k:02d};\n" for k in sorted({j % PACKAGES for j in others} - {i % PACKAGES})
    )
    fields = "".join(f"    private T{j:05d} f{j};\n" for j in others)
    body = "".join(
        _BODY.format(other=f"T{j:05d}", method=f"int M{j}(int x) => x + {j};") for j in others
    )
    text = f"{usings}\nnamespace {package};\n\npublic class T{i:05d}\n{{\n{fields}{body}}}\n"
    return f"src/{package}/T{i:05d}.cs", text


def _python(i: int, others: list[int]) -> tuple[str, str]:
    package = f"p{i % PACKAGES:02d}"
    imports = "".join(f"from p{j % PACKAGES:02d}.t{j:05d} import T{j:05d}\n" for j in others)
    fields = "".join(f"    f{j}: T{j:05d} | None = None\n" for j in others)
    body = "".join(
        f'\n    # Computes a value from T{j:05d}; "T{j:05d}" in a string is no use.\n'
        f"    def m{j}(self, x: int) -> int:\n        return x + {j}\n"
        for j in others
    )
    text = f"{imports}\n\nclass T{i:05d}:\n{fields}{body}"
    return f"{package}/t{i:05d}.py", text


GENERATORS: dict[str, Callable[[int, list[int]], tuple[str, str]]] = {
    "java": _java,
    "python": _python,
    "typescript": _script(".ts"),
    "javascript": _script(".js"),
    "go": _go,
    "rust": _rust,
    "csharp": _csharp,
}


def generate(language: str, files: int, seed: int = 11) -> Path:
    """The project of ``files`` files of ``language`` (reused when already generated)."""
    root = DATA / f"{language}-{files}"
    marker = root / ".generated"
    stamp = f"{files}:{seed}:{_LAYOUT}"
    if marker.is_file() and marker.read_text() == stamp:
        return root
    shutil.rmtree(root, ignore_errors=True)
    rng = random.Random(seed)
    for i in range(files):
        others = [j for j in rng.sample(range(files), IMPORTS + 1) if j != i][:IMPORTS]
        relative, text = GENERATORS[language](i, others)
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    if language == "python":
        for package in {f"p{i % PACKAGES:02d}" for i in range(files)}:
            (root / package / "__init__.py").write_text("", encoding="utf-8")
    if language == "go":
        (root / "go.mod").write_text("module bench.example/m\n\ngo 1.22\n", encoding="utf-8")
    if language == "rust":
        (root / "Cargo.toml").write_text('[package]\nname = "bench"\n', encoding="utf-8")
        modules = sorted({f"p{i % PACKAGES:02d}" for i in range(files)})
        (root / "src" / "lib.rs").write_text(
            "".join(f"pub mod {m};\n" for m in modules), encoding="utf-8"
        )
        for module in modules:
            members = sorted(p.stem for p in (root / "src" / module).glob("t*.rs"))
            (root / "src" / module / "mod.rs").write_text(
                "".join(f"pub mod {m};\n" for m in members), encoding="utf-8"
            )
    marker.write_text(stamp)
    return root


def measure_one(language: str, root: Path) -> dict[str, float]:
    """Index ``root`` cold in this process; CPU, wall, files and edges."""
    from context_server.core.index import IndexCache
    from context_server.core.languages import select_languages
    from mcp_common import AllowedPaths

    cpu, wall = time.process_time(), time.perf_counter()
    index = IndexCache().build(root, select_languages(language), AllowedPaths([root]))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    edges = sum(len(index.resolver.direct(path).edges) for path in index.sources)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "files": len(index.sources),
        "edges": edges,
        "cpu": cpu,
        "wall": wall,
        "peak_mb": peak,
    }


LABELS = HERE / "labels"


def accuracy(roots: list[Path], diffs: bool) -> list[str]:
    """The accuracy report of the checkouts ``roots`` (see the module's docstring)."""
    from context_server.core.index import IndexCache
    from context_server.core.service import ContextService
    from mcp_common import AllowedPaths, ToolError

    totals: dict[str, dict[str, list[int]]] = {}
    details: list[str] = []
    sources: list[str] = []
    for root in roots:
        labels = json.loads((LABELS / f"{root.name}_context.json").read_text(encoding="utf-8"))
        service = ContextService(AllowedPaths([root.resolve()]), IndexCache())
        index = service.index(str(root.resolve()))
        language = labels["language"]
        sources.append(f"{labels['repository']} `{labels['commit']}` ({language})")
        counts = totals.setdefault(language, {"context": [0, 0, 0], "usages": [0, 0, 0]})
        counts.setdefault("types", [0])[0] += len(labels["types"])
        for item in labels["types"]:
            try:
                selection = service.select(index, item["name"], 1)
                chosen = selection.target.path
                found_context = {d.path for d in selection.dependencies}
                found_users = {u.path for u in service.usages(index, item["name"]).users}
            except ToolError as exc:
                chosen, found_context, found_users = f"error: {exc.message}", set(), set()
            if chosen != item["file"]:
                # another declaration than the labelled one: nothing it says counts as right
                details.append(f"- {root.name} {item['name']}: target {chosen}, not {item['file']}")
                found_context = {f"{chosen}: {p}" for p in found_context}
                found_users = {f"{chosen}: {p}" for p in found_users}
            for kind, found in (("context", found_context), ("usages", found_users)):
                truth = set(item[kind])
                right = found & truth
                counts[kind][0] += len(right)
                counts[kind][1] += len(found)
                counts[kind][2] += len(truth)
                if diffs and found != truth:
                    details.append(
                        f"- {root.name} {item['name']} {kind}: "
                        f"wrong {sorted(found - truth)}, missed {sorted(truth - found)}"
                    )
    load = os.getloadavg()[0]
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        f"Measured {now} (load average {load:.1f}), `uv run python "
        "benchmarks/context_languages.py --accuracy DIR...` on " + ", ".join(sources) + ".",
        "",
        "| language | types | find_context precision | find_context recall | files found / "
        "labelled | find_usages precision | find_usages recall | users found / labelled |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for language, counts in totals.items():
        row = [language, str(counts["types"][0])]
        for kind in ("context", "usages"):
            hits, answered, labelled = counts[kind]
            row += [
                f"{hits / answered:.3f}" if answered else "-",
                f"{hits / labelled:.3f}" if labelled else "-",
                f"{answered} / {labelled}",
            ]
        lines.append("| " + " | ".join(row) + " |")
    return lines + (["", *details] if details else [])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--languages", default=",".join(GENERATORS))
    parser.add_argument("--accuracy", type=Path, nargs="+", help="labelled checkouts to score")
    parser.add_argument("--diffs", action="store_true", help="list every disagreement")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.accuracy:
        sys.stdout.write("\n".join(accuracy(options.accuracy, options.diffs)) + "\n")
        return 0
    if options.one:
        result = measure_one(options.one, generate(options.one, options.files))
        sys.stdout.write(json.dumps(result) + "\n")
        return 0
    languages = [name for name in options.languages.split(",") if name]
    results: dict[str, dict[str, float]] = {}
    for language in languages:
        generate(language, options.files)
        output = subprocess.run(
            [sys.executable, __file__, "--files", str(options.files), "--one", language],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        results[language] = json.loads(output)
    java_cpu = results.get("java", {}).get("cpu")
    load = os.getloadavg()[0]
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        f"Measured {now} on 2 shared cores (load average {load:.1f}; other agents were running"
        f" builds and tests), `uv run python benchmarks/context_languages.py"
        f" --files {options.files}`: a cold index in a fresh process per language.",
        "",
        "| language | files | edges | CPU time | wall time | files/s (CPU) | peak RSS"
        " | CPU vs Java |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for language, result in results.items():
        ratio = f"{result['cpu'] / java_cpu:.2f}x" if java_cpu else ""
        lines.append(
            f"| {language} | {int(result['files'])} | {int(result['edges'])} |"
            f" {result['cpu']:.2f} s | {result['wall']:.2f} s |"
            f" {result['files'] / result['cpu']:.0f} | {result['peak_mb']:.0f} MB | {ratio} |"
        )
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
