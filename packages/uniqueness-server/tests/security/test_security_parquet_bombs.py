"""Issue 23 item 4, fifth pass: Parquet files whose values are far larger than the file, and a
tall file of one value, through the real ``uniqueness-server`` over stdio.

Parquet's encodings let a few bytes stand for any amount of data: one dictionary entry used by
every row, delta-encoded strings that repeat their predecessor, a run of one value. Before the
fix a 5 KB file of one 64 MB dictionary entry in 1,000 rows ran ``list_columns`` for 243 s
(past every cancel, copying 64 GB), a 374-byte gzip of delta-encoded strings took the server to
1.5 GB in pyarrow, and ``find_keys`` on 50 million rows of one value (228 KB) to 1.37 GB. Each
is now refused at once with an error naming the limit and its flag, or answered, with the
server's peak resident memory (``VmHWM``) under 1 GiB, a cancel ending the call, and the
server answering the next call.
"""

from __future__ import annotations

import gzip
import re
import time
from pathlib import Path

import anyio
import mcp_types as types
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from mcp_common import ToolError
from mcp_common.testing import cpu_seconds, process_logging_to, until_idle
from uniqueness_server.engine import open_file
from uniqueness_server.read_limits import ReadLimits
from uniqueness_testkit import stdio_server, text_of

GIB = 1 << 30
MIB = 1 << 20
TALL_ROWS = 50_000_000


def _dictionary_column(entry_bytes: int, rows: int) -> pa.DictionaryArray:
    """``rows`` references to one dictionary entry of ``entry_bytes`` (never expanded here)."""
    entry = pa.array(["x" * entry_bytes])
    return pa.DictionaryArray.from_arrays(pa.array(np.zeros(rows, np.int32)), entry)


def _dictionary_bomb(path: Path, entry_bytes: int = 16 * MIB, rows: int = 1_000) -> None:
    """One dictionary entry used by every row: a few KB on disk, 16 GB of values."""
    table = pa.table({"id": pa.array(range(rows)), "v": _dictionary_column(entry_bytes, rows)})
    pq.write_table(table, path, compression="zstd", compression_level=19)


def _struct_bomb(path: Path) -> None:
    """The same entry inside a struct (read as two flattened columns)."""
    column = _dictionary_column(16 * MIB, 100)
    struct = pa.StructArray.from_arrays([column, column], ["a", "b"])
    pq.write_table(pa.table({"s": struct}), path, compression="zstd", compression_level=19)


def _delta_bomb(path: Path) -> None:
    """40 strings of 8 MB, each written as 'all of the previous one' (DELTA_BYTE_ARRAY):
    under a KB on disk, 320 MB decoded."""
    table = pa.table({"v": pa.array(["x" * (8 * MIB)] * 40)})
    pq.write_table(
        table,
        path,
        compression="zstd",
        compression_level=19,
        use_dictionary=False,
        column_encoding={"v": "DELTA_BYTE_ARRAY"},
    )


