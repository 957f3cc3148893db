"""Exact search for minimal unique column sets over the subset lattice.

Uniqueness is monotone: a superset of a unique set is unique, a subset of a non-unique set is
non-unique. The search walks the lattice bottom-up, level by level, and only builds a
candidate whose every one-smaller subset is known non-unique (so every unique candidate is
minimal and no minimal set is skipped). Each candidate is decided by the cheapest sound test
first: memoised results and both monotonicity rules, then counting bounds from per-column
counts (fewer possible key values than rows, or a group of equal values larger than the other
columns' number of values, means a duplicate; see :mod:`.stats`), then duplicates in a sample
of the rows and then in a ten times larger one (a duplicate in a sample is a duplicate in the
data), and only then a full check. Full checks and samples read an in-memory copy of only the
columns still undecided, so a wide source is never copied whole. When many candidates are
open, or when the statistics pass already coded a wide source, candidates are decided in bulk
and exactly over integer codes of the columns instead (:mod:`.codes`).
"""

# SQL text here is built only from internal identifiers (c1..cn, quoted) and integers;
# client values never reach it, so string-built queries are safe.

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from itertools import combinations, takewhile

import numpy as np
from mcp_common import ErrorCode, ToolContext, ToolError

from uniqueness_server.engine.codes import MAX_CELLS, CodeMatrix, TooManyCellsError
from uniqueness_server.engine.model import Nulls
from uniqueness_server.engine.stats import ColumnStats
from uniqueness_server.engine.table import Table

SAMPLE_ROWS = (20_000, 200_000)
MAX_CANDIDATES = 1_000_000
VECTOR_CANDIDATES = 64  # from this many open candidates on, one fetch of codes pays off


_Implications = tuple[set[int], list[int], list[int]]


def _mask(positions: Sequence[int]) -> int:
    return sum(map((1).__lshift__, positions))


