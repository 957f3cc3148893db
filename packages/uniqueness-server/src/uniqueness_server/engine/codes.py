"""Exact, vectorised uniqueness checks for many column sets at once.

Sending one ``GROUP BY`` per candidate costs milliseconds of overhead each, which dominates
when a wide source leaves tens of thousands of column pairs open. Instead the columns are
streamed once out of DuckDB as Arrow batches and dictionary-encoded by value (exact: equal
codes mean equal text, no hashing), so each column becomes dense integer codes, and every
check is array work over those codes.

Column pairs, the bulk of a wide search, are decided in stages, each sound on its own:

1. counting bounds from exact per-column counts (fewer possible values than rows, or a group
   of equal values larger than the other column's number of values, means a duplicate);
2. duplicates within random samples of the rows (a duplicate in a sample is a duplicate);
3. for each pair the column with fewer *colliding row pairs* (two rows sharing its value) is
   the pivot: the pair is unique exactly when no colliding row pair of the pivot also agrees
   on the partner, so those row pairs are compared for all partners of a pivot at once,
   stopping as soon as each partner shows a duplicate;
4. a sort of the combined codes for the few pairs whose pivot collides too often to list.
"""

# SQL text here is built only from internal identifiers (c1..cn, quoted) and integers;
# client values never reach it, so string-built queries are safe.
# ruff: noqa: S608

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
from mcp_common import ErrorCode, ToolError

from uniqueness_server.engine.backend import GroupCounts
from uniqueness_server.engine.keysearch import CodeBlock, Records
from uniqueness_server.engine.model import Nulls
from uniqueness_server.engine.sql import column_passes
from uniqueness_server.engine.table import Table

MAX_CELLS = 120_000_000  # codes take 2 bytes a cell (4 for columns of >65,535 values)
ROW_CELLS = 8
"""What each row costs a key search beyond its codes, in cells of :data:`MAX_CELLS`: the
search's work arrays hold an int64 key or sort order a row (16 bytes), so a tall, narrow
source (50 million rows of one column) is counted by its rows, not only its cells."""
_COUNT_ROWS = 1 << 20  # codes counted at once (numpy counts in 8 bytes a code)
BATCH_ROWS = 8_192  # rows coded together (a group's dictionary indices fit in 16 bits)
GROUP_BYTES = 32 << 20
"""A group of rows coded together is cut at this many bytes of values too: a row may be
megabytes long (8,192 rows of 1.9 MB CSV lines took the server to 1.4 GB)."""
MAX_HELD_BYTES = 64 << 20
"""Most bytes of distinct values a coding pass holds: coding keeps every distinct value
until the codes are written, so a source of long distinct values (600 values of 1.9 MB took
the server to 4.7 GB) is too large to code, and its search reads a sample instead."""
_MERGE_BYTES = 16 << 20  # groups' dictionaries merged into each column's once they hold this
SAMPLE_ROWS = (1_024, 4_096)
WORKERS = 2  # threads side by side: coding groups of rows, then columns, deciding pivots
_SEED = 7
_SORT_FACTOR = 8  # a sample's pairs are sorted when comparing rows would cost more than this
_GATHER = 4_000_000  # codes gathered at once, at most (8 bytes each)
_SAFE_PRODUCT = 2**62

Ints = npt.NDArray[np.int64]
T = TypeVar("T")
P = ParamSpec("P")
Flags = npt.NDArray[np.bool_]


Codes = npt.NDArray[np.unsignedinteger[Any]]


class TooManyCellsError(Exception):
    """The source turned out larger than :data:`MAX_CELLS` codes, or its distinct values
    larger than :data:`MAX_HELD_BYTES`, while streaming."""


