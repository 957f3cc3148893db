"""The repository map: files ranked by PageRank over the dependency graph, in a token budget.

Everything here is deterministic across processes: nodes are visited in sorted path order,
ties in rank are broken by path, and nothing depends on hash order.
"""

from __future__ import annotations

import operator
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from mcp_common import AllowedPaths, ErrorCode, ToolError, code_block

from context_server.core.facts import Declaration
from context_server.core.graph import PackedGraph
from context_server.core.index import Edit, ProjectIndex, read_source
from context_server.core.languages import dialect, unsupported_language
from context_server.core.outline import render_signatures
from context_server.core.resolution import Resolver
from context_server.core.tokens import TokenCounter
from context_server.core.walk import Problem, is_test_source, sort_key

KEPT_RANKINGS = 32
"""Rankings kept (per root and focus, the most recently used): each holds one entry per
source file, so a client asking for many focuses cannot make the server grow unbounded."""
DAMPING = 0.85
TOLERANCE = 1e-12
MAX_ITERATIONS = 200
BACK_EDGE_WEIGHT = 0.3
"""Share of a dependency edge that also runs from the used file back to its (main) user."""
SIDE_JUMP = 0.2
"""Weight of a random jump to an internal or an auxiliary file (tests, examples,
benchmarks, docs, scripts) against 1 for a file of the library's public API."""
AUXILIARY_FOLDERS = frozenset(
    {
        "example",
        "examples",
        "sample",
        "samples",
        "demo",
        "demos",
        "bench",
        "benches",
        "benchmark",
        "benchmarks",
        "doc",
        "docs",
        "documentation",
        "script",
        "scripts",
        "fuzz",
        "testdata",
        "test-shrinker",
        "build-logic",
        "buildsrc",
    }
)
"""Folders holding what is not the library itself, besides test source sets."""
_AUXILIARY_FILE = re.compile(
    r"(?:_test\.go|\.(?:test|spec|bench)\.[cm]?[jt]sx?|_tests?\.py|^tests?_[^/]*\.py|"
    r"^conftest\.py|^conf\.py|^setup\.py|^noxfile\.py|Tests?\.(?:cs|java|kt|scala))$"
)
MAX_MISSES = 200
"""Entries in a row that did not fit, after which a non-empty map stops looking further."""
MAX_SYMBOLS = 12
"""Declarations listed per file at most (the rest are counted), so no entry grows unbounded."""
BRIEF_SYMBOLS = 3
"""Declarations a file's entry lists when even its declarations do not fit what is left."""
_BRIEF = "brief"
# What an entry falls back to, in order, when it does not fit what is left of the budget.
_LIGHTER = {
    "full": ("signatures", "declarations", _BRIEF),
    "signatures": ("declarations", _BRIEF),
    "declarations": (_BRIEF,),
}
MAP_DETAILS: tuple[str, ...] = ("declarations", "signatures", "full")
"""What an entry shows of its file: its top-level declarations' signatures, its outline
(every member's signature with doc summaries, see
:func:`context_server.core.outline.render_signatures`), or its whole text."""
_DETAIL_WORDS = {
    "declarations": "its top-level declarations",
    "signatures": "its signatures (no bodies)",
    "full": "its whole text",
}

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
    position = {node: i for i, node in enumerate(nodes)}
    jump = np.zeros(len(nodes))
    for node, weight in (personalization or {}).items():
        if node in position and weight > 0:
            jump[position[node]] = weight
    sources: list[int] = []
    targets: list[int] = []
    weights: list[float] = []
    for node in nodes:
        for target, weight in edges.get(node, ()):
            index = position.get(target)
            if index is not None:
                sources.append(position[node])
                targets.append(index)
                weights.append(weight)
    rank = pagerank_arrays(
        np.array(sources, dtype=np.intp),
        np.array(targets, dtype=np.intp),
        np.array(weights, dtype=np.float64),
        jump,
        damping,
    )
    return {node: float(rank[i]) for i, node in enumerate(nodes)}


