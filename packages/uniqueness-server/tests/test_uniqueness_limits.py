"""Nothing is dropped silently: overlong lines, wide headers and binary content are errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest
from mcp_common import ToolError
from uniqueness_server.engine import CheckResult, check_uniqueness, open_file
from uniqueness_server.engine.backends.embedded import duckdb_error
from uniqueness_server.engine.csv_layout import PREFIX_BYTES
from uniqueness_testkit import call, tools_for, write

LIMIT = 1_000


def check(path: Path, **options: Any) -> CheckResult:
    table = open_file(path, label=path.name, **options)
    try:
        return check_uniqueness(table, ["id"])
    finally:
        table.close()


def failure(path: Path, **options: Any) -> str:
    with pytest.raises(ToolError) as caught:
        check(path, **options)
    return str(caught.value)


@pytest.mark.parametrize("compress", [False, True])
@pytest.mark.parametrize("newline", ["\n", ""])
def test_an_overlong_last_line_is_an_error_not_a_lost_row(
    tmp_path: Path, compress: bool, newline: str
) -> None:
    # DuckDB drops a last line over its limit without a word: 3 rows would read as 2
    path = write(
        tmp_path / f"last.csv{'.gz' if compress else ''}",
        "id,val\n1,a\n2,b\n3," + "x" * 5 * LIMIT + newline,
        compress=compress,
    )
    message = failure(path, max_line_bytes=LIMIT)
    assert "line 4 of" in message
    assert f"{LIMIT:,} bytes per line" in message
    assert "maxLineBytes" in message
    assert check(path, max_line_bytes=10 * LIMIT).rows == 3


def test_an_overlong_line_inside_the_file_names_its_line_and_length(tmp_path: Path) -> None:
    path = write(tmp_path / "mid.csv", "id,val\n1,a\n2," + "x" * 3 * LIMIT + "\n3,c\n4,d\n")
    message = failure(path, max_line_bytes=LIMIT)
    assert f"line 3 of mid.csv is {3 * LIMIT + 2:,} bytes long" in message
    assert "maxLineBytes" in message
    assert check(path, max_line_bytes=4 * LIMIT).rows == 4


def test_an_overlong_line_in_a_file_with_comments_is_an_error_too(tmp_path: Path) -> None:
    path = write(tmp_path / "c.csv", "id,val\n# a comment\n1,a\n2," + "x" * 3 * LIMIT + "\n")
    message = failure(path, max_line_bytes=LIMIT)
    assert "line 4 of c.csv" in message
    assert check(path, max_line_bytes=4 * LIMIT).rows == 2


def test_a_header_line_longer_than_the_limit_is_described_as_such(tmp_path: Path) -> None:
    # ~310 KB, no data rows: longer than the PREFIX_BYTES the layout is first read from
    # (a header was once cut there), not much longer: opening a file this wide costs seconds
    header = ",".join(f"column_{i}" for i in range(25_000))
    assert len(header) > PREFIX_BYTES
    path = write(tmp_path / "header.csv", header + "\n")
    table = open_file(path, label="header.csv")
    try:
        assert len(table.names) == 25_000
    finally:
        table.close()
    wider = write(tmp_path / "wider.csv", header + "\n")
    message = failure(wider, max_line_bytes=100_000)
    assert "line 1 of wider.csv is longer than 100,000 bytes" in message
    assert "maxLineBytes" in message


def test_a_gzip_of_nul_bytes_is_binary_data_not_an_empty_file(tmp_path: Path) -> None:
    path = write(tmp_path / "zeros.csv.gz", b"\x00" * 1_000_000, compress=True)
    message = failure(path)
    assert "NUL bytes" in message
    assert "decompressed" in message
    assert "empty" not in message


def test_the_tools_take_max_line_bytes_and_refuse_it_for_databases(tmp_path: Path) -> None:
    write(tmp_path / "last.csv", "id,val\n1,a\n2," + "x" * 3 * LIMIT + "\n")
    (tmp_path / "x.db").touch()
    tools = tools_for(tmp_path, [f"db=sqlite:///{tmp_path / 'x.db'}"])
    read = call(tools["uniqueness_check"], {"path": "last.csv", "columns": ["id"]})
    assert read.structured is not None
    assert read.structured["rows"] == 2  # 3 KB is under the default limit
    with pytest.raises(ToolError, match="maxLineBytes"):
        call(
            tools["uniqueness_check"],
            {"path": "last.csv", "columns": ["id"], "maxLineBytes": LIMIT},
        )
    with pytest.raises(ToolError, match="maxLineBytes applies to files"):
        call(tools["find_keys"], {"database": "db", "table": "t", "maxLineBytes": LIMIT})


def test_running_out_of_engine_memory_names_the_flag() -> None:
    # a small file may decode to far more than the engine's memory (a 228 KB Parquet file of
    # 50 million rows); DuckDB's own error said how much, never which flag raises it
    connection = duckdb.connect(config={"memory_limit": "2MB", "threads": 1})
    with pytest.raises(duckdb.OutOfMemoryException) as caught:
        connection.execute("SELECT list(range) FROM range(3000000)").fetchall()
    error = duckdb_error(caught.value, "rows.parquet")
    assert str(error).startswith(
        "reading rows.parquet needs more memory than the server's file engine may use, its "
        "limit (--max-engine-memory); raise --max-engine-memory to read it (Out of Memory Error"
    )
