"""uniqueness-server: declared keys first, side by side with scanning the same rows in one run.

A PostgreSQL table (``MCP_TOOLS_TEST_POSTGRES_URL``) of order lines with a composite primary key
``(order_id, line_no)``, analyzed:

1. ``uniqueness_check`` of the key: answered from the declaration (one counting pass) vs
   ``verify`` (the GROUP BY scan) vs the bare ``GROUP BY … HAVING COUNT(*) > 1`` query;
2. ``find_keys`` (``maxColumns`` 2) of the table vs the same rows read through a query that
   carries no metadata (``WITH l AS (SELECT * FROM …) SELECT * FROM l``): time and full checks;
   both must find the same keys.

Each side runs ``--repeat`` times in a row, in this process; the median is shown.

    MCP_TOOLS_TEST_POSTGRES_URL=postgresql://… uv run python benchmarks/uniqueness_metadata_bench.py
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from typing import TypeVar

import sqlalchemy as sa
from uniqueness_server.engine import (
    CheckResult,
    DatabaseRegistry,
    KeySearch,
    check_uniqueness,
    find_keys,
)

T = TypeVar("T")

TABLE = "bench_meta_lines"


def _prepare(engine: sa.Engine, rows: int) -> None:
    with engine.begin() as connection:
        connection.exec_driver_sql(f"DROP TABLE IF EXISTS {TABLE}")
        connection.exec_driver_sql(
            f"CREATE TABLE {TABLE} AS SELECT i / 4 AS order_id, mod(i, 4) AS line_no, "
            "'sku' || mod(i, 5000) AS sku, mod(i, 7) AS qty, "
            "mod(i::bigint * 7919, 1000003) AS ref "
            f"FROM generate_series(0, {rows - 1}) AS g(i)"
        )
        connection.exec_driver_sql(f"ALTER TABLE {TABLE} ADD PRIMARY KEY (order_id, line_no)")
        connection.exec_driver_sql(f"ANALYZE {TABLE}")


def _median(run: Callable[[], T], repeat: int) -> tuple[float, T]:
    times: list[float] = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    url = os.environ.get("MCP_TOOLS_TEST_POSTGRES_URL")
    if not url:
        print("set MCP_TOOLS_TEST_POSTGRES_URL to a PostgreSQL database", file=sys.stderr)
        return 2
    writer = sa.create_engine(sa.make_url(url).set(drivername="postgresql+psycopg"))
    _prepare(writer, options.rows)
    registry = DatabaseRegistry.from_options([f"db={url}"])
    plain = f"WITH l AS (SELECT * FROM {TABLE}) SELECT * FROM l"

    def check(verify: bool) -> Callable[[], CheckResult]:
        def run() -> CheckResult:
            table = registry.open("db", table=TABLE)
            try:
                return check_uniqueness(table, ["order_id", "line_no"], verify=verify)
            finally:
                table.close()

        return run

    def bare() -> object:
        with writer.connect() as connection:
            return connection.exec_driver_sql(
                f"SELECT order_id, line_no FROM {TABLE} GROUP BY order_id, line_no "
                "HAVING COUNT(*) > 1 LIMIT 1"
            ).fetchall()

    def keys(table_name: str | None, query: str | None) -> Callable[[], KeySearch]:
        def run() -> KeySearch:
            table = registry.open("db", table=table_name, query=query)
            try:
                return find_keys(table, max_columns=2)
            finally:
                table.close()

        return run

    try:
        declared_s, declared = _median(check(False), options.repeat)
        verified_s, verified = _median(check(True), options.repeat)
        bare_s, _ = _median(bare, options.repeat)
        meta_s, meta = _median(keys(TABLE, None), options.repeat)
        scan_s, scan = _median(keys(None, plain), options.repeat)
    finally:
        with writer.begin() as connection:
            connection.exec_driver_sql(f"DROP TABLE IF EXISTS {TABLE}")
        writer.dispose()
    if declared.basis != "declared" or verified.basis != "scanned":
        print("the declared key was not used as expected", file=sys.stderr)
        return 1
    if {k.columns for k in meta.keys} != {k.columns for k in scan.keys}:
        print("the two searches found different keys", file=sys.stderr)
        return 1
    print(f"{options.rows} rows, median of {options.repeat}")
    print("| measurement | seconds | ratio |")
    print("| --- | --- | --- |")
    print(f"| uniqueness_check, declared key | {declared_s:.3f} | 1.00 |")
    print(f"| uniqueness_check, verify (scan) | {verified_s:.3f} | {verified_s / declared_s:.2f} |")
    print(f"| bare GROUP BY … HAVING | {bare_s:.3f} | {bare_s / declared_s:.2f} |")
    print(
        f"| find_keys maxColumns 2, table (metadata) | {meta_s:.3f} | 1.00 "
        f"(full checks {meta.full_checks}) |"
    )
    print(
        f"| find_keys maxColumns 2, query (no metadata) | {scan_s:.3f} | {scan_s / meta_s:.2f} "
        f"(full checks {scan.full_checks}) |"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
