"""Exact checks of candidate keys with position-list indexes (stripped partitions).

The position-list index of a column set lists the rows that share their values on it with at
least one other row, grouped (rows alone in their group are left out: they cannot collide).
The set is a key exactly when that index is empty. The index of a set plus one column is its
own index refined by that column, so candidates are checked grouped by their first columns
(their *prefix*, the most selective columns): the prefix's index is built once, then every
candidate adding one column to it is decided together, as array work over the prefix's rows
only. A duplicate found is returned as a pair of rows, whose agree set then rules out many
other candidates at once (:mod:`.cover`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from uniqueness_server.engine.keysearch.records import Records
from uniqueness_server.engine.model import Nulls

Ints = npt.NDArray[np.int64]
Flags = npt.NDArray[np.bool_]

_GATHER = 4_000_000  # codes gathered at once, at most


class Partitions:
    """Position-list indexes of column sets of one :class:`Records`, the prefixes in use
    kept while candidates sharing them are checked."""

    def __init__(self, records: Records, check_cancelled: Callable[[], None]) -> None:
        """``check_cancelled`` is called before each sort of rows (of a prefix's index, or of
        a chunk of candidates): a group of candidates on a tall table takes several."""
        self._records = records
        self._check_cancelled = check_cancelled
        self._kept: dict[tuple[int, ...], tuple[Ints, Ints]] = {}

    def index(self, columns: tuple[int, ...]) -> tuple[Ints, Ints]:
        """The rows of the non-single groups of ``columns`` (nonempty, sorted search column
        numbers) and their group labels (dense, equal labels adjacent)."""
        found = self._kept.get(columns)
        if found is not None:
            return found
        # keep only the chain of prefixes of the set asked for: candidates come in sorted
        # order, so the next ones share most of it (and a walk over thousands of first
        # columns holds one index of a single column, not one for each)
        self._kept = {k: v for k, v in self._kept.items() if columns[: len(k)] == k}
        if len(columns) == 1:
            rows, codes = self._records.clustered(columns[0])
            found = (rows, _dense(codes))
        else:
            rows, labels = self.index(columns[:-1])
            self._check_cancelled()
            found = self._refine(rows, labels, columns[-1])
        self._kept[columns] = found
        return found

    def _refine(self, rows: Ints, labels: Ints, column: int) -> tuple[Ints, Ints]:
        codes = self._records.column(column)[rows].astype(np.int64)
        missing = self._records.missing(column)
        if self._records.nulls is Nulls.DISTINCT:
            present = codes != missing
            rows, labels, codes = rows[present], labels[present], codes[present]
        key = labels * (missing + 1) + codes
        order = np.argsort(key, kind="stable")
        ordered = key[order]
        repeated = ordered[1:] == ordered[:-1]
        keep = np.zeros(len(ordered), dtype=np.bool_)
        keep[1:] |= repeated
        keep[:-1] |= repeated
        return rows[order][keep], _dense(ordered[keep])

    def check(
        self, prefix: tuple[int, ...], partners: Ints, *, witness: bool = True
    ) -> tuple[Flags, list[tuple[int, int]]]:
        """For each partner column ``q``: is ``prefix + (q,)`` a key? With ``witness``, for
        each one that is not (in order), two rows it does not tell apart."""
        unique = np.ones(len(partners), dtype=np.bool_)
        witnesses: list[tuple[int, int]] = []
        if not prefix:
            # a single column: a value counted twice (a count, no sort), then two of its rows
            for i, q in enumerate(partners.tolist()):
                self._check_cancelled()
                codes = self._records.column(q)
                counts = np.bincount(codes, minlength=self._records.missing(q) + 1)
                if self._records.nulls is Nulls.DISTINCT:
                    counts[self._records.missing(q)] = 0
                repeated = int(counts.argmax())
                if counts[repeated] > 1:
                    unique[i] = False
                    if witness:
                        first, second = np.flatnonzero(codes == repeated)[:2].tolist()
                        witnesses.append((first, second))
            return unique, witnesses
        rows, labels = self.index(prefix)
        if not len(rows):
            return unique, witnesses
        records = self._records
        distinct = records.nulls is Nulls.DISTINCT
        step = max(1, _GATHER // len(rows))
        for start in range(0, len(partners), step):
            self._check_cancelled()
            chunk = partners[start : start + step]
            missing = records.missing_codes(chunk)
            keys = records.gather(chunk, rows).astype(np.int64)
            lost = keys == missing[:, None] if distinct else None
            keys += labels[None, :] * (missing + 1)[:, None]
            if lost is not None:
                keys[lost] = -1 - np.arange(int(lost.sum()), dtype=np.int64)
            ordered = np.sort(keys, axis=1)
            same = ordered[:, 1:] == ordered[:, :-1]
            hit = same.any(axis=1)
            unique[start : start + len(chunk)] = ~hit
            if witness and hit.any():
                witnesses += _witnesses(keys[hit], ordered[hit], same[hit], rows)
        return unique, witnesses


def _witnesses(keys: Ints, ordered: Ints, same: Flags, rows: Ints) -> list[tuple[int, int]]:
    """For each row of ``keys`` holding a repeated value (``ordered``: the row sorted,
    ``same``: where a sorted value equals the next), the first two of ``rows`` sharing
    one: a scan for the repeated value, cheaper than sorting the row's positions."""
    value = ordered[np.arange(len(ordered)), same.argmax(axis=1)]
    equal = keys == value[:, None]
    first = equal.argmax(axis=1)
    equal[np.arange(len(equal)), first] = False
    second = equal.argmax(axis=1)
    return list(zip(rows[first].tolist(), rows[second].tolist(), strict=True))


def _dense(values: npt.NDArray[np.unsignedinteger[Any]] | Ints) -> Ints:
    """Labels 0, 1, … for sorted ``values`` (equal values, equal labels)."""
    if not len(values):
        return values.astype(np.int64)
    step = np.empty(len(values), dtype=np.int64)
    step[0] = 0
    np.not_equal(values[1:], values[:-1], out=step[1:])
    return np.cumsum(step)


def group_by_prefix(
    candidates: npt.NDArray[np.signedinteger[Any]],
) -> list[tuple[tuple[int, ...], Ints]]:
    """Candidates (sorted rows of one size) grouped by all but their last column, in
    lexicographic order: (prefix, last columns)."""
    if not len(candidates):
        return []
    size = candidates.shape[1]
    order = np.lexsort(candidates.T[::-1])
    ordered = candidates[order].astype(np.int64, copy=False)
    if size == 1:
        return [((), ordered[:, 0])]
    heads = ordered[:, :-1]
    cuts = np.flatnonzero((heads[1:] != heads[:-1]).any(axis=1)) + 1
    groups: list[tuple[tuple[int, ...], Ints]] = []
    for part in np.split(np.arange(len(ordered)), cuts):
        groups.append((tuple(heads[part[0]].tolist()), ordered[part, -1]))
    return groups
