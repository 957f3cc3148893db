"""Approximate mode of the uniqueness check: one streaming pass through a distinct-count sketch.

1. **Head sample.** The first :data:`HEAD_ROWS` rows are grouped by the key; a duplicate there is
   a duplicate of the source, so the exact check answers (with its evidence).
2. **One pass with a sketch.** The pass counts the rows and the rows with a missing key value,
   and keeps a K-minimum-values sketch of the key: the :data:`SKETCH_KEYS` smallest 64-bit hashes
   of the key values (the family of Apache DataSketches' Theta sketch). Only rows whose keys can
   collide are sketched (under ``nulls=distinct`` a row with a missing key value never does).

   - files (DuckDB): ``min(hash(key), k)`` in the same aggregate as the counts;
   - PostgreSQL: ``ORDER BY hashtextextended(ROW(key)::text, 0) LIMIT k``, a top-N heap sort
     inside the database (only ``k`` hashes leave it), next to one counting query;
   - SQLite, which has no hash function: the key values stream once through a DataSketches
     Theta sketch (``update_theta_sketch``), whose own bounds are used.

3. **Verdict.** The exact check answers when the pass saw every row (the sketch holds them all),
   when two sketched rows share a hash (two equal keys always do), or when the sketch's upper
   bound on distinct keys is below the rows that can collide (duplicates proven at that
   confidence). Otherwise the answer is "probably unique": the estimated distinct count and
   its bounds at :data:`SIGMAS` standard deviations.

The K-minimum-values bound: with ``θ`` the largest kept hash as a fraction of the hash range,
each distinct key's hash falls below ``θ`` independently with probability ``θ``, so the
``k - 1`` hashes below it are binomial in the distinct count ``D``; the bounds invert the normal
approximation of that binomial (a score interval) and the estimate is ``(k - 1) / θ``.
PostgreSQL and SQLite keys are hashed by their text form, so values the database calls equal
but spells differently (``1.0`` and ``1.00`` as numeric) count as distinct in the sketch; the
exact confirmation compares with the database's own equality.
"""

# SQL text here is built only from internal identifiers (c1..cn, quoted) and integers;
# client values never reach it, so string-built queries are safe.
# ruff: noqa: S608

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from mcp_common import ErrorCode, ToolContext, ToolError

from uniqueness_server.engine.check import check_uniqueness
from uniqueness_server.engine.columns import resolve_columns
from uniqueness_server.engine.database import SqlRunner
from uniqueness_server.engine.metadata import declared_claim
from uniqueness_server.engine.model import Approximation, CheckResult, Nulls
from uniqueness_server.engine.sql import any_missing, column_list, has_duplicates_query, not_missing
from uniqueness_server.engine.table import Table

HEAD_ROWS = 20_000
"""Rows of the head sample tested for a duplicate before the sketch pass."""
SKETCH_KEYS = 1 << 16
"""Key hashes the sketch keeps: a relative error of about ``1/sqrt(SKETCH_KEYS)`` per sigma."""
SIGMAS = 3
"""Width of the stated bounds in standard deviations (about 99.7 % confidence)."""
_HASH_RANGE = float(1 << 64)
_PG_OFFSET = 1 << 63  # hashtextextended is a signed bigint
_PREFILTER = 1 << 60  # hashes below it enter DuckDB's bounded min first: 1/16 of the range

Exact = Callable[[str], CheckResult]
"""The exact check, labelled with why approximate mode ran it."""


def kmv_bounds(below: int, theta: float, sigmas: float = SIGMAS) -> tuple[float, float, float]:
    """Estimate and bounds of a distinct count from ``below`` distinct hashes under ``theta``.

    ``theta`` is the fraction of the hash range under which every hash was kept. ``below`` is
    binomial(D, theta); the bounds solve ``below = Dθ ± sigmas·sqrt(Dθ(1-θ))`` for ``D``.
    """
    spread = sigmas * math.sqrt(max(0.0, 1.0 - theta))
    root = math.sqrt(spread * spread + 4.0 * below)
    low = ((root - spread) / 2.0) ** 2 / theta
    high = ((root + spread) / 2.0) ** 2 / theta
    return below / theta, low, high


