"""SQL text for the engine's questions, portable across every backend's SQL.

Only internal identifiers (``c1..cn``, quoted by the backend) and integers reach this text;
values never do.
"""

# SQL text here is built only from internal identifiers (c1..cn, quoted) and integers;
# client values never reach it, so string-built queries are safe.
# ruff: noqa: S608

from __future__ import annotations

from collections.abc import Sequence

from mcp_common import ToolContext

from uniqueness_server.engine.model import MAX_VALUE_CHARS, Nulls
from uniqueness_server.engine.table import Table


def column_list(table: Table, positions: Sequence[int]) -> str:
    """``"c1", "c3"``."""
    return ", ".join(table.column(p) for p in positions)


PASS_COLUMNS = 2_000
"""Columns one query reads, at most: DuckDB's CSV reader holds a vector of 2,048 values (32
KiB) per column it returns, several at once, so one query of 8,000 columns took more than
the default 512 MiB of engine memory (``--max-engine-memory``); 4,000 took 170 MB. Wider
reads are made in several queries of at most this many columns."""


def column_passes(positions: Sequence[int]) -> list[Sequence[int]]:
    """``positions`` cut into runs of at most :data:`PASS_COLUMNS` (one run when empty)."""
    return [positions[i : i + PASS_COLUMNS] for i in range(0, max(1, len(positions)), PASS_COLUMNS)]


def sample_values(table: Table, positions: Sequence[int], rows: int) -> dict[int, list[object]]:
    """Values of the first ``rows`` rows the source gives of each of ``positions`` (cut as
    :func:`sampled_list` cuts them), one query per :func:`column_passes` run: each column's
    values are its own sample (queries of different runs may see different rows)."""
    found: dict[int, list[object]] = {}
    for run in column_passes(positions):
        if not run:
            continue
        values = table.query(
            f"SELECT {sampled_list(table, run)} FROM {table.relation} LIMIT {rows}"
        )
        for i, p in enumerate(run):
            found[p] = [row[i] for row in values]
    return found


def sampled_list(table: Table, positions: Sequence[int]) -> str:
    """The columns at ``positions`` as sample rows fetch them (see ``Backend.sampled``)."""
    return ", ".join(
        f"{table.backend.sampled(table.column(p))} AS {table.column(p)}" for p in positions
    )


def shown_list(table: Table, positions: Sequence[int], prefix: str = "") -> str:
    """The columns at ``positions`` as an answer shows them: text, cut to one character more
    than is shown (so the cut still shows), whatever their length where they are."""
    return ", ".join(
        f"substr({table.backend.as_text(prefix + table.column(p))}, 1, {MAX_VALUE_CHARS + 1})"
        for p in positions
    )


def any_missing(table: Table, positions: Sequence[int]) -> str:
    """A condition true when any of the columns is missing."""
    return " OR ".join(f"{table.column(p)} IS NULL" for p in positions)


def not_missing(table: Table, positions: Sequence[int]) -> str:
    """A condition true when none of the columns is missing."""
    return " AND ".join(f"{table.column(p)} IS NOT NULL" for p in positions)


def summary_query(table: Table, positions: Sequence[int], nulls: Nulls, source: str) -> str:
    """One GROUP BY pass giving rows, key groups, duplicate groups and rows, missing rows.

    With ``nulls=distinct`` a group whose key has a missing value never counts as duplicate;
    rows with a missing key value are counted under both modes. Whether a group's key has a
    missing value is read from the group's own key values after grouping: an aggregate for
    it inside the GROUP BY cost Spark a fifth more than the bare grouping.
    """
    cols = column_list(table, positions)
    missing = any_missing(table, positions)
    duplicate = f"n > 1 AND NOT ({missing})" if nulls is Nulls.DISTINCT else "n > 1"
    return (
        "SELECT COUNT(*), COALESCE(SUM(n), 0), "
        f"COALESCE(SUM(CASE WHEN {duplicate} THEN 1 ELSE 0 END), 0), "
        f"COALESCE(SUM(CASE WHEN {duplicate} THEN n ELSE 0 END), 0), "
        f"COALESCE(SUM(CASE WHEN {missing} THEN 1 ELSE 0 END), 0), "
        f"COALESCE(SUM(CASE WHEN {missing} THEN n ELSE 0 END), 0) "
        f"FROM (SELECT {cols}, COUNT(*) AS n FROM {source} GROUP BY {cols}) g"
    )


def examples_query(
    table: Table, positions: Sequence[int], nulls: Nulls, limit: int, offset: int
) -> str:
    """Duplicate groups with their counts, largest first (databases)."""
    cols = column_list(table, positions)
    where = f" WHERE {not_missing(table, positions)}" if nulls is Nulls.DISTINCT else ""
    return (
        f"SELECT {shown_list(table, positions)}, COUNT(*) AS n FROM {table.relation}{where} "
        f"GROUP BY {cols} "
        f"HAVING COUNT(*) > 1 ORDER BY COUNT(*) DESC, {cols} LIMIT {limit} OFFSET {offset}"
    )


def has_duplicates_query(table: Table, positions: Sequence[int], nulls: Nulls, source: str) -> str:
    """A query returning a row exactly when the columns hold a duplicate in ``source``."""
    cols = column_list(table, positions)
    where = f" WHERE {not_missing(table, positions)}" if nulls is Nulls.DISTINCT else ""
    return f"SELECT 1 FROM {source}{where} GROUP BY {cols} HAVING COUNT(*) > 1 LIMIT 1"


def duplicated_each(
    table: Table,
    candidates: Sequence[tuple[int, ...]],
    nulls: Nulls,
    source: str,
    context: ToolContext,
) -> set[tuple[int, ...]]:
    """The candidates holding a duplicate in ``source``, one GROUP BY each (cancellation is
    checked between them)."""
    found: set[tuple[int, ...]] = set()
    for candidate in candidates:
        context.check_cancelled()
        if table.query(has_duplicates_query(table, candidate, nulls, source)):
            found.add(candidate)
    return found