def pagerank_arrays(
    sources: npt.NDArray[np.intp],
    targets: npt.NDArray[np.intp],
    weights: npt.NDArray[np.float64],
    jump: npt.NDArray[np.float64],
    damping: float = DAMPING,
) -> npt.NDArray[np.float64]:
    """:func:`pagerank` over nodes numbered ``0..len(jump)``: edge ``i`` runs from
    ``sources[i]`` to ``targets[i]`` weighing ``weights[i]`` (a loop or a weight not above
    zero is left out); ``jump`` weighs each node as the random jump's landing place."""
    count = len(jump)
    kept = (sources != targets) & (weights > 0)
    source_of, target_of, weight = sources[kept], targets[kept], weights[kept]
    total = jump.sum()
    jump = jump / total if total > 0 else np.full(count, 1.0 / count)
    out_weight = np.bincount(source_of, weights=weight, minlength=count)
    fraction = weight / out_weight[source_of] if len(weight) else np.zeros(0)
    dangling = out_weight == 0
    rank = jump
    for _ in range(MAX_ITERATIONS):
        following = (1 - damping + damping * rank[dangling].sum()) * jump
        following += np.bincount(
            target_of, weights=damping * rank[source_of] * fraction, minlength=count
        )
        change = np.abs(following - rank).sum()
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
class OtherLanguage:
    """Files of one language without a grammar here: how many, and the first few paths."""

    language: str
    files: int
    examples: tuple[str, ...]


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
    other_languages: tuple[OtherLanguage, ...] = ()


def rank_files(index: ProjectIndex, focus: Sequence[str] = ()) -> list[tuple[str, float]]:
    """Every source file with its PageRank, highest first, ties by path.

    An edge weighs the square root of how often the file uses its target (an import-only
    edge weighs half a use), so one heavy user does not outweigh many. Each edge from a
    library source also runs back at :data:`BACK_EDGE_WEIGHT` of its weight: the file that
    wires the central types together (a library's facade) shares their rank, rather than a
    small enum every one of them names. The random jump favours the library's public API: an
    internal file (see :meth:`Resolver.internal
    <context_server.core.resolution.Resolver.internal>`) or an auxiliary one (tests,
    examples, benchmarks, docs, scripts: :func:`auxiliary`) is jumped to at
    :data:`SIDE_JUMP` of the weight; every internal file ranks after every public one and
    every auxiliary file after every library file. ``focus`` names files (paths) or
    declarations (simple or qualified names); the random jump then lands on them.
    """
    return _ranking(index.resolver.graph, focused_files(index, focus) if focus else ())


def _ranking(graph: PackedGraph, focused: Sequence[str]) -> list[tuple[str, float]]:
    """:func:`rank_files` over the packed ``graph`` (read whole, as arrays), the random
    jump landing on ``focused`` files when there are any."""
    paths = graph.paths
    count = len(paths)
    if not count:
        return []
    folders: dict[str, bool] = {}
    side = np.fromiter((auxiliary(path, folders) for path in paths), dtype=bool, count=count)
    inside = np.fromiter((path in graph.internal for path in paths), dtype=bool, count=count)
    sources = graph.sources().astype(np.intp)
    targets = graph.targets.astype(np.intp)
    uses = graph.uses.astype(np.float64)
    weights = np.where(uses > 0, np.sqrt(uses), 0.5)
    back = ~side[sources]
    if focused:
        number = {path: n for n, path in enumerate(paths)}
        jump = np.zeros(count)
        jump[[number[path] for path in focused if path in number]] = 1.0
    else:
        jump = np.where(side | inside, SIDE_JUMP, 1.0)
    rank = pagerank_arrays(
        np.concatenate((sources, targets[back])),
        np.concatenate((targets, sources[back])),
        np.concatenate((weights, weights[back] * BACK_EDGE_WEIGHT)),
        jump,
    )
    ranks = rank.tolist()
    # ranks equal but for rounding (the last bits depend on summation order) count as ties
    rounded = np.array([float(f"{value:.12g}") for value in ranks])
    by_path = np.empty(count, dtype=np.intp)
    by_path[sorted(range(count), key=lambda n: sort_key(paths[n]))] = np.arange(count)
    order = np.lexsort((by_path, -rounded, inside, side))
    return [(paths[n], ranks[n]) for n in order.tolist()]


