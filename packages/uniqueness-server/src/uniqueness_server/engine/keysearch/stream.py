"""The last level of a search whose candidates would not fit in memory, walked depth first.

When the agree sets leave more candidates of the largest size than a search may hold (24 rows
of 1,729 columns leave hundreds of millions of keys of 3 columns), that level is not built:
its candidates are met one prefix at a time. A set of ``size`` columns is a minimal key
exactly when it is unique and holds no smaller key, and the smaller keys are known (found
by the levels below, which fit). So the walk extends prefixes column by column, in order,
keeping for each prefix the columns that may still follow it (those that make no known key
with any part of it), and checks every set of ``size`` columns it reaches with the
prefix's position-list index (:mod:`.partitions`). The memory it holds is the chain of
prefixes and their indexes, plus the keys below; keys go out in batches as they are found.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations

import numpy as np
import numpy.typing as npt

from uniqueness_server.engine.keysearch.cover import SetCodes
from uniqueness_server.engine.keysearch.partitions import Partitions
from uniqueness_server.engine.keysearch.records import Records
from uniqueness_server.engine.model import Nulls

Ints = npt.NDArray[np.int64]
Flags = npt.NDArray[np.bool_]

Emit = Callable[[Ints], None]
"""Takes keys found (rows of search columns, one size, each row sorted)."""

_BATCH = 200_000  # keys handed on at once, at most about this many
_DENSE = 4_096  # widths up to which keys of 2 columns are also held as a matrix (16 MB)
_ROW_PAIRS = 4_096  # row pairs sharing a first column's value, at most, for the bit sets
_AT_ONCE = 4_000_000  # words compared at once


class KnownKeys:
    """Keys of fewer than ``size`` columns (search columns), for the minimality test."""

    def __init__(self, width: int, size: int, keys: list[tuple[int, ...]]) -> None:
        self._codes = SetCodes(width, max(size - 1, 1))
        self.single = np.zeros(width, dtype=np.bool_)
        self._sorted: dict[int, npt.NDArray[np.generic]] = {}
        #: keys of 2 columns as a symmetric matrix, when sets of 3 are walked and it is small
        self.pairs: Flags | None = None
        for m in range(1, size):
            sets = np.array([k for k in keys if len(k) == m], dtype=np.int32).reshape(-1, m)
            if m == 1:
                self.single[sets[:, 0]] = True
            elif len(sets):
                self._sorted[m] = np.unique(self._codes.encode(np.sort(sets, axis=1)))
        if size == 3 and width <= _DENSE:
            pairs = np.array([k for k in keys if len(k) == 2], dtype=np.int64).reshape(-1, 2)
            self.pairs = np.zeros((width, width), dtype=np.bool_)
            self.pairs[pairs[:, 0], pairs[:, 1]] = True
            self.pairs[pairs[:, 1], pairs[:, 0]] = True

    def completing(self, part: tuple[int, ...], after: Ints) -> Flags:
        """For each column ``d`` of ``after`` (all above ``part``): is ``part + (d,)`` a known
        key?"""
        held = self._sorted.get(len(part) + 1)
        if held is None or not len(after):
            return np.zeros(len(after), dtype=np.bool_)
        sets = np.empty((len(after), len(part) + 1), dtype=np.int32)
        sets[:, : len(part)] = part
        sets[:, -1] = after
        codes = self._codes.encode(sets)
        at = np.minimum(np.searchsorted(held, codes), len(held) - 1)
        return np.asarray(held[at] == codes)


def walk_last_level(
    records: Records,
    size: int,
    known: KnownKeys,
    emit: Emit,
    check_cancelled: Callable[[], None],
    report: Callable[[float, str], None],
) -> int:
    """Check every set of ``size`` (2 or more) search columns of ``records`` that holds no
    known key, handing the unique ones to ``emit``; returns how many sets were checked."""
    partitions = Partitions(records, check_cancelled)
    found: list[Ints] = []
    held = 0
    checked = 0

    def flush() -> None:
        nonlocal held
        if found:
            emit(np.concatenate(found))
            found.clear()
            held = 0

    def visit(prefix: tuple[int, ...], allowed: Ints) -> None:
        nonlocal held, checked
        check_cancelled()
        if len(prefix) == size - 1:
            unique, _ = partitions.check(prefix, allowed, witness=False)
            checked += len(allowed)
            keys = allowed[unique]
            if len(keys):
                rows = np.empty((len(keys), size), dtype=np.int64)
                rows[:, :-1] = prefix
                rows[:, -1] = keys
                found.append(rows)
                held += len(keys)
                if held >= _BATCH:
                    flush()
            return
        needed = size - 1 - len(prefix)  # columns to follow the next one, partner included
        for i, c in enumerate(allowed.tolist()):
            if len(allowed) - i - 1 < needed:
                break
            rest = allowed[i + 1 :]
            # sets holding c and a part of the prefix: the others were left out above
            for m in range(0, min(len(prefix), size - 3) + 1):
                for part in combinations(prefix, m):
                    rest = rest[~known.completing((*part, c), rest)]
            visit((*prefix, c), rest)

    roots = np.flatnonzero(~known.single).astype(np.int64)
    for i, c in enumerate(roots.tolist()):
        report(
            i / max(1, len(roots)),
            f"checking candidate keys of {size} columns from column {i + 1} of {len(roots)}",
        )
        rest = roots[i + 1 :]
        if len(rest) < size - 1:
            break
        if size > 2:
            rest = rest[~known.completing((c,), rest)]
        if known.pairs is not None:
            triples = _triples_by_row_pairs(records, c, rest, known.pairs, check_cancelled)
            if triples is not None:
                keys, count = triples
                checked += count
                if len(keys):
                    found.append(keys)
                    held += len(keys)
                    if held >= _BATCH:
                        flush()
                continue
        visit((c,), rest)
    flush()
    return checked


def _triples_by_row_pairs(
    records: Records,
    first: int,
    rest: Ints,
    pairs: Flags,
    check_cancelled: Callable[[], None],
) -> tuple[Ints, int] | None:
    """Every key ``(first, b, d)`` with ``b < d`` in ``rest`` and ``(b, d)`` no key (of
    ``pairs``), and how many sets were checked; None when too many row pairs share a value
    of ``first``.

    A set holding ``first`` is a key exactly when no two rows sharing ``first``'s value
    agree on the rest of it. With few such row pairs, each column gets a bit set of the
    pairs agreeing on it, and ``(first, b, d)`` is a key when the bit sets of ``b`` and
    ``d`` share no bit: every pair of the prefix decided at once, no index built per
    prefix (on 24 rows of 1,729 columns, a prefix's index is a few rows)."""
    rows, codes = records.clustered(first)
    cuts = np.flatnonzero(codes[1:] != codes[:-1]) + 1
    bounds = np.r_[0, cuts, len(rows)]
    sizes = np.diff(bounds)
    if int((sizes * (sizes - 1) // 2).sum()) > _ROW_PAIRS or len(rest) < 2:
        return None if len(rest) >= 2 else (np.empty((0, 3), np.int64), 0)
    one, two = [], []
    for start, count in zip(bounds[:-1].tolist(), sizes.tolist(), strict=True):
        i, j = np.triu_indices(count, k=1)
        one.append(start + i)
        two.append(start + j)
    left, right = np.concatenate(one), np.concatenate(two)
    gathered = records.gather(rest, rows)
    agree = gathered[:, left] == gathered[:, right]
    if records.nulls is Nulls.DISTINCT:
        agree &= gathered[:, left] != records.missing_codes(rest)[:, None].astype(gathered.dtype)
    packed = np.packbits(agree, axis=1, bitorder="little")
    words = np.zeros((len(rest), -(-packed.shape[1] // 8) * 8), dtype=np.uint8)
    words[:, : packed.shape[1]] = packed
    bits = words.view("<u8")
    step = max(1, _AT_ONCE // (len(rest) * bits.shape[1]))
    keys: list[Ints] = []
    checked = 0
    later = np.arange(len(rest))
    for start in range(0, len(rest), step):
        check_cancelled()
        block = slice(start, start + step)
        clash = (bits[block, None, :] & bits[None, :, :]).any(axis=2)
        candidate = (later[None, :] > later[block, None]) & ~pairs[np.ix_(rest[block], rest)]
        checked += int(candidate.sum())
        b, d = np.nonzero(candidate & ~clash)
        if len(b):
            triple = np.empty((len(b), 3), dtype=np.int64)
            triple[:, 0] = first
            triple[:, 1] = rest[start + b]
            triple[:, 2] = rest[d]
            keys.append(triple)
    return (np.concatenate(keys) if keys else np.empty((0, 3), np.int64)), checked
