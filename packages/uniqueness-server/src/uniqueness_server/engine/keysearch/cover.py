"""The candidate keys that known non-keys leave: minimal sets no agree set contains.

Every agree set (the columns two distinct rows share) is a *non-key*: each of its subsets
holds a duplicate. A key must therefore hold, for each agree set, a column outside it: the
keys are the *transversals* of the complements of the agree sets, and the minimal keys are
among the minimal transversals. :class:`Cover` keeps the minimal transversals of the agree
sets seen so far (up to a largest size) and updates them one agree set at a time: every
candidate inside the new agree set stops being one and is replaced by each one-larger set
adding a column outside it, unless a smaller candidate already lies inside that set (the
induction step of HyUCC, Papenbrock & Naumann 2017, after Berge's transversal algorithm).
Processing large agree sets first keeps the intermediate covers small.

Candidates are stored per size as arrays of sorted column numbers with an exact integer
encoding of each set (bit fields of the column numbers, one 64-bit word or two), in a few
segments each sorted by that encoding, so membership is a binary search and adding sets never
rewrites a large array.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations
from typing import Any

import numpy as np
import numpy.typing as npt

Ints = npt.NDArray[np.int64]
Flags = npt.NDArray[np.bool_]
Keys = npt.NDArray[Any]  # uint64, or (hi, lo) records when a set needs more than 64 bits

_SEGMENTS = 8  # sorted runs per level before they are merged into one
_BLOCK = 512  # agree sets tested against the candidates together
_CELLS = 16_000_000  # flags gathered at once when testing them
_WIDE = np.dtype([("hi", "<u8"), ("lo", "<u8")])


class _Segment:
    """Sets of one size sorted by their encoding, with a flag per set (removed sets stay,
    flagged, until the level is rebuilt) and the sets column by column (one contiguous row
    per place in the set, so "inside this agree set" gathers each place's flags at once)."""

    __slots__ = ("alive", "columns", "keys", "sets")

    def __init__(self, sets: Ints, keys: Keys) -> None:
        self.sets = sets
        self.keys = keys
        self.alive = np.ones(len(sets), dtype=np.bool_)
        self.columns = sets.T.copy()

    def find(self, keys: Keys) -> Flags:
        if not len(self.keys):
            return np.zeros(len(keys), dtype=np.bool_)
        at = np.minimum(np.searchsorted(self.keys, keys), len(self.keys) - 1)
        return np.asarray((self.keys[at] == keys) & self.alive[at])


class _Level:
    """The candidates of one size."""

    def __init__(self, size: int, empty: Keys) -> None:
        self.size = size
        self._empty = empty
        self.segments: list[_Segment] = []

    def sets(self) -> Ints:
        """Every live set (rebuilding the level as one segment)."""
        self._merge()
        return self.segments[0].sets if self.segments else np.empty((0, self.size), np.int64)

    def count(self) -> int:
        return sum(int(s.alive.sum()) for s in self.segments)

    def find(self, keys: Keys) -> Flags:
        found = np.zeros(len(keys), dtype=np.bool_)
        for segment in self.segments:
            found |= segment.find(keys)
        return found

    def add(self, sets: Ints, keys: Keys) -> None:
        """Add new sets (``keys`` sorted and distinct)."""
        if len(sets):
            self.segments.append(_Segment(sets, keys))
            if len(self.segments) > _SEGMENTS:
                self._merge()

    def remove_inside(self, agree: Flags) -> Ints:
        """Flag as removed, and return, the live sets inside the agree set."""
        removed: list[Ints] = []
        for segment in self.segments:
            inside = agree.take(segment.columns[0])
            for positions in segment.columns[1:]:
                inside &= agree.take(positions)
            inside &= segment.alive
            if inside.any():
                removed.append(segment.sets[inside])
                segment.alive[inside] = False
        if not removed:
            return np.empty((0, self.size), np.int64)
        return removed[0] if len(removed) == 1 else np.concatenate(removed)

    def _merge(self) -> None:
        if len(self.segments) == 1 and self.segments[0].alive.all():
            return
        sets = [s.sets[s.alive] for s in self.segments]
        keys = [s.keys[s.alive] for s in self.segments]
        if not sets:
            return
        joined = np.concatenate(keys) if keys else self._empty
        order = np.argsort(joined, kind="stable")
        self.segments = [_Segment(np.concatenate(sets)[order], joined[order])]


class TooManyCandidatesError(Exception):
    """The agree sets leave more candidates than the cover was allowed to hold."""


class Cover:
    """The minimal sets of at most ``limit`` of ``width`` columns that no agree set given to
    :meth:`exclude` contains (initially only the empty set)."""

    def __init__(self, width: int, limit: int, capacity: int | None = None) -> None:
        """``capacity``: most candidates held at once; more raise
        :class:`TooManyCandidatesError` (agree sets that leave most combinations open make
        the induction slower than deciding the combinations in bulk)."""
        self.width = width
        self.limit = limit
        self._capacity = capacity
        self._held = 0
        self._bits = max(1, (max(width, 2) - 1).bit_length())
        self._per_word = 64 // self._bits
        if limit > 2 * self._per_word:
            raise ValueError(f"sets of {limit} of {width} columns do not fit 128 bits")
        self._wide = limit > self._per_word
        self._empty = True
        nothing = self._encode(np.empty((0, 1), np.int64))
        self._levels = {k: _Level(k, nothing) for k in range(1, limit + 1)}

    # --- reading ------------------------------------------------------------------------

    def level(self, size: int) -> Ints:
        """The candidates of ``size`` columns, one sorted row each."""
        if size == 0:
            return np.empty((1 if self._empty else 0, 0), np.int64)
        if size not in self._levels:
            return np.empty((0, size), np.int64)
        return self._levels[size].sets()

    def __len__(self) -> int:
        return int(self._empty) + sum(level.count() for level in self._levels.values())

    def contains(self, size: int, sets: Ints) -> Flags:
        """For each row of ``sets`` (sorted columns, ``size`` each): is it a candidate?"""
        if size == 0:
            return np.full(len(sets), self._empty)
        return self._find(size, self._encode(sets))

    # --- updating -----------------------------------------------------------------------

    def exclude_all(
        self, agree: npt.NDArray[np.bool_], check_cancelled: Callable[[], None]
    ) -> None:
        """Update the cover for many agree sets (rows of flags, one per column), in order.

        Most agree sets rule out nothing (no candidate lies inside them): they are found in
        bulk per block of rows, against the candidates at the block's start and then
        against only those added within the block."""
        for start in range(0, len(agree), _BLOCK):
            check_cancelled()
            block = agree[start : start + _BLOCK]
            live = self._touched(block, [level.sets() for level in self._levels.values()])
            if self._empty:
                live[:] = True
            added: list[Ints] = []
            for j in range(len(block)):
                if not live[j] and not (added and self._touched(block[j : j + 1], added)[0]):
                    continue
                added += self.exclude(block[j])

    def exclude(self, agree: Flags) -> list[Ints]:
        """Update the cover for one more agree set (a flag per column); returns the
        candidates it added (arrays of sorted rows, by size)."""
        outside = np.flatnonzero(~agree)
        invalid: dict[int, Ints] = {}
        if self._empty:
            self._empty = False
            invalid[0] = np.empty((1, 0), np.int64)
        for size, level in self._levels.items():
            removed = level.remove_inside(agree)
            if len(removed):
                invalid[size] = removed
                self._held -= len(removed)
        added: list[Ints] = []
        for size, sets in invalid.items():
            if size < self.limit and len(outside):
                grown = self._extend(sets, outside)
                if len(grown):
                    added.append(grown)
                    self._held += len(grown)
                    if self._capacity is not None and self._held > self._capacity:
                        raise TooManyCandidatesError
        return added

    @staticmethod
    def _touched(block: npt.NDArray[np.bool_], levels: Sequence[Ints]) -> Flags:
        """For each row of ``block``: does some set of ``levels`` lie inside it?"""
        touched = np.zeros(len(block), dtype=np.bool_)
        for sets in levels:
            if not len(sets) or not sets.shape[1]:
                continue
            step = max(1, _CELLS // (len(block) * sets.shape[1]))
            for start in range(0, len(sets), step):
                part = sets[start : start + step]
                touched |= np.any(np.all(block[:, part], axis=2), axis=1)
        return touched

    def _extend(self, sets: Ints, outside: Ints) -> Ints:
        """Add each one-larger set ``X + a`` (``X`` a row of ``sets``, ``a`` in ``outside``)
        that is new and holds no smaller candidate; returns those added."""
        size = sets.shape[1]
        if size and self._levels[1].segments:
            # a single-column candidate outside the agree set makes every X + a non-minimal
            outside = outside[~self._find(1, self._encode(outside[:, None]))]
        none = np.empty((0, size + 1), np.int64)
        if not len(outside):
            return none
        rows = np.repeat(np.arange(len(sets)), len(outside))
        added = np.tile(outside, len(sets))
        keep = np.ones(len(rows), dtype=np.bool_)
        # a smaller candidate inside X + a holds a (X itself was minimal): test {a} + W for
        # every proper subset W of X that is not empty (the empty W was tested above)
        for width in range(1, size):
            for chosen in combinations(range(size), width):
                live = np.flatnonzero(keep)
                if not len(live):
                    return none
                subset = sets[rows[live]][:, list(chosen)]
                probe = _insert(subset, added[live])
                keep[live[self._find(width + 1, self._encode(probe))]] = False
        live = np.flatnonzero(keep)
        grown = _insert(sets[rows[live]], added[live])
        keys = self._encode(grown)
        keys, first = np.unique(keys, return_index=True)
        grown = grown[first]
        fresh = ~self._find(size + 1, keys)
        self._levels[size + 1].add(grown[fresh], keys[fresh])
        return grown[fresh]

    # --- encoding -----------------------------------------------------------------------

    def _find(self, size: int, keys: Keys) -> Flags:
        return self._levels[size].find(keys)

    def _encode(self, sets: Ints) -> Keys:
        """One exact integer per sorted row of ``sets``: its columns as bit fields."""
        shifts = (np.arange(sets.shape[1]) % self._per_word * self._bits).astype(np.uint64)
        fields = sets.astype(np.uint64) << shifts
        if not self._wide:
            return (
                np.bitwise_or.reduce(fields, axis=1)
                if sets.shape[1]
                else np.zeros(len(sets), np.uint64)
            )
        keys = np.zeros(len(sets), dtype=_WIDE)
        low = min(self._per_word, sets.shape[1])
        # the first columns decide the order: they go to the high word
        keys["hi"] = np.bitwise_or.reduce(fields[:, :low], axis=1) if low else 0
        if sets.shape[1] > low:
            keys["lo"] = np.bitwise_or.reduce(fields[:, low:], axis=1)
        return keys


def _insert(sets: Ints, column: Ints) -> Ints:
    """Each row of ``sets`` (sorted) with ``column[i]`` (not in it) added, kept sorted."""
    grown = np.concatenate([sets, column[:, None]], axis=1)
    grown.sort(axis=1)
    return grown
