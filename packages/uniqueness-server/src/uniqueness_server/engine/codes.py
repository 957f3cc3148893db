"""Vectorised exact uniqueness checks for many column sets at once.

Sending one ``GROUP BY`` per candidate costs milliseconds of overhead each, which dominates
when a wide source leaves tens of thousands of column pairs open. Instead the columns still
needed are fetched once as 64-bit hashes, turned into dense integer codes, and each candidate
is one sort over combined codes. Distinct codes prove distinct values, so "unique" is always
exact; a duplicate is exact when every column of the candidate is hash-injective (as many
distinct hashes as distinct values, counted exactly), otherwise the caller falls back to SQL.
"""

# SQL text here is built only from internal identifiers (c1..cn, quoted) and integers;
# client values never reach it, so string-built queries are safe.
# ruff: noqa: S608

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

from uniqueness_server.engine.model import Nulls
from uniqueness_server.engine.runner import DuckDbRunner
from uniqueness_server.engine.table import Table

MAX_CELLS = 40_000_000  # codes are 8 bytes a cell: at most ~320 MB held at once
_DISTINCT_CHUNK = 16  # exact COUNT(DISTINCT …) per query: DuckDB's memory grows with more
_SAFE_PRODUCT = 2**62

Codes = npt.NDArray[np.int64]


class CodeMatrix:
    """Dense integer codes of some columns of an embedded source, by position."""

    def __init__(
        self,
        table: Table,
        source: str,
        positions: Sequence[int],
        nulls: Nulls,
        exact_distinct: Mapping[int, int | None],
    ) -> None:
        """Fetch ``positions`` of ``source`` as hashes (one scan) and code them.

        ``exact_distinct`` gives known exact non-missing distinct counts; the others are
        counted here, a few columns per query.
        """
        assert isinstance(table.runner, DuckDbRunner)
        runner = table.runner
        self._codes: dict[int, Codes] = {}
        self._cards: dict[int, int] = {}
        self._injective: dict[int, bool] = {}
        ordered = list(positions)
        select = ", ".join(f"hash({table.column(p)}), {table.column(p)} IS NULL" for p in ordered)
        fetched = runner.connection.execute(f"SELECT {select} FROM {source}").fetchnumpy()
        arrays = list(fetched.values())
        self.rows = len(arrays[0]) if arrays else 0
        counts = dict(exact_distinct)
        missing = [p for p in ordered if counts.get(p) is None]
        for start in range(0, len(missing), _DISTINCT_CHUNK):
            chunk = missing[start : start + _DISTINCT_CHUNK]
            parts = ", ".join(f"COUNT(DISTINCT {table.column(p)})" for p in chunk)
            row = table.query(f"SELECT {parts} FROM {source}")[0]
            counts.update({p: int(v) for p, v in zip(chunk, row, strict=True)})
        for i, p in enumerate(ordered):
            hashes = np.asarray(arrays[2 * i], dtype=np.uint64)
            is_null = np.asarray(arrays[2 * i + 1], dtype=bool)
            present = hashes[~is_null]
            values, inverse = np.unique(present, return_inverse=True)
            codes = np.empty(self.rows, dtype=np.int64)
            codes[~is_null] = inverse
            nulls_here = int(is_null.sum())
            if nulls is Nulls.EQUAL:
                codes[is_null] = len(values)  # every missing value is the same value
                card = len(values) + 1
            else:
                codes[is_null] = len(values) + np.arange(nulls_here)  # never collide
                card = len(values) + nulls_here
            self._codes[p] = codes
            self._cards[p] = max(card, 1)
            self._injective[p] = len(values) == counts[p]

    def unique(self, candidate: Sequence[int]) -> bool | None:
        """Whether the columns identify every row; None when hashes cannot say exactly."""
        key = self._codes[candidate[0]]
        card = self._cards[candidate[0]]
        for p in candidate[1:]:
            if card * self._cards[p] >= _SAFE_PRODUCT:
                key = np.unique(key, return_inverse=True)[1].astype(np.int64)
                card = int(key.max()) + 1 if len(key) else 1
            key = key * self._cards[p] + self._codes[p]
            card *= self._cards[p]
        ordered = np.sort(key)
        if not bool((ordered[1:] == ordered[:-1]).any()):
            return True
        return False if all(self._injective[p] for p in candidate) else None
