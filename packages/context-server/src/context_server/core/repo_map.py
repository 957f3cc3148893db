"""The repository map: files ranked by PageRank over the dependency graph, in a token budget.

Everything here is deterministic across processes: nodes are visited in sorted path order,
ties in rank are broken by path, and nothing depends on hash order.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from mcp_common import AllowedPaths, ErrorCode, ToolError

from context_server.core.extraction import Declaration
from context_server.core.index import ProjectIndex, read_source
from context_server.core.resolution import Resolver
from context_server.core.tokens import TokenCounter
from context_server.core.walk import Problem, is_test_source, sort_key

DAMPING = 0.85
TOLERANCE = 1e-12
MAX_ITERATIONS = 200
BACK_EDGE_WEIGHT = 0.3
"""Share of a dependency edge that also runs from the used file back to its (main) user."""
MAX_MISSES = 200
"""Entries in a row that did not fit, after which a non-empty map stops looking further."""
MAX_SYMBOLS = 12
"""Declarations listed per file at most (the rest are counted), so no entry grows unbounded."""

_ANNOTATION_LINE = re.compile(r"^\s*@[\w.$]+(?:\([^)]*\))?\s*$")
_SPACES = re.compile(r"\s+")


def pagerank(
    nodes: Sequence[str],
    edges: Mapping[str, Sequence[tuple[str, float]]],
    personalization: Mapping[str, float] | None = None,
    damping: float = DAMPING,
) -> dict[str, float]:
    """PageRank of ``nodes`` over weighted ``edges`` (source -> [(target, weight)]).

    A walker follows an out-edge with probability ``damping`` (in proportion to its weight)
    and otherwise jumps to a node drawn from ``personalization`` (uniform when absent or
    all zero); a node without out-edges always jumps. Power iteration until the ranks move
    less than :data:`TOLERANCE` in total. The ranks sum to 1.
    """
    if not nodes:
        return {}
    jump = (
        {node: max(personalization.get(node, 0.0), 0.0) for node in nodes}
        if personalization
        else {}
    )
    total = sum(jump.values())
    if total <= 0:
        jump = {node: 1.0 / len(nodes) for node in nodes}
    else:
        jump = {node: weight / total for node, weight in jump.items()}
    known = set(nodes)
    out: dict[str, list[tuple[str, float]]] = {}
    for node in nodes:
        kept = [(t, w) for t, w in edges.get(node, ()) if t in known and t != node and w > 0]
        weight = sum(w for _, w in kept)
        if weight > 0:
            out[node] = [(t, w / weight) for t, w in kept]
    rank = dict(jump)
    for _ in range(MAX_ITERATIONS):
        dangling = sum(rank[node] for node in nodes if node not in out)
        following = {node: (1 - damping + damping * dangling) * jump[node] for node in nodes}
        for node in nodes:
            share = out.get(node)
            if share is None:
                continue
            mass = damping * rank[node]
            for target, fraction in share:
                following[target] += mass * fraction
        change = sum(abs(following[node] - rank[node]) for node in nodes)
        rank = following
        if change < TOLERANCE:
            break
    return rank


@dataclass(frozen=True, slots=True)
class MapEntry:
    """One file of the map: its rank, its key declarations' signatures, its rendered text
    and that text's token cost."""

    path: str
    language: str
    rank: float
    symbols: tuple[str, ...]
    text: str
    tokens: int


@dataclass(frozen=True, slots=True)
class RepoMap:
    """The rendered map and what it holds: ``entries`` in rank order, out of ``ranked``
    files; ``text`` costs ``tokens`` (never more than the budget)."""

    text: str
    tokens: int
    entries: tuple[MapEntry, ...]
    ranked: int
    focus: tuple[str, ...]
    unsupported: tuple[Problem, ...]


