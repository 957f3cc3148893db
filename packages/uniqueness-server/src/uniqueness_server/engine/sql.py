"""SQL text for the engine's questions, portable across DuckDB, SQLite and PostgreSQL.

Only internal identifiers (``c1..cn``, quoted by the runner) and integers reach this text;
values never do.
"""

# SQL text here is built only from internal identifiers (c1..cn, quoted) and integers;
# client values never reach it, so string-built queries are safe.
# ruff: noqa: S608

from __future__ import annotations

from collections.abc import Sequence

from uniqueness_server.engine.model import Nulls
from uniqueness_server.engine.table import Table


def column_list(table: Table, positions: Sequence[int]) -> str:
    """``"c1", "c3"``."""
    return ", ".join(table.column(p) for p in positions)


def as_text(table: Table, column: str) -> str:
    """``column`` cast to text (Spark SQL's ``VARCHAR`` needs a length; its ``STRING`` does not)."""
    kind = "STRING" if table.runner.dialect == "spark" else "VARCHAR"
    return f"CAST({column} AS {kind})"


def any_missing(table: Table, positions: Sequence[int]) -> str:
    """A condition true when any of the columns is missing."""
    return " OR ".join(f"{table.column(p)} IS NULL" for p in positions)


def not_missing(table: Table, positions: Sequence[int]) -> str:
    """A condition true when none of the columns is missing."""
    return " AND ".join(f"{table.column(p)} IS NOT NULL" for p in positions)


def summary_query(table: Table, positions: Sequence[int], nulls: Nulls, source: str) -> str:
    """One GROUP BY pass giving rows, key groups, duplicate groups and rows, missing rows.

    With ``nulls=distinct`` a group whose key has a missing value never counts as duplicate;
    rows with a missing key value are counted under both modes.
    """
    cols = column_list(table, positions)
    flag = f"MAX(CASE WHEN {any_missing(table, positions)} THEN 1 ELSE 0 END)"
    duplicate = "n > 1 AND m = 0" if nulls is Nulls.DISTINCT else "n > 1"
    return (
        "SELECT COUNT(*), COALESCE(SUM(n), 0), "
        f"COALESCE(SUM(CASE WHEN {duplicate} THEN 1 ELSE 0 END), 0), "
        f"COALESCE(SUM(CASE WHEN {duplicate} THEN n ELSE 0 END), 0), "
        "COALESCE(SUM(CASE WHEN m = 1 THEN 1 ELSE 0 END), 0), "
        "COALESCE(SUM(CASE WHEN m = 1 THEN n ELSE 0 END), 0) "
        f"FROM (SELECT COUNT(*) AS n, {flag} AS m FROM {source} GROUP BY {cols}) g"
    )


def hashed_summary_query(table: Table, positions: Sequence[int], source: str) -> str:
    """DuckDB only: rows, the largest group when grouping by a 64-bit hash of the key, and
    rows with a missing key value.

    If no two rows share a hash, no two share a key, so a largest group of 1 proves the
    columns unique with a cheaper grouping; anything else needs :func:`summary_query`.
    """
    missing = f"COUNT(CASE WHEN {any_missing(table, positions)} THEN 1 END)"
    return (
        "SELECT COALESCE(SUM(n), 0), COALESCE(MAX(n), 0), COALESCE(SUM(m), 0) FROM "
        f"(SELECT COUNT(*) AS n, {missing} AS m FROM {source} "
        f"GROUP BY hash({column_list(table, positions)})) g"
    )


def examples_query(
    table: Table, positions: Sequence[int], nulls: Nulls, limit: int, offset: int, rows_shown: int
) -> str:
    """Duplicate groups with their counts (and, for files, their first row numbers)."""
    cols = column_list(table, positions)
    where = f" WHERE {not_missing(table, positions)}" if nulls is Nulls.DISTINCT else ""
    if table.row_numbers:
        return (
            f"SELECT {cols}, COUNT(*) AS n, list(rn ORDER BY rn)[1:{rows_shown}] "
            f"FROM (SELECT row_number() OVER () AS rn, * FROM {table.relation}){where} "
            f"GROUP BY {cols} HAVING COUNT(*) > 1 ORDER BY MIN(rn) "
            f"LIMIT {limit} OFFSET {offset}"
        )
    return (
        f"SELECT {cols}, COUNT(*) AS n FROM {table.relation}{where} GROUP BY {cols} "
        f"HAVING COUNT(*) > 1 ORDER BY COUNT(*) DESC, {cols} LIMIT {limit} OFFSET {offset}"
    )


def has_duplicates_query(table: Table, positions: Sequence[int], nulls: Nulls, source: str) -> str:
    """A query returning a row exactly when the columns hold a duplicate in ``source``."""
    cols = column_list(table, positions)
    where = f" WHERE {not_missing(table, positions)}" if nulls is Nulls.DISTINCT else ""
    return f"SELECT 1 FROM {source}{where} GROUP BY {cols} HAVING COUNT(*) > 1 LIMIT 1"