def auxiliary(path: str, folders: dict[str, bool] | None = None) -> bool:
    """Whether ``path`` is beside the library rather than part of it: a test source (by
    folder or by name: ``x_test.go``, ``x.test.ts``, ``test_x.py``, ``XTests.cs``), an
    example, a benchmark, documentation (``docs/conf.py``), a script, a fuzz target, a
    Cargo build script (``build.rs`` outside ``src``); the folder's name may start with
    ``_`` or ``.`` (Go's ``_examples``, which the go tool skips). ``folders`` keeps what
    was found of each folder (many files share one)."""
    folder, _, name = path.rpartition("/")
    found = None if folders is None else folders.get(folder)
    if found is None:
        found = is_test_source(f"{folder}/_") or any(
            part.lower().lstrip("_.") in AUXILIARY_FOLDERS for part in folder.split("/")
        )
        if folders is not None:
            folders[folder] = found
    if name == "build.rs" and "src" not in folder.split("/"):
        return True
    return found or _AUXILIARY_FILE.search(name) is not None


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

    Keeps, per root, the latest ranking of each focus (the :data:`KEPT_RANKINGS` used last)
    and each file's entry for its current size and mtime, with its token cost per tokenizer:
    a warm map reads and counts nothing again. The ranking is computed again only when what
    it is made of changed: an edit that leaves the dependency graph (and the focused files)
    as they were keeps it.
    """

    def __init__(self, allowed: AllowedPaths) -> None:
        self._allowed = allowed
        self._entries: dict[tuple[str, str, str], _CachedEntry] = {}
        self._ranks: OrderedDict[tuple[str, tuple[str, ...]], _Ranking] = OrderedDict()
        self._lock = threading.Lock()

    def ranked(self, index: ProjectIndex, focus: tuple[str, ...]) -> list[tuple[str, float]]:
        """:func:`rank_files` of ``index`` towards ``focus``, from the cache when nothing
        it depends on changed."""
        key = (str(index.root), focus)
        with self._lock:
            known = self._ranks.get(key)
            if known is not None:
                self._ranks.move_to_end(key)
        if known is not None and known.resolver is index.resolver:
            return known.ranked
        graph = index.resolver.graph
        focused = tuple(focused_files(index, focus)) if focus else ()
        if known is None or known.focused != focused or not same_ranking_input(known.graph, graph):
            known = _Ranking(index.resolver, graph, focused, _ranking(graph, focused))
        with self._lock:
            self._ranks[key] = _Ranking(index.resolver, graph, focused, known.ranked)
            self._ranks.move_to_end(key)
            while len(self._ranks) > KEPT_RANKINGS:
                self._ranks.popitem(last=False)
        return known.ranked

    def build(
        self,
        index: ProjectIndex,
        count: TokenCounter,
        budget: int,
        focus: Sequence[str] = (),
        tokenizer: str = "cl100k",
        check_cancelled: Callable[[], None] = lambda: None,
        max_chars: int | None = None,
        detail: str = "declarations",
    ) -> RepoMap:
        """The map of ``index`` in at most ``budget`` tokens of ``count``, each entry
        showing what ``detail`` (one of :data:`MAP_DETAILS`) says of its file.

        Files are taken in rank order; one whose entry does not fit what is left shows
        less of itself (its whole text falls back to its signatures, those to its
        declarations, those to its first :data:`BRIEF_SYMBOLS`), and one that still does not
        fit is skipped while smaller ones after it still get in, until :data:`MAX_MISSES` in
        a row did not fit (so a large project is not read to its end for a nearly full map).
        The final text is counted as a whole and trimmed by whole entries until it fits (and, with
        ``max_chars``, until it is at most that long). Raises ``invalid_argument`` naming
        the smallest entry's cost when not even one entry fits.
        """
        if detail not in MAP_DETAILS:
            raise ToolError(
                f"detail must be one of {', '.join(MAP_DETAILS)} but was {detail!r}",
                ErrorCode.INVALID_ARGUMENT,
            )
        focus_text = tuple(f.strip() for f in focus if f.strip())
        ranked = self.ranked(index, focus_text)
        heading = _Heading(
            index.root.name,
            len(ranked),
            focus_text,
            tokenizer,
            budget,
            detail,
            len(index.problems),
            other_languages(index),
        )
        # An estimate: the final text is counted whole below and trimmed if it is over.
        remaining = budget - count(heading.render(1))
        kept: list[MapEntry] = []
        costs: list[MapEntry] = []
        misses = 0
        for number, (path, rank) in enumerate(ranked):
            if number % 500 == 0:
                check_cancelled()
            if kept and misses >= MAX_MISSES:
                break
            entry = self._entry(index, path, rank, count, tokenizer, detail)
            costs.append(entry)
            for lighter in _LIGHTER[detail]:
                if entry.tokens <= remaining:
                    break
                # a file too large for what is left shows less of itself, not nothing
                entry = self._entry(index, path, rank, count, tokenizer, lighter)
            if entry.tokens <= remaining:
                kept.append(entry)
                remaining -= entry.tokens
                misses = 0
            else:
                misses += 1
        while kept:
            text = heading.render(len(kept)) + "".join(entry.text for entry in kept)
            tokens = count(text)
            if tokens <= budget and (max_chars is None or len(text) <= max_chars):
                return RepoMap(
                    text,
                    tokens,
                    tuple(kept),
                    len(ranked),
                    focus_text,
                    tuple(index.problems),
                    heading.others,
                )
            kept.pop()
        if not costs:
            # Nothing to rank (no source file in a supported language): the header alone
            # says so and names what is there, when it fits.
            text = heading.render(0)
            tokens = count(text)
            if tokens <= budget:
                return RepoMap(
                    text, tokens, (), 0, focus_text, tuple(index.problems), heading.others
                )
            raise ToolError(
                f"tokenBudget {budget} is too small for the map's header alone: it needs "
                f"{tokens} {tokenizer} tokens",
                ErrorCode.INVALID_ARGUMENT,
            )
        smallest = min(costs, key=lambda entry: (entry.tokens, sort_key(entry.path)))
        needed = count(heading.render(1) + smallest.text)
        raise ToolError(
            f"tokenBudget {budget} is too small for one entry of the map: the smallest, "
            f"`{smallest.path}`, needs {needed} {tokenizer} tokens with the map's header",
            ErrorCode.INVALID_ARGUMENT,
        )

    def _entry(
        self,
        index: ProjectIndex,
        path: str,
        rank: float,
        count: TokenCounter,
        tokenizer: str,
        detail: str,
    ) -> MapEntry:
        facts = index.sources[path]
        item = index.entry(path)
        version = (item.size, item.mtime_ns, item.ctime_ns) if item is not None else (0, 0, 0)
        key = (str(index.root), path, detail)
        cached = self._entries.get(key)
        if cached is None or cached.version != version:
            text = read_source(item, self._allowed) if item is not None else ""
            language = dialect(facts.language)
            symbols = tuple(
                _signature(text, d, language.colon_body) for d in facts.declarations if not d.nested
            )
            lines = [f"## `{path}`\n"]
            if detail in {"declarations", _BRIEF}:
                shown = symbols[: MAX_SYMBOLS if detail == "declarations" else BRIEF_SYMBOLS]
                lines.extend(f"- `{symbol}`\n" for symbol in shown)
                if len(symbols) > len(shown):
                    lines.append(f"- … {len(symbols) - len(shown)} more\n")
            else:
                if detail == "signatures":
                    text = render_signatures(language, text)
                if text.strip():
                    lines.append("\n" + code_block(text, facts.language))
            cached = _CachedEntry(version, symbols, "".join(lines) + "\n", {})
            self._entries[key] = cached
        tokens = cached.tokens.get(tokenizer)
        if tokens is None:
            tokens = cached.tokens[tokenizer] = count(cached.text)
        return MapEntry(path, facts.language, rank, cached.symbols, cached.text, tokens)


@dataclass(frozen=True, slots=True)
class _Ranking:
    """A ranking and what it was computed from (the resolver it was asked of last)."""

    resolver: Resolver
    graph: PackedGraph
    focused: tuple[str, ...]
    ranked: list[tuple[str, float]]


def same_ranking_input(old: PackedGraph, new: PackedGraph) -> bool:
    """Whether two graphs rank their files alike: the same files, internal files, and
    edges with the same uses (the rule that made an edge does not weigh it)."""
    return old is new or (
        old.paths == new.paths
        and old.internal == new.internal
        and np.array_equal(old.offsets, new.offsets)
        and np.array_equal(old.targets, new.targets)
        and np.array_equal(old.uses, new.uses)
    )


@dataclass(slots=True)
class _CachedEntry:
    version: tuple[int, int, int]
    symbols: tuple[str, ...]
    text: str
    tokens: dict[str, int]


def other_languages(index: ProjectIndex) -> tuple[OtherLanguage, ...]:
    """The project's files in programming languages without a grammar here, per language
    (most files first, then by name), each with its first three paths in walk order."""

    def build() -> tuple[OtherLanguage, ...]:
        found: dict[str, list[str]] = {}
        for item in index.listing.files:
            language = unsupported_language(item.name)
            if language is not None:
                found.setdefault(language, []).append(item.relative)
        ordered = sorted(found.items(), key=lambda pair: (-len(pair[1]), pair[0]))
        return tuple(
            OtherLanguage(language, len(paths), tuple(paths[:3])) for language, paths in ordered
        )

    def carry(found: tuple[OtherLanguage, ...], edit: Edit) -> tuple[OtherLanguage, ...] | None:
        # the same files listed (an edit of their content): the same languages
        before, now = edit.files, index.listing.files
        same = len(before) == len(now) and all(map(operator.eq, before, map(_RELATIVE, now)))
        return found if same else None

    return index.derived("other languages", build, carry)


_RELATIVE = operator.attrgetter("relative")


@dataclass(frozen=True, slots=True)
class _Heading:
    """What the map's header says besides how many files it shows."""

    project: str
    ranked: int
    focus: tuple[str, ...]
    tokenizer: str
    budget: int
    detail: str
    skipped: int
    others: tuple[OtherLanguage, ...]

    def render(self, shown: int) -> str:
        """The header of a map showing ``shown`` files."""
        towards = (
            f", personalised towards {', '.join(f'`{f}`' for f in self.focus)}"
            if self.focus
            else ""
        )
        notes = f" {self.skipped} files skipped (listed in `unsupported`)." if self.skipped else ""
        if self.others:
            counted = ", ".join(f"{other.language} {other.files}" for other in self.others)
            notes += (
                f" Not mapped, no supported grammar: {counted} files (listed in "
                "`unsupportedLanguages`)."
            )
        return (
            f"# Repository map of `{self.project}`\n\n"
            f"{shown} of {self.ranked} source files, most central first (PageRank over the "
            f"dependency graph{towards}), each with {_DETAIL_WORDS[self.detail]}, within "
            f"{self.budget} {self.tokenizer} tokens.{notes}\n\n"
        )


def _signature(text: str, declaration: Declaration, colon_body: bool) -> str:
    """The declaration's head on one line: annotations dropped, cut where its body starts
    (``{``, `` = `` or, with ``colon_body`` (Python), a ``:``, outside brackets)."""
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
            char == "{" or joined.startswith(" = ", position) or (colon_body and char == ":")
        ):
            end = position
            break
    signature = joined[:end].strip().rstrip(";").strip().replace("`", "'")
    return signature[:160] if signature else declaration.qualified_name