def rank_files(index: ProjectIndex, focus: Sequence[str] = ()) -> list[tuple[str, float]]:
    """Every source file with its PageRank, highest first, ties by path.

    An edge weighs the square root of how often the file uses its target (an import-only
    edge weighs half a use), so one heavy user does not outweigh many. Each edge from a main
    (non-test) source also runs back at :data:`BACK_EDGE_WEIGHT` of its weight: the file
    that wires the central types together (a library's facade) shares their rank, rather
    than a small enum every one of them names. ``focus`` names files (paths) or
    declarations (simple or qualified names); the random jump then lands on them.
    """
    nodes = sorted(index.sources, key=sort_key)
    edges: dict[str, list[tuple[str, float]]] = {node: [] for node in nodes}
    for node in nodes:
        back = not is_test_source(node)
        for edge in index.resolver.direct(node).edges:
            weight = math.sqrt(edge.uses) if edge.uses else 0.5
            edges[node].append((edge.target, weight))
            if back and edge.target in edges:
                edges[edge.target].append((node, weight * BACK_EDGE_WEIGHT))
    personal = {path: 1.0 for path in focused_files(index, focus)} if focus else None
    ranks = pagerank(nodes, edges, personal)
    return sorted(ranks.items(), key=lambda item: (-item[1], sort_key(item[0])))


def focused_files(index: ProjectIndex, focus: Sequence[str]) -> list[str]:
    """The files ``focus`` designates: paths (or path prefixes ending in ``/``), qualified
    or simple declaration names. Names matching nothing are ignored."""
    found: dict[str, None] = {}
    for raw in focus:
        name = raw.strip().replace("\\", "/").removeprefix("./")
        if not name:
            continue
        if name in index.sources:
            found[name] = None
            continue
        prefix = name.rstrip("/") + "/"
        for path in index.sources:
            if path.startswith(prefix):
                found[path] = None
        for path in index.resolver.declared(name):
            found[path] = None
        for path, facts in index.sources.items():
            if any(d.simple_name == name for d in facts.declarations):
                found[path] = None
    return sorted(found, key=sort_key)


class RepoMapper:
    """Builds budgeted repository maps.

    Keeps, per root, the latest ranking of each focus (valid while the index's resolver is
    the same object, i.e. no source changed) and each file's entry for its current size and
    mtime, with its token cost per tokenizer: a warm map reads and counts nothing again.
    """

    def __init__(self, allowed: AllowedPaths) -> None:
        self._allowed = allowed
        self._entries: dict[tuple[str, str], _CachedEntry] = {}
        self._ranks: dict[tuple[str, tuple[str, ...]], tuple[Resolver, list[tuple[str, float]]]]
        self._ranks = {}

    def build(
        self,
        index: ProjectIndex,
        count: TokenCounter,
        budget: int,
        focus: Sequence[str] = (),
        tokenizer: str = "cl100k",
        check_cancelled: Callable[[], None] = lambda: None,
        max_chars: int | None = None,
    ) -> RepoMap:
        """The map of ``index`` in at most ``budget`` tokens of ``count``.

        Files are taken in rank order; one whose entry does not fit what is left is skipped
        and smaller ones after it still get in, until :data:`MAX_MISSES` in a row did not
        fit (so a large project is not read to its end for a nearly full map). The final
        text is counted as a whole and trimmed by whole entries until it fits (and, with
        ``max_chars``, until it is at most that long). Raises ``invalid_argument`` naming
        the smallest entry's cost when not even one entry fits.
        """
        focus_text = tuple(f.strip() for f in focus if f.strip())
        key = (str(index.root), focus_text)
        known = self._ranks.get(key)
        if known is not None and known[0] is index.resolver:
            ranked = known[1]
        else:
            ranked = rank_files(index, focus_text)
            self._ranks[key] = (index.resolver, ranked)
        # An estimate: the final text is counted whole below and trimmed if it is over.
        header_cost = count(_header(index, 1, len(ranked), focus_text, tokenizer, budget))
        remaining = budget - header_cost
        kept: list[MapEntry] = []
        costs: list[MapEntry] = []
        misses = 0
        for number, (path, rank) in enumerate(ranked):
            if number % 500 == 0:
                check_cancelled()
            if kept and misses >= MAX_MISSES:
                break
            entry = self._entry(index, path, rank, count, tokenizer)
            costs.append(entry)
            if entry.tokens <= remaining:
                kept.append(entry)
                remaining -= entry.tokens
                misses = 0
            else:
                misses += 1
        while kept:
            text = _header(index, len(kept), len(ranked), focus_text, tokenizer, budget) + "".join(
                entry.text for entry in kept
            )
            tokens = count(text)
            if tokens <= budget and (max_chars is None or len(text) <= max_chars):
                return RepoMap(
                    text, tokens, tuple(kept), len(ranked), focus_text, tuple(index.problems)
                )
            kept.pop()
        if not costs:
            raise ToolError(
                f"no supported source files to map in `{index.root.name}`",
                ErrorCode.NOT_FOUND,
            )
        smallest = min(costs, key=lambda entry: (entry.tokens, sort_key(entry.path)))
        needed = count(
            _header(index, 1, len(ranked), focus_text, tokenizer, budget) + smallest.text
        )
        raise ToolError(
            f"tokenBudget {budget} is too small for one entry of the map: the smallest, "
            f"`{smallest.path}`, needs {needed} {tokenizer} tokens with the map's header",
            ErrorCode.INVALID_ARGUMENT,
        )

    def _entry(
        self, index: ProjectIndex, path: str, rank: float, count: TokenCounter, tokenizer: str
    ) -> MapEntry:
        facts = index.sources[path]
        item = index.entry(path)
        version = (item.size, item.mtime_ns) if item is not None else (0, 0)
        key = (str(index.root), path)
        cached = self._entries.get(key)
        if cached is None or cached.version != version:
            text = read_source(item, self._allowed) if item is not None else ""
            symbols = tuple(
                _signature(text, d, facts.language == "python")
                for d in facts.declarations
                if not d.nested
            )
            shown = symbols[:MAX_SYMBOLS]
            lines = [f"## `{path}`\n"]
            lines.extend(f"- `{symbol}`\n" for symbol in shown)
            if len(symbols) > len(shown):
                lines.append(f"- … {len(symbols) - len(shown)} more\n")
            cached = _CachedEntry(version, symbols, "".join(lines) + "\n", {})
            self._entries[key] = cached
        tokens = cached.tokens.get(tokenizer)
        if tokens is None:
            tokens = cached.tokens[tokenizer] = count(cached.text)
        return MapEntry(path, facts.language, rank, cached.symbols, cached.text, tokens)


