"""Spark Connect sources: a client's ``table`` or ``query`` never reads a file by its path.

Sixth attack pass (issue 23, item 8). Spark SQL reads a file for ``provider.`path```
(``spark.sql.runSQLOnFiles``), and the provider may be any data source: a short name the
query check knew (``csv``), a legacy alias (``com.databricks.spark.csv``), a class name, or
a name built from a string (``IDENTIFIER('text.`path`')``). The query check knew only the
short names, so the aliases read a file outside every allowed directory and its values came
back in ``samples`` and duplicate groups. Replayed through the real server over stdio on a
local Spark Connect server; runs with the Spark tests (the ``slow`` session, Java 17).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
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