def approximate_check(
    table: Table,
    columns: Sequence[str],
    *,
    nulls: Nulls = Nulls.EQUAL,
    better_options: bool = True,
    limit: int = 5,
    offset: int = 0,
    context: ToolContext | None = None,
) -> CheckResult:
    """Whether ``columns`` identify every row of ``table``, from one pass through a sketch.

    "Not unique" is always confirmed by :func:`check_uniqueness` (same counts and evidence as
    the exact mode); "probably unique" carries the estimated distinct count and its bounds in
    :attr:`CheckResult.approximation`. ``better_options`` applies only when the exact check
    ran (a probable key has no exact subsets to search).
    """
    context = context or ToolContext()
    positions = resolve_columns(columns, table.names)

    def exact(method: str) -> CheckResult:
        result = check_uniqueness(
            table,
            columns,
            nulls=nulls,
            better_options=better_options,
            limit=limit,
            offset=offset,
            context=context,
        )
        return replace(result, approximation=Approximation(method=method, exact=True))

    dialect = table.runner.dialect
    if dialect not in ("duckdb", "postgresql", "sqlite"):
        raise ToolError(
            f"approximate mode is not available for {dialect} sources (files, PostgreSQL and "
            "SQLite only); call again without approximate",
            ErrorCode.UNSUPPORTED,
        )
    claim = declared_claim(table, positions, nulls, count=False)
    if claim is not None and nulls in claim.proves:
        # a declared key answers exactly for the price of a count: cheaper than any sketch
        return exact("a key the database declares proves the columns unique; answered from it")
    head = f"(SELECT * FROM {table.relation} LIMIT {HEAD_ROWS}) head"
    if table.query(has_duplicates_query(table, positions, nulls, head)):
        return exact(f"the first {HEAD_ROWS:,} rows already repeat a key value; checked exactly")
    table.runner.progress.report(5.0, "sketching the key values")
    if dialect == "sqlite":
        return _sqlite(table, positions, nulls, exact)
    sketch = _duckdb_sketch if dialect == "duckdb" else _postgres_sketch
    rows, missing, hashes = sketch(table, positions, nulls)
    eligible = rows - missing if nulls is Nulls.DISTINCT else rows
    if eligible <= SKETCH_KEYS or len(hashes) < SKETCH_KEYS:
        return exact(f"all {eligible:,} comparable rows fit in the sketch; checked exactly")
    if len(set(hashes)) < len(hashes):
        return exact("two rows in the sketch share a key hash; checked exactly")
    theta = hashes[-1] / _HASH_RANGE
    estimate, low, high = kmv_bounds(SKETCH_KEYS - 1, theta)
    hashed = "DuckDB hash" if dialect == "duckdb" else "hashtextextended"
    method = (
        f"K-minimum-values sketch of the {SKETCH_KEYS:,} smallest 64-bit key hashes "
        f"({hashed}) in one pass"
    )
    return _verdict(table, positions, nulls, rows, missing, estimate, low, high, method, exact)


def _duckdb_sketch(
    table: Table, positions: Sequence[int], nulls: Nulls
) -> tuple[int, int, list[int]]:
    """Rows, rows with a missing key value and the smallest key hashes, in one aggregate.

    DuckDB's ``min(x, k)`` costs far more per row than hashing, so only hashes in the lowest
    1/16 of the range enter it. Once that holds ``k`` hashes they are the ``k`` smallest of
    all; when it does not (up to about ``16 k`` rows), a second pass takes them from every row.
    """
    missing = any_missing(table, positions)
    kept = f"NOT ({missing})" if nulls is Nulls.DISTINCT else "TRUE"
    cols = column_list(table, positions)
    hashed = f"SELECT hash({cols}) AS h, {cols} FROM {table.relation}"
    rows, missing_rows, hashes = table.query(
        f"SELECT COUNT(*), COUNT(CASE WHEN {missing} THEN 1 END), "
        f"min(h, {SKETCH_KEYS}) FILTER (WHERE {kept} AND h < {_PREFILTER}::UBIGINT) "
        f"FROM ({hashed}) s"
    )[0]
    eligible = rows - missing_rows if nulls is Nulls.DISTINCT else rows
    if len(hashes or ()) < SKETCH_KEYS < eligible:
        (hashes,) = table.query(
            f"SELECT min(h, {SKETCH_KEYS}) FILTER (WHERE {kept}) FROM ({hashed}) s"
        )[0]
    return int(rows), int(missing_rows), sorted(int(h) for h in hashes or ())