def _released_when_refused(
    read: Callable[P, T],
) -> Callable[P, T]:
    """``read`` (a streamed pass), giving the memory its arrays held back to the system when
    it refuses a source: the fallback reading the source next would otherwise find the
    process as large as the pass left it (pyarrow's allocator keeps freed pages)."""

    @functools.wraps(read)
    def reading(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return read(*args, **kwargs)
        except TooManyCellsError:
            pa.default_memory_pool().release_unused()
            raise

    return reading


class CodeMatrix:
    """Dense integer codes of some columns, by position, with exact per-column counts.

    A column's codes are ``0..distinct-1`` for its values (in first-seen order) and
    ``distinct`` for a missing value.
    """

    def __init__(
        self,
        rows: int,
        distinct: dict[int, int],
        blocks: tuple[Codes, ...],
        where: dict[int, tuple[int, int]],
        value_lengths: dict[int, npt.NDArray[np.int32]] | None = None,
    ) -> None:
        """Hold codes of ``rows`` rows: position ``p`` is row ``where[p][1]`` of block
        ``where[p][0]`` (16-bit, then 32-bit codes) and has ``distinct[p]`` present values.

        Each column's codes are one contiguous row of its block, so gathering a column at
        some rows is one ``take``. ``value_lengths``, when given, holds the length of each
        column's value of each code, so :attr:`lengths` can total them.
        """
        self.rows = rows
        self.distinct = distinct
        self._blocks = blocks
        self._where = where
        self._codes: dict[int, Codes] = {p: blocks[b][i] for p, (b, i) in where.items()}
        self.missing: dict[int, int] = {}
        self.lengths: dict[int, int] = {}  # total value length in characters, where measured
        self._largest: dict[int, int] = {}  # rows in the largest group of one present value
        self._pairs: dict[int, int] = {}  # row pairs sharing a present value

        def count(p: int) -> tuple[int, int, int, int | None]:
            codes = self._codes[p]
            counts = np.zeros(distinct[p] + 1, dtype=np.int64)
            for start in range(0, len(codes), _COUNT_ROWS):
                counts += np.bincount(codes[start : start + _COUNT_ROWS], minlength=len(counts))
            present = counts[: distinct[p]]
            length = None
            if value_lengths is not None and p in value_lengths:
                length = int(np.dot(value_lengths[p].astype(np.int64), present))
            largest = int(present.max()) if distinct[p] else 0
            return (
                int(counts[distinct[p]]),
                largest,
                int((present * (present - 1) // 2).sum()),
                length,
            )

        with ThreadPoolExecutor(WORKERS, thread_name_prefix="uniqueness-codes") as pool:
            for p, (missing, largest, pairs, length) in zip(
                self._codes, pool.map(count, self._codes), strict=True
            ):
                self.missing[p], self._largest[p], self._pairs[p] = missing, largest, pairs
                if length is not None:
                    self.lengths[p] = length

    @classmethod
    @_released_when_refused
    def encode(
        cls,
        table: Table,
        source: str,
        positions: Sequence[int],
        *,
        measure: bool = False,
        max_cells: int | None = None,
    ) -> CodeMatrix:
        """Stream ``positions`` of ``source`` and code them exactly by value: in one pass, or
        one per run of :data:`~.sql.PASS_COLUMNS` columns for a wider source (the engine's
        memory bounds how many columns one query returns).

        With ``measure``, :attr:`lengths` holds each text column's total value length in
        characters. Raises :class:`TooManyCellsError` once more than ``max_cells`` (default
        :data:`MAX_CELLS`) codes would be held, each row of a pass counting
        :data:`ROW_CELLS` more, or a pass holds more than :data:`MAX_HELD_BYTES` of distinct
        values.
        """
        limit = MAX_CELLS if max_cells is None else max_cells
        rows: int | None = None
        spent = 0
        distinct: dict[int, int] = {}
        blocks: list[Codes] = []
        where: dict[int, tuple[int, int]] = {}
        value_lengths: dict[int, npt.NDArray[np.int32]] = {}
        for run in column_passes(list(positions)):
            if spent >= limit:
                raise TooManyCellsError
            coded = _coded_pass(table, source, run, measure, limit - spent)
            if rows is not None and coded.rows != rows:
                raise ToolError(
                    f"{table.label} changed while it was read ({rows} rows, then {coded.rows})",
                    ErrorCode.FAILED,
                )
            rows = coded.rows
            spent += rows * (len(run) + ROW_CELLS)
            where.update({p: (len(blocks) + b, i) for p, (b, i) in coded.where.items()})
            blocks += coded.blocks
            distinct.update(coded.distinct)
            value_lengths.update(coded.value_lengths)
        return cls(rows or 0, distinct, tuple(blocks), where, value_lengths if measure else None)

    def freeze(self) -> None:
        """Make the codes read-only: a matrix shared by calls can then never be changed by
        one of them."""
        for block in self._blocks:
            block.setflags(write=False)
        for codes in self._codes.values():
            codes.setflags(write=False)

    # --- facts under a nulls mode -------------------------------------------------------

    def records(self, positions: Sequence[int], nulls: Nulls) -> Records:
        """The codes of ``positions`` as the plain records a key search reads (no copy)."""
        blocks = []
        held_blocks: tuple[Codes, ...] = self._blocks
        for b, block in enumerate(held_blocks):
            held = [p for p in positions if self._where[p][0] == b]
            if held:
                blocks.append(
                    CodeBlock(
                        block,
                        [self._where[p][1] for p in held],
                        held,
                        [self.distinct[p] for p in held],
                    )
                )
        collisions = {p: self._collisions(p, nulls) for p in positions}
        return Records(self.rows, blocks, collisions, nulls)

    def _collisions(self, p: int, nulls: Nulls) -> int:
        """Row pairs that share a value of ``p`` (so could share a key)."""
        m = self.missing[p]
        return self._pairs[p] + (m * (m - 1) // 2 if nulls is Nulls.EQUAL else 0)

    def _key(self, candidate: Sequence[int], rows: Ints | None, nulls: Nulls) -> Ints:
        """One int64 per row (of ``rows``, default all) equal exactly when the rows agree on
        ``candidate``; under ``nulls=distinct`` a row with a missing value gets a unique
        negative key, so it never collides."""

        def column(p: int) -> Ints:
            codes = self._codes[p] if rows is None else self._codes[p][rows]
            return codes.astype(np.int64)

        key = column(candidate[0])
        card = self.distinct[candidate[0]] + 1
        for p in candidate[1:]:
            width = self.distinct[p] + 1
            if card * width >= _SAFE_PRODUCT:
                key = np.unique(key, return_inverse=True)[1].astype(np.int64).reshape(-1)
                card = int(key.max()) + 1 if len(key) else 1
            key = key * width + column(p)
            card *= width
        if nulls is Nulls.DISTINCT:
            lost = np.zeros(len(key), dtype=np.bool_)
            for p in candidate:
                codes = self._codes[p] if rows is None else self._codes[p][rows]
                lost |= codes == self.distinct[p]
            key[lost] = -1 - np.arange(int(lost.sum()), dtype=np.int64)
        return key

    def group_counts(self, candidate: Sequence[int], nulls: Nulls) -> GroupCounts:
        """What one ``GROUP BY`` of ``candidate`` counts (see :data:`GroupCounts`), from the
        codes: groups hold rows agreeing on every value, a missing value equal to another
        (as SQL groups them); ``nulls`` decides only whether a group with one is a duplicate."""
        key = self._key(candidate, None, Nulls.EQUAL)
        _, group, sizes = np.unique(key, return_inverse=True, return_counts=True)
        lost = np.zeros(self.rows, dtype=np.bool_)
        for p in candidate:
            lost |= self._codes[p] == self.distinct[p]
        with_missing = np.zeros(len(sizes), dtype=np.bool_)
        with_missing[group.reshape(-1)[lost]] = True
        repeated = sizes > 1
        if nulls is Nulls.DISTINCT:
            repeated &= ~with_missing
        return (
            len(sizes),
            self.rows,
            int(repeated.sum()),
            int(sizes[repeated].sum()),
            int(with_missing.sum()),
            int(sizes[with_missing].sum()),
        )

    def unique(self, candidate: Sequence[int], nulls: Nulls) -> bool:
        """Whether ``candidate`` identifies every row: one column from its counts, more by
        one sort over combined codes (in place: one int64 a row)."""
        if len(candidate) == 1:
            p = candidate[0]
            return self._largest[p] <= 1 and (nulls is Nulls.DISTINCT or self.missing[p] <= 1)
        ordered = self._key(candidate, None, nulls)
        ordered.sort()
        return not bool((ordered[1:] == ordered[:-1]).any())

    def bounded_out(self, a: Ints, b: Ints, nulls: Nulls) -> Flags:
        """For pairs ``(a[i], b[i])``: True where counts alone prove a duplicate."""
        distinct = np.array([self.distinct.get(p, 0) for p in range(_span(a, b))], np.int64)
        missing = np.array([self.missing.get(p, 0) for p in range(_span(a, b))], np.int64)
        largest = np.array([self._largest.get(p, 0) for p in range(_span(a, b))], np.int64)
        if nulls is Nulls.EQUAL:
            card = distinct + (missing > 0)
            top = np.maximum(largest, missing)
            return (card[a] * card[b] < self.rows) | (top[a] > card[b]) | (top[b] > card[a])
        # rows with a missing key value never collide: count only rows surely complete
        complete = self.rows - missing[a] - missing[b]
        return (
            (distinct[a] * distinct[b] < complete)
            | (largest[a] - missing[b] > distinct[b])
            | (largest[b] - missing[a] > distinct[a])
        )

    # --- many pairs at once -------------------------------------------------------------

    def unique_pairs(
        self, a: Ints, b: Ints, nulls: Nulls, check_cancelled: Callable[[], None]
    ) -> Flags:
        """Whether each column pair ``(a[i], b[i])`` identifies every row, decided exactly in
        bulk."""
        if not len(a):
            return np.zeros(0, dtype=np.bool_)
        # by position; the matrix may hold only some positions below the largest (a
        # ``columns`` subset, or columns coded in separate passes)
        collisions = np.array(
            [self._collisions(p, nulls) if p in self.distinct else 0 for p in range(_span(a, b))],
            dtype=np.int64,
        )
        swap = collisions[a] > collisions[b]  # the pivot: the column colliding less often
        a, b = np.where(swap, b, a), np.where(swap, a, b)
        duplicate = self.bounded_out(a, b, nulls)
        settled = duplicate.copy()
        rng = np.random.default_rng(_SEED)
        # pivots are independent and numpy releases the GIL: decide them side by side
        with ThreadPoolExecutor(WORKERS, thread_name_prefix="uniqueness-pairs") as pool:
            for size in SAMPLE_ROWS:
                if self.rows <= 2 * size:
                    break
                rows = np.sort(rng.choice(self.rows, size, replace=False))
                columns = np.unique(np.concatenate([a[~settled], b[~settled]]))
                sample: Ints = self._gather(columns, rows).astype(np.int64, copy=False)

                def in_sample(group: Ints, sample: Ints = sample, columns: Ints = columns) -> Flags:
                    check_cancelled()
                    pivot, partners = int(a[group[0]]), b[group]
                    return self._sample_duplicates(
                        sample[np.searchsorted(columns, pivot)],
                        self.distinct[pivot],
                        sample[np.searchsorted(columns, partners)],
                        partners,
                        nulls,
                    )

                groups = list(_by_pivot(a, ~settled))
                for group, found in zip(groups, pool.map(in_sample, groups), strict=True):
                    duplicate[group[found]] = True
                    settled[group[found]] = True

            def by_pivot(group: Ints) -> Flags:
                check_cancelled()
                return self._pivot_duplicates(int(a[group[0]]), b[group], nulls, check_cancelled)

            groups = list(_by_pivot(a, ~settled))
            for group, found in zip(groups, pool.map(by_pivot, groups), strict=True):
                duplicate[group] = found
        return ~duplicate

    def _sample_duplicates(
        self, pivot: Ints, pivot_missing: int, partners: Ints, positions: Ints, nulls: Nulls
    ) -> Flags:
        """For each partner (its codes in the sample, one row each, of ``positions``): does
        the pair with the pivot (its codes in the sample, ``pivot_missing`` marking a
        missing value) repeat a key within the sample?"""
        widths = np.array([self.distinct[int(q)] + 1 for q in positions], dtype=np.int64)
        rows, values = _colliding(pivot, pivot_missing, nulls)
        run = int(np.unique(values, return_counts=True)[1].max(initial=1))
        if len(rows) * (run - 1) <= _SORT_FACTOR * len(pivot):
            # few rows share a pivot value: comparing those rows is cheaper than sorting
            return _shared_duplicates(values, partners[:, rows], widths - 1, nulls)
        keys = pivot[None, :] * widths[:, None] + partners
        if nulls is Nulls.DISTINCT:
            lost = (partners == widths[:, None] - 1) | (pivot == pivot_missing)[None, :]
            keys[lost] = -1 - np.arange(int(lost.sum()), dtype=np.int64)
        keys.sort(axis=1)
        return np.asarray((keys[:, 1:] == keys[:, :-1]).any(axis=1))

    def _pivot_duplicates(
        self, pivot: int, partners: Ints, nulls: Nulls, check_cancelled: Callable[[], None]
    ) -> Flags:
        """For each partner: does (pivot, partner) hold a duplicate? Compares the codes of
        the partners on every row pair sharing a pivot value (the only rows that can
        collide), dropping each partner at its first duplicate; when the pivot has too many
        such row pairs to list, each partner gets a sort instead."""
        found = np.zeros(len(partners), dtype=np.bool_)
        if self._collisions(pivot, nulls) > 8 * self.rows:
            for i in range(len(partners)):
                check_cancelled()
                found[i] = not self.unique((pivot, int(partners[i])), nulls)
            return found
        rows, values = _colliding(self._codes[pivot], self.distinct[pivot], nulls)
        if not len(rows):
            return found
        missing = np.array([self.distinct[int(q)] for q in partners], dtype=np.int64)
        step = max(1, _GATHER // len(rows))
        for start in range(0, len(partners), step):
            check_cancelled()
            live = np.arange(start, min(start + step, len(partners)))
            codes_at = self._gather(partners[live], rows, self._narrowest(partners[live]))
            found[live] = _shared_duplicates(values, codes_at, missing[live], nulls)
        return found

    def _gather(
        self, columns: Ints, rows: Ints, dtype: type[np.integer[Any]] = np.int64
    ) -> npt.NDArray[np.integer[Any]]:
        """Codes of ``columns`` (one row each) at ``rows``."""
        out = np.empty((len(columns), len(rows)), dtype=dtype)
        for i, p in enumerate(columns):
            # one take per column: far faster than one 2-D fancy index over a block
            out[i] = self._codes[int(p)].take(rows)
        return out

    def _narrowest(self, columns: Ints) -> type[np.unsignedinteger[Any]]:
        """The smallest code type that holds every code of ``columns``."""
        if all(self._where[int(p)][0] == 0 for p in columns):
            return np.uint16
        return np.uint32


@dataclass(frozen=True, slots=True)
class _Pass:
    """The codes of one streamed pass (see :meth:`CodeMatrix.encode`)."""

    rows: int
    distinct: dict[int, int]
    blocks: tuple[Codes, Codes]  # 16-bit, then 32-bit codes
    where: dict[int, tuple[int, int]]
    value_lengths: dict[int, npt.NDArray[np.int32]]


def _coded_pass(
    table: Table, source: str, ordered: Sequence[int], measure: bool, max_cells: int
) -> _Pass:
    """``ordered`` of ``source`` streamed once and coded (see :meth:`CodeMatrix.encode`)."""
    # per group of rows, every column's indices into that group's own dictionaries (one
    # large array per group, so memory goes back to the system as each is consumed)
    local: list[npt.NDArray[np.uint16]] = []
    columns = _DistinctValues(len(ordered))
    rows = 0
    for indices, group_dictionaries in _each_group(
        table, source, ordered, _code_group, max_cells, ROW_CELLS
    ):
        local.append(indices)
        rows += indices.shape[1]
        columns.add(group_dictionaries)

    # each group dictionary's entries as codes of the whole column; then every group's
    # indices as those codes. Columns are independent and the kernels release the GIL,
    # so both steps run on the pool too.
    def unify(i: int) -> tuple[list[Codes], int, npt.NDArray[np.int32] | None]:
        by_group, values = columns.codes(i)
        measured = None
        if measure and pa.types.is_string(values.type):
            # a length per distinct value (32 bits: held for every column at once),
            # weighted by its rows once codes are counted
            measured = pc.utf8_length(values).to_numpy()
        return by_group, len(values), measured

    with ThreadPoolExecutor(WORKERS, thread_name_prefix="uniqueness-codes") as pool:
        unified = list(pool.map(unify, range(len(ordered))))
        distinct = {p: u[1] for p, u in zip(ordered, unified, strict=True)}
        value_lengths = {p: u[2] for p, u in zip(ordered, unified, strict=True) if u[2] is not None}
        narrow = [i for i, p in enumerate(ordered) if distinct[p] < 2**16]
        wide = [i for i, p in enumerate(ordered) if distinct[p] >= 2**16]
        blocks = (
            np.empty((len(narrow), rows), dtype=np.uint16),
            np.empty((len(wide), rows), dtype=np.uint32),
        )
        where = {ordered[i]: (0, k) for k, i in enumerate(narrow)}
        where.update({ordered[i]: (1, k) for k, i in enumerate(wide)})
        mappings = [u[0] for u in unified]
        del unified
        parts = np.array_split(np.arange(len(ordered)), WORKERS)
        start = 0
        for g in range(len(local)):
            indices, local[g] = local[g], np.empty((0, 0), dtype=np.uint16)
            end = start + indices.shape[1]

            def write(part: Ints, g: int = g, indices: Any = indices, start: int = start) -> None:
                for i in part:
                    block, k = where[ordered[i]]
                    out = blocks[block][k, start : start + indices.shape[1]]
                    mappings[i][g].take(indices[i], out=out)

            list(pool.map(write, parts))
            start = end
            del indices  # this group's indices are written: let their memory go
    return _Pass(rows, distinct, blocks, where, value_lengths)


def _colliding(
    pivot: npt.NDArray[np.integer[Any]], missing: int, nulls: Nulls
) -> tuple[Ints, npt.NDArray[np.integer[Any]]]:
    """The rows whose pivot code another row shares (under ``nulls=distinct`` a missing
    value, code ``missing``, is shared by none), ordered so equal codes are adjacent, and
    their codes."""
    order = np.argsort(pivot, kind="stable")
    ordered = pivot[order]
    repeated = ordered[1:] == ordered[:-1]
    if nulls is Nulls.DISTINCT:
        repeated &= ordered[1:] != missing
    colliding = np.zeros(len(ordered), dtype=np.bool_)
    colliding[1:] |= repeated
    colliding[:-1] |= repeated
    return order[colliding], ordered[colliding]


def _shared_duplicates(
    values: npt.NDArray[np.integer[Any]],
    codes_at: npt.NDArray[np.integer[Any]],
    missing: Ints,
    nulls: Nulls,
) -> Flags:
    """For each row of ``codes_at`` (a partner's codes at the colliding rows, whose pivot
    codes are ``values``, equal ones adjacent; ``missing`` its missing code): do two rows
    sharing a pivot value share the partner's value too? Compares rows ``gap`` apart for
    growing gaps, dropping each partner at its first duplicate."""
    found = np.zeros(len(codes_at), dtype=np.bool_)
    live = np.arange(len(codes_at))
    gap = 1
    while len(live):
        paired = values[gap:] == values[:-gap]
        if not paired.any():
            break
        same = (codes_at[:, gap:] == codes_at[:, :-gap]) & paired
        if nulls is Nulls.DISTINCT:
            same &= codes_at[:, gap:] != missing[live][:, None]
        hit = same.any(axis=1)
        found[live[hit]] = True
        live, codes_at = live[~hit], codes_at[~hit]
        gap += 1
    return found


def _span(a: Ints, b: Ints) -> int:
    return int(max(a.max(initial=-1), b.max(initial=-1))) + 1


def _by_pivot(pivots: Ints, selected: Flags) -> Iterator[Ints]:
    """Indices of the selected pairs, grouped by pivot column."""
    chosen = np.flatnonzero(selected)
    if not len(chosen):
        return
    chosen = chosen[np.argsort(pivots[chosen], kind="stable")]
    cuts = np.flatnonzero(np.diff(pivots[chosen])) + 1
    yield from np.split(chosen, cuts)


class ValueCoder:
    """Codes rows of Python values as a remote backend's driver returns them, batch by batch.

    Values are coded by Python equality, which is what the databases' grouping sees for the
    types their drivers return (``1`` and ``1.0`` equal, a text never equal to a number or
    to bytes), with two corrections: every NaN is one value (the databases group NaNs
    together) and lists, dictionaries and bytearrays (arrays, JSON, structs) are coded by
    their contents.
    """

    def __init__(self, positions: Sequence[int]) -> None:
        self._positions = list(positions)
        self._seen: list[dict[Any, int]] = [{} for _ in self._positions]
        self._parts: list[npt.NDArray[np.int64]] = []
        self.rows = 0

    def add(self, batch: Sequence[Sequence[Any]]) -> None:
        """Code one batch of rows (one value per position each)."""
        if not batch:
            return
        part = np.empty((len(self._positions), len(batch)), dtype=np.int64)
        for i, column in enumerate(zip(*batch, strict=True)):
            seen = self._seen[i]
            try:
                part[i] = [seen.setdefault(v, len(seen)) for v in column]
            except TypeError:  # an unhashable value: the column by contents from now on
                part[i] = [seen.setdefault(_frozen(v), len(seen)) for v in column]
        self._parts.append(part)
        self.rows += len(batch)

    def matrix(self) -> CodeMatrix:
        """The codes of every row added (missing values coded last, as everywhere)."""
        rows = self.rows
        distinct: dict[int, int] = {}
        columns: list[npt.NDArray[np.int64]] = []
        for i, p in enumerate(self._positions):
            seen = self._seen[i]
            codes = (
                np.concatenate([part[i] for part in self._parts])
                if self._parts
                else np.zeros(0, np.int64)
            )
            # every NaN is one value (NaN objects are distinct keys of a dictionary), and a
            # value first seen before the column turned to contents has two codes
            alias = np.arange(max(1, len(seen)), dtype=np.int64)
            first: dict[Any, int] = {}
            for value, code in seen.items():
                alias[code] = first.setdefault(_frozen(value), code)
            values, codes = np.unique(alias[codes], return_inverse=True)
            codes = codes.reshape(-1).astype(np.int64)
            missing = first.get(None)
            if missing is not None and (hit := np.flatnonzero(values == missing)).size:
                at = int(hit[0])
                distinct[p] = len(values) - 1
                lost = codes == at
                codes[codes > at] -= 1
                codes[lost] = distinct[p]
            else:
                distinct[p] = len(values)
            columns.append(codes)
        narrow = [i for i, p in enumerate(self._positions) if distinct[p] < 2**16]
        wide = [i for i, p in enumerate(self._positions) if distinct[p] >= 2**16]
        blocks = (
            np.array([columns[i] for i in narrow], dtype=np.uint16).reshape(len(narrow), rows),
            np.array([columns[i] for i in wide], dtype=np.uint32).reshape(len(wide), rows),
        )
        where = {self._positions[i]: (0, k) for k, i in enumerate(narrow)}
        where.update({self._positions[i]: (1, k) for k, i in enumerate(wide)})
        return CodeMatrix(rows, distinct, blocks, where)


_NAN = object()  # every NaN's code


@dataclass(frozen=True, slots=True)
class _Contents:
    """A container's values, hashable (what :func:`_frozen` makes of a list or a dict)."""

    kind: str
    items: Any


def _frozen(value: Any) -> Any:
    """A hashable stand-in equal exactly when the values are (contents for containers);
    a stand-in is its own."""
    if isinstance(value, float) and value != value:
        return _NAN
    if isinstance(value, (list, tuple)):
        return _Contents(type(value).__name__, tuple(map(_frozen, value)))
    if isinstance(value, dict):
        return _Contents("dict", frozenset((k, _frozen(v)) for k, v in value.items()))
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    return value


def _groups(batches: Iterator[Any]) -> Iterator[list[Any]]:
    """Record batches gathered into groups of at least :data:`BATCH_ROWS` rows or
    :data:`GROUP_BYTES` bytes (the last may be smaller), so per-column work is not repeated
    for DuckDB's small scan chunks; a group stays below 2 x BATCH_ROWS rows, so its
    dictionary indices fit in 16 bits."""
    group: list[Any] = []
    rows = size = 0
    for batch in batches:
        group.append(batch)
        rows += batch.num_rows
        size += batch.nbytes
        if rows >= BATCH_ROWS or size >= GROUP_BYTES:
            yield group
            group, rows, size = [], 0, 0
    if group:
        yield group


_CodedGroup = tuple[npt.NDArray[np.uint16], list[Any]]


def _code_group(group: Sequence[Any]) -> _CodedGroup:
    """One group of record batches coded column by column: every column's indices into the
    group's own dictionary of it (a missing value is an entry of it), and those
    dictionaries."""
    size = sum(batch.num_rows for batch in group)
    indices = np.empty((group[0].num_columns, size), dtype=np.uint16)
    dictionaries: list[Any] = []
    for i in range(group[0].num_columns):
        column = pa.chunked_array([batch.column(i) for batch in group])
        # one dictionary for the group's chunks
        encoded = pc.dictionary_encode(column, null_encoding="encode")
        start = 0
        for chunk in encoded.chunks:
            indices[i, start : start + len(chunk)] = chunk.indices.to_numpy()
            start += len(chunk)
        dictionaries.append(encoded.chunks[0].dictionary)
    return indices, dictionaries


class _DistinctValues:
    """Each column's distinct values seen so far in a streamed pass, and for each group of
    rows its dictionary's entries as their codes.

    Groups' dictionaries are merged into the column's own as they pile up (a value repeated
    in every group is then held once), and the pass is refused with
    :class:`TooManyCellsError` once the merged values pass :data:`MAX_HELD_BYTES`.
    """

    def __init__(self, columns: int) -> None:
        self._values: list[Any] = [None] * columns  # present values, in code order
        self._maps: list[list[npt.NDArray[np.int32]]] = [[] for _ in range(columns)]
        self._pending: list[list[Any]] = [[] for _ in range(columns)]
        self._pending_bytes = 0

    def add(self, dictionaries: Sequence[Any]) -> None:
        """One group's dictionaries (a missing value may be an entry), one per column."""
        for i, dictionary in enumerate(dictionaries):
            self._pending[i].append(dictionary)
            self._pending_bytes += dictionary.nbytes
        if self._pending_bytes > _MERGE_BYTES:
            with ThreadPoolExecutor(WORKERS, thread_name_prefix="uniqueness-codes") as pool:
                list(pool.map(self._merge, range(len(self._values))))
            self._pending_bytes = 0
            held = sum(v.nbytes for v in self._values if v is not None)
            if held > MAX_HELD_BYTES:
                raise TooManyCellsError

    def _merge(self, i: int) -> None:
        pending, self._pending[i] = self._pending[i], []
        if not pending:
            return
        known = [] if self._values[i] is None else [self._values[i]]
        # the merged values come first and are distinct, so each keeps its code
        combined = pc.dictionary_encode(pa.concat_arrays([*known, *pending]))
        codes = pc.fill_null(combined.indices, -1).to_numpy().astype(np.int32)
        start = len(self._values[i]) if known else 0
        for dictionary in pending:
            self._maps[i].append(codes[start : start + len(dictionary)])
            start += len(dictionary)
        self._values[i] = combined.dictionary

    def codes(self, i: int) -> tuple[list[Codes], Any]:
        """Column ``i``'s groups' dictionary entries as codes of the whole column (missing =
        the number of present values), in the code type its block uses, and its
        :meth:`values`."""
        self._merge(i)
        maps = self._maps[i]
        values = self.values(i)  # the merged values (and lets go of the maps)
        distinct = len(values)
        # held for every column at once until the blocks are written: the narrowest type
        kind = np.uint16 if distinct < 2**16 else np.uint32
        return [np.where(m < 0, distinct, m).astype(kind) for m in maps], values

    def values(self, i: int) -> Any:
        """Column ``i``'s present values in code order (an Arrow array); what the column held
        is let go."""
        self._merge(i)
        values = self._values[i]
        self._maps[i], self._values[i] = [], None
        return pa.array([], pa.string()) if values is None else values


def _each_group(
    table: Table,
    source: str,
    positions: Sequence[int],
    work: Callable[[list[Any]], T],
    max_cells: int | None,
    row_cells: int = 0,
) -> Iterator[T]:
    """``work`` of each group of rows of ``positions`` of ``source``, in order, from one
    streamed pass. Raises :class:`TooManyCellsError` past ``max_cells`` cells (default
    :data:`MAX_CELLS`), each row counting ``row_cells`` more."""
    limit = MAX_CELLS if max_cells is None else max_cells
    query = f"SELECT {', '.join(table.column(p) for p in positions)} FROM {source}"
    cells = 0
    # DuckDB parses on its own threads while the pool works on the groups already read
    # (pyarrow's kernels release the GIL); fewer than WORKERS groups wait while the next is
    # read (one more waiting raised the pass's peak from 903 to 967 MB on 1,000 x 100,000)
    with ThreadPoolExecutor(WORKERS, thread_name_prefix="uniqueness-codes") as pool:
        pending: deque[Future[T]] = deque()
        for group in _groups(table.backend.batches(query, BATCH_ROWS)):
            cells += sum(batch.num_rows for batch in group) * (len(positions) + row_cells)
            if cells > limit:
                raise TooManyCellsError
            pending.append(pool.submit(work, group))
            while len(pending) >= WORKERS:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


@dataclass(frozen=True, slots=True)
class ColumnValues:
    """Exact per-column facts of one streamed pass, by position, without codes."""

    rows: int
    missing: dict[int, int]
    lengths: dict[int, int]  # total value length in characters
    values: dict[int, Any]  # the distinct present values (an Arrow array)


@_released_when_refused
def distinct_values(
    table: Table, source: str, positions: Sequence[int], *, max_cells: int | None = None
) -> ColumnValues:
    """Stream ``positions`` of ``source`` (in passes as :meth:`CodeMatrix.encode` does)
    keeping only each column's distinct values, missing count and value lengths. Raises
    :class:`TooManyCellsError` past ``max_cells`` cells (default :data:`MAX_CELLS`) or
    :data:`MAX_HELD_BYTES` of distinct values in a pass."""
    limit = MAX_CELLS if max_cells is None else max_cells
    rows: int | None = None
    spent = 0
    missing: dict[int, int] = {}
    lengths: dict[int, int] = {}
    values: dict[int, Any] = {}
    for run in column_passes(list(positions)):
        if spent >= limit:
            raise TooManyCellsError
        counted = 0
        held = _DistinctValues(len(run))
        run_missing, run_lengths = [0] * len(run), [0] * len(run)
        for size, group_uniques, group_missing, group_lengths in _each_group(
            table, source, run, _group_values, limit - spent
        ):
            counted += size
            held.add(group_uniques)
            for i in range(len(run)):
                run_missing[i] += group_missing[i]
                run_lengths[i] += group_lengths[i]
        if rows is not None and counted != rows:
            raise ToolError(
                f"{table.label} changed while it was read ({rows} rows, then {counted})",
                ErrorCode.FAILED,
            )
        rows = counted
        spent += rows * len(run)
        missing.update(zip(run, run_missing, strict=True))
        lengths.update(zip(run, run_lengths, strict=True))
        values.update({p: held.values(i) for i, p in enumerate(run)})
    return ColumnValues(rows or 0, missing, lengths, values)


def _group_values(group: Sequence[Any]) -> tuple[int, list[Any], list[int], list[int]]:
    """One group of record batches: its rows, and per column its distinct values (a missing
    value among them), missing values and total value length in characters."""
    uniques: list[Any] = []
    missing: list[int] = []
    lengths: list[int] = []
    for i in range(group[0].num_columns):
        column = pa.chunked_array([batch.column(i) for batch in group])
        uniques.append(pc.unique(column))
        missing.append(column.null_count)
        lengths.append(int(pc.sum(pc.utf8_length(column)).as_py() or 0))
    return sum(batch.num_rows for batch in group), uniques, missing, lengths
