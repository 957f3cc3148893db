"""The uniqueness check: one GROUP BY pass, evidence for duplicates, smaller keys inside."""

# SQL text here is built only from internal identifiers (c1..cn, quoted) and integers;
# client values never reach it, so string-built queries are safe.

from __future__ import annotations

from collections.abc import Sequence

from mcp_common import ToolContext

from uniqueness_server.engine.backend import GroupCounts
from uniqueness_server.engine.columns import resolve_columns
from uniqueness_server.engine.keys import search_keys
from uniqueness_server.engine.metadata import declared_claim
from uniqueness_server.engine.model import (
    MAX_BETTER_OPTION_COLUMNS,
    MAX_VALUE_CHARS,
    CheckResult,
    DuplicateGroup,
    Nulls,
)
from uniqueness_server.engine.sql import examples_query, summary_query
from uniqueness_server.engine.table import Table

ROWS_PER_GROUP = 10
SUBSET_SAMPLE_ROWS = 20_000  # rows coded to rule out the subsets of a unique key


def shorten(value: object) -> str | None:
    """A value as shown in an answer: text, cut to a readable length."""
    if value is None:
        return None
    text = value if isinstance(value, str) else str(value)
    return text if len(text) <= MAX_VALUE_CHARS else text[: MAX_VALUE_CHARS - 1] + "…"


def counted_groups(
    table: Table, positions: Sequence[int], nulls: Nulls, limit: int, offset: int
) -> tuple[GroupCounts, list[DuplicateGroup]]:
    """Group counts from one GROUP BY pass and a page of duplicate groups, largest first,
    both computed where the rows live (a backend that cannot number rows uses this)."""
    row = table.query(summary_query(table, positions, nulls, table.relation))[0]
    counts: GroupCounts = (
        int(row[0]),
        int(row[1]),
        int(row[2]),
        int(row[3]),
        int(row[4]),
        int(row[5]),
    )
    examples: list[DuplicateGroup] = []
    if counts[2] and limit > 0:
        for found in table.query(examples_query(table, positions, nulls, limit, offset)):
            values = tuple(shorten(v) for v in found[: len(positions)])
            examples.append(DuplicateGroup(values, int(found[len(positions)]), ()))
    return counts, examples


def check_uniqueness(
    table: Table,
    columns: Sequence[str],
    *,
    nulls: Nulls = Nulls.EQUAL,
    better_options: bool = True,
    limit: int = 5,
    offset: int = 0,
    verify: bool = False,
    context: ToolContext | None = None,
) -> CheckResult:
    """Whether ``columns`` identify every row of ``table``, with the evidence.

    Duplicate groups come in first-occurrence order (files) or by size (databases), paged by
    ``limit``/``offset``. When the columns are unique and ``better_options`` is set, the
    minimal unique subsets of ``columns`` are listed (the exact key search).

    When the columns hold a key the database declares and that key proves them unique under
    ``nulls``, the verdict comes from the declaration (``basis`` "declared") after one counting
    pass for the row counts, unless ``verify`` asks for the scan.
    """
    context = context or ToolContext()
    positions = resolve_columns(columns, table.names)
    names = tuple(table.names[p] for p in positions)
    claim = declared_claim(table, positions, nulls, count=not verify)
    proven = claim is not None and claim.proven
    examples: list[DuplicateGroup] = []
    if claim is not None and claim.proven:
        missing = claim.rows_with_missing
        summary: tuple[int, ...] = (claim.rows, claim.rows, 0, 0, missing, missing)
    else:
        summary, examples = table.backend.duplicate_groups(table, positions, nulls, limit, offset)
    groups, rows, dup_groups, dup_rows, missing_groups, missing_rows = summary
    distinct = groups if nulls is Nulls.EQUAL else groups - missing_groups + missing_rows
    unique = dup_groups == 0
    better: list[tuple[str, ...]] = []
    minimal: bool | None = None
    if unique and better_options and 1 < len(positions) <= MAX_BETTER_OPTION_COLUMNS and rows:
        table.backend.progress.report(50.0, "searching smaller keys inside the columns")
        table.backend.progress.scan_reports = False
        # no statistics pass up front: most subsets of a key already repeat within the first
        # rows, so only those rows are coded, and the backend checks the subsets they leave
        known = [tuple(positions)]
        if claim is not None and claim.proven and claim.key is not None:
            known.append(tuple(sorted(claim.key.positions or positions)))  # a declared key
        subsets = search_keys(
            table,
            positions,
            len(positions) - 1,
            nulls,
            context,
            rows=int(rows),
            known=known,
            sample_rows=SUBSET_SAMPLE_ROWS,
        ).keys
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
        basis="declared" if proven else "scanned",
        declared=claim.key if claim is not None else None,
        declared_proves=claim.proves if claim is not None else (),
        notes=claim.notes if claim is not None else (),
    )
