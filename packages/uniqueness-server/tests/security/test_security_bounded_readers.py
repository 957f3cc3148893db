"""Issue 23 items 4, 5 and 8 through the real server over stdio: small hostile files and
queries cannot take the server's memory, reach native pointers or leave the data.

Every attack runs against one ``uniqueness-server`` process; each is refused with a tool error
naming the limit (or the rule) and its flag, the server keeps answering, and its peak resident
memory (``VmHWM`` of ``/proc/<pid>/status``) stays under 1 GiB through all of them. Before the
limits, the 1.5 KB workbook, the 600-byte YAML and the 78 KB gzip CSV of the report each took
it past 2 GB.
"""

from __future__ import annotations

import gzip
import io
import os
import re
import sqlite3
import struct
import time
import uuid
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import openpyxl
import psycopg
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from mcp.client.client import Client
from uniqueness_server.engine import open_file
from uniqueness_server.read_limits import LIMITS
from uniqueness_testkit import stdio_server, text_of

GIB = 1 << 30


def _workbook(patch: Callable[[str, bytes], bytes] | None = None) -> bytes:
    """A small workbook of 200 rows, each of its parts passed through ``patch`` (name, bytes)."""
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(["id", "name"])
    for i in range(200):
        sheet.append([i, f"n{i}"])
    plain = io.BytesIO()
    book.save(plain)
    source = zipfile.ZipFile(io.BytesIO(plain.getvalue()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as patched:
        for item in source.infolist():
            data = source.read(item.filename)
            patched.writestr(item, patch(item.filename, data) if patch else data)
    return out.getvalue()


def _wide_workbook() -> bytes:
    """A small workbook whose sheet declares the whole sheet, A1:XFD1048576, as its size."""

    def declare(name: str, data: bytes) -> bytes:
        if name != "xl/worksheets/sheet1.xml":
            return data
        return re.sub(rb'<dimension ref="[^"]*"\s*/>', b'<dimension ref="A1:XFD1048576"/>', data)

    return _workbook(declare)


def _swollen_workbook(part: str, closing: bytes, filler: bytes, count: int) -> bytes:
    """A workbook whose ``part`` holds ``count`` more ``filler`` elements before ``closing``
    (a part openpyxl parses whole: 50 million empty elements in 200 KB took the server past
    4 GB)."""

    def swell(name: str, data: bytes) -> bytes:
        if name != part:
            return data
        return data.replace(closing, filler * count + closing)

    return _workbook(swell)


def _shared_strings_workbook(count: int) -> bytes:
    """A workbook declaring a shared strings part of ``count`` two-letter strings (openpyxl
    holds each in a list; nine million took the server to 1.5 GB)."""
    strings = (
        b'<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
        + b"<si><t>ab</t></si>" * count
        + b"</sst>"
    )
    kind = b"application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"

    def declare(name: str, data: bytes) -> bytes:
        if name == "[Content_Types].xml":
            override = b'<Override PartName="/xl/sharedStrings.xml" ContentType="' + kind + b'"/>'
            return data.replace(b"</Types>", override + b"</Types>")
        return data

    plain = _workbook(declare)
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(plain)) as source,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as patched,
    ):
        for item in source.infolist():
            patched.writestr(item, source.read(item.filename))
        patched.writestr("xl/sharedStrings.xml", strings)
    return out.getvalue()


def _merges(rows: int, keys: int) -> str:
    """A YAML document merging one mapping of ``keys`` entries into each of ``rows`` records:
    every merge copies the whole mapping (5,000 x 2,000 in 137 KB took minutes and 500 MB
    before a cell was counted)."""
    base = "base: &b {" + ", ".join(f"k{i}: {i}" for i in range(keys)) + "}\n"
    return base + "rows:\n" + "".join(f"  - {{<<: *b, id: {j}}}\n" for j in range(rows))


