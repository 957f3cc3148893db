"""Agree sets from row pairs likely to agree a lot: HyUCC's sampling, as array work.

Within each column's groups of equal values, rows are ordered by their neighbouring columns
(see :meth:`.Records.clustered`), and rows ``window`` apart in that order are compared. Such
pairs share at least that column and tend to share many more, so their agree sets are large
non-keys that rule out most candidates before any check. Wider windows find fewer new sets;
a round stops growing a column's window once it stops paying.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from uniqueness_server.engine.keysearch.records import Records, unique_rows

Ints = npt.NDArray[np.int64]

_SEED = 7
_KEPT = 4_096  # agree sets a round hands on, at most


class Sampler:
    """Windows over the columns' groups of one :class:`Records`, widened round by round."""

    def __init__(self, records: Records, budget: int, check_cancelled: Callable[[], None]) -> None:
        """``budget``: row pairs compared per round, at most (spread over the columns);
        ``check_cancelled`` is called before each column's rows are sorted (a round sorts
        every row of every open column: seconds on a tall, wide table)."""
        self._records = records
        self._check_cancelled = check_cancelled
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
        # per column with pairs left: its clustered rows, where a pair starts, the window
        found: list[tuple[Ints, Ints, int]] = []
        for c in np.flatnonzero(self._open).tolist():
            self._check_cancelled()
            rows, codes = records.clustered(c)
            window = int(self._window[c]) + 1
            self._window[c] = window
            if len(rows) <= window:
                self._open[c] = False
                continue
            starts = np.flatnonzero(codes[window:] == codes[:-window])
            if not len(starts):
                self._open[c] = False
                continue
            found.append((rows, starts, window))
        if not found:
            return records.agree_sets(np.empty(0, np.int64), np.empty(0, np.int64))
        first, second = self._chosen(found)
        low, high = np.minimum(first, second), np.maximum(first, second)
        pairs = np.unique(low * records.count + high)
        self.compared += len(pairs)
        agree = records.agree_sets(pairs // records.count, pairs % records.count)
        if len(agree) > _KEPT:
            # the largest agree sets rule out the most; what the others would have ruled out
            # is caught by the checks, whose failures bring their own agree sets
            sizes = np.unpackbits(agree, axis=1).sum(axis=1)
            agree = agree[np.argsort(-sizes, kind="stable")[:_KEPT]]
        return agree

    def _chosen(self, found: list[tuple[Ints, Ints, int]]) -> tuple[Ints, Ints]:
        """The row pairs of ``found`` (all of them laid end to end, column after column), or
        a random ``budget`` of them, picked by their place in that order without laying the
        pairs out (on a wide table they can be thousands of times the budget)."""
        counts = np.array([len(starts) for _, starts, _ in found], dtype=np.int64)
        total = int(counts.sum())
        if total <= self._budget:
            firsts = [rows[starts] for rows, starts, _ in found]
            seconds = [rows[starts + window] for rows, starts, window in found]
            return np.concatenate(firsts), np.concatenate(seconds)
        chosen = self._rng.choice(total, self._budget, replace=False)
        ends = np.cumsum(counts)
        column = np.searchsorted(ends, chosen, side="right")
        order = np.argsort(column, kind="stable")
        first = np.empty(len(chosen), dtype=np.int64)
        second = np.empty(len(chosen), dtype=np.int64)
        cuts = np.searchsorted(column[order], np.arange(len(found) + 1))
        for k, (rows, starts, window) in enumerate(found):
            picked = order[cuts[k] : cuts[k + 1]]
            if not len(picked):
                continue
            at = starts[chosen[picked] - (ends[k] - counts[k])]
            first[picked] = rows[at]
            second[picked] = rows[at + window]
        return first, second


def pairs_agree(records: Records, pairs: list[tuple[int, int]]) -> npt.NDArray[np.uint8]:
    """The agree sets (packed, distinct) of the given row pairs."""
    if not pairs:
        return records.agree_sets(np.empty(0, np.int64), np.empty(0, np.int64))
    both = np.array(pairs, dtype=np.int64)
    return unique_rows(records.agree_sets(both[:, 0], both[:, 1]))