class UniquenessOracle:
    """Decides "is this column set unique?" exactly, as cheaply as it can, remembering all."""

    def __init__(
        self,
        table: Table,
        nulls: Nulls,
        context: ToolContext,
        *,
        rows: int,
        columns: Sequence[int],
        stats: ColumnStats | None = None,
    ) -> None:
        """``columns`` are the positions the search may touch; ``stats``, when given, settle
        single columns and bound the others without a scan."""
        self._table = table
        self._nulls = nulls
        self._rows = rows
        self._columns = tuple(columns)
        self._stats = stats
        self._context = context
        # keyed by the sorted positions: masks of wide sets hash badly (2**p repeats its hash
        # every 61 positions), which made lookups among many pairs crawl
        self._memo: dict[tuple[int, ...], bool] = {}
        # by set size: a unique subset must be smaller, a non-unique superset larger; unique
        # sets are few and kept as bit masks, non-unique ones (most) as their sorted positions
        self._unique: dict[int, list[int]] = {}
        self._non_unique: dict[int, list[tuple[int, ...]]] = {}
        self._source = table.backend.search_source(
            table,
            self._columns,
            nulls,
            context,
            rows=rows,
            hash_safe=stats.hash_safe if stats is not None else frozenset(),
        )
        self._coded: dict[int, CodeMatrix] = {}
        if stats is not None and stats.codes is not None:
            # a wide source was coded whole by the statistics pass: no copy, no SQL checks
            self._coded = dict.fromkeys(stats.codes.distinct, stats.codes)
        self.full_checks = 0
        self.decided = 0

    def record(self, positions: Sequence[int], unique: bool) -> None:
        """Remember a result learnt elsewhere (e.g. the requested set's own check)."""
        key = tuple(sorted(positions))
        self._remember_all(len(key), [key], {key: unique})

    def _implications(self, size: int) -> _Implications:
        """The known unique single columns, the bit masks of the other known unique sets
        smaller than ``size`` and those of the known non-unique sets larger than it: the only
        sets that decide one of ``size`` columns by monotonicity."""
        singles = {u.bit_length() - 1 for u in self._unique.get(1, []) if size > 1}
        smaller = [u for known, masks in self._unique.items() if 1 < known < size for u in masks]
        larger = [
            _mask(n) for known, sets in self._non_unique.items() if known > size for n in sets
        ]
        return singles, smaller, larger

    def _known(self, key: tuple[int, ...], implications: _Implications) -> bool | None:
        known = self._memo.get(key)
        if known is not None:
            return known
        singles, smaller, larger = implications
        if singles and not singles.isdisjoint(key):
            return True
        if smaller or larger:
            mask = _mask(key)
            if any(u & mask == u for u in smaller):
                return True
            if any(n & mask == mask for n in larger):
                return False
        return None

    def _bounded_out(self, positions: Sequence[int]) -> bool:
        """True when counts alone prove the columns hold a duplicate."""
        s = self._stats
        if s is None:
            return False
        if s.head is not None and s.head.proves_duplicate(positions, self._nulls):
            return True
        known = [s.distinct[p] for p in positions]
        if any(d is None for d in known):
            return False
        distinct = [d or 0 for d in known]
        if self._nulls is Nulls.EQUAL:
            possible = math.prod(
                d + (1 if s.missing[p] else 0) for d, p in zip(distinct, positions, strict=True)
            )
            return possible < s.rows
        considered = s.rows - sum(s.missing[p] for p in positions)
        return math.prod(distinct) < considered

    def _single(self, position: int) -> bool | None:
        s = self._stats
        if s is None:
            return None
        distinct = s.distinct[position]
        if distinct is None:
            return False if self._bounded_out((position,)) else None
        if self._nulls is Nulls.EQUAL:
            return distinct + (1 if s.missing[position] else 0) == s.rows
        return distinct == s.rows - s.missing[position]

    def _samples(self) -> list[str]:
        """Row samples, smallest first, worth checking before the whole source.

        A duplicate inside a sample is a duplicate of the source, so a sample can only reject.
        A small sample rejects most non-keys almost for free; a ten times larger one rejects
        the near-keys the small one misses, before any full scan.
        """
        sizes = list(takewhile(lambda rows: self._rows > 2 * rows, SAMPLE_ROWS))
        return self._source.samples(sizes) if sizes else []

    def search_relation(self, needed: Sequence[int] = ()) -> str:
        """The relation full checks of the ``needed`` columns read (the backend's choice: an
        in-memory copy of the searched columns for a file, so repeated scans skip re-parsing
        it; the source itself in a database)."""
        return self._source.relation(needed)

    def _all_coded(self, candidate: Sequence[int]) -> bool:
        return all(map(self._coded.__contains__, candidate))

    def _decide_by_codes(
        self, open_: list[tuple[int, ...]], answers: dict[tuple[int, ...], bool]
    ) -> list[tuple[int, ...]]:
        """Decide many candidates exactly with vectorised checks over integer codes of the
        columns; returns those left (spanning columns coded in different passes, or all of
        them when their columns have too many cells to code)."""
        needed = sorted({p for c in open_ for p in c})
        fresh = [p for p in needed if p not in self._coded]
        if fresh:
            if self._rows * len(fresh) > MAX_CELLS:
                return open_
            try:
                matrix = CodeMatrix.encode(self._table, self.search_relation(), fresh)
            except TooManyCellsError:
                return open_
            self._coded.update(dict.fromkeys(fresh, matrix))
        left: list[tuple[int, ...]] = []
        pairs: dict[CodeMatrix, list[tuple[int, ...]]] = {}
        wider: list[tuple[int, ...]] = []
        matrices = {id(m): m for m in self._coded.values()}
        if len(matrices) == 1:  # every candidate shares it
            pairs[next(iter(matrices.values()))] = [c for c in open_ if len(c) == 2]
            wider = [c for c in open_ if len(c) != 2]  # single columns too
        else:
            for c in open_:
                if not self._same_matrix(c):
                    left.append(c)
                elif len(c) == 2:
                    pairs.setdefault(self._coded[c[0]], []).append(c)
                else:
                    wider.append(c)
        for c in wider:
            self._context.check_cancelled()
            self.full_checks += 1
            answers[c] = self._coded[c[0]].unique(c, self._nulls)
        for matrix, group in pairs.items():
            both = np.array(group, dtype=np.int64).reshape(len(group), 2)
            verdicts = matrix.unique_pairs(
                both[:, 0], both[:, 1], self._nulls, self._context.check_cancelled
            )
            self.full_checks += len(group)
            answers.update(zip(group, verdicts.tolist(), strict=True))
        return left

    def unique_pairs_among(self, columns: Sequence[int]) -> list[tuple[int, int]] | None:
        """Every unique pair of ``columns`` (ascending positions, each known non-unique),
        decided in bulk over codes without listing the candidates first; None when that
        cannot be done (the columns were not coded in one pass, or a set of two or more
        columns is known already, which could decide pairs by monotonicity). Nothing is
        remembered: this is a search's last level."""
        matrices = {id(self._coded.get(p)) for p in columns}
        if (
            len(columns) < 2
            or len(matrices) != 1
            or not self._all_coded(columns)
            or any(size >= 2 for size in (*self._unique, *self._non_unique))
        ):
            return None
        matrix = self._coded[columns[0]]
        first, second = np.triu_indices(len(columns), k=1)
        positions = np.asarray(columns, dtype=np.int64)
        a, b = positions[first], positions[second]
        unique = matrix.unique_pairs(a, b, self._nulls, self._context.check_cancelled)
        self.full_checks += len(a)
        self.decided += len(a)
        return list(zip(a[unique].tolist(), b[unique].tolist(), strict=True))

    def _same_matrix(self, candidate: tuple[int, ...]) -> bool:
        first = self._coded[candidate[0]]
        return all(self._coded[p] is first for p in candidate[1:])

    def decide(self, candidates: Sequence[tuple[int, ...]], *, remember: bool = True) -> list[bool]:
        """Whether each candidate column set (its positions in ascending order) is unique in
        the whole source. Without ``remember`` the answers are not kept for later calls
        (the search's last level: nothing asks again)."""
        answers: dict[tuple[int, ...], bool] = {}
        open_: list[tuple[int, ...]] = []
        by_size: dict[int, list[tuple[int, ...]]] = {}
        for c in candidates:
            by_size.setdefault(len(c), []).append(c)
        coded = True  # every open candidate's columns are coded
        # a wide level holds hundreds of thousands of candidates: per-candidate work is kept
        # to list comprehensions, and the per-set rules run only where they can apply
        for size, group in by_size.items():
            known = self._known_all(size, group)
            all_coded = bool(self._coded) and {p for c in group for p in c} <= self._coded.keys()
            if all_coded and size > 1:
                # (coded candidates get the counting bounds later, vectorised)
                open_ += [c for c, k in zip(group, known, strict=True) if k is None]
                answers.update((c, k) for c, k in zip(group, known, strict=True) if k is not None)
                continue
            for c, k in zip(group, known, strict=True):
                verdict = k
                if verdict is None and size == 1:
                    verdict = self._single(c[0])
                elif verdict is None and not self._all_coded(c) and self._bounded_out(c):
                    verdict = False
                if verdict is None:
                    open_.append(c)
                    coded = coded and self._all_coded(c)
                else:
                    answers[c] = verdict
        if open_ and not coded:
            self.search_relation(sorted({p for c in open_ for p in c}))
        # codes hold every row in this process: only where the rows are read locally
        if open_ and self._table.backend.local and (coded or len(open_) >= VECTOR_CANDIDATES):
            open_ = self._decide_by_codes(open_, answers)
        for sample in self._samples() if open_ else []:
            for c in self._source.duplicated(open_, sample):
                answers[c] = False
            open_ = [c for c in open_ if c not in answers]
        if open_:
            # the backend checks the whole batch (Spark runs the jobs side by side)
            self.full_checks += len(open_)
            whole = self.search_relation(sorted({p for c in open_ for p in c}))
            duplicated = self._source.duplicated(open_, whole)
            answers.update((c, c not in duplicated) for c in open_)
        for size, group in by_size.items() if remember else ():
            self._remember_all(size, group, answers)
        self.decided += len(candidates)
        return [answers[c] for c in candidates]

    def _known_all(self, size: int, group: Sequence[tuple[int, ...]]) -> list[bool | None]:
        """What earlier answers say of each candidate of ``size`` columns (None: nothing)."""
        implications = self._implications(size)
        singles, smaller, larger = implications
        if smaller or larger:
            return [self._known(c, implications) for c in group]
        get = self._memo.get
        if singles:
            return [get(c) if singles.isdisjoint(c) else True for c in group]
        return [get(c) for c in group]

    def _remember_all(
        self, size: int, group: Sequence[tuple[int, ...]], answers: dict[tuple[int, ...], bool]
    ) -> None:
        fresh = [c for c in dict.fromkeys(group) if c not in self._memo]
        verdicts = [answers[c] for c in fresh]
        self._memo.update(zip(fresh, verdicts, strict=True))
        unique = [_mask(c) for c, u in zip(fresh, verdicts, strict=True) if u]
        if unique:
            self._unique.setdefault(size, []).extend(unique)
        non_unique = [c for c, u in zip(fresh, verdicts, strict=True) if not u]
        if non_unique:
            self._non_unique.setdefault(size, []).extend(non_unique)