def _postgres_sketch(
    table: Table, positions: Sequence[int], nulls: Nulls
) -> tuple[int, int, list[int]]:
    """Rows and rows with a missing key value, then the smallest key hashes by a top-N sort
    in the database (two statements: ``src`` referenced twice in one would be materialized)."""
    missing = any_missing(table, positions)
    rows, missing_rows = table.query(
        f"SELECT COUNT(*), COUNT(CASE WHEN {missing} THEN 1 END) FROM {table.relation}"
    )[0]
    where = f" WHERE {not_missing(table, positions)}" if nulls is Nulls.DISTINCT else ""
    key = f"hashtextextended(ROW({column_list(table, positions)})::text, 0)"
    hashes = table.query(
        f"SELECT {key} AS h FROM {table.relation}{where} ORDER BY h LIMIT {SKETCH_KEYS}"
    )
    return int(rows), int(missing_rows), [int(h) + _PG_OFFSET for (h,) in hashes]


def _sqlite(
    table: Table,
    positions: Sequence[int],
    nulls: Nulls,
    exact: Exact,
) -> CheckResult:
    """SQLite has no hash function: stream the key values once through a Theta sketch."""
    # imported here: only SQLite sources need it, and server start-up stays lean
    from datasketches import update_theta_sketch  # type: ignore[import-untyped]

    assert isinstance(table.runner, SqlRunner)
    sketch = update_theta_sketch(lg_k=SKETCH_KEYS.bit_length() - 1)
    counts = [0, 0]  # rows, rows with a missing key value

    def consume(batch: Sequence[tuple[Any, ...]]) -> None:
        for row in batch:
            counts[0] += 1
            if None in row:
                counts[1] += 1
                if nulls is Nulls.DISTINCT:
                    continue
            sketch.update(repr(tuple(_canonical(v) for v in row)))

    table.runner.stream(
        table.prefix + f"SELECT {column_list(table, positions)} FROM {table.relation}", consume
    )
    rows, missing = counts
    if not sketch.is_estimation_mode():
        return exact(
            f"the sketch kept every distinct key ({sketch.num_retained:,}); checked exactly"
        )
    method = (
        f"Apache DataSketches Theta sketch (k = {SKETCH_KEYS:,}) of the key values' text, "
        "one pass streaming the rows"
    )
    return _verdict(
        table,
        positions,
        nulls,
        rows,
        missing,
        sketch.get_estimate(),
        sketch.get_lower_bound(SIGMAS),
        sketch.get_upper_bound(SIGMAS),
        method,
        exact,
    )


def _canonical(value: object) -> object:
    """SQLite compares ``1`` and ``1.0`` as equal: give them one spelling."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _verdict(
    table: Table,
    positions: Sequence[int],
    nulls: Nulls,
    rows: int,
    missing: int,
    estimate: float,
    low: float,
    high: float,
    method: str,
    exact: Exact,
) -> CheckResult:
    """ "Probably unique" with the bounds, or the exact check when the bounds prove duplicates."""
    eligible = rows - missing if nulls is Nulls.DISTINCT else rows
    if high < eligible:
        return exact(
            f"the sketch estimates at most {math.floor(high):,} distinct keys among {eligible:,} "
            f"comparable rows ({SIGMAS} sigma), so keys repeat; checked exactly"
        )
    # missing-key rows count as their own keys under nulls=distinct, as in the exact answer
    extra = missing if nulls is Nulls.DISTINCT else 0
    approximation = Approximation(
        method=method,
        exact=False,
        estimate=min(round(estimate), eligible) + extra,
        lower=min(max(math.ceil(low), SKETCH_KEYS), eligible) + extra,
        upper=eligible + extra,
        sigmas=SIGMAS,
        sketch_keys=SKETCH_KEYS,
    )
    return CheckResult(
        source=table.label,
        columns=tuple(table.names[p] for p in positions),
        unique=True,
        rows=rows,
        distinct_keys=approximation.estimate or 0,
        duplicate_groups=0,
        duplicate_rows=0,
        rows_with_missing=missing,
        examples=(),
        row_numbers=table.row_numbers,
        approximation=approximation,
    )