def _laughs() -> str:
    """A few hundred bytes of nested YAML aliases expanding to 9**9 leaves."""
    lines = ["- a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for i in range(1, 9):
        lines.append(f"  a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def _csv_bomb(path: Path) -> None:
    """A 0.7 MB gzip CSV with one comment line (so it is read line by line in Python)
    inflating to 200 MB: 2.5 million rows of 40 columns."""
    with gzip.open(path, "wb", compresslevel=9) as stream:
        stream.write(",".join(f"c{i}" for i in range(40)).encode() + b"\n# exported by hand\n")
        block = b",".join([b"1"] * 40) + b"\n"
        for _ in range(100):
            stream.write(block * 25_000)


@pytest.fixture
def attacks(tmp_path: Path) -> Path:
    root = tmp_path / "data"
    root.mkdir()
    (root / "wide.xlsx").write_bytes(_wide_workbook())
    (root / "laughs.yaml").write_text(_laughs())
    _csv_bomb(root / "bomb.csv.gz")
    (root / "bomb.yaml.gz").write_bytes(gzip.compress(b"- id: 1\n" * 3_000_000, 9))
    (root / "bomb.toon.gz").write_bytes(
        gzip.compress(b"rows[3000000]{id}:\n" + b"  1\n" * 3_000_000, 9)
    )
    workbook = _wide_workbook()
    (root / "wide.xlsx.gz").write_bytes(gzip.compress(workbook))
    real = root / "real.parquet"
    pq.write_table(pa.table({"id": [1, 2, 3]}), real)
    footer = bytearray(real.read_bytes())
    footer[-8:-4] = struct.pack("<I", 0xFFFFFFF0)  # the footer claims 4 GiB
    (root / "footer.parquet").write_bytes(bytes(footer))
    (root / "footer.parquet.gz").write_bytes(gzip.compress(bytes(footer)))
    real.unlink()
    with sqlite3.connect(root / "shop.db") as shop:
        shop.execute("CREATE TABLE orders (id INTEGER)")
        shop.execute("CREATE VIEW leak AS SELECT fts3_tokenizer('simple') AS p")
    shop.close()
    return root


def _server_pid() -> int:
    """The uniqueness-server process this test process started (its only such child)."""
    found = []
    for task in Path("/proc/self/task").iterdir():
        for pid in (task / "children").read_text().split():
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
            if b"uniqueness-server" in command:
                found.append(int(pid))
    assert len(found) == 1, found
    return found[0]


def _peak_rss(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+) kB", status)[1]) * 1024  # type: ignore[index]


async def _refused(client: Client, tool: str, arguments: dict[str, Any], *needles: str) -> str:
    result = await client.call_tool(tool, arguments)
    text = text_of(result)
    assert result.is_error, text
    for needle in needles:
        assert needle in text, text
    return text


async def _served(client: Client) -> types.CallToolResult:
    answer = await client.call_tool("list_columns", {"database": "shop", "table": "orders"})
    assert not answer.is_error, text_of(answer)
    return answer


@pytest.mark.anyio
async def test_hostile_files_and_queries_stay_bounded(attacks: Path, tmp_path: Path) -> None:
    shop = f"shop=sqlite:///{attacks / 'shop.db'}"
    async with stdio_server(attacks, tmp_path / "server.log", [shop]) as client:
        pid = _server_pid()
        # the workbook declaring 16,384 columns is read as wide as its cells
        wide = await client.call_tool("list_columns", {"path": "wide.xlsx"})
        assert not wide.is_error, text_of(wide)
        assert wide.structured_content is not None
        assert wide.structured_content["rows"] == 200
        assert [c["name"] for c in wide.structured_content["columns"]] == ["id", "name"]
        gzipped = await client.call_tool(
            "uniqueness_check", {"path": "wide.xlsx.gz", "columns": "id"}
        )
        assert not gzipped.is_error, text_of(gzipped)
        for tool in ("list_columns", "find_keys"):
            await _refused(
                client, tool, {"path": "laughs.yaml"}, "more than 10,000,000 cells", "--max-cells"
            )
            for document in ("bomb.yaml.gz", "bomb.toon.gz"):
                await _refused(
                    client,
                    tool,
                    {"path": document},
                    "more than 8,388,608 bytes",
                    "--max-document-bytes",
                )
            for footer in ("footer.parquet", "footer.parquet.gz"):
                text = await _refused(client, tool, {"path": footer}, footer)
                assert "/" not in text.replace(footer, ""), text  # no server path in the answer
            await _served(client)
        # both tools open files alike: the slowest refusal (millions of rows parsed) runs once
        await _refused(
            client,
            "list_columns",
            {"path": "bomb.csv.gz"},
            "more than 10,000,000 cells",
            "--max-cells",
        )
        # SQLite: values built in the server's memory, native pointers
        zeroblob = "SELECT replace(zeroblob(100000000), x'00', 'abc') AS v"
        await _refused(
            client, "list_columns", {"database": "shop", "query": zeroblob}, "--max-value-bytes"
        )
        heap = " UNION ALL ".join(f"SELECT zeroblob({60_000_000 + i}) AS v" for i in range(12))
        await _refused(
            client, "uniqueness_check", {"database": "shop", "query": heap, "columns": "v"},
            "--max-engine-memory",
        )  # fmt: skip
        for query in (
            "SELECT fts3_tokenizer('simple') AS p",
            "SELECT hex(FTS3_TOKENIZER('porter')) AS p",
            "SELECT fts3_tokenizer('simple', x'0000000000000000') AS p",
        ):
            text = await _refused(client, "list_columns", {"database": "shop", "query": query})
            assert "fts3_tokenizer()" in text.lower()
            assert "memory address" in text
        view = await _refused(client, "list_columns", {"database": "shop", "table": "leak"})
        assert "fts3_tokenizer" in view
        assert re.search(r"[0-9A-F]{12}", view) is None  # no address came back
        await _served(client)
        peak = _peak_rss(pid)
    assert peak < GIB, f"the server's peak resident memory was {peak / GIB:.2f} GiB"


@pytest.mark.anyio
async def test_parts_held_whole_merges_and_uninterruptible_functions_are_refused(
    tmp_path: Path,
) -> None:
    # the fourth pass (2026-12-02): what the third pass's bounds did not reach
    root = tmp_path / "data"
    root.mkdir()
    styles = _swollen_workbook("xl/styles.xml", b"</styleSheet>", b"<a/>", 50_000_000)
    (root / "styles.xlsx").write_bytes(styles)
    (root / "book.xlsx").write_bytes(
        _swollen_workbook("xl/workbook.xml", b"</workbook>", b"<a/>", 50_000_000)
    )
    (root / "strings.xlsx").write_bytes(_shared_strings_workbook(2_000_000))
    (root / "merges.yaml").write_text(_merges(5_000, 2_000))
    (root / "small_merges.yaml").write_text(_merges(3, 4))
    with sqlite3.connect(root / "shop.db") as shop:
        shop.execute("CREATE TABLE orders (id INTEGER)")
        shop.execute("CREATE VIEW slow AS SELECT printf('%.*c', 2000000000, 'x') AS v")
    shop.close()
    shop_url = f"shop=sqlite:///{root / 'shop.db'}?statement_timeout=2s"
    async with stdio_server(root, tmp_path / "server.log", [shop_url]) as client:
        pid = _server_pid()
        for name in ("styles.xlsx", "book.xlsx", "strings.xlsx"):
            await _refused(
                client, "list_columns", {"path": name},
                "once the parts of the workbook held whole are built", "--max-document-bytes",
            )  # fmt: skip
        await _refused(
            client, "find_keys", {"path": "merges.yaml"},
            "once its << merges are copied", "--max-document-bytes",
        )  # fmt: skip
        merged = await client.call_tool("list_columns", {"path": "small_merges.yaml"})
        assert not merged.is_error, text_of(merged)
        assert merged.structured_content is not None
        assert merged.structured_content["rows"] == 3
        # one printf repeats a character two billion times in one step that neither the
        # statement timeout nor a cancel interrupts (SQLite before 3.41): over a minute each
        for arguments in (
            {"query": "SELECT printf('%.*c', 2000000000, 'x') AS v"},
            {"query": "SELECT format('%.*c', 2000000000, 'x') AS v"},
            {"table": "slow"},
        ):
            started = time.monotonic()
            text = await _refused(client, "list_columns", {"database": "shop", **arguments})
            assert "past the statement timeout" in text
            assert time.monotonic() - started < 10
        await _served(client)
        peak = _peak_rss(pid)
    assert peak < GIB, f"the server's peak resident memory was {peak / GIB:.2f} GiB"


@pytest.mark.anyio
async def test_no_query_shows_where_the_database_lies(tmp_path: Path) -> None:
    # the path policy never shows a client the server's absolute paths; SQLite's
    # pragma_database_list does, in its file column
    root = tmp_path / "data"
    root.mkdir()
    database = root / "shop.db"
    with sqlite3.connect(database) as shop:
        shop.execute("CREATE TABLE orders (id INTEGER)")
        shop.execute("CREATE VIEW where_am_i AS SELECT file FROM pragma_database_list")
    shop.close()
    async with stdio_server(
        root, tmp_path / "server.log", [f"shop=sqlite:///{database}"]
    ) as client:
        for arguments in (
            {"query": "SELECT file FROM pragma_database_list"},
            {"query": "SELECT * FROM pragma_database_list()"},
            {"query": "SELECT upper(d.file) AS f FROM pragma_database_list AS d"},
            {"table": "where_am_i"},
        ):
            for tool in ("list_columns", "find_keys"):
                text = await _refused(
                    client, tool, {"database": "shop", **arguments},
                    "reads pragma_database_list.file, which is refused",
                )  # fmt: skip
                assert str(tmp_path) not in text, text
                assert str(tmp_path).upper() not in text, text
        names = await client.call_tool(
            "list_columns", {"database": "shop", "query": "SELECT name FROM pragma_database_list"}
        )
        assert not names.is_error, text_of(names)
        await _served(client)


def test_every_limit_has_a_flag_and_a_documented_default() -> None:
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    guide = (Path(__file__).parents[4] / "docs" / "uniqueness-server.md").read_text("utf-8")
    for name, (default, _) in LIMITS.items():
        flag = "--" + name.replace("_", "-")
        assert flag in guide, f"{flag} is not in the generated flags table"
        assert flag in readme, f"{flag} is not explained in the README's limits"
        assert f"`{default}`" in guide


def test_a_raised_limit_reads_what_the_default_refuses(tmp_path: Path) -> None:
    from mcp_common import ToolError
    from uniqueness_server.read_limits import ReadLimits

    path = tmp_path / "many.yaml"
    path.write_text("".join(f"- id: {i}\n  v: {i}\n" for i in range(60)))
    with pytest.raises(ToolError, match=r"more than 100 cells.*--max-cells"):
        open_file(path, label="many.yaml", limits=ReadLimits(max_cells=100))
    table = open_file(path, label="many.yaml", limits=ReadLimits(max_cells=120))
    try:
        assert table.query("SELECT COUNT(*) FROM src") == [(60,)]
    finally:
        table.close()


def test_expanding_aliases_checks_cancellation(tmp_path: Path) -> None:
    from mcp_common import ToolCancelledError, ToolContext
    from uniqueness_server.read_limits import ReadLimits

    path = tmp_path / "laughs.yaml"
    path.write_text(_laughs())
    cancelled = ToolContext()
    cancelled.cancel()
    with pytest.raises(ToolCancelledError):
        # allowed to expand far (a user raised the limit), it still stops when cancelled
        open_file(path, label="laughs.yaml", context=cancelled, limits=ReadLimits(max_cells=10**12))


@pytest.mark.anyio
async def test_postgresql_attacks_are_refused_or_held(tmp_path: Path) -> None:
    url = os.environ.get("MCP_TOOLS_TEST_POSTGRES_URL")
    if not url:
        pytest.skip("MCP_TOOLS_TEST_POSTGRES_URL is not set: no PostgreSQL server")
    key = 7_000_000 + uuid.uuid4().int % 1_000_000
    root = tmp_path / "data"
    root.mkdir()
    databases = [f"pg={url}?statement_timeout=120s", f"pgshort={url}?statement_timeout=2s"]
    async with stdio_server(root, tmp_path / "server.log", databases) as client:
        pid = _server_pid()
        # values built by the database: only 4 KiB of a sample and 200 characters of a shown
        # value come back, however large
        huge = (
            "SELECT repeat('x', 50000000) AS v UNION ALL SELECT repeat('x', 50000000) "
            "UNION ALL SELECT 'short' AS v"
        )
        columns = await client.call_tool("list_columns", {"database": "pg", "query": huge})
        assert not columns.is_error, text_of(columns)
        assert columns.structured_content is not None
        profiled = columns.structured_content["columns"][0]
        assert profiled["samples"] == ["short"]
        assert profiled["type"] == "text"
        check = await client.call_tool(
            "uniqueness_check", {"database": "pg", "query": huge, "columns": "v"}
        )
        assert check.structured_content is not None
        assert check.structured_content["unique"] is False
        shown = check.structured_content["duplicates"][0]["values"][0]
        assert shown.startswith("xxx")
        assert len(shown) <= 200
        # a lock the database's own applications may rely on, other sessions, the server
        for query, rule in (
            (f"SELECT pg_advisory_lock({key}) AS id", "advisory lock"),
            (f"SELECT pg_catalog.pg_try_advisory_lock({key}) AS id", "advisory lock"),
            (f"SELECT 1 AS id WHERE pg_advisory_xact_lock_shared({key}) IS NULL", "advisory lock"),
            ("SELECT pg_terminate_backend(pid) AS id FROM pg_stat_activity", "other sessions"),
            ("SELECT pg_cancel_backend(pg_backend_pid()) AS id", "other sessions"),
            ("SELECT pg_reload_conf() AS id", "acts on the server"),
            ("SELECT pg_read_file('/etc/passwd') AS id", "the server's files"),
            # a query given as text runs unseen by the parser: each of these ran what is
            # refused above (read /etc/hostname, stopped another session) before
            (
                "SELECT query_to_xml('select pg_read_file(''/etc/hostname'') AS x', true, true, "
                "'')::text AS id",
                "runs SQL given as text",
            ),
            (
                "SELECT query_to_xml_and_xmlschema('select pg_terminate_backend(1) AS x', true, "
                "true, '')::text AS id",
                "runs SQL given as text",
            ),
            (
                "SELECT word AS id FROM ts_stat('select to_tsvector(pg_read_file("
                "''/etc/hostname''))')",
                "runs SQL given as text",
            ),
            (
                "SELECT ts_rewrite('a'::tsquery, 'select ''a''::tsquery, ''b''::tsquery')::text "
                "AS id",
                "runs SQL given as text",
            ),
        ):
            await _refused(client, "list_columns", {"database": "pg", "query": query}, rule)
        with psycopg.connect(url, autocommit=True) as connection:
            held = connection.execute(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = %s",
                (key,),
            ).fetchone()
        assert held == (0,)
        # sleeping: stopped at the statement timeout, even when the query switches it off
        for query in (
            "SELECT pg_sleep(600) AS id",
            "SELECT set_config('statement_timeout', '0', false) AS a, pg_sleep(600) AS id",
        ):
            started = time.monotonic()
            await _refused(
                client, "list_columns", {"database": "pgshort", "query": query}, "statement timeout"
            )
            assert time.monotonic() - started < 30
        await client.call_tool("list_columns", {"database": "pg", "query": "SELECT 1 AS id"})
        peak = _peak_rss(pid)
    assert peak < GIB, f"the server's peak resident memory was {peak / GIB:.2f} GiB"


@pytest.mark.parametrize(
    "document",
    [
        "rows:\n" + "".join(" " * i + f"k{i}:\n" for i in range(1, 1500)),
        "".join(" " * i + "- \n" for i in range(1500)),
    ],
)
def test_a_document_nested_thousands_deep_is_a_clear_error(tmp_path: Path, document: str) -> None:
    from mcp_common import ToolError

    for suffix in ("toon", "yaml"):
        path = tmp_path / f"deep.{suffix}"
        path.write_text(document)
        with pytest.raises(ToolError, match=r"nested too deeply|not valid YAML|TOON line"):
            open_file(path, label=path.name)


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.anyio
async def test_a_cancelled_read_stops_parsing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a user raised --max-cells far: a 2 GB CSV with a comment line is parsed in Python for
    # minutes; cancelled, the parse stops (the server's CPU goes quiet) and the server answers
    root = tmp_path / "data"
    root.mkdir()
    block = gzip.compress((b",".join([b"1"] * 40) + b"\n") * 25_000)  # 2 MB, a few KB packed
    with (root / "huge.csv.gz").open("wb") as out:
        out.write(gzip.compress(b",".join(b"c%d" % i for i in range(40)) + b"\n# note\n"))
        for _ in range(1_000):  # gzip members one after the other read as one stream
            out.write(block)
    (root / "small.csv").write_text("id\n1\n2\n")
    monkeypatch.setenv("UNIQUENESS_SERVER_MAX_CELLS", str(10**12))
    async with stdio_server(root, tmp_path / "server.log") as client:
        pid = _server_pid()
        idle = _cpu_seconds(pid)
        async with anyio.create_task_group() as group:
            group.start_soon(client.call_tool, "list_columns", {"path": "huge.csv.gz"})
            with anyio.fail_after(120):
                while _cpu_seconds(pid) - idle < 1.0:  # it is parsing
                    await anyio.sleep(0.1)
            group.cancel_scope.cancel()
        with anyio.fail_after(60):  # quiet: under 50 ms of CPU in a second
            before = _cpu_seconds(pid)
            while True:
                await anyio.sleep(1.0)
                now = _cpu_seconds(pid)
                if now - before < 0.05:
                    break
                before = now
        small = await client.call_tool("list_columns", {"path": "small.csv"})
        assert not small.is_error, text_of(small)
    assert "list_columns: call cancelled" in (tmp_path / "server.log").read_text()
