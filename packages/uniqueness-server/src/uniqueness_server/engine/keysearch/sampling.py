"""Agree sets from row pairs likely to agree a lot: HyUCC's sampling, as array work.

Within each column's groups of equal values, rows are ordered by their neighbouring columns
(see :meth:`.Records.clustered`), and rows ``window`` apart in that order are compared. Such
pairs share at least that column and tend to share many more, so their agree sets are large
non-keys that rule out most candidates before any check. Wider windows find fewer new sets;
a round stops growing a column's window once it stops paying.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from uniqueness_server.engine.keysearch.records import Records, unique_rows

Ints = npt.NDArray[np.int64]

_SEED = 7
_KEPT = 4_096  # agree sets a round hands on, at most


class Sampler:
    """Windows over the columns' groups of one :class:`Records`, widened round by round."""

    def __init__(self, records: Records, budget: int) -> None:
        """``budget``: row pairs compared per round, at most (spread over the columns)."""
        self._records = records
        self._budget = budget
        self._window = np.zeros(records.width, dtype=np.int64)
        self._open = np.ones(records.width, dtype=np.bool_)
        self._rng = np.random.default_rng(_SEED)
        self.compared = 0

    @property
    def exhausted(self) -> bool:
        """True when no column has a window left to widen."""
        return not self._open.any()

    def round(self) -> npt.NDArray[np.uint8]:
        """The agree sets (packed, distinct) of one more window on every open column."""
        records = self._records
        firsts: list[Ints] = []
        seconds: list[Ints] = []
        for c in np.flatnonzero(self._open).tolist():
            rows, codes = records.clustered(c)
            window = int(self._window[c]) + 1
            self._window[c] = window
            if len(rows) <= window:
                self._open[c] = False
                continue
            same = codes[window:] == codes[:-window]
            if not same.any():
                self._open[c] = False
                continue
            firsts.append(rows[:-window][same])
            seconds.append(rows[window:][same])
        if not firsts:
            return records.agree_sets(np.empty(0, np.int64), np.empty(0, np.int64))
        first, second = np.concatenate(firsts), np.concatenate(seconds)
        if len(first) > self._budget:
            chosen = self._rng.choice(len(first), self._budget, replace=False)
            first, second = first[chosen], second[chosen]
        low, high = np.minimum(first, second), np.maximum(first, second)
        pairs = np.unique(low * records.count + high)
        self.compared += len(pairs)
        found = records.agree_sets(pairs // records.count, pairs % records.count)
        if len(found) > _KEPT:
            # the largest agree sets rule out the most; what the others would have ruled out
            # is caught by the checks, whose failures bring their own agree sets
            sizes = np.unpackbits(found, axis=1).sum(axis=1)
            found = found[np.argsort(-sizes, kind="stable")[:_KEPT]]
        return found


def pairs_agree(records: Records, pairs: list[tuple[int, int]]) -> npt.NDArray[np.uint8]:
    """The agree sets (packed, distinct) of the given row pairs."""
    if not pairs:
        return records.agree_sets(np.empty(0, np.int64), np.empty(0, np.int64))
    both = np.array(pairs, dtype=np.int64)
    return unique_rows(records.agree_sets(both[:, 0], both[:, 1]))
