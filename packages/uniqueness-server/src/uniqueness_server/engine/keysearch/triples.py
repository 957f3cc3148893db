"""Every minimal key of up to 3 columns, one first column at a time, holding no candidate.

When the agree sets leave more candidates of 1 and 2 columns than a search may hold (64 rows
of 6,832 gene columns have 21 million keys of 2 columns; 10,000 two-valued columns leave tens
of millions of intermediate pairs in the cover), or when keys of up to 2 of thousands of
columns over few rows are asked, no cover is built. The first columns are
taken from the last to the first (in the search's order, most selective first), and for each
first column ``a`` every set ``(a, d)`` and ``(a, b, d)`` with later ``b < d`` is decided:

* ``(a, d)`` is a key exactly when no two rows sharing ``a``'s value agree on ``d``;
* ``(a, b, d)`` is a minimal key exactly when ``(a, b)``, ``(a, d)`` and ``(b, d)`` are not keys
  and no two rows sharing ``a``'s value agree on both ``b`` and ``d``. The pairs ``(b, d)`` of
  later columns were decided by the first columns taken before, and are held as one bit each
  (12.5 MB for 10,000 columns).

With few row pairs sharing ``a``'s value (wide, short tables), each later column gets a bit set
of the pairs agreeing on it, and both sizes are decided as array work; with more, by the
position-list indexes of :mod:`.partitions`. A counting bound skips what cannot be a key:
``k`` rows sharing ``a``'s value are told apart by ``b`` and ``d`` only if the two columns have
at least ``k`` combinations of values (missing values aside under ``nulls=distinct``), so
10,000 two-valued columns over 40 rows are settled without a check.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from uniqueness_server.engine.keysearch.cover import TooManyCandidatesError
from uniqueness_server.engine.keysearch.partitions import Partitions
from uniqueness_server.engine.keysearch.records import Records
from uniqueness_server.engine.model import Nulls

Ints = npt.NDArray[np.int64]
Flags = npt.NDArray[np.bool_]
Words = npt.NDArray[np.uint64]

Emit = Callable[[Ints], None]
"""Takes keys found (rows of search columns, one size, each row sorted)."""

MOST_PAIR_BITS = 2 << 30  # bits of the matrix of keys of 2 columns (256 MiB: 46,000 columns)
_BATCH = 200_000  # keys of one size handed on at once, at most about this many
_ROW_PAIRS = 4_096  # row pairs sharing a first column's value, at most, for the bit sets
_AT_ONCE = 4_000_000  # words compared at once


def walk_to_three(
    records: Records,
    limit: int,
    emit: Emit,
    check_cancelled: Callable[[], None],
    report: Callable[[float, str], None],
) -> int:
    """Every minimal key of at most ``limit`` (1 to 3) search columns of ``records`` (every
    row of the source), handed to ``emit``; returns how many sets were checked. Raises
    :class:`TooManyCandidatesError` when the keys of 2 columns would take more than
    :data:`MOST_PAIR_BITS` bits."""
    width = records.width
    if limit >= 2 and width * width > MOST_PAIR_BITS:
        raise TooManyCandidatesError(
            f"{width:,} columns make more pairs than the {MOST_PAIR_BITS:,} bits that "
            "record which pairs are keys"
        )
    partitions = Partitions(records, check_cancelled)
    columns = np.arange(width, dtype=np.int64)
    single, _ = partitions.check((), columns, witness=False)
    emit(columns[single][:, None])
    checked = width
    if limit < 2:
        return checked
    roots = columns[~single]
    sink = _Batches(emit)
    walk = _Walk(records, partitions, limit, sink, check_cancelled)
    for i in range(len(roots) - 1, -1, -1):
        done = len(roots) - 1 - i
        # the later first columns have fewer partners: about done**limit of the work is done
        report(
            (done / len(roots)) ** limit,
            f"checking candidate keys of up to {limit} columns from column {done + 1} of "
            f"{len(roots)}",
        )
        checked += walk.first(int(roots[i]), roots[i + 1 :])
    sink.flush()
    return checked


class _Batches:
    """Keys gathered by size and handed on in batches."""

    def __init__(self, emit: Emit) -> None:
        self._emit = emit
        self._held: dict[int, list[Ints]] = {}
        self._count = 0

    def add(self, keys: Ints) -> None:
        if not len(keys):
            return
        self._held.setdefault(keys.shape[1], []).append(keys)
        self._count += len(keys)
        if self._count >= _BATCH:
            self.flush()

    def flush(self) -> None:
        for parts in self._held.values():
            self._emit(np.concatenate(parts))
        self._held.clear()
        self._count = 0


class _Walk:
    """The sets of each first column, the keys of 2 columns found so far as bits."""

    def __init__(
        self,
        records: Records,
        partitions: Partitions,
        limit: int,
        sink: _Batches,
        check_cancelled: Callable[[], None],
    ) -> None:
        self._records = records
        self._partitions = partitions
        self._limit = limit
        self._sink = sink
        self._check_cancelled = check_cancelled
        width = records.width
        self._pairs = np.zeros((width, -(-width // 8)), dtype=np.uint8)
        distinct = records.nulls is Nulls.DISTINCT
        values = np.empty(width, dtype=np.int64)
        slack = np.zeros(width, dtype=np.int64)
        for c in range(width):
            counts = np.bincount(records.column(c), minlength=records.missing(c) + 1)
            lost = int(counts[records.missing(c)])
            counts[records.missing(c)] = 0
            values[c] = int(np.count_nonzero(counts)) + (0 if distinct or not lost else 1)
            if distinct:
                slack[c] = lost
        #: values a column can tell apart (a missing one counted under nulls=equal), and
        #: rows it cannot collide on (its missing ones under nulls=distinct)
        self._values = values
        self._slack = slack

    def first(self, a: int, rest: Ints) -> int:
        """Decide the sets of first column ``a`` (no key alone) with later columns ``rest``;
        returns how many were checked."""
        self._check_cancelled()
        if not len(rest):
            return 0
        rows, codes = self._records.clustered(a)
        cuts = np.flatnonzero(codes[1:] != codes[:-1]) + 1
        bounds = np.r_[0, cuts, len(rows)]
        sizes = np.diff(bounds)
        largest = int(sizes.max())
        # counting bound: the rows of a's largest group need as many combinations of values
        values = np.minimum(self._values[rest], largest)
        slack = self._slack[rest]
        capable = values + slack >= largest  # may make a key with a alone
        if self._limit >= 3 and len(rest) >= 2:
            # or with a and some other column (at most the most values, the most slack)
            capable |= values * int(values.max()) + slack + int(slack.max()) >= largest
        rest = rest[capable]
        if not len(rest):
            return 0
        if int((sizes * (sizes - 1) // 2).sum()) <= _ROW_PAIRS:
            return self._by_row_pairs(a, rest, rows, bounds, sizes, largest)
        return self._by_indexes(a, rest, largest)

    def _by_row_pairs(
        self, a: int, rest: Ints, rows: Ints, bounds: Ints, sizes: Ints, largest: int
    ) -> int:
        """Both sizes decided from bit sets of the row pairs sharing ``a``'s value."""
        records = self._records
        one, two = [], []
        for start, count in zip(bounds[:-1].tolist(), sizes.tolist(), strict=True):
            i, j = np.triu_indices(count, k=1)
            one.append(start + i)
            two.append(start + j)
        left, right = np.concatenate(one), np.concatenate(two)
        words = np.zeros((len(rest), -(-len(left) // 64) * 8), dtype=np.uint8)
        # a slice of the later columns at a time: their codes at a's rows stay small
        step = max(1, _AT_ONCE // max(1, len(rows)))
        for start in range(0, len(rest), step):
            part = rest[start : start + step]
            gathered = records.gather(part, rows)
            agree = gathered[:, left] == gathered[:, right]
            if records.nulls is Nulls.DISTINCT:
                agree &= gathered[:, left] != records.missing_codes(part)[:, None].astype(
                    gathered.dtype
                )
            packed = np.packbits(agree, axis=1, bitorder="little")
            words[start : start + len(part), : packed.shape[1]] = packed
        bits: Words = words.view("<u8")
        paired = ~bits.any(axis=1)
        self._found_pairs(a, rest[paired])
        checked = len(rest)
        if self._limit < 3:
            return checked
        later, bits = rest[~paired], bits[~paired]
        step = max(1, _AT_ONCE // max(1, len(later) * bits.shape[1]))
        for start in range(0, len(later) - 1, step):
            self._check_cancelled()
            block = slice(start, min(start + step, len(later) - 1))
            b = later[block]
            partners = later[block.start + 1 :]
            candidate = self._open_triples(b, partners, largest)
            candidate &= np.arange(len(partners))[None, :] >= np.arange(len(b))[:, None]
            if not candidate.any():
                continue
            clash = (bits[block, None, :] & bits[None, block.start + 1 :, :]).any(axis=2)
            checked += int(candidate.sum())
            i, j = np.nonzero(candidate & ~clash)
            self._found_triples(a, b[i], partners[j])
        return checked

    def _by_indexes(self, a: int, rest: Ints, largest: int) -> int:
        """Both sizes decided by position-list indexes (many rows share ``a``'s values)."""
        unique, _ = self._partitions.check((a,), rest, witness=False)
        self._found_pairs(a, rest[unique])
        checked = len(rest)
        if self._limit < 3:
            return checked
        later = rest[~unique]
        for i, b in enumerate(later[:-1].tolist()):
            self._check_cancelled()
            partners = later[i + 1 :]
            partners = partners[self._open_triples(later[i : i + 1], partners, largest)[0]]
            if not len(partners):
                continue
            unique, _ = self._partitions.check((a, b), partners, witness=False)
            checked += len(partners)
            self._found_triples(a, np.full(int(unique.sum()), b), partners[unique])
        return checked

    def _open_triples(self, b: Ints, d: Ints, largest: int) -> Flags:
        """``[i, j]``: may ``(a, b[i], d[j])`` be a minimal key (``a``'s largest group of
        ``largest`` rows)? Not when ``(b, d)`` is a key or the two columns have too few
        combinations of values for that group."""
        rows = np.unpackbits(self._pairs[b], axis=1, count=self._records.width, bitorder="little")
        open_ = ~rows[:, d].astype(np.bool_)
        values = np.minimum(self._values, largest)
        fewest = int(values[b].min()) * int(values[d].min())
        if fewest + int(self._slack[b].min()) + int(self._slack[d].min()) >= largest:
            return open_  # every pair has enough combinations (columns of many values)
        return open_ & (
            values[b][:, None] * values[d][None, :]
            + self._slack[b][:, None]
            + self._slack[d][None, :]
            >= largest
        )

    def _found_pairs(self, a: int, partners: Ints) -> None:
        if not len(partners):
            return
        flags = np.zeros(self._records.width, dtype=np.bool_)
        flags[partners] = True
        self._pairs[a] = np.packbits(flags, bitorder="little")
        keys = np.empty((len(partners), 2), dtype=np.int64)
        keys[:, 0] = a
        keys[:, 1] = partners
        self._sink.add(keys)

    def _found_triples(self, a: int, b: Ints, d: Ints) -> None:
        if not len(b):
            return
        keys = np.empty((len(b), 3), dtype=np.int64)
        keys[:, 0] = a
        keys[:, 1] = b
        keys[:, 2] = d
        self._sink.add(keys)
