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

from mcp_common import ToolContext

from uniqueness_server.engine.backend import Sketch
from uniqueness_server.engine.check import check_uniqueness
from uniqueness_server.engine.columns import resolve_columns
from uniqueness_server.engine.metadata import declared_claim
from uniqueness_server.engine.model import Approximation, CheckResult, Nulls
from uniqueness_server.engine.sql import has_duplicates_query
from uniqueness_server.engine.table import Table

HEAD_ROWS = 20_000
"""Rows of the head sample tested for a duplicate before the sketch pass."""
SKETCH_KEYS = 1 << 16
"""Key hashes the sketch keeps: a relative error of about ``1/sqrt(SKETCH_KEYS)`` per sigma."""
SIGMAS = 3
"""Width of the stated bounds in standard deviations (about 99.7 % confidence)."""
_HASH_RANGE = float(1 << 64)

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

    sketch = table.backend.sketcher()  # before any scan: a backend may have none
    claim = declared_claim(table, positions, nulls, count=False)
    if claim is not None and nulls in claim.proves:
        # a declared key answers exactly for the price of a count: cheaper than any sketch
        return exact("a key the database declares proves the columns unique; answered from it")
    head = f"(SELECT * FROM {table.relation} LIMIT {HEAD_ROWS}) head"
    if table.query(has_duplicates_query(table, positions, nulls, head)):
        return exact(f"the first {HEAD_ROWS:,} rows already repeat a key value; checked exactly")
    table.backend.progress.report(5.0, "sketching the key values")
    sketched = sketch(table, positions, nulls)
    if sketched.exact_because is not None:
        return exact(sketched.exact_because)
    return _verdict(table, positions, nulls, sketched, exact)


def kmv_sketch(rows: int, missing: int, hashes: Sequence[int], nulls: Nulls, hashed: str) -> Sketch:
    """The K-minimum-values reading of ``hashes``, the smallest (at most :data:`SKETCH_KEYS`)
    64-bit key hashes, unsigned, of the comparable rows of a pass over ``rows`` rows (``missing``
    with a missing key value); ``hashed`` names the hash function for the answer."""
    eligible = rows - missing if nulls is Nulls.DISTINCT else rows
    if eligible <= SKETCH_KEYS or len(hashes) < SKETCH_KEYS:
        reason = f"all {eligible:,} comparable rows fit in the sketch; checked exactly"
        return Sketch(rows, missing, exact_because=reason)
    if len(set(hashes)) < len(hashes):
        return Sketch(
            rows, missing, exact_because="two rows in the sketch share a key hash; checked exactly"
        )
    theta = hashes[-1] / _HASH_RANGE
    estimate, low, high = kmv_bounds(SKETCH_KEYS - 1, theta)
    method = (
        f"K-minimum-values sketch of the {SKETCH_KEYS:,} smallest 64-bit key hashes "
        f"({hashed}) in one pass"
    )
    return Sketch(rows, missing, method, estimate, low, high)


def _verdict(
    table: Table, positions: Sequence[int], nulls: Nulls, sketch: Sketch, exact: Exact
) -> CheckResult:
    """ "Probably unique" with the bounds, or the exact check when the bounds prove duplicates."""
    rows, missing, high = sketch.rows, sketch.missing, sketch.upper
    eligible = rows - missing if nulls is Nulls.DISTINCT else rows
    if high < eligible:
        return exact(
            f"the sketch estimates at most {math.floor(high):,} distinct keys among {eligible:,} "
            f"comparable rows ({SIGMAS} sigma), so keys repeat; checked exactly"
        )
    # missing-key rows count as their own keys under nulls=distinct, as in the exact answer
    extra = missing if nulls is Nulls.DISTINCT else 0
    approximation = Approximation(
        method=sketch.method,
        exact=False,
        estimate=min(round(sketch.estimate), eligible) + extra,
        lower=min(max(math.ceil(sketch.lower), SKETCH_KEYS), eligible) + extra,
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
