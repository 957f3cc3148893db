"""The uniqueness check: one GROUP BY pass, evidence for duplicates, smaller keys inside."""

# SQL text here is built only from internal identifiers (c1..cn, quoted) and integers;
# client values never reach it, so string-built queries are safe.

from __future__ import annotations

from collections.abc import Sequence

from mcp_common import ToolContext

from uniqueness_server.engine.columns import resolve_columns
from uniqueness_server.engine.lattice import UniquenessOracle, minimal_unique_sets
from uniqueness_server.engine.model import CheckResult, DuplicateGroup, Nulls
from uniqueness_server.engine.runner import DuckDbRunner
from uniqueness_server.engine.sql import (
    duplicate_groups_statement,
    duplicate_page_statement,
    examples_query,
    page_rows_query,
    summary_query,
)
from uniqueness_server.engine.table import Table

ROWS_PER_GROUP = 10
MAX_VALUE_CHARS = 200
MAX_BETTER_OPTION_COLUMNS = 16


def shorten(value: object) -> str | None:
    """A value as shown in an answer: text, cut to a readable length."""
    if value is None:
        return None
    text = value if isinstance(value, str) else str(value)
    return text if len(text) <= MAX_VALUE_CHARS else text[: MAX_VALUE_CHARS - 1] + "…"


def _embedded_groups(
    table: Table, positions: Sequence[int], nulls: Nulls, limit: int, offset: int
) -> tuple[tuple[int, ...], list[DuplicateGroup]]:
    """Totals and one page of duplicate groups (first-occurrence order, with row numbers)
    from a single pass over an embedded source (see :func:`duplicate_groups_statement`)."""
    table.query(duplicate_groups_statement(table, positions))
    rows, missing_rows, multi_groups, multi_rows, multi_missing_groups, multi_missing_rows = (
        int(v)
        for v in table.query(
            "SELECT COALESCE(SUM(CASE WHEN total = 1 THEN n END), 0), "
            "COALESCE(SUM(CASE WHEN total = 1 THEN m END), 0), "
            "COUNT(CASE WHEN total = 0 THEN 1 END), "
            "COALESCE(SUM(CASE WHEN total = 0 THEN n END), 0), "
            "COUNT(CASE WHEN total = 0 AND m > 0 THEN 1 END), "
            "COALESCE(SUM(CASE WHEN total = 0 AND m > 0 THEN n END), 0) FROM dup_groups"
        )[0]
    )
    # keys absent from dup_groups occur once: each is one group of one row
    groups = rows - multi_rows + multi_groups
    missing_groups = multi_missing_groups + missing_rows - multi_missing_rows
    dup_groups, dup_rows = multi_groups, multi_rows
    if nulls is Nulls.DISTINCT:
        # a key with a missing value never repeats under nulls=distinct
        dup_groups -= multi_missing_groups
        dup_rows -= multi_missing_rows
    examples: list[DuplicateGroup] = []
    if dup_groups and limit > 0:
        table.query(duplicate_page_statement(table, positions, nulls, limit, offset))
        page = table.query("SELECT * FROM dup_page ORDER BY first")  # key values, n, first, last
        width = len(positions)
        # a group of two rows is known by its first and last row; larger ones need a pass
        listed: dict[int, tuple[int, ...]] = {}
        if any(int(row[width]) > 2 for row in page):
            for first, numbers in table.query(page_rows_query(table, positions, ROWS_PER_GROUP)):
                listed[int(first)] = tuple(int(n) for n in numbers)
        for row in page:
            count, first, last = (int(v) for v in row[width:])
            numbers = listed.get(first, (first, last))
            examples.append(DuplicateGroup(tuple(shorten(v) for v in row[:width]), count, numbers))
        table.query("DROP TABLE dup_page")
    table.query("DROP TABLE dup_groups")
    summary = (groups, rows, dup_groups, dup_rows, missing_groups, missing_rows)
    return summary, examples


def check_uniqueness(
    table: Table,
    columns: Sequence[str],
    *,
    nulls: Nulls = Nulls.EQUAL,
    better_options: bool = True,
    limit: int = 5,
    offset: int = 0,
    context: ToolContext | None = None,
) -> CheckResult:
    """Whether ``columns`` identify every row of ``table``, with the evidence.

    Duplicate groups come in first-occurrence order (files) or by size (databases), paged by
    ``limit``/``offset``. When the columns are unique and ``better_options`` is set, the
    minimal unique subsets of ``columns`` are listed (exact lattice search).
    """
    context = context or ToolContext()
    positions = resolve_columns(columns, table.names)
    names = tuple(table.names[p] for p in positions)
    if isinstance(table.runner, DuckDbRunner):
        summary, examples = _embedded_groups(table, positions, nulls, limit, offset)
    else:
        summary = table.query(summary_query(table, positions, nulls, table.relation))[0]
        examples = []
        if summary[2] and limit > 0:
            for row in table.query(examples_query(table, positions, nulls, limit, offset)):
                values = tuple(shorten(v) for v in row[: len(positions)])
                examples.append(DuplicateGroup(values, int(row[len(positions)]), ()))
    groups, rows, dup_groups, dup_rows, missing_groups, missing_rows = summary
    distinct = groups if nulls is Nulls.EQUAL else groups - missing_groups + missing_rows
    unique = dup_groups == 0
    better: list[tuple[str, ...]] = []
    minimal: bool | None = None
    if unique and better_options and 1 < len(positions) <= MAX_BETTER_OPTION_COLUMNS and rows:
        table.runner.progress.report(50.0, "searching smaller keys inside the columns")
        table.runner.progress.scan_reports = False
        # no statistics pass up front: most subsets of a key already repeat within the first
        # rows, and the data is copied into memory only if a subset needs a full check
        oracle = UniquenessOracle(table, nulls, context, rows=int(rows), columns=positions)
        oracle.record(positions, True)
        subsets = minimal_unique_sets(oracle, positions, len(positions) - 1, context)
        rank = {p: i for i, p in enumerate(positions)}
        better = [tuple(table.names[p] for p in sorted(s, key=rank.__getitem__)) for s in subsets]
        minimal = not better
    return CheckResult(
        source=table.label,
        columns=names,
        unique=unique,
        rows=int(rows),
        distinct_keys=int(distinct),
        duplicate_groups=int(dup_groups),
        duplicate_rows=int(dup_rows),
        rows_with_missing=int(missing_rows),
        examples=tuple(examples),
        better_options=tuple(better),
        minimal=minimal,
        row_numbers=table.row_numbers,
    )
