"""The resolved dependency graph, packed in arrays: what the index keeps and stores of it.

Every source file's direct dependencies as :class:`~context_server.core.facts.Edge` objects
cost a million small objects on a project of 100,000 files; here they are three arrays
(target file, rule, uses) sliced per file by an offset array, and a file's
:class:`~context_server.core.facts.FileDependencies` are made when a question asks for
them. The arrays are what the index store writes and reads back (a restart makes no edge
object it does not need) and what the repository map's ranking reads whole.

A stored graph is untrusted input: :func:`unpack_graph` checks every array's length and
range and every name's text before anything is made of it.
"""

from __future__ import annotations

import array
import itertools
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import msgspec
import numpy as np
import numpy.typing as npt

from context_server.core.facts import Ambiguity, Edge, FileDependencies

# a name code spells: no control character (no line break into an answer), bounded
_NAME = re.compile(r"[^\x00-\x1f\x7f]{1,512}")
# a rule's name (``import``, ``simple-name``…)
_RULE = re.compile(r"[a-z][a-z-]{0,39}")
_INDEX = np.dtype("<i4")
_KIND = np.dtype("<u1")

_Row = tuple[
    list[str],  # the source paths, in index order
    list[str],  # the rules, named by number in ``kinds``
    bytes,  # offsets: file n's edges are [offsets[n], offsets[n + 1]) (little-endian int32)
    bytes,  # targets (int32 path numbers)
    bytes,  # kinds (uint8 rule numbers)
    bytes,  # uses (int32)
    list[tuple[int, str, list[int]]],  # ambiguities: file, name, candidate files
    list[tuple[int, str]],  # shadowed names: file, name
    list[int],  # the internal files (see Resolver.internal)
]
_ENCODER = msgspec.msgpack.Encoder()
_DECODER = msgspec.msgpack.Decoder(_Row)


