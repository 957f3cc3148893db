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


def keyed_copy_statement(table: Table, positions: Sequence[int]) -> str:
    """DuckDB only: copy the key columns of every row into the temp table ``keyed``.

    DuckDB keeps the copy in source order (insertion order is preserved even when the scan
    runs in parallel), so a row's ``rowid`` in ``keyed`` is its 0-based row number: row
    numbers come free with the copy, where numbering the scan itself (``row_number() OVER
    ()``) forces it through one ordered stream and cost more than the grouping.
    """
    return (
        f"CREATE OR REPLACE TEMP TABLE keyed AS SELECT {column_list(table, positions)} "
        f"FROM {table.relation}"
    )


def repeated_keys_statement(table: Table, positions: Sequence[int]) -> str:
    """DuckDB only: the keys of ``keyed`` that occur more than once, with their counts ``n``,
    into the temp table ``dup_keys`` (a key left out occurs exactly once)."""
    cols = column_list(table, positions)
    return (
        f"CREATE OR REPLACE TEMP TABLE dup_keys AS SELECT {cols}, COUNT(*) AS n FROM keyed "
        f"GROUP BY {cols} HAVING COUNT(*) > 1"
    )


def keyed_totals_query(table: Table, positions: Sequence[int]) -> str:
    """DuckDB only: rows and rows with a missing key value of ``keyed``, then the repeated keys'
    groups and rows, all and those with a missing value, from ``dup_keys``."""
    missing = any_missing(table, positions)
    return (
        f"SELECT (SELECT COUNT(*) FROM keyed), (SELECT COUNT(*) FROM keyed WHERE {missing}), "
        "COUNT(*), COALESCE(SUM(n), 0), "
        f"COUNT(CASE WHEN {missing} THEN 1 END), COALESCE(SUM(CASE WHEN {missing} THEN n END), 0) "
        "FROM dup_keys"
    )


def _same_key(table: Table, positions: Sequence[int], left: str, right: str) -> str:
    return " AND ".join(
        f"{left}.{table.column(p)} IS NOT DISTINCT FROM {right}.{table.column(p)}"
        for p in positions
    )


def duplicate_page_statement(
    table: Table, positions: Sequence[int], nulls: Nulls, limit: int, offset: int
) -> str:
    """DuckDB only: one page of the repeated keys in ``dup_keys``, in first-occurrence order
    (key values, ``n``, 1-based ``first`` row number), into the temp table ``dup_page``."""
    cols = ", ".join(f"k.{table.column(p)}" for p in positions)
    where = f" WHERE {not_missing(table, positions)}" if nulls is Nulls.DISTINCT else ""
    return (
        f"CREATE OR REPLACE TEMP TABLE dup_page AS SELECT {cols}, d.n, MIN(k.rowid) + 1 AS first "
        f"FROM keyed k JOIN (SELECT * FROM dup_keys{where}) d "
        f"ON {_same_key(table, positions, 'k', 'd')} GROUP BY {cols}, d.n "
        f"ORDER BY first LIMIT {limit} OFFSET {offset}"
    )


def page_rows_query(table: Table, positions: Sequence[int], rows_shown: int) -> str:
    """DuckDB only: the first ``rows_shown`` 1-based row numbers of each group in ``dup_page``,
    by the group's first row number."""
    return (
        f"SELECT p.first, list(k.rowid + 1 ORDER BY k.rowid)[1:{rows_shown}] FROM keyed k "
        f"JOIN dup_page p ON {_same_key(table, positions, 'k', 'p')} GROUP BY p.first"
    )


def examples_query(
    table: Table, positions: Sequence[int], nulls: Nulls, limit: int, offset: int
) -> str:
    """Duplicate groups with their counts, largest first (databases)."""
    cols = column_list(table, positions)
    where = f" WHERE {not_missing(table, positions)}" if nulls is Nulls.DISTINCT else ""
    return (
        f"SELECT {cols}, COUNT(*) AS n FROM {table.relation}{where} GROUP BY {cols} "
        f"HAVING COUNT(*) > 1 ORDER BY COUNT(*) DESC, {cols} LIMIT {limit} OFFSET {offset}"
    )


def has_duplicates_query(table: Table, positions: Sequence[int], nulls: Nulls, source: str) -> str:
    """A query returning a row exactly when the columns hold a duplicate in ``source``."""
    cols = column_list(table, positions)
    where = f" WHERE {not_missing(table, positions)}" if nulls is Nulls.DISTINCT else ""
    return f"SELECT 1 FROM {source}{where} GROUP BY {cols} HAVING COUNT(*) > 1 LIMIT 1"
