"""Spark Connect sources: a client's ``table`` or ``query`` never reads a file by its path.

Sixth attack pass (issue 23, item 8). Spark SQL reads a file for ``provider.`path```
(``spark.sql.runSQLOnFiles``), and the provider may be any data source: a short name the
query check knew (``csv``), a legacy alias (``com.databricks.spark.csv``), a class name, or
a name built from a string (``IDENTIFIER('text.`path`')``). The query check knew only the
short names, so the aliases read a file outside every allowed directory and its values came
back in ``samples`` and duplicate groups. A query of three billion rows ran in the cluster
past two minutes: Spark operations had no time limit, where SQL databases' statements have
``statement_timeout``. Replayed through the real server over stdio on a local
Spark Connect server; runs with the Spark tests (the ``slow`` session, Java 17).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_common.testing import cpu_seconds
from spark_local import LocalSpark

pytestmark = pytest.mark.e2e

SERVER = Path(sys.executable).parent / "uniqueness-server"
SECRET = "TOPSECRET"


def _text(result: types.CallToolResult) -> str:
    parts = [p.text for p in result.content if isinstance(p, types.TextContent)]
    return "\n".join(parts) + json.dumps(result.structured_content or {})


def test_no_table_or_query_reads_a_file_by_its_path(spark: LocalSpark, tmp_path: Path) -> None:
    assert SERVER.is_file(), f"{SERVER} is not installed; run uv sync"
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secrets"  # no dot: a `table` splits on dots
    secret.write_text(f"k,v\n{SECRET},1\n{SECRET},2\n", encoding="utf-8")
    (tmp_path / "data").mkdir()
    attacks = [
        ("query", f"SELECT * FROM `com.databricks.spark.csv`.`{secret}`"),
        (
            "query",
            "SELECT * FROM "
            f"`org.apache.spark.sql.execution.datasources.v2.csv.CSVDataSourceV2`.`{secret}`",
        ),
        (
            "query",
            "SELECT * FROM "
            f"`org.apache.spark.sql.execution.datasources.text.TextFileFormat`.`{secret}`",
        ),
        ("query", f"SELECT * FROM IDENTIFIER('text.`{secret}`')"),
        ("query", f"SELECT * FROM image.`{outside}`"),
        ("table", f"csv.{secret}"),
        ("table", f"text.{secret}"),
    ]
    params = StdioServerParameters(
        command=str(SERVER),
        args=["--allowed-dir", str(tmp_path / "data")],
        env={**os.environ, "UNIQUENESS_SERVER_DATABASE": f"lake={spark.url}"},
        cwd=str(tmp_path),
    )

    async def attack() -> list[tuple[str, str, types.CallToolResult]]:
        answers = []
        with (tmp_path / "stderr.txt").open("w") as errlog:
            async with Client(stdio_client(params, errlog=errlog)) as client:
                for kind, value in attacks:
                    source = {"database": "lake", kind: value}
                    for tool, extra in (("list_columns", {}), ("find_keys", {"maxColumns": 1})):
                        result = await client.call_tool(tool, {**source, **extra})
                        answers.append((tool, value, result))
                still = await client.call_tool(
                    "list_columns", {"database": "lake", "query": "SELECT 1 AS one"}
                )
                answers.append(("list_columns", "SELECT 1 AS one", still))
        return answers

    answers = anyio.run(attack)
    *refused, still = answers
    for tool, value, result in refused:
        assert result.is_error, f"{tool} {value}: {_text(result)}"
        assert SECRET not in _text(result), f"{tool} {value} read the file: {_text(result)}"
    assert not still[2].is_error, _text(still[2])
    assert still[2].structured_content is not None
    assert still[2].structured_content["rows"] == 1


HUGE = "SELECT id FROM range(3000000000)"


def _spark_process(spark: LocalSpark) -> int:
    """The process id of the local Spark Connect server's JVM (found by its port option)."""
    wanted = f"spark.connect.grpc.binding.port={spark.port}".encode()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if wanted in (entry / "cmdline").read_bytes():
                    return int(entry.name)
            except OSError:
                continue
    raise AssertionError("the Spark Connect server's process was not found")