class PackedGraph(Mapping[str, FileDependencies]):
    """Every source file's direct dependencies (a read-only mapping from root-relative
    path, in index order), packed (see the module), and which files are internal to their
    package. Safe to share between threads (nothing in it changes)."""

    def __init__(
        self,
        paths: list[str],
        rules: list[str],
        offsets: npt.NDArray[np.int32],
        targets: npt.NDArray[np.int32],
        kinds: npt.NDArray[np.uint8],
        uses: npt.NDArray[np.int32],
        ambiguous: dict[int, tuple[Ambiguity, ...]],
        shadowed: dict[int, tuple[str, ...]],
        internal: frozenset[str],
    ) -> None:
        self.paths = paths
        self.rules = rules
        self.offsets = offsets
        self.targets = targets
        self.kinds = kinds
        self.uses = uses
        self._ambiguous = ambiguous
        self._shadowed = shadowed
        self.internal = internal
        self._number = {path: n for n, path in enumerate(paths)}

    @classmethod
    def of(
        cls,
        direct: Iterable[tuple[str, FileDependencies]],
        internal: frozenset[str] = frozenset(),
    ) -> PackedGraph:
        """``direct`` (every source file with its direct dependencies, in index order; each
        edge's target among its files) packed as it comes: no file's edge objects need
        outlive its turn (on 100,000 files, a million edges held as objects at once)."""
        paths: list[str] = []
        sizes = array.array("q")
        targets: list[str] = []
        rules: list[str] = []
        uses = array.array("q")
        ambiguous: dict[int, tuple[Ambiguity, ...]] = {}
        shadowed: dict[int, tuple[str, ...]] = {}
        for n, (path, item) in enumerate(direct):
            paths.append(path)
            sizes.append(len(item.edges))
            for edge in item.edges:
                targets.append(edge.target)
                rules.append(edge.rule)
                uses.append(edge.uses)
            if item.ambiguous:
                ambiguous[n] = item.ambiguous
            if item.shadowed:
                shadowed[n] = item.shadowed
        number = {path: n for n, path in enumerate(paths)}
        names = sorted(set(rules))
        rule_number = {rule: n for n, rule in enumerate(names)}
        offsets = np.zeros(len(paths) + 1, dtype=_INDEX)
        np.cumsum(np.frombuffer(sizes, dtype=np.int64), out=offsets[1:])
        return cls(
            paths,
            names,
            offsets,
            np.fromiter(map(number.__getitem__, targets), dtype=_INDEX, count=len(targets)),
            np.fromiter(map(rule_number.__getitem__, rules), dtype=_KIND, count=len(rules)),
            np.frombuffer(uses, dtype=np.int64).astype(_INDEX),
            ambiguous,
            shadowed,
            internal,
        )

    def replaced(self, rows: Mapping[str, FileDependencies]) -> PackedGraph:
        """This graph with the direct dependencies of the files ``rows`` names replaced
        (their edges' targets must be among its paths); the other files' edges are copied
        as arrays, not made again."""
        number = self._number
        changed = sorted(number[path] for path in rows)
        rules = sorted({*self.rules, *(e.rule for item in rows.values() for e in item.edges)})
        rule_number = {rule: n for n, rule in enumerate(rules)}
        remap = np.array([rule_number[rule] for rule in self.rules], dtype=_KIND)
        kinds = remap[self.kinds] if len(self.kinds) else self.kinds
        sizes = np.diff(self.offsets)
        parts: list[tuple[npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any]]] = []
        ambiguous = dict(self._ambiguous)
        shadowed = dict(self._shadowed)
        start = 0
        for n in changed:
            item = rows[self.paths[n]]
            low, high = int(self.offsets[n]), int(self.offsets[n + 1])
            parts.append((self.targets[start:low], kinds[start:low], self.uses[start:low]))
            parts.append(
                (
                    np.array([number[e.target] for e in item.edges], dtype=_INDEX),
                    np.array([rule_number[e.rule] for e in item.edges], dtype=_KIND),
                    np.array([e.uses for e in item.edges], dtype=_INDEX),
                )
            )
            sizes[n] = len(item.edges)
            for table, found in ((ambiguous, item.ambiguous), (shadowed, item.shadowed)):
                if found:
                    table[n] = found  # type: ignore[assignment]
                else:
                    table.pop(n, None)
            start = high
        parts.append((self.targets[start:], kinds[start:], self.uses[start:]))
        offsets = np.zeros(len(self.paths) + 1, dtype=_INDEX)
        np.cumsum(sizes, out=offsets[1:])
        return PackedGraph(
            self.paths,
            rules,
            offsets,
            np.concatenate([part[0] for part in parts]).astype(_INDEX),
            np.concatenate([part[1] for part in parts]).astype(_KIND),
            np.concatenate([part[2] for part in parts]).astype(_INDEX),
            ambiguous,
            shadowed,
            self.internal,
        )

    def __getitem__(self, path: str) -> FileDependencies:
        n = self._number[path]
        start, end = int(self.offsets[n]), int(self.offsets[n + 1])
        paths, rules = self.paths, self.rules
        edges = tuple(
            Edge(paths[target], rules[kind], uses)
            for target, kind, uses in zip(
                self.targets[start:end].tolist(),
                self.kinds[start:end].tolist(),
                self.uses[start:end].tolist(),
                strict=True,
            )
        )
        return FileDependencies(edges, self._ambiguous.get(n, ()), self._shadowed.get(n, ()))

    def __iter__(self) -> Iterator[str]:
        return iter(self.paths)

    def __len__(self) -> int:
        return len(self.paths)

    def __contains__(self, path: object) -> bool:
        return path in self._number

    def files(self, path: str) -> tuple[str, ...]:
        """The dependency files of ``path`` in order of first reference (no edge objects
        made); empty for a path that is not a source file."""
        n = self._number.get(path)
        if n is None:
            return ()
        start, end = int(self.offsets[n]), int(self.offsets[n + 1])
        return tuple(map(self.paths.__getitem__, self.targets[start:end].tolist()))

    def every_files(self, key: Callable[[str], Any]) -> dict[str, list[str]]:
        """The dependency files of every source file that has some, each list sorted by
        ``key`` of the path (made in one pass over the arrays, not file by file)."""
        paths = self.paths
        if not len(self.targets):
            return {}
        order = sorted(range(len(paths)), key=lambda n: key(paths[n]))
        rank = np.empty(len(paths), dtype=_INDEX)
        rank[order] = np.arange(len(paths), dtype=_INDEX)
        edges = np.lexsort((rank[self.targets], self.sources()))
        targets = self.targets[edges].tolist()
        offsets = self.offsets.tolist()
        return {
            paths[n]: [paths[t] for t in targets[start:end]]
            for n, (start, end) in enumerate(itertools.pairwise(offsets))
            if end > start
        }

    def sources(self) -> npt.NDArray[np.int32]:
        """The file number each edge starts from (in edge order)."""
        counts = np.diff(self.offsets)
        return np.repeat(np.arange(len(self.paths), dtype=_INDEX), counts)


