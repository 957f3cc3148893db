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

Agree sets come in blocks of up to :data:`_BLOCK`. For a block, each column gets a bit set
of the agree sets holding it, so the agree sets holding a candidate are the AND of its
columns' bit sets: one pass over the candidates tells each which agree set of the block
removes it (the first one holding it; a later one finds it gone). A candidate made while the
block is applied gets its remover the same way. The cost follows the candidates a block
touches, not the block's size times the cover's.

Candidates are stored per size as arrays of sorted column numbers with an exact integer
encoding of each set (bit fields of the column numbers, one 64-bit word or two), in runs
each sorted by that encoding (a new run is merged into the previous one once it is half as
large, so a level holds a few runs of geometric sizes), so membership is a binary search per
run and adding sets never rewrites a large array.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations
from typing import Any

import numpy as np
import numpy.typing as npt

Sets = npt.NDArray[np.int32]  # one sorted row of column numbers per set
Ints = npt.NDArray[np.int64]
Flags = npt.NDArray[np.bool_]
Words = npt.NDArray[np.uint64]
Keys = npt.NDArray[Any]  # uint64, or (hi, lo) records when a set needs more than 64 bits

_BLOCK = 512  # agree sets applied together (8 words of bits per column)
_ROWS = 1_000_000  # candidates whose agree-set bits are gathered at once
_GROWN = 2_000_000  # one-larger sets built at once when extending
_WIDE = np.dtype([("hi", "<u8"), ("lo", "<u8")])


class TooManyCandidatesError(Exception):
    """The agree sets leave more candidates than the cover was allowed to hold."""


class _Run:
    """Sets of one size sorted by their encoding, with a flag per set (removed sets stay,
    flagged, until the run is merged)."""

    __slots__ = ("alive", "keys", "sets")

    def __init__(self, sets: Sets, keys: Keys) -> None:
        self.sets = sets
        self.keys = keys
        self.alive = np.ones(len(sets), dtype=np.bool_)

    def positions(self, keys: Keys) -> tuple[Flags, Ints]:
        """For each key: is it a live set of this run, and where."""
        if not len(self.keys):
            return np.zeros(len(keys), dtype=np.bool_), np.zeros(len(keys), dtype=np.int64)
        at = np.minimum(np.searchsorted(self.keys, keys), len(self.keys) - 1)
        return np.asarray((self.keys[at] == keys) & self.alive[at]), at


