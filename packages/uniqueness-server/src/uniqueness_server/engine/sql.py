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


def duplicate_groups_statement(table: Table, positions: Sequence[int]) -> str:
    """DuckDB only: one pass that stores, in the temp table ``dup_groups``, every key that
    occurs more than once (its count ``n``, its first and last row numbers, ``m`` > 0 when
    the key has a missing value, ``total`` = 0), plus one row with ``total`` = 1 holding the
    row count ``n`` and the rows with a missing key value ``m``.

    Every key left out occurs exactly once, so this small table gives all the totals, the
    order of the groups and, for a group of two rows, both its row numbers. (A list of row
    numbers per group would cost a list for every key of the source.)
    """
    cols = column_list(table, positions)
    first = table.column(positions[0])
    return (
        "CREATE OR REPLACE TEMP TABLE dup_groups AS "
        f"SELECT {cols}, COUNT(*) AS n, MIN(rn) AS first, MAX(rn) AS last, "
        f"COUNT(CASE WHEN {any_missing(table, positions)} THEN 1 END) AS m, "
        f"grouping({first}) AS total "
        f"FROM (SELECT row_number() OVER () AS rn, {cols} FROM {table.relation}) numbered "
        f"GROUP BY GROUPING SETS (({cols}), ()) HAVING COUNT(*) > 1 OR grouping({first}) = 1"
    )


def duplicate_page_statement(
    table: Table, positions: Sequence[int], nulls: Nulls, limit: int, offset: int
) -> str:
    """One page of the groups :func:`duplicate_groups_statement` stored, in first-occurrence
    order, into the temp table ``dup_page``."""
    where = "total = 0 AND m = 0" if nulls is Nulls.DISTINCT else "total = 0"
    return (
        f"CREATE OR REPLACE TEMP TABLE dup_page AS SELECT {column_list(table, positions)}, "
        f"n, first, last FROM dup_groups WHERE {where} ORDER BY first "
        f"LIMIT {limit} OFFSET {offset}"
    )


def page_rows_query(table: Table, positions: Sequence[int], rows_shown: int) -> str:
    """DuckDB only: the first ``rows_shown`` row numbers of each group in ``dup_page``, from
    one more pass over the rows between the page's first and last row numbers."""
    cols = column_list(table, positions)
    same = " AND ".join(
        f"r.{table.column(p)} IS NOT DISTINCT FROM p.{table.column(p)}" for p in positions
    )
    return (
        f"SELECT p.first, list(r.rn ORDER BY r.rn)[1:{rows_shown}] "
        f"FROM (SELECT row_number() OVER () AS rn, {cols} FROM {table.relation}) r "
        f"JOIN dup_page p ON {same} "
        "WHERE r.rn BETWEEN (SELECT MIN(first) FROM dup_page) AND (SELECT MAX(last) FROM dup_page) "
        "GROUP BY p.first"
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
