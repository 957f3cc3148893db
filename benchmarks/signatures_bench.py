"""How much smaller ``detail: "signatures"`` is than the full text, per language, on real code.

Run: ``uv run python benchmarks/signatures_bench.py DIR [DIR ...]``. Every supported source
file of each checkout outside test folders counts (test sources are seldom what an agent
reads as signatures); a file whose outline is empty (no declaration) is counted apart. Prints
per project and language: files, cl100k tokens in full and as signatures, the ratio of the
totals, the median ratio per file, and the share of files under 3x.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from context_server.core.languages import LANGUAGES, language_of
from context_server.core.outline import render_signatures
from context_server.core.tokens import cl100k_tokens
from context_server.core.walk import is_test_source

_SKIPPED_DIRECTORIES = {".git", "node_modules", "target", "build", "dist", "vendor", "bin", "obj"}


def sources(root: Path) -> list[Path]:
    """The checkout's main source files, in sorted order."""
    found = []
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if any(part in _SKIPPED_DIRECTORIES for part in relative.parts):
            continue
        if not path.is_file() or is_test_source(relative.as_posix()):
            continue
        if language_of(path.name, LANGUAGES) is not None:
            found.append(path)
    return found


def measure(root: Path) -> list[str]:
    """One table row per language of ``root``."""
    per_language: dict[str, list[tuple[int, int]]] = {}
    empty: dict[str, int] = {}
    seconds = 0.0
    for path in sources(root):
        language = language_of(path.name, LANGUAGES)
        assert language is not None
        text = path.read_text("utf-8", "replace")
        started = time.process_time()
        short = render_signatures(language, text)
        seconds += time.process_time() - started
        if not short.strip():
            empty[language.name] = empty.get(language.name, 0) + 1
            continue
        pair = (cl100k_tokens(text), cl100k_tokens(short))
        per_language.setdefault(language.name, []).append(pair)
    rows = []
    for name, pairs in sorted(per_language.items()):
        full = sum(f for f, _ in pairs)
        short = sum(s for _, s in pairs)
        ratios = [f / s for f, s in pairs if s]
        under = sum(r < 3 for r in ratios)
        rows.append(
            f"| {root.name} | {name} | {len(pairs)} | {full} | {short} | {full / short:.1f}x "
            f"| {statistics.median(ratios):.1f}x | {under / len(ratios):.0%} "
            f"| {empty.get(name, 0)} |"
        )
    rows.append(f"<!-- {root.name}: outlines took {seconds:.2f} s CPU -->")
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("roots", type=Path, nargs="+", help="checkouts to measure")
    args = parser.parse_args(argv)
    lines = [
        "| project | language | files | full tokens | signature tokens | ratio of totals "
        "| median per file | files under 3x | files without declarations |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for root in args.roots:
        lines += measure(root.resolve())
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
