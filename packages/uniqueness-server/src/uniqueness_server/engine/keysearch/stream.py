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

Ints = npt.NDArray[np.int64]
Flags = npt.NDArray[np.bool_]

Emit = Callable[[Ints], None]
"""Takes keys found (rows of search columns, one size, each row sorted)."""

_BATCH = 200_000  # keys handed on at once, at most about this many


class KnownKeys:
    """Keys of fewer than ``size`` columns (search columns), for the minimality test."""

    def __init__(self, width: int, size: int, keys: list[tuple[int, ...]]) -> None:
        self._codes = SetCodes(width, max(size - 1, 1))
        self.single = np.zeros(width, dtype=np.bool_)
        self._sorted: dict[int, npt.NDArray[np.generic]] = {}
        for m in range(1, size):
            sets = np.array([k for k in keys if len(k) == m], dtype=np.int32).reshape(-1, m)
            if m == 1:
                self.single[sets[:, 0]] = True
            elif len(sets):
                self._sorted[m] = np.unique(self._codes.encode(np.sort(sets, axis=1)))

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
    partitions: Partitions,
    width: int,
    size: int,
    known: KnownKeys,
    emit: Emit,
    check_cancelled: Callable[[], None],
    report: Callable[[float, str], None],
) -> int:
    """Check every set of ``size`` (2 or more) of ``width`` search columns that holds no known
    key, handing the unique ones to ``emit``; returns how many sets were checked."""
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
        visit((c,), rest)
    flush()
    return checked