@dataclass(slots=True)
class _CachedEntry:
    version: tuple[int, int]
    symbols: tuple[str, ...]
    text: str
    tokens: dict[str, int]


def _header(
    index: ProjectIndex,
    shown: int,
    ranked: int,
    focus: tuple[str, ...],
    tokenizer: str,
    budget: int,
) -> str:
    towards = f", personalised towards {', '.join(f'`{f}`' for f in focus)}" if focus else ""
    skipped = len(index.problems)
    unsupported = f" {skipped} files skipped (listed in `unsupported`)." if skipped else ""
    return (
        f"# Repository map of `{index.root.name}`\n\n"
        f"{shown} of {ranked} source files, most central first (PageRank over the "
        f"dependency graph{towards}), within {budget} {tokenizer} tokens.{unsupported}\n\n"
    )


def _signature(text: str, declaration: Declaration, python: bool) -> str:
    """The declaration's head on one line: annotations dropped, cut where its body starts
    (``{``, `` = `` or, in Python, a ``:``, outside brackets)."""
    encoded = text.encode("utf-8")
    head = encoded[declaration.span[0] : declaration.span[1]].decode("utf-8", "replace")
    lines = [line for line in head.splitlines()[:12] if not _ANNOTATION_LINE.match(line)]
    joined = _SPACES.sub(" ", " ".join(line.strip() for line in lines))
    depth = 0
    end = len(joined)
    for position, char in enumerate(joined):
        if char in "([":
            depth += 1
        elif char in ")]" and depth:
            depth -= 1
        elif depth == 0 and (
            char == "{" or joined.startswith(" = ", position) or (python and char == ":")
        ):
            end = position
            break
    signature = joined[:end].strip().rstrip(";").strip().replace("`", "'")
    return signature[:160] if signature else declaration.qualified_name
