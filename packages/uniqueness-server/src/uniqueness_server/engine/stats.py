"""Per-column facts that settle or bound key candidates before any multi-column scan.

Everything here costs one pass over the source whatever its width. A wide embedded source
(more searched columns than :data:`EXACT_DISTINCT_COLUMNS`) whose cells fit in memory as
integer codes is streamed once and coded exactly (:mod:`.codes`): that pass gives exact row,
missing and distinct counts and value lengths, and the codes then decide the search without
another scan. Otherwise one query of unfiltered aggregates gives row and missing counts, value
lengths and a HyperLogLog estimate for every column, with exact distinct counts only for narrow
searches (DuckDB's exact ``COUNT(DISTINCT …)`` per column grows with the square of the column
count). For files too large to code, the first rows are copied once as a *head* sample; its
exact per-column counts prove duplicates by pigeonhole (a group of equal values larger than
the other columns' number of values must repeat a key), which is sound for the whole source
because a duplicate in the head is a duplicate of the source.
"""

# SQL text here is built only from internal identifiers (c1..cn, quoted) and integers;
# client values never reach it, so string-built queries are safe.
# ruff: noqa: S608

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from uniqueness_server.engine.codes import CodeMatrix, TooManyCellsError
from uniqueness_server.engine.model import Nulls
from uniqueness_server.engine.table import Table

EXACT_DISTINCT_COLUMNS = 32  # up to this many searched columns, distinct counts are exact
HEAD_ROWS = 20_000
_AGGREGATED_COLUMNS = 300  # columns one aggregate query counts (5 values each, at most)


@dataclass(frozen=True, slots=True)
class HeadFacts:
    """Exact counts over the first rows of a file (the relation ``head``)."""

    rows: int
    distinct: tuple[int, ...]  # non-missing distinct values, by position (0 if not searched)
    largest: tuple[int, ...]  # rows in the largest group of one non-missing value
    missing: tuple[int, ...]

    def proves_duplicate(self, positions: Sequence[int], nulls: Nulls) -> bool:
        """True when the head must hold two rows with the same key on ``positions``."""
        if nulls is Nulls.EQUAL:
            # a missing value is one more value that collides with itself
            values = [self.distinct[p] + (1 if self.missing[p] else 0) for p in positions]
            largest = [max(self.largest[p], self.missing[p]) for p in positions]
            lost = [0] * len(positions)
            considered = self.rows
        else:
            # rows with a missing key value never collide: count only rows surely complete
            values = [self.distinct[p] for p in positions]
            largest = [self.largest[p] for p in positions]
            lost = [self.missing[p] for p in positions]
            considered = self.rows - sum(lost)
        if math.prod(values) < considered:
            return True
        for i in range(len(positions)):
            others = math.prod(v for j, v in enumerate(values) if j != i)
            complete = largest[i] - sum(m for j, m in enumerate(lost) if j != i)
            if complete > others:
                return True
        return False


@dataclass(frozen=True, slots=True)
class ColumnStats:
    """What one pass tells about the searched columns (indexed by position)."""

    rows: int
    missing: tuple[int, ...]
    average_length: tuple[float, ...]
    estimated_distinct: tuple[int, ...]  # non-missing distinct values, HyperLogLog for files
    distinct: tuple[int | None, ...]  # exact non-missing distinct values where counted
    hash_safe: frozenset[int]  # positions whose values have pairwise distinct 64-bit hashes
    head: HeadFacts | None = None
    codes: CodeMatrix | None = None  # every searched column coded exactly (wide sources)


def column_stats(table: Table, positions: Sequence[int], *, code: bool = False) -> ColumnStats:
    """Row count and, for ``positions``, missing counts, mean value lengths and distinct
    counts (exact for narrow searches or databases, estimated otherwise), plus the head
    sample's facts for wide files: how is the backend's choice among the passes below.
    With ``code``, a local source whose cells fit is coded whole whatever its width
    (:attr:`ColumnStats.codes`: the in-memory key search reads them)."""
    return table.backend.column_stats(table, positions, code=code)