class _Level:
    """The candidates of one size."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.runs: list[_Run] = []
        self.held = 0

    def live(self) -> Sets:
        """Every live set (in no particular order)."""
        parts = [r.sets[r.alive] for r in self.runs]
        if not parts:
            return np.empty((0, self.size), np.int32)
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def find(self, keys: Keys) -> Flags:
        found = np.zeros(len(keys), dtype=np.bool_)
        for run in self.runs:
            found |= run.positions(keys)[0]
        return found

    def add(self, sets: Sets, keys: Keys) -> None:
        """Add new sets (``keys`` sorted and distinct, none held already)."""
        if not len(sets):
            return
        self.runs.append(_Run(sets, keys))
        self.held += len(sets)
        while len(self.runs) > 1 and 2 * len(self.runs[-1].keys) >= len(self.runs[-2].keys):
            last = self.runs.pop()
            self.runs[-1] = _merged(self.runs[-1], last)

    def remove(self, keys: Keys) -> None:
        """Flag the sets of ``keys`` (all held and live) as removed."""
        for run in self.runs:
            found, at = run.positions(keys)
            run.alive[at[found]] = False
        self.held -= len(keys)


def _merged(first: _Run, second: _Run) -> _Run:
    """The live sets of two runs as one sorted run."""
    keys = np.concatenate([first.keys[first.alive], second.keys[second.alive]])
    sets = np.concatenate([first.sets[first.alive], second.sets[second.alive]])
    order = np.argsort(keys, kind="stable")  # two sorted runs: a linear merge
    return _Run(sets[order], keys[order])


class Cover:
    """The minimal sets of at most ``limit`` of ``width`` columns that no agree set given to
    :meth:`exclude_all` contains (initially only the empty set)."""

    def __init__(self, width: int, limit: int, capacity: int | None = None) -> None:
        """``capacity``: most candidates held at once; more raise
        :class:`TooManyCandidatesError` (the memory a search may take is bounded)."""
        self.width = width
        self.limit = limit
        self._capacity = capacity
        self._encode = SetCodes(width, limit).encode
        self._empty = True
        self._levels = {k: _Level(k) for k in range(1, limit + 1)}

    # --- reading ------------------------------------------------------------------------

    def level(self, size: int) -> Sets:
        """The candidates of ``size`` columns, one sorted row each (in no particular order)."""
        if size == 0:
            return np.empty((1 if self._empty else 0, 0), np.int32)
        if size not in self._levels:
            return np.empty((0, size), np.int32)
        return self._levels[size].live()

    def __len__(self) -> int:
        return int(self._empty) + self._held()

    def contains(self, size: int, sets: Sets) -> Flags:
        """For each row of ``sets`` (sorted columns, ``size`` each): is it a candidate?"""
        if size == 0:
            return np.full(len(sets), self._empty)
        return self._levels[size].find(self._encode(sets))

    def _held(self) -> int:
        return sum(level.held for level in self._levels.values())

    # --- updating -----------------------------------------------------------------------

    def exclude_all(self, agree: Flags, check_cancelled: Callable[[], None]) -> None:
        """Update the cover for many agree sets (rows of flags, one per column), in order."""
        for start in range(0, len(agree), _BLOCK):
            check_cancelled()
            self._apply(agree[start : start + _BLOCK], check_cancelled)

    def _apply(self, block: Flags, check_cancelled: Callable[[], None]) -> None:
        """Apply one block of agree sets, in order (see the module's description)."""
        bits = _column_bits(block)
        # removed[i]: by size, the sets agree set i of the block removes
        removed: dict[int, dict[int, list[Sets]]] = {}

        def schedule(sets: Sets) -> None:
            first = _first_holder(sets, bits)
            held = first >= 0
            if not held.any():
                return
            sets, first = sets[held], first[held]
            order = np.argsort(first, kind="stable")
            sets, first = sets[order], first[order]
            cuts = np.flatnonzero(np.diff(first)) + 1
            for part, i in zip(np.split(sets, cuts), first[np.r_[0, cuts]].tolist(), strict=True):
                removed.setdefault(i, {}).setdefault(sets.shape[1], []).append(part)

        if self._empty:
            removed[0] = {0: [np.empty((1, 0), np.int32)]}
        for level in self._levels.values():
            schedule(level.live())
        while removed:  # new removals only ever go to later agree sets
            check_cancelled()
            i = min(removed)
            outside = np.flatnonzero(~block[i]).astype(np.int32)
            gone = {
                size: parts[0] if len(parts) == 1 else np.concatenate(parts)
                for size, parts in sorted(removed.pop(i).items())
            }
            for size, sets in gone.items():
                if size == 0:
                    self._empty = False
                else:
                    self._levels[size].remove(self._encode(sets))
            for size, sets in gone.items():
                if size < self.limit and len(outside):
                    schedule(self._extend(sets, outside))

    def _extend(self, sets: Sets, outside: npt.NDArray[np.int32]) -> Sets:
        """Add each one-larger set ``X + a`` (``X`` a row of ``sets``, ``a`` in ``outside``)
        that is new and holds no smaller candidate; returns those added."""
        size = sets.shape[1]
        if size and self._levels[1].runs:
            # a single-column candidate outside the agree set makes every X + a non-minimal
            outside = outside[~self._levels[1].find(self._encode(outside[:, None]))]
        if not len(outside) or not len(sets):
            return np.empty((0, size + 1), np.int32)
        step = max(1, _GROWN // len(outside))
        added = []
        for start in range(0, len(sets), step):
            added.append(self._extend_part(sets[start : start + step], outside))
            # checked part by part: a huge answer stops before it takes the memory
            if self._capacity is not None and self._held() > self._capacity:
                raise TooManyCandidatesError
        return added[0] if len(added) == 1 else np.concatenate(added)

    def _extend_part(self, sets: Sets, outside: npt.NDArray[np.int32]) -> Sets:
        size = sets.shape[1]
        rows = np.repeat(np.arange(len(sets)), len(outside))
        column = np.tile(outside, len(sets))
        keep = np.ones(len(rows), dtype=np.bool_)
        # a smaller candidate inside X + a holds a (X itself was minimal): test {a} + W for
        # every proper subset W of X that is not empty (the empty W was tested above)
        for width in range(1, size):
            for chosen in combinations(range(size), width):
                live = np.flatnonzero(keep)
                if not len(live):
                    return np.empty((0, size + 1), np.int32)
                probe = _insert(sets[rows[live]][:, list(chosen)], column[live])
                keep[live[self._levels[width + 1].find(self._encode(probe))]] = False
        live = np.flatnonzero(keep)
        grown = _insert(sets[rows[live]], column[live])
        keys = self._encode(grown)
        keys, first = np.unique(keys, return_index=True)
        grown = grown[first]
        fresh = ~self._levels[size + 1].find(keys)
        self._levels[size + 1].add(grown[fresh], keys[fresh])
        return grown[fresh]


class SetCodes:
    """One exact integer per sorted set of at most ``limit`` of ``width`` columns: its columns
    as bit fields (one 64-bit word, or a (hi, lo) record of two), sortable and searchable
    with numpy (equal sets, equal codes)."""

    def __init__(self, width: int, limit: int) -> None:
        self._bits = max(1, (max(width, 2) - 1).bit_length())
        self._per_word = 64 // self._bits
        if limit > 2 * self._per_word:
            raise ValueError(f"sets of {limit} of {width} columns do not fit 128 bits")
        self._wide = limit > self._per_word

    def encode(self, sets: Sets) -> Keys:
        """The code of each sorted row of ``sets``."""
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


def _column_bits(block: Flags) -> Words:
    """For each column, the agree sets of ``block`` (rows) holding it, as bits (agree set
    ``i`` is bit ``i % 64`` of word ``i // 64``)."""
    packed = np.packbits(block.T, axis=1, bitorder="little")
    words = -(-packed.shape[1] // 8)
    padded = np.zeros((packed.shape[0], words * 8), dtype=np.uint8)
    padded[:, : packed.shape[1]] = packed
    return padded.view("<u8")


def _first_holder(sets: Sets, bits: Words) -> Ints:
    """For each set: the first agree set of the block holding it (-1: none)."""
    first = np.full(len(sets), -1, dtype=np.int64)
    if not sets.shape[1]:
        first[:] = 0
        return first
    for start in range(0, len(sets), _ROWS):
        part = sets[start : start + _ROWS]
        held = bits[part[:, 0]]
        for j in range(1, part.shape[1]):
            held &= bits[part[:, j]]
        nonzero = held != 0
        rows = np.flatnonzero(nonzero.any(axis=1))
        if not len(rows):
            continue
        word = nonzero[rows].argmax(axis=1)
        value = held[rows, word]
        lowest = value & (~value + np.uint64(1))
        first[start + rows] = word * 64 + np.log2(lowest).astype(np.int64)
    return first


def _insert(sets: Sets, column: npt.NDArray[np.int32]) -> Sets:
    """Each row of ``sets`` (sorted) with ``column[i]`` (not in it) added, kept sorted."""
    grown = np.concatenate([sets, column[:, None]], axis=1)
    grown.sort(axis=1)
    return grown
