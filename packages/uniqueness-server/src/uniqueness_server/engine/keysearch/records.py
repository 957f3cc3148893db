"""The rows a key search sees: integer codes of each searched column, and agree sets.

A key search needs two facts about rows: which rows share a column's value (its clusters, the
position-list index of :mod:`.partitions`) and on which columns two rows agree (their *agree
set*: every set of columns inside it holds a duplicate, so none of them is a key). Both come
from dense codes, one per value, with one code standing for a missing value. Under
``nulls=distinct`` a missing value agrees with nothing, not even another missing value, which
is exactly SQL ``UNIQUE``: a row missing a key value never collides.

Columns are numbered here in the search's own order, most selective first (fewest row pairs
sharing a value), so a candidate's sorted columns start with the one whose clusters are
smallest: the pivot its check starts from.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from uniqueness_server.engine.model import Nulls

Ints = npt.NDArray[np.int64]
Flags = npt.NDArray[np.bool_]
Codes = npt.NDArray[np.unsignedinteger[Any]]

_AGREE_CELLS = 8_000_000  # cells compared at once when computing agree sets
# records of at most this many cells also keep their codes row by row: an agree set then
# reads two contiguous rows instead of one scattered code per column (5-10x faster on wide
# records), for one more copy of the codes (at most 60 MB at 2 bytes a code)
_ROW_MAJOR_CELLS = 30_000_000


@dataclass(frozen=True, slots=True)
class CodeBlock:
    """Some searched columns stored as the rows of one 2-D array of codes (one dtype).

    Row ``rows[i]`` of ``codes`` holds the column at ``positions[i]`` (a source position);
    ``missing[i]`` is its code for a missing value.
    """

    codes: npt.NDArray[np.unsignedinteger[Any]]
    rows: Sequence[int]
    positions: Sequence[int]
    missing: Sequence[int]


class Records:
    """Codes of the searched columns of ``count`` rows, under one ``nulls`` mode."""

    def __init__(
        self, count: int, blocks: Sequence[CodeBlock], collisions: dict[int, int], nulls: Nulls
    ) -> None:
        """``collisions`` gives, by source position, how many row pairs share a value of that
        column (the search orders columns by it)."""
        self.count = count
        self.nulls = nulls
        placed = [(collisions[p], p) for block in blocks for p in block.positions]
        placed.sort()
        #: source position of each search column, most selective first
        self.positions: tuple[int, ...] = tuple(p for _, p in placed)
        index = {p: i for i, p in enumerate(self.positions)}
        self.width = len(self.positions)
        self._columns: list[Codes] = [np.empty(0, np.uint16)] * self.width
        self._missing = np.zeros(self.width, dtype=np.int64)
        self._blocks: list[tuple[Codes, Ints, Ints, Ints]] = []
        self._by_row: Codes | None = None
        for block in blocks:
            rows = np.asarray(block.rows, dtype=np.int64)
            columns = np.array([index[p] for p in block.positions], dtype=np.int64)
            missing = np.asarray(block.missing, dtype=np.int64)
            self._blocks.append((block.codes, rows, columns, missing))
            for r, c, m in zip(rows.tolist(), columns.tolist(), missing.tolist(), strict=True):
                self._columns[c] = block.codes[r]
                self._missing[c] = m

    def column(self, c: int) -> Codes:
        """The codes of search column ``c``, one per row."""
        return self._columns[c]

    def missing(self, c: int) -> int:
        """The code of a missing value in search column ``c``."""
        return int(self._missing[c])

    def missing_codes(self, columns: Ints) -> Ints:
        """The code of a missing value in each of ``columns`` (search columns)."""
        return self._missing[columns]

    def gather(self, columns: Ints, rows: Ints) -> Codes:
        """The codes of ``columns`` (search columns) at ``rows``: one row per column."""
        by_row = self._rows_of_codes()
        if by_row is not None:
            return by_row[np.ix_(rows, columns)].T
        return np.stack([self._columns[c][rows] for c in columns.tolist()])

    def clustered(self, c: int) -> tuple[Ints, Codes]:
        """The rows of column ``c`` whose value another row shares (under ``nulls=distinct``
        a missing value is shared by none), equal values adjacent, and their codes: the
        column's position-list index with single-row clusters stripped."""
        codes = self._columns[c]
        # within a value, rows ordered by the neighbouring columns' codes: rows next to
        # each other then tend to agree on more columns, which sampling exploits
        left = self._columns[c - 1] if c else self._columns[-1]
        right = self._columns[(c + 1) % self.width]
        order = np.lexsort((right, left, codes))
        ordered = codes[order]
        repeated = ordered[1:] == ordered[:-1]
        if self.nulls is Nulls.DISTINCT:
            repeated &= ordered[1:] != self._missing[c]
        keep = np.zeros(len(ordered), dtype=np.bool_)
        keep[1:] |= repeated
        keep[:-1] |= repeated
        return order[keep].astype(np.int64, copy=False), ordered[keep]

    def agree_sets(self, first: Ints, second: Ints) -> npt.NDArray[np.uint8]:
        """For each row pair ``(first[i], second[i])``: the search columns on which the two
        rows agree, as packed bits (``numpy.packbits`` of a row of ``width`` flags), each
        distinct set once."""
        if not len(first) or not self.width:
            return np.zeros((0, (self.width + 7) // 8), dtype=np.uint8)
        step = max(1, _AGREE_CELLS // self.width)
        by_row = self._rows_of_codes()
        distinct = self.nulls is Nulls.DISTINCT
        found: list[npt.NDArray[np.uint8]] = []
        for start in range(0, len(first), step):
            a, b = first[start : start + step], second[start : start + step]
            if by_row is not None:
                left = by_row[a]
                agree = left == by_row[b]
                if distinct:
                    agree &= left != self._missing.astype(left.dtype)
            else:
                agree = np.zeros((len(a), self.width), dtype=np.bool_)
                for codes, rows, columns, missing in self._blocks:
                    gathered = codes[np.ix_(rows, a)]
                    same = gathered == codes[np.ix_(rows, b)]
                    if distinct:
                        same &= gathered != missing[:, None]
                    agree[:, columns] = same.T
            found.append(np.packbits(agree, axis=1))
        return unique_rows(np.concatenate(found))

    def _rows_of_codes(self) -> Codes | None:
        """The codes row by row (one row of ``width`` search columns per record), made on
        first use, when the records have at most :data:`_ROW_MAJOR_CELLS` cells."""
        if self._by_row is None and self.count * self.width <= _ROW_MAJOR_CELLS:
            kind = np.result_type(*(codes.dtype for codes, _, _, _ in self._blocks))
            by_row = np.empty((self.count, self.width), dtype=kind)
            for codes, rows, columns, _ in self._blocks:
                by_row[:, columns] = codes[rows].T
            self._by_row = by_row
        return self._by_row


def unique_rows(packed: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """The distinct rows of a 2-D array of packed bits."""
    if len(packed) <= 1:
        return packed
    rows = np.ascontiguousarray(packed)
    # each row as one opaque value: sorting those compares bytes, far faster than axis=0
    distinct = np.unique(rows.view(np.dtype((np.void, rows.shape[1]))).ravel())
    return distinct.view(np.uint8).reshape(-1, rows.shape[1])