async def _idle_since(pid: int, quiet: float = 1.0, busy: float = 0.15) -> float:
    """The :func:`time.monotonic` moment from which the process has used at most ``busy`` of
    a core (a JVM's own threads always tick a little), once that has lasted ``quiet`` s."""
    samples: list[tuple[float, float]] = [(time.monotonic(), cpu_seconds(pid))]
    while True:
        await anyio.sleep(0.1)
        samples.append((time.monotonic(), cpu_seconds(pid)))
        # the earliest sample from which the load stayed low to now
        start = len(samples) - 1
        while start > 0:
            (then, used), (now, last) = samples[start - 1], samples[-1]
            if last - used > busy * (now - then):
                break
            start -= 1
        if samples[-1][0] - samples[start][0] >= quiet:
            return samples[start][0]


def test_spark_operations_stop_at_the_statement_timeout_and_on_cancel(
    spark: LocalSpark, tmp_path: Path
) -> None:
    assert SERVER.is_file(), f"{SERVER} is not installed; run uv sync"
    jvm = _spark_process(spark)
    (tmp_path / "data").mkdir()
    databases = f"lake={spark.url};statement_timeout=3s|long={spark.url}"
    params = StdioServerParameters(
        command=str(SERVER),
        args=["--allowed-dir", str(tmp_path / "data")],
        env={**os.environ, "UNIQUENESS_SERVER_DATABASE": databases},
        cwd=str(tmp_path),
    )

    async def attack() -> None:
        with (tmp_path / "stderr.txt").open("w") as errlog:
            async with Client(stdio_client(params, errlog=errlog)) as client:
                # before: past two minutes; now stopped at the 3 s timeout. (A cross join's
                # operation stops too, but Spark does not kill a task looping in a nested-loop
                # join: SECURITY.md)
                started = time.monotonic()
                result = await client.call_tool("list_columns", {"database": "lake", "query": HUGE})
                took = time.monotonic() - started
                text = _text(result)
                assert result.is_error, text
                assert "statement timeout of 3 s" in text, text
                assert "statement_timeout" in text, text
                assert spark.token not in text
                assert took < 30, f"answered after {took:.1f} s"  # a loaded machine
                with anyio.fail_after(60):
                    stopped = await _idle_since(jvm)
                # the job ended with the operation, not when its work was done
                late = stopped - (started + took)
                assert late < 2.0, f"Spark worked {late:.1f} s after the answer"

                # no timeout of its own (60 s): a client's cancel stops the job
                outcome: list[types.CallToolResult] = []
                idle = cpu_seconds(jvm)

                async def search() -> None:
                    outcome.append(
                        await client.call_tool(
                            "find_keys", {"database": "long", "query": HUGE, "maxColumns": 1}
                        )
                    )

                async with anyio.create_task_group() as group:
                    group.start_soon(search)
                    with anyio.fail_after(120):
                        while cpu_seconds(jvm) - idle < 2.0:  # Spark is counting
                            await anyio.sleep(0.05)
                    cancelled_at = time.monotonic()
                    group.cancel_scope.cancel()
                assert not outcome, "the query finished before it could be cancelled"
                with anyio.fail_after(60):
                    stopped = await _idle_since(jvm)
                # 2 s asked: the watchdog's poll, the interrupt's round trip, the task kill
                assert stopped - cancelled_at < 2.0, f"Spark worked {stopped - cancelled_at:.1f} s"

                still = await client.call_tool(
                    "list_columns", {"database": "lake", "query": "SELECT 1 AS one"}
                )
                assert not still.is_error, _text(still)

    anyio.run(attack)