def pack_graph(graph: PackedGraph) -> bytes:
    """The stored form of ``graph``."""
    internal = sorted(n for n, path in enumerate(graph.paths) if path in graph.internal)
    number = {path: n for n, path in enumerate(graph.paths)}
    row: _Row = (
        graph.paths,
        graph.rules,
        graph.offsets.astype(_INDEX).tobytes(),
        graph.targets.astype(_INDEX).tobytes(),
        graph.kinds.astype(_KIND).tobytes(),
        graph.uses.astype(_INDEX).tobytes(),
        [
            (n, item.name, [number[c] for c in item.candidates])
            for n, found in sorted(graph._ambiguous.items())
            for item in found
        ],
        [(n, name) for n, names in sorted(graph._shadowed.items()) for name in names],
        internal,
    )
    return _ENCODER.encode(row)


def unpack_graph(data: bytes, paths: Sequence[str]) -> PackedGraph:
    """The stored graph ``data`` of the source files ``paths`` (in index order), checked:
    ``ValueError`` when it is of other files, or malformed (a length, a number out of
    range, a name no code spells)."""
    stored, rules, offsets_data, targets_data, kinds_data, uses_data, ambiguous, shadowed, inner = (
        _DECODER.decode(data)
    )
    count = len(paths)
    if stored != list(paths):
        raise ValueError("graph of other files")
    if any(len(part) % 4 for part in (offsets_data, targets_data, uses_data)):
        raise ValueError("bad array")
    offsets = np.frombuffer(offsets_data, dtype=_INDEX)
    targets = np.frombuffer(targets_data, dtype=_INDEX)
    kinds = np.frombuffer(kinds_data, dtype=_KIND)
    uses = np.frombuffer(uses_data, dtype=_INDEX)
    edges = len(targets)
    if len(offsets) != count + 1 or len(kinds) != edges or len(uses) != edges:
        raise ValueError("bad array lengths")
    if offsets[0] != 0 or offsets[-1] != edges or (np.diff(offsets) < 0).any():
        raise ValueError("bad offsets")
    if edges and not (
        targets.min() >= 0
        and targets.max() < count
        and int(kinds.max()) < len(rules)
        and uses.min() >= 0
    ):
        raise ValueError("edge out of range")
    if not all(_RULE.fullmatch(rule) for rule in rules):
        raise ValueError("a rule that is no name")
    found: dict[int, list[Ambiguity]] = {}
    for n, name, candidates in ambiguous:
        if not (0 <= n < count and all(0 <= c < count for c in candidates)):
            raise ValueError("an ambiguity names a file outside the project")
        if not _NAME.fullmatch(name):
            raise ValueError("a name that no code spells")
        found.setdefault(n, []).append(Ambiguity(name, tuple(paths[c] for c in candidates)))
    names: dict[int, list[str]] = {}
    for n, name in shadowed:
        if not (0 <= n < count and _NAME.fullmatch(name)):
            raise ValueError("a name that no code spells")
        names.setdefault(n, []).append(name)
    if not all(0 <= n < count for n in inner):
        raise ValueError("an internal file outside the project")
    return PackedGraph(
        list(paths),
        rules,
        offsets,
        targets,
        kinds,
        uses,
        {n: tuple(items) for n, items in found.items()},
        {n: tuple(items) for n, items in names.items()},
        frozenset(paths[n] for n in inner),
    )
