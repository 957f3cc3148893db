"""context-server on a real checkout: edges by rule, suspicious edges, timing.

Run: ``uv run python benchmarks/context_real.py --repo DIR`` (any checkout; nothing is
written). ``--show NAME`` (repeatable) prints the direct dependencies of a class with the rule
that found each, for checking by hand; ``--samples N`` sets how many suspicious cases to list.

Suspicious are the edges a reviewer should look at first:

- ``simple-name`` edges: a name neither imported nor in the file's package, linked because
  one project type carries it (right for a nested type inherited from a superclass, wrong
  for a type the build gets from a library);
- shadowed names: a name the language imports implicitly (``String``, ``IllegalStateException``)
  that a project type also carries; the platform type was chosen, no edge made;
- ambiguous names: several project types carry it, no edge made.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from pathlib import Path

from context_server.core.facts import RULES
from context_server.core.index import IndexCache
from context_server.core.service import ContextService
from context_server.tools.project_tree import ProjectTreeTool
from mcp_common import AllowedPaths, invoke


def _tree(tool: ProjectTreeTool, root: Path) -> float:
    arguments = {"path": str(root), "format": "json", "limit": 5000}
    started = time.process_time()
    result = invoke(tool, arguments)
    assert not result.is_error, result.text
    return time.process_time() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", required=True, type=Path, help="the checkout to index")
    parser.add_argument("--show", action="append", default=[], help="class to list by hand")
    parser.add_argument("--samples", type=int, default=15, help="suspicious cases to list")
    options = parser.parse_args(argv)
    root = options.repo.resolve()
    allowed = AllowedPaths([root])
    cache = IndexCache()
    service = ContextService(allowed, cache)
    tool = ProjectTreeTool(service)
    cold = _tree(tool, root)
    warm = _tree(tool, root)
    index = service.index(str(root))
    rules: Counter[str] = Counter()
    import_only = 0
    simple: list[tuple[str, str]] = []
    shadowed: Counter[str] = Counter()
    ambiguous: Counter[str] = Counter()
    for path in index.sources:
        direct = index.resolver.direct(path)
        for edge in direct.edges:
            rules[edge.rule] += 1
            import_only += edge.uses == 0
            if edge.rule == "simple-name":
                simple.append((path, edge.target))
        shadowed.update(direct.shadowed)
        ambiguous.update(a.name for a in direct.ambiguous)
    languages = Counter(facts.language for facts in index.sources.values())
    out = [
        f"# {root.name}",
        "",
        f"{len(index.listing.files)} files, {len(index.sources)} source files "
        f"({', '.join(f'{n} {lang}' for lang, n in languages.most_common())}), "
        f"{len(index.problems)} skipped.",
        f"Cold project_tree {cold:.2f} s CPU, warm repeat {warm:.3f} s CPU "
        f"({warm / cold * 100:.1f} %); {os.cpu_count()} shared cores, "
        f"load average {os.getloadavg()[0]:.1f}.",
        "",
        "| rule | edges |",
        "| --- | --- |",
        *(f"| {rule} | {rules[rule]} |" for rule in RULES),
        f"| total | {sum(rules.values())} |",
        f"| of which import-only (no use in code) | {import_only} |",
        "",
        f"Suspicious: {len(simple)} simple-name edges, {sum(shadowed.values())} implicit-import "
        f"shadowings of {len(shadowed)} names, {sum(ambiguous.values())} unresolved "
        f"ambiguous uses of {len(ambiguous)} names.",
    ]
    out += [f"- simple-name: {a} -> {b}" for a, b in simple[: options.samples]]
    out += [f"- shadowed: {n} ({c} files)" for n, c in shadowed.most_common(options.samples)]
    out += [f"- ambiguous: {n} ({c} files)" for n, c in ambiguous.most_common(options.samples)]
    for name in options.show:
        match = service.find_target(index, name)
        target, others = match.path, match.others
        out += ["", f"## {name}: {target}" + (f" (also: {', '.join(others)})" if others else "")]
        out += [
            f"- {edge.target} [{edge.rule}, {edge.uses} uses]"
            for edge in index.resolver.direct(target).edges
        ]
    sys.stdout.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
