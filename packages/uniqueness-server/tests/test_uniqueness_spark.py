"""Spark Connect sources against a real local Spark, with the DuckDB engine as the reference.

The same truth tables run on both engines (a Parquet file read by DuckDB, the same file
registered as a catalog table and read by Spark through ``query``) and must give the
brute-force answers. Without Java or the full ``pyspark`` package (the ``spark-tests`` group,
``nox -s spark``) the Spark tests skip and say why; the query checks need no Spark and always
run.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import socket
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import duckdb
import mcp_types as types
import pytest
import uniqueness_server.engine.keys as key_search
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_common import ErrorCode, McpTool, ToolCancelledError, ToolContext, ToolError, redact
from spark_local import LocalSpark
from uniqueness_server.engine import (
    DatabaseRegistry,
    Nulls,
    Table,
    approximate_check,
    check_uniqueness,
    find_keys,
    open_file,
    profile_columns,
)
from uniqueness_server.engine.backends.spark import read_only_spark_query
from uniqueness_testkit import call, household_csv, tools_for, write

Row = tuple[str | None, ...]

# (rows, width): small tables whose keys and duplicates brute force settles
TRUTH_TABLES: list[list[Row]] = [
    [("a", "x", "1"), ("a", "y", "1"), ("b", "x", "2"), ("b", "y", "2")],
    [("a", None, "1"), ("a", None, "2"), ("b", "x", "1"), (None, "x", "1")],
    [("a", "a", "a"), ("a", "a", "a"), ("b", "c", "d")],
    [(None, None, "1"), (None, None, "2"), ("1", None, "3")],
    [("01", "1", "c"), ("1", "01", "c"), ("1", "1", "c"), ("01", "01", "d")],
]


def _unique(rows: Sequence[Row], columns: Sequence[int], nulls: Nulls) -> bool:
    keys = [tuple(row[c] for c in columns) for row in rows]
    if nulls is Nulls.DISTINCT:
        keys = [k for k in keys if None not in k]
    return len(set(keys)) == len(keys)


def _brute_keys(
    rows: Sequence[Row], width: int, max_size: int, nulls: Nulls
) -> set[frozenset[int]]:
    found: set[frozenset[int]] = set()
    for size in range(1, max_size + 1):
        for combo in itertools.combinations(range(width), size):
            if not any(k <= set(combo) for k in found) and _unique(rows, combo, nulls):
                found.add(frozenset(combo))
    return found


def _duplicates(rows: Sequence[Row], columns: Sequence[int], nulls: Nulls) -> dict[Row, int]:
    counts: dict[Row, int] = {}
    for row in rows:
        key = tuple(row[c] for c in columns)
        if nulls is Nulls.DISTINCT and None in key:
            continue
        counts[key] = counts.get(key, 0) + 1
    return {k: n for k, n in counts.items() if n > 1}


def _parquet(folder: Path, name: str, rows: Sequence[Row]) -> Path:
    """``rows`` as a Parquet file of text columns k0..kn, written by DuckDB."""
    width = len(rows[0])
    path = folder / f"{name}.parquet"
    connection = duckdb.connect()
    columns = ", ".join(f"k{i} VARCHAR" for i in range(width))
    connection.execute(f"CREATE TABLE t ({columns})")
    connection.executemany(f"INSERT INTO t VALUES ({', '.join('?' * width)})", list(rows))
    connection.execute(f"COPY t TO '{path}' (FORMAT parquet)")
    connection.close()
    return path


def _catalog_table(spark: LocalSpark, path: Path) -> str:
    """The Parquet file at ``path`` registered as a catalog table, as a cluster's administrator
    registers data (queries may not read files by path)."""
    from pyspark.sql.connect.session import SparkSession

    name = "file_" + hashlib.sha256(str(path).encode()).hexdigest()[:16]
    location = str(path).replace("'", "''")
    session = SparkSession.builder.remote(spark.url).create()
    try:
        session.sql(
            f"CREATE TABLE IF NOT EXISTS default.{name} USING parquet LOCATION '{location}'"
        ).collect()
    finally:
        session.stop()
    return f"default.{name}"


Opener = Callable[[Path], Table]


@pytest.fixture(params=["duckdb", "spark"])
def opener(request: pytest.FixtureRequest) -> Opener:
    """Opens a Parquet file with one engine: DuckDB on the file, or Spark through ``query``."""
    if request.param == "duckdb":
        return lambda path: open_file(path, label=path.name)
    lake: DatabaseRegistry = request.getfixturevalue("lake")
    spark: LocalSpark = request.getfixturevalue("spark")
    return lambda path: lake.open("lake", query=f"SELECT * FROM {_catalog_table(spark, path)}")


@pytest.mark.parametrize("nulls", list(Nulls))
@pytest.mark.parametrize("number", range(len(TRUTH_TABLES)))
def test_truth_tables_on_both_engines(
    opener: Opener, tmp_path: Path, number: int, nulls: Nulls
) -> None:
    rows = TRUTH_TABLES[number]
    width = len(rows[0])
    table = opener(_parquet(tmp_path, f"t{number}", rows))
    try:
        search = find_keys(table, max_columns=width, nulls=nulls)
        checks = {
            combo: check_uniqueness(table, [f"k{i}" for i in combo], nulls=nulls, limit=50)
            for size in (1, 2, width)
            for combo in itertools.combinations(range(width), size)
        }
    finally:
        table.close()
    got = {frozenset(int(name[1:]) for name in key.columns) for key in search.keys}
    assert got == _brute_keys(rows, width, width, nulls)
    assert search.rows == len(rows)
    for combo, result in checks.items():
        duplicates = _duplicates(rows, combo, nulls)
        assert result.unique == _unique(rows, combo, nulls), combo
        assert result.rows == len(rows)
        assert result.duplicate_groups == len(duplicates)
        assert result.duplicate_rows == sum(duplicates.values())
        assert {g.values: g.count for g in result.examples} == duplicates
        if result.unique and width > 1 and len(combo) == width:
            inside = _brute_keys(rows, width, width - 1, nulls)
            assert {frozenset(int(n[1:]) for n in o) for o in result.better_options} == inside


@pytest.mark.parametrize("nulls", list(Nulls))
def test_the_sample_path_stays_exact_on_spark(
    lake: DatabaseRegistry, nulls: Nulls, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 90,000 rows, more than the search may code (lowered here to 20,000 rows' cells), so a
    # sample is coded and the cluster checks what it leaves: 'a' and 'b' repeat and together
    # are a key, 'c' is a near-key whose one duplicate a sample rarely holds, 'e' is missing
    # in every other row and 's' is text
    monkeypatch.setattr(key_search, "REMOTE_CELLS", 7 * 20_000)
    size = 90_000
    query = (
        "SELECT id, id % 300 AS a, id DIV 300 AS b, "
        f"CASE WHEN id = {size - 1} THEN 0 ELSE id END AS c, id % 7 AS d, "
        "CASE WHEN id % 2 = 0 THEN NULL ELSE id DIV 2 END AS e, "
        f"concat('s', id % 45000) AS s FROM range({size})"
    )
    rows: list[Row] = [
        tuple(
            None if v is None else str(v)
            for v in (
                i,
                i % 300,
                i // 300,
                0 if i == size - 1 else i,
                i % 7,
                None if i % 2 == 0 else i // 2,
                f"s{i % 45000}",
            )
        )
        for i in range(size)
    ]
    table = lake.open("lake", query=query)
    try:
        search = find_keys(table, max_columns=2, nulls=nulls)
        check = check_uniqueness(table, ["a", "b", "d"], nulls=nulls)
    finally:
        table.close()
    names = ("id", "a", "b", "c", "d", "e", "s")
    expected = _brute_keys(rows, len(names), 2, nulls)
    assert {frozenset(names.index(n) for n in k.columns) for k in search.keys} == expected
    # most of the 28 sets of one or two columns are ruled out by the sample alone (its row
    # pairs' agree sets, its own checks); only the rest are checked by the cluster
    assert search.full_checks < (7 + 21) // 2
    assert check.unique
    assert check.better_options == (("a", "b"),)


def _household(tmp_path: Path) -> Path:
    csv = write(tmp_path / "data" / "household.csv", household_csv())
    parquet = tmp_path / "data" / "household.parquet"
    connection = duckdb.connect()
    connection.execute(f"COPY (SELECT * FROM read_csv('{csv}')) TO '{parquet}' (FORMAT parquet)")
    connection.close()
    return parquet


def _answer(tool: McpTool, arguments: dict[str, Any]) -> dict[str, Any]:
    result = call(tool, arguments)
    assert not result.is_error, result.text
    structured = dict(result.structured or {})
    structured.pop("source", None)
    return structured


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("uniqueness_check", {"columns": ["year1", "hlpi_name"]}),
        ("uniqueness_check", {"columns": ["year1"], "limit": 2}),
        ("find_keys", {"maxColumns": 2}),
    ],
)
def test_tools_give_the_duckdb_answers_on_spark(
    spark: LocalSpark, tmp_path: Path, tool: str, arguments: dict[str, Any]
) -> None:
    parquet = _household(tmp_path)
    tools = tools_for(tmp_path / "data", [f"lake={spark.url}"])
    on_file = _answer(tools[tool], {"path": "household.parquet", **arguments})
    on_spark = _answer(
        tools[tool],
        {
            "database": "lake",
            "query": f"SELECT * FROM {_catalog_table(spark, parquet)}",
            **arguments,
        },
    )
    for answer in (on_file, on_spark):
        # files number their rows, tables have no row order
        answer.pop("rowNumbers", None)
        for group in answer.get("duplicates", []):
            group.pop("rows", None)
    if tool == "uniqueness_check":
        # files list groups by first occurrence, databases by size: compare as sets (the
        # year groups are all of one size and come first in the file, so the pages agree)
        assert on_file["unique"] == (not on_file["duplicates"])
        on_file["duplicates"] = sorted(on_file["duplicates"], key=str)
        on_spark["duplicates"] = sorted(on_spark["duplicates"], key=str)
    assert on_spark == on_file


@pytest.mark.parametrize("nulls", list(Nulls))
def test_pages_of_duplicate_groups_on_spark(lake: DatabaseRegistry, nulls: Nulls) -> None:
    # groups of 5, 4, 3, 2 and 2 rows (one with a missing value) and 3 single rows; pages come
    # largest first, then by value with missing values first
    values = ["a"] * 5 + ["b"] * 4 + ["c"] * 3 + ["d"] * 2 + [None] * 2 + ["e", "f", "g"]
    rows = ", ".join("(NULL)" if v is None else f"('{v}')" for v in values)
    table = lake.open("lake", query=f"SELECT * FROM VALUES {rows} AS t(k)")
    try:
        pages = [
            check_uniqueness(table, ["k"], nulls=nulls, limit=2, offset=offset)
            for offset in (0, 2, 4)
        ]
        far = check_uniqueness(table, ["k"], nulls=nulls, limit=5, offset=100_000)
    finally:
        table.close()
    expected = [(("a",), 5), (("b",), 4), (("c",), 3)]
    expected += [((None,), 2), (("d",), 2)] if nulls is Nulls.EQUAL else [(("d",), 2)]
    shown = [(g.values, g.count) for page in pages for g in page.examples]
    assert shown == expected
    for result in (*pages, far):
        assert (result.rows, result.duplicate_groups) == (19, len(expected))
        assert result.duplicate_rows == sum(n for _, n in expected)
        assert result.rows_with_missing == 2
    assert far.examples == ()


def test_list_columns_on_a_catalog_table(spark: LocalSpark, lake: DatabaseRegistry) -> None:
    from pyspark.sql.connect.session import SparkSession

    session = SparkSession.builder.remote(spark.url).create()
    try:
        session.sql("CREATE TABLE IF NOT EXISTS people (id INT, name STRING, country STRING)")
        session.sql(
            "INSERT OVERWRITE people VALUES (1, 'Ann', 'PL'), (2, 'Bob', 'US'), "
            "(3, 'Cid', 'PL'), (4, 'Ann', NULL), (5, 'Eve', NULL)"
        ).collect()
    finally:
        session.stop()
    table = lake.open("lake", table="default.people")
    try:
        profile = profile_columns(table)
        by_name = check_uniqueness(table, ["name"])
        distinct = check_uniqueness(table, ["country", "name"], nulls=Nulls.DISTINCT)
    finally:
        table.close()
    assert profile.rows == 5
    assert [(c.name, c.type, c.missing, c.distinct) for c in profile.columns] == [
        ("id", "integer", 0, 5),
        ("name", "text", 0, 4),
        ("country", "text", 2, 2),
    ]
    assert profile.columns[0].distinct_exact
    assert (by_name.distinct_keys, by_name.duplicate_groups) == (4, 1)
    assert by_name.examples[0].values == ("Ann",)
    assert distinct.unique
    assert distinct.rows_with_missing == 2


@pytest.mark.parametrize(
    ("query", "ok"),
    [
        ("SELECT * FROM lake.people", True),
        # files by path bypass the catalog's grants; Java methods and scripts run code
        ("SELECT * FROM parquet.`/data/x.parquet`", False),
        ("SELECT * FROM csv.`file:///etc/passwd`", False),
        ("SELECT * FROM t JOIN text.`/etc/hosts` h ON true", False),
        # a data source by a legacy alias or a class name, or a name built from a string
        ("SELECT * FROM `com.databricks.spark.csv`.`/etc/passwd`", False),
        ("SELECT * FROM `org.apache.spark.sql.parquet`.`/data/x.parquet`", False),
        ("SELECT * FROM IDENTIFIER('text.`/etc/passwd`')", False),
        ("SELECT * FROM image.`/etc`", False),
        ("SELECT reflect('java.lang.System', 'getenv', 'AWS_SECRET_ACCESS_KEY')", False),
        ("SELECT JAVA_METHOD('java.lang.Thread', 'sleep', 100000L)", False),
        ("SELECT a FROM t WHERE try_reflect('java.util.UUID', 'randomUUID') IS NOT NULL", False),
        ("SELECT TRANSFORM(a) USING 'cat /etc/passwd' AS (b) FROM t", False),
        ("WITH t AS (SELECT 1 AS a) SELECT a FROM t", True),
        ("SELECT a FROM t UNION ALL SELECT b FROM u;", True),
        ("-- note\nSELECT 1 /* ; DROP TABLE t */", True),
        ("DROP TABLE people", False),
        ("INSERT INTO people VALUES (1)", False),
        ("CREATE TABLE x AS SELECT 1", False),
        ("SELECT 1; DROP TABLE people", False),
        ("CACHE TABLE x AS SELECT 1", False),
        ("SET spark.sql.ansi.enabled = false", False),
        ("ADD JAR /tmp/evil.jar", False),
        ("INSERT OVERWRITE DIRECTORY '/tmp/out' SELECT 1", False),
        ("", False),
    ],
)
def test_only_one_read_only_spark_select_is_accepted(query: str, ok: bool) -> None:
    if ok:
        assert read_only_spark_query(query)
    else:
        with pytest.raises(ToolError) as caught:
            read_only_spark_query(query)
        assert caught.value.code is ErrorCode.INVALID_ARGUMENT


def test_missing_table_and_refused_query_are_clear_errors(lake: DatabaseRegistry) -> None:
    with pytest.raises(ToolError) as missing:
        lake.open("lake", table="nowhere.nothing")
    assert missing.value.code is ErrorCode.FAILED
    assert "TABLE_OR_VIEW_NOT_FOUND" in str(missing.value)
    assert "lake:nowhere.nothing" in str(missing.value)
    with pytest.raises(ToolError) as write_query:
        lake.open("lake", query="DROP TABLE people")
    assert write_query.value.code is ErrorCode.INVALID_ARGUMENT


def test_approximate_mode_is_refused_on_spark_before_any_job(lake: DatabaseRegistry) -> None:
    table = lake.open("lake", query="SELECT * FROM VALUES (1), (2), (2) AS t(id)")
    try:
        with pytest.raises(ToolError) as refused:
            approximate_check(table, ["id"], better_options=False)
        assert refused.value.code is ErrorCode.UNSUPPORTED
        assert "not available for spark sources" in str(refused.value)
        assert "without approximate" in str(refused.value)
        assert not check_uniqueness(table, ["id"], better_options=False).unique
    finally:
        table.close()


def test_bad_token_and_unreachable_spark_fail_masked_while_files_keep_working(
    spark: LocalSpark, tmp_path: Path
) -> None:
    write(tmp_path / "data" / "household.csv", household_csv())
    wrong = "wrongtoken123456"
    tools = tools_for(
        tmp_path / "data",
        [
            f"bad=sc://localhost:{spark.port}/;token={wrong}",
            f"gone=sc://localhost:{_dead_port()}/;token={spark.token}",
        ],
    )
    reasons = {"bad": "UNAUTHENTICATED", "gone": "UNAVAILABLE"}
    for name, reason in reasons.items():
        started = time.monotonic()
        with pytest.raises(ToolError) as caught:
            call(tools["find_keys"], {"database": name, "table": "people"})
        text = str(caught.value)
        # the session's first round trip (setting spark.sql.runSQLOnFiles) is where it fails
        assert text.startswith(f"{name}: cannot open a Spark Connect session: ")
        assert reason in text
        assert wrong not in text
        assert spark.token not in text
        assert time.monotonic() - started < 60
    fine = call(tools["uniqueness_check"], {"path": "household.csv", "columns": ["income"]})
    assert not fine.is_error
    assert fine.structured is not None
    assert fine.structured["unique"] is True


def _dead_port() -> int:
    """A loopback port nothing listens on (bound for a moment, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_cancellation_interrupts_the_spark_job(lake: DatabaseRegistry) -> None:
    context = ToolContext()
    table = lake.open("lake", query="SELECT id FROM range(0, 20000000000)", context=context)
    threading.Timer(3.0, context.cancel).start()
    started = time.monotonic()
    try:
        with pytest.raises(ToolCancelledError):
            check_uniqueness(table, ["id"], context=context)
    finally:
        table.close()
    assert time.monotonic() - started < 60


def test_cancellation_reaches_jobs_started_from_other_threads(lake: DatabaseRegistry) -> None:
    # find_keys runs its Spark jobs from a pool of threads; the client tags operations per
    # thread, so a job started elsewhere must still carry the call's tag to be interrupted
    context = ToolContext()
    table = lake.open("lake", query="SELECT id FROM range(0, 20000000000)", context=context)
    pool = ThreadPoolExecutor(1)
    threading.Timer(3.0, context.cancel).start()
    try:
        job = pool.submit(table.query, f"SELECT COUNT(DISTINCT c1) FROM {table.relation}")
        with pytest.raises(ToolCancelledError):
            job.result(timeout=90)
    finally:
        table.close()
        pool.shutdown()


def test_progress_comes_from_spark_job_progress(lake: DatabaseRegistry) -> None:
    reports: list[tuple[float, str | None]] = []
    context = ToolContext(lambda progress, total, message: reports.append((progress, message)))
    table = lake.open(
        "lake", query="SELECT id % 1000003 AS k FROM range(0, 30000000, 1, 8)", context=context
    )
    try:
        result = check_uniqueness(table, ["k"], context=context)
    finally:
        table.close()
    assert not result.unique
    spark_reports = [p for p, message in reports if message and "Spark job" in message]
    assert spark_reports, f"no Spark job progress among {reports}"
    assert spark_reports == sorted(spark_reports)


def test_the_token_is_masked_in_logs_and_answers() -> None:
    url = "sc://spark.example:15002/;token=s3cr3t-value;user_id=alice"
    assert "s3cr3t" not in redact(f"cannot reach {url}")


def test_a_spark_url_without_the_client_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pyspark.sql.connect.session", None)
    with pytest.raises(ValueError, match=r"uniqueness-server\[spark\]"):
        DatabaseRegistry.from_options(["lake=sc://localhost:15002/;token=abc"])


SERVER = Path(sys.executable).parent / "uniqueness-server"


def _everything(result: types.CallToolResult) -> str:
    """All a client reads of an answer: its text parts and its structured content."""
    text = "\n".join(p.text for p in result.content if isinstance(p, types.TextContent))
    return text + json.dumps(result.structured_content or {})


@pytest.mark.e2e
@pytest.mark.anyio
async def test_the_server_command_over_stdio_on_spark(spark: LocalSpark, tmp_path: Path) -> None:
    assert SERVER.is_file(), f"{SERVER} is not installed; run uv sync"
    parquet = _household(tmp_path)
    write(tmp_path / "data" / "household.csv", household_csv())
    from pyspark.sql.connect.session import SparkSession

    session = SparkSession.builder.remote(spark.url).create()
    try:
        session.sql("CREATE TABLE IF NOT EXISTS e2e_orders (id INT, customer STRING)").collect()
        session.sql("INSERT OVERWRITE e2e_orders VALUES (1, 'a'), (2, 'a'), (3, 'b')").collect()
    finally:
        session.stop()
    wrong = "wrongtoken123456"
    dead = f"sc://localhost:{_dead_port()}/;token={spark.token}"
    log_file, errors = tmp_path / "server.log", tmp_path / "stderr.txt"
    params = StdioServerParameters(
        command=str(SERVER),
        args=["--allowed-dir", str(tmp_path / "data"), "--log-file", str(log_file)],
        # from the environment (one variable, '|' between connections), as the README advises:
        # a command line shows in every process listing, the token with it
        env={
            **os.environ,
            "UNIQUENESS_SERVER_DATABASE": "|".join(
                [
                    f"lake={spark.url}",
                    f"gone={dead}",
                    f"bad=sc://localhost:{spark.port}/;token={wrong}",
                ]
            ),
            "UNIQUENESS_SERVER_LOG_LEVEL": "DEBUG",
        },
        cwd=str(tmp_path),
    )
    source = {"database": "lake", "query": f"SELECT * FROM {_catalog_table(spark, parquet)}"}
    answers: list[types.CallToolResult] = []
    with errors.open("w") as errlog:
        async with Client(stdio_client(params, errlog=errlog)) as client:

            async def ask(tool: str, arguments: dict[str, Any]) -> types.CallToolResult:
                answers.append(await client.call_tool(tool, arguments))
                return answers[-1]

            check = await ask("uniqueness_check", {**source, "columns": ["year1", "hlpi_name"]})
            assert not check.is_error, _everything(check)
            assert check.structured_content is not None
            assert check.structured_content["unique"] is True
            repeated = await ask("uniqueness_check", {**source, "columns": ["year1"], "limit": 1})
            assert repeated.structured_content is not None
            assert repeated.structured_content["unique"] is False
            assert len(repeated.structured_content["duplicates"]) == 1
            on_spark = await ask("find_keys", {**source, "maxColumns": 2})
            on_file = await ask("find_keys", {"path": "household.csv", "maxColumns": 2})
            assert on_spark.structured_content is not None
            assert on_file.structured_content is not None
            assert on_spark.structured_content["keys"]
            assert on_spark.structured_content["keys"] == on_file.structured_content["keys"]
            columns = await ask("list_columns", {"database": "lake", "table": "e2e_orders"})
            assert columns.structured_content is not None
            assert columns.structured_content["rows"] == 3
            assert [c["name"] for c in columns.structured_content["columns"]] == ["id", "customer"]

            failures = {
                "TABLE_OR_VIEW_NOT_FOUND": ("list_columns", {"database": "lake", "table": "no"}),
                "read-only SELECT": (
                    "find_keys",
                    {"database": "lake", "query": "DROP TABLE e2e_orders"},
                ),
                "UNAVAILABLE": ("list_columns", {"database": "gone", "table": "e2e_orders"}),
                "UNAUTHENTICATED": ("list_columns", {"database": "bad", "table": "e2e_orders"}),
            }
            for reason, (tool, arguments) in failures.items():
                failed = await ask(tool, arguments)
                assert failed.is_error, _everything(failed)
                assert reason in _everything(failed)
                # the file source keeps working in the same server after each failure
                fine = await ask("uniqueness_check", {"path": "household.csv", "columns": "income"})
                assert not fine.is_error, _everything(fine)
    session = SparkSession.builder.remote(spark.url).create()
    try:
        assert session.sql("SELECT COUNT(*) FROM e2e_orders").collect()[0][0] == 3
    finally:
        session.stop()
    seen = "\n".join(_everything(a) for a in answers)
    logged = log_file.read_text() + errors.read_text()
    assert "Spark job" in logged or "lake" in logged, "the log should record the Spark calls"
    for secret in (spark.token, wrong):
        assert secret not in seen
        assert secret not in logged
