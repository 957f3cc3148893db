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
        rows = _Rows()
        for n, (path, item) in enumerate(direct):
            paths.append(path)
            rows.add(n, item)
        number = {path: n for n, path in enumerate(paths)}
        rules = sorted(set(rows.rules))
        targets, kinds, uses = rows.arrays(number, {rule: n for n, rule in enumerate(rules)})
        offsets = np.zeros(len(paths) + 1, dtype=_INDEX)
        np.cumsum(rows.sizes(), out=offsets[1:])
        return cls(
            paths,
            rules,
            offsets,
            targets,
            kinds,
            uses,
            rows.ambiguous,
            rows.shadowed,
            internal,
        )

    def replaced(
        self, rows: Mapping[str, FileDependencies], internal: frozenset[str] | None = None
    ) -> PackedGraph:
        """This graph with the direct dependencies of the files ``rows`` names replaced
        (their edges' targets must be among its paths) and, when given, the ``internal``
        files; the other files' edges are copied as arrays, not made again."""
        number = self._number
        changed = sorted(number[path] for path in rows)
        new = _Rows()
        for n in changed:
            new.add(n, rows[self.paths[n]])
        rules = sorted({*self.rules, *new.rules})
        rule_number = {rule: n for n, rule in enumerate(rules)}
        remap = np.array([rule_number[rule] for rule in self.rules], dtype=_KIND)
        kinds = remap[self.kinds] if len(self.kinds) else self.kinds
        new_targets, new_kinds, new_uses = new.arrays(number, rule_number)
        new_sizes = new.sizes()
        sizes = np.diff(self.offsets)
        parts: list[tuple[npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any]]] = []
        start = cursor = 0
        for n, size in zip(changed, new_sizes.tolist(), strict=True):
            low, high = int(self.offsets[n]), int(self.offsets[n + 1])
            parts.append((self.targets[start:low], kinds[start:low], self.uses[start:low]))
            parts.append(
                (
                    new_targets[cursor : cursor + size],
                    new_kinds[cursor : cursor + size],
                    new_uses[cursor : cursor + size],
                )
            )
            sizes[n] = size
            cursor += size
            start = high
        parts.append((self.targets[start:], kinds[start:], self.uses[start:]))
        offsets = np.zeros(len(self.paths) + 1, dtype=_INDEX)
        np.cumsum(sizes, out=offsets[1:])
        ambiguous = {n: found for n, found in self._ambiguous.items() if n not in new.files}
        shadowed = {n: found for n, found in self._shadowed.items() if n not in new.files}
        return PackedGraph(
            self.paths,
            rules,
            offsets,
            np.concatenate([part[0] for part in parts]).astype(_INDEX),
            np.concatenate([part[1] for part in parts]).astype(_KIND),
            np.concatenate([part[2] for part in parts]).astype(_INDEX),
            ambiguous | new.ambiguous,
            shadowed | new.shadowed,
            self.internal if internal is None else internal,
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

    def position(self, path: str) -> int:
        """Where the source file ``path`` stands in index order."""
        return self._number[path]

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


class _Rows:
    """Rows of a packed graph being made, one file's direct dependencies at a time: the one
    way a row is packed, for a whole graph (:meth:`PackedGraph.of`) as for the rows an edit
    replaces (:meth:`PackedGraph.replaced`). Targets and rules are kept as the strings they
    are (shared with the paths and rules) and numbered once, by :meth:`arrays`."""

    def __init__(self) -> None:
        self.files: set[int] = set()
        self.rules: list[str] = []
        self.ambiguous: dict[int, tuple[Ambiguity, ...]] = {}
        self.shadowed: dict[int, tuple[str, ...]] = {}
        self._sizes = array.array("q")
        self._targets: list[str] = []
        self._uses = array.array("q")

    def add(self, n: int, item: FileDependencies) -> None:
        """File number ``n``'s row: its edges, ambiguities and shadowed names."""
        self.files.add(n)
        self._sizes.append(len(item.edges))
        for edge in item.edges:
            self._targets.append(edge.target)
            self.rules.append(edge.rule)
            self._uses.append(edge.uses)
        if item.ambiguous:
            self.ambiguous[n] = item.ambiguous
        if item.shadowed:
            self.shadowed[n] = item.shadowed

    def sizes(self) -> npt.NDArray[np.int64]:
        """Each row's edge count, in the order added."""
        return np.frombuffer(self._sizes, dtype=np.int64)

    def arrays(
        self, number: Mapping[str, int], rule_number: Mapping[str, int]
    ) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.uint8], npt.NDArray[np.int32]]:
        """Every edge's target file number, rule number and uses, in the order added."""
        count = len(self._targets)
        return (
            np.fromiter(map(number.__getitem__, self._targets), dtype=_INDEX, count=count),
            np.fromiter(map(rule_number.__getitem__, self.rules), dtype=_KIND, count=count),
            np.frombuffer(self._uses, dtype=np.int64).astype(_INDEX),
        )


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