def count_candidates(columns: int, max_size: int) -> int:
    """How many column sets of 1..max_size columns there are (the search's worst case)."""
    return sum(math.comb(columns, k) for k in range(1, min(columns, max_size) + 1))


def minimal_unique_sets(
    oracle: UniquenessOracle,
    universe: Sequence[int],
    max_size: int,
    context: ToolContext,
    progress: Callable[[int, int], None] | None = None,
) -> list[tuple[int, ...]]:
    """Every minimal unique subset of ``universe`` with at most ``max_size`` columns."""
    worst = count_candidates(len(universe), max_size)
    if worst > MAX_CANDIDATES:
        raise ToolError(
            f"{len(universe)} columns with up to {max_size} columns per key make {worst} "
            f"combinations (at most {MAX_CANDIDATES} are searched); name fewer columns or lower "
            "maxColumns",
            ErrorCode.INVALID_ARGUMENT,
        )
    order = sorted(universe)
    found: list[tuple[int, ...]] = []
    frontier: list[tuple[int, ...]] = [(p,) for p in order]
    size = 1
    while frontier and size <= max_size:
        context.check_cancelled()
        if progress is not None:
            progress(size, len(frontier))
        verdicts = oracle.decide(frontier, remember=size < max_size)
        found += [c for c, unique in zip(frontier, verdicts, strict=True) if unique]
        size += 1
        if size > max_size:
            break
        non_unique = {c for c, unique in zip(frontier, verdicts, strict=True) if not unique}
        if size == max_size == 2:
            # a wide source's pairs are most of its search: decided as arrays when possible
            # (announced first, as the level's candidates would be: the same pairs)
            columns = sorted(c[0] for c in non_unique)
            context.check_cancelled()
            if progress is not None:
                progress(size, math.comb(len(columns), 2))
            pairs = oracle.unique_pairs_among(columns)
            if pairs is not None:
                found += pairs
                break
        frontier = _next_level(non_unique, order)
    return found


def _next_level(non_unique: set[tuple[int, ...]], order: Sequence[int]) -> list[tuple[int, ...]]:
    """Sets one larger whose every one-smaller subset is non-unique (apriori generation:
    two non-unique sets sharing all but their last column are joined, in sorted order)."""
    allowed = set(order)
    extensions: dict[tuple[int, ...], list[int]] = {}
    for base in sorted(non_unique):
        if base[-1] in allowed:
            extensions.setdefault(base[:-1], []).append(base[-1])
    result: list[tuple[int, ...]] = []
    for prefix, lasts in extensions.items():
        if not prefix:  # pairs of columns: nothing more to check
            result += combinations(lasts, 2)
            continue
        for i, first in enumerate(lasts):
            for second in lasts[i + 1 :]:
                candidate = (*prefix, first, second)
                # the two subsets ending in first/second are non-unique by construction
                if all(
                    candidate[:k] + candidate[k + 1 :] in non_unique for k in range(len(prefix))
                ):
                    result.append(candidate)
    return result