def _tall(path: Path) -> None:
    """50 million rows of the value 1 (about 230 KB)."""
    part = pa.table({"v": pa.array(np.ones(TALL_ROWS // 10, np.int64))})
    with pq.ParquetWriter(path, part.schema, compression="zstd") as writer:
        for _ in range(10):
            writer.write_table(part)


def _peak_rss(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+) kB", status)[1]) * 1024  # type: ignore[index]


async def _answered(client: object, name: str = "small.parquet") -> types.CallToolResult:
    result = await client.call_tool("list_columns", {"path": name})  # type: ignore[attr-defined]
    assert not result.is_error, text_of(result)
    return result


@pytest.mark.anyio
async def test_parquet_values_far_larger_than_the_file_are_refused_at_once(
    tmp_path: Path,
) -> None:
    root = tmp_path / "data"
    root.mkdir()
    _dictionary_bomb(root / "dictionary.parquet")
    _struct_bomb(root / "struct.parquet")
    _delta_bomb(root / "delta.parquet")
    for name in ("dictionary.parquet", "delta.parquet"):
        (root / f"{name}.gz").write_bytes(gzip.compress((root / name).read_bytes()))
    assert (root / "dictionary.parquet").stat().st_size < 64 * 1024
    assert (root / "delta.parquet.gz").stat().st_size < 4 * 1024
    pq.write_table(pa.table({"id": [1, 2, 3]}), root / "small.parquet")
    log_file = tmp_path / "server.log"
    (tmp_path / "tmp").mkdir()
    async with stdio_server(root, log_file, temp=tmp_path / "tmp") as client:
        pid = process_logging_to(log_file)
        for name, key in (
            ("dictionary.parquet", "id"),
            ("dictionary.parquet.gz", "id"),
            ("struct.parquet", "s.a"),
            ("delta.parquet", "v"),
            ("delta.parquet.gz", "v"),
        ):
            for tool, extra in (
                ("list_columns", {}),
                ("uniqueness_check", {"columns": key}),
                ("find_keys", {}),
            ):
                arguments = {"path": name, **extra}
                started = time.monotonic()
                result = await client.call_tool(tool, arguments)
                took = time.monotonic() - started
                text = text_of(result)
                assert result.is_error, text
                assert name in text, text
                assert "--max-inflated-bytes" in text or "--max-engine-memory" in text, text
                for private in (str(tmp_path), "gunzipped-", "uniqueness-"):
                    assert private not in text, text  # no server path, no temp file named
                # before: 243 s past every cancel; one scan of lengths now (loaded machine)
                assert took < 30, f"{tool} on {name} took {took:.1f} s"
            await _answered(client)
        peak = _peak_rss(pid)
    assert peak < GIB, f"the server's peak resident memory was {peak / GIB:.2f} GiB"
    # the private inflated copies of the gzip files went with their calls
    assert not list((tmp_path / "tmp").rglob("gunzipped-*"))


@pytest.mark.anyio
async def test_fifty_million_rows_of_one_value_are_answered_within_the_bound(
    tmp_path: Path,
) -> None:
    root = tmp_path / "data"
    root.mkdir()
    _tall(root / "tall.parquet")
    pq.write_table(pa.table({"id": [1, 2, 3]}), root / "small.parquet")
    log_file = tmp_path / "server.log"
    async with stdio_server(root, log_file) as client:
        pid = process_logging_to(log_file)
        keys = await client.call_tool("find_keys", {"path": "tall.parquet"})
        assert not keys.is_error, text_of(keys)
        assert keys.structured_content is not None
        assert keys.structured_content["rows"] == TALL_ROWS
        assert keys.structured_content["keys"] == []
        assert "no key exists" in text_of(keys)
        check = await client.call_tool("uniqueness_check", {"path": "tall.parquet", "columns": "v"})
        assert not check.is_error, text_of(check)
        assert check.structured_content is not None
        assert check.structured_content["unique"] is False
        (group,) = check.structured_content["duplicates"]
        assert group["count"] == TALL_ROWS
        assert group["rows"] == list(range(1, 11))  # the first rows of the group, no more
        assert _peak_rss(pid) < GIB, f"peak {_peak_rss(pid) / GIB:.2f} GiB"
        # cancelled while it reads, the call ends and the server answers the next one
        outcome: list[types.CallToolResult] = []
        idle = cpu_seconds(pid)

        async def search() -> None:
            outcome.append(await client.call_tool("find_keys", {"path": "tall.parquet"}))

        async with anyio.create_task_group() as group_:
            group_.start_soon(search)
            with anyio.fail_after(120):
                while cpu_seconds(pid) - idle < 1.0:  # it is reading
                    await anyio.sleep(0.05)
            cancelled_at = time.monotonic()
            group_.cancel_scope.cancel()
        assert not outcome, "the search finished before it could be cancelled"
        with anyio.fail_after(60):
            stopped = await until_idle(pid, quiet=1.0, allowance=0.1)
        # the server's last CPU use after the cancel (2 s asked; a loaded machine slows it)
        assert stopped - cancelled_at < 5, f"still computing {stopped - cancelled_at:.1f} s"
        await _answered(client)
        peak = _peak_rss(pid)
    assert peak < GIB, f"the server's peak resident memory was {peak / GIB:.2f} GiB"
    assert "find_keys: call cancelled" in log_file.read_text(encoding="utf-8")


def test_the_decoded_size_limit_names_its_flag_and_a_raised_limit_reads(tmp_path: Path) -> None:
    path = tmp_path / "wide_values.parquet"
    _dictionary_bomb(path, entry_bytes=MIB, rows=300)  # 300 MB of values in a few KB
    with pytest.raises(ToolError, match=r"more than 268,435,456 bytes.*--max-inflated-bytes"):
        open_file(path, label=path.name)
    table = open_file(path, label=path.name, limits=ReadLimits(max_inflated_bytes=400 * MIB))
    try:
        assert table.query("SELECT COUNT(*), MAX(strlen(c2)) FROM src") == [(300, MIB)]
    finally:
        table.close()