def aggregate_stats(
    table: Table,
    positions: Sequence[int],
    source: str,
    *,
    estimate: bool,
    exact: bool = True,
    hashes: bool = False,
    counted: Mapping[int, int] | None = None,
    head: bool = False,
) -> ColumnStats:
    """The facts of ``positions`` from one aggregate query over ``source``.

    ``estimate``: distinct values are estimated (HyperLogLog), not counted with
    ``COUNT(DISTINCT …)`` in the query; ``exact`` then says whether the backend counts them
    exactly another way: with ``hashes`` in the same query (also telling which columns'
    values hash apart, see :attr:`ColumnStats.hash_safe`), or ``counted`` already (by
    position). ``head``: copy the first rows to ``head`` and count them exactly
    (:class:`HeadFacts`), for a source whose distinct counts are only estimated.
    """
    row: list[Any] = []
    # a query per chunk of columns: a result row of SQLite holds at most 2,000 values
    for start in range(0, max(1, len(positions)), _AGGREGATED_COLUMNS):
        parts = ["COUNT(*)"]
        for p in positions[start : start + _AGGREGATED_COLUMNS]:
            c = table.column(p)
            parts += [f"COUNT({c})", f"SUM(LENGTH({table.backend.as_text(c)}))"]
            parts.append(f"approx_count_distinct({c})" if estimate else f"COUNT(DISTINCT {c})")
            if hashes:
                parts += [
                    f"COUNT(DISTINCT {c})",
                    f"COUNT(DISTINCT hash({c})) FILTER (WHERE {c} IS NOT NULL)",
                ]
        chunk = table.query(f"SELECT {', '.join(parts)} FROM {source}")[0]
        row += chunk if not row else chunk[1:]
    counted = counted or {}
    rows = int(row[0])
    count = len(table.names)
    missing, length = [0] * count, [0.0] * count
    estimated = [0] * count
    distinct: list[int | None] = [None] * count
    safe: set[int] = set()
    width = 5 if hashes else 3
    for i, p in enumerate(positions):
        present, total, approx, *rest = row[1 + width * i : 1 + width * (i + 1)]
        missing[p] = rows - int(present)
        length[p] = float(total or 0) / int(present) if present else 0.0
        estimated[p] = min(counted.get(p, int(approx)), int(present))
        if hashes:
            distinct[p] = int(rest[0])
            if int(rest[1]) == distinct[p]:
                safe.add(p)
        elif exact:
            distinct[p] = counted.get(p, int(approx))
    facts = _head_facts(table, positions) if head else None
    if facts is not None and facts.rows == rows:
        # the head is the whole source: its counts are exact
        distinct = [facts.distinct[p] if p in positions else None for p in range(count)]
    return ColumnStats(
        rows,
        tuple(missing),
        tuple(length),
        tuple(estimated),
        tuple(distinct),
        frozenset(safe),
        facts,
    )


def coded_stats(table: Table, positions: Sequence[int]) -> ColumnStats | None:
    """Exact facts for a wide embedded source from one streamed pass that codes every
    searched column (None when the source has too many cells to hold codes for)."""
    try:
        codes = CodeMatrix.encode(table, table.relation, positions, measure=True)
    except TooManyCellsError:
        return None
    return stats_of_codes(codes, positions, len(table.names))


def stats_of_codes(codes: CodeMatrix, positions: Sequence[int], count: int) -> ColumnStats:
    """The exact facts of ``positions`` (of a source of ``count`` columns) that ``codes``
    (measured, holding at least those positions) tell."""
    missing, length = [0] * count, [0.0] * count
    distinct: list[int | None] = [None] * count
    for p in positions:
        present = codes.rows - codes.missing[p]
        missing[p] = codes.missing[p]
        length[p] = codes.lengths.get(p, 0) / present if present else 0.0
        distinct[p] = codes.distinct[p]
    return ColumnStats(
        codes.rows,
        tuple(missing),
        tuple(length),
        tuple(d or 0 for d in distinct),
        tuple(distinct),
        frozenset(),
        codes=codes,
    )


def _head_facts(table: Table, positions: Sequence[int]) -> HeadFacts:
    """Copy the first rows of the searched columns to ``head`` and count them exactly, in
    one long-format aggregation (linear in the columns, unlike one DISTINCT per column)."""
    columns = ", ".join(table.column(p) for p in positions)
    table.query(
        f"CREATE OR REPLACE TEMP TABLE head AS SELECT {columns} FROM {table.relation} "
        f"LIMIT {HEAD_ROWS}"
    )
    rows = int(table.query("SELECT COUNT(*) FROM head")[0][0])
    count = len(table.names)
    distinct, largest, present = [0] * count, [0] * count, [0] * count
    # UNPIVOT leaves out missing values: a column missing everywhere in the head is absent
    for name, values, biggest, total in table.query(
        "SELECT k, COUNT(*), MAX(n), SUM(n) FROM (SELECT k, v, COUNT(*) AS n FROM "
        "(UNPIVOT head ON COLUMNS(*) INTO NAME k VALUE v) u GROUP BY k, v) g GROUP BY k"
    ):
        p = int(str(name)[1:]) - 1
        distinct[p], largest[p], present[p] = int(values), int(biggest), int(total)
    missing = [0] * count
    for p in positions:
        missing[p] = rows - present[p]
    return HeadFacts(rows, tuple(distinct), tuple(largest), tuple(missing))
