"""Issue 23 item 4, sixth pass: rows megabytes long, through the real ``uniqueness-server`` over
stdio.

A gzip CSV of a megabyte holds 600 lines of 1.9 MB each (under the 2 MB line limit). The key
search streamed 8,192 rows at a time whatever their size and kept every distinct value until
its codes were written: ``find_keys`` took the server to 1.4 GB with few distinct long values
and to 4.7 GB with distinct ones; ``list_columns`` on 400 columns of 4.9 KB cells to 1.8 GB.
Each call is now answered, or refused with an error naming the limit's flag, with the
server's peak resident memory (``VmHWM``) under 1 GiB, and the server answers the next call.
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import mcp_types as types
import pytest
from mcp_common.testing import process_logging_to
from uniqueness_testkit import stdio_server, text_of

GIB = 1 << 30
ROWS = 600
LONG = 1_900_000  # bytes of the long value of each row (the line limit is 2,000,000)


def _long_rows(path: Path) -> None:
    """``id`` (unique), ``a`` (1.9 MB, unique: the row's number at its end) and ``b`` (three
    short values)."""
    body = b"x" * LONG
    with gzip.open(path, "wb", compresslevel=6) as out:
        out.write(b"id,a,b\n")
        for i in range(ROWS):
            out.write(b"%d,%s%d,b%d\n" % (i, body, i, i % 3))


def _wide_rows(path: Path) -> None:
    """400 columns of 4.9 KB cells, five values each, so no key exists (1.96 MB a line)."""
    cell = b"y" * 4_900
    with gzip.open(path, "wb", compresslevel=6) as out:
        out.write(b",".join(b"c%d" % j for j in range(400)) + b"\n")
        for i in range(ROWS):
            out.write(b",".join(cell + b"%d" % ((i + j) % 5) for j in range(400)) + b"\n")


def _peak_rss(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+) kB", status)[1]) * 1024  # type: ignore[index]


def _keys(result: types.CallToolResult) -> list[list[str]]:
    assert not result.is_error, text_of(result)
    assert result.structured_content is not None
    assert result.structured_content["rows"] == ROWS
    return sorted(key["columns"] for key in result.structured_content["keys"])


async def _answered(client: object) -> None:
    result = await client.call_tool("list_columns", {"path": "small.csv"})  # type: ignore[attr-defined]
    assert not result.is_error, text_of(result)


@pytest.mark.anyio
async def test_rows_megabytes_long_stay_under_the_memory_bound(tmp_path: Path) -> None:
    root = tmp_path / "data"
    root.mkdir()
    _long_rows(root / "long.csv.gz")
    _wide_rows(root / "wide.csv.gz")
    assert (root / "long.csv.gz").stat().st_size < 2 << 20  # 1.1 GB of text
    (root / "small.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    log_file = tmp_path / "server.log"
    async with stdio_server(root, log_file) as client:
        pid = process_logging_to(log_file)

        keys = await client.call_tool("find_keys", {"path": "long.csv.gz"})
        assert _keys(keys) == [["a"], ["id"]]
        await _answered(client)

        check = await client.call_tool("uniqueness_check", {"path": "long.csv.gz", "columns": "b"})
        assert not check.is_error, text_of(check)
        assert check.structured_content is not None
        assert check.structured_content["unique"] is False
        assert check.structured_content["duplicateGroups"] == 3
        assert _peak_rss(pid) < GIB, f"long rows: peak {_peak_rss(pid) / GIB:.2f} GiB"

        wide = await client.call_tool("list_columns", {"path": "wide.csv.gz"})
        assert not wide.is_error, text_of(wide)
        assert wide.structured_content is not None
        assert [c["distinct"] for c in wide.structured_content["columns"]] == [5] * 100
        assert _keys(await client.call_tool("find_keys", {"path": "wide.csv.gz"})) == []
        assert _peak_rss(pid) < GIB, f"wide rows: peak {_peak_rss(pid) / GIB:.2f} GiB"

        await _answered(client)
        peak = _peak_rss(pid)
    assert peak < GIB, f"the server's peak resident memory was {peak / GIB:.2f} GiB"
