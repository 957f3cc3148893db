"""The real commands as subprocesses: the MCP server over stdio, and ``uniqueness-check``."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import mcp_types as types
import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from uniqueness_testkit import household_csv, write

pytestmark = [pytest.mark.e2e]

BIN = Path(sys.executable).parent
SERVER = BIN / "uniqueness-server"
CHECK = BIN / "uniqueness-check"


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(part.text for part in result.content if isinstance(part, types.TextContent))


@pytest.fixture
def data(tmp_path: Path) -> Path:
    root = tmp_path / "data"
    write(root / "household.csv.gz", household_csv(), compress=True)
    with sqlite3.connect(root / "shop.db") as connection:
        connection.execute("CREATE TABLE orders (id INTEGER, customer TEXT)")
        connection.executemany("INSERT INTO orders VALUES (?, ?)", [(1, "a"), (2, "a")])
    connection.close()
    return root


@pytest.mark.anyio
async def test_stdio_server_answers_the_three_tools(data: Path, tmp_path: Path) -> None:
    assert SERVER.is_file(), f"{SERVER} is not installed; run uv sync"
    log_file = tmp_path / "server.log"
    params = StdioServerParameters(
        command=str(SERVER),
        args=["--allowed-dir", str(data), "--log-file", str(log_file)],
        env={
            **os.environ,
            "UNIQUENESS_SERVER_DATABASE": f"shop=sqlite:///{data / 'shop.db'}",
        },
        cwd=str(tmp_path),
    )
    async with Client(params) as client:
        assert client.server_info is not None
        assert client.server_info.name == "uniqueness-server"
        listed = await client.list_tools()
        assert [t.name for t in listed.tools] == ["uniqueness_check", "find_keys", "list_columns"]
        check = await client.call_tool(
            "uniqueness_check", {"path": "household.csv.gz", "columns": ["year1", "hlpi_name"]}
        )
        assert not check.is_error
        assert check.structured_content is not None
        assert check.structured_content["unique"] is True
        rough = await client.call_tool(
            "uniqueness_check",
            {"database": "shop", "table": "orders", "columns": ["customer"], "approximate": True},
        )
        assert rough.structured_content is not None
        assert rough.structured_content["verdict"] == "not unique"
        assert rough.structured_content["exact"] is True
        keys = await client.call_tool(
            "find_keys", {"database": "shop", "table": "orders", "maxColumns": 2}
        )
        assert keys.structured_content is not None
        assert [k["columns"] for k in keys.structured_content["keys"]] == [["id"]]
        columns = await client.call_tool("list_columns", {"path": "household.csv.gz"})
        assert columns.structured_content is not None
        assert columns.structured_content["rows"] == 70
        refused = await client.call_tool(
            "uniqueness_check", {"database": "shop", "query": "DROP TABLE orders", "columns": "id"}
        )
        assert refused.is_error
        assert text_of(refused).startswith(
            "uniqueness_check failed: only SELECT queries are allowed"
        )
    with sqlite3.connect(data / "shop.db") as connection:
        assert connection.execute("SELECT COUNT(*) FROM orders").fetchone() == (2,)
    connection.close()


def run_check(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CHECK), *args], cwd=cwd, capture_output=True, text=True, timeout=60, check=False
    )


def test_cli_exit_status_tells_unique_from_not(data: Path) -> None:
    unique = run_check("household.csv.gz", "year1,hlpi_name", cwd=data)
    assert unique.returncode == 0, unique.stderr
    assert unique.stdout.startswith("year1, hlpi_name: unique (70 rows)")
    duplicate = run_check("household.csv.gz", "year1", "--json", cwd=data)
    assert duplicate.returncode == 1
    answer = json.loads(duplicate.stdout)
    assert answer["unique"] is False
    assert answer["duplicates"][0]["values"] == ["2008"]
    database = run_check(
        "--database",
        f"shop=sqlite:///{data / 'shop.db'}",
        "--table",
        "orders",
        "customer",
        cwd=data,
    )
    assert database.returncode == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["absent.csv", "id"], "absent.csv does not exist"),
        (["household.csv.gz", "nope"], "column 'nope' not found"),
        (["--header-row", "x", "household.csv.gz", "id"], "--header-row must be an integer"),
        (["--format", "xml", "household.csv.gz", "id"], "--format must be one of auto, csv"),
        (["household.csv.gz", "id", "--bogus"], "unrecognized arguments"),
        (["--bogus"], "unrecognized arguments: --bogus"),
        (["household.csv.gz"], "give at least one column to check"),
        (["--find-keys", "household.csv.gz", "--verify"], "--verify does not apply to --find-keys"),
        (["--list-columns", "household.csv.gz", "--max-columns", "2"], "does not apply to"),
        (["--database", "shop=sqlite:///shop.db", "--query", "DELETE FROM t", "id"], "only SELECT"),
        (["--database", "shop=sqlite:///x.db", "--table", "t", "id"], "x.db does not exist"),
    ],
)
def test_cli_errors_exit_2_with_one_line_and_no_traceback(
    data: Path, args: list[str], message: str
) -> None:
    result = run_check(*args, cwd=data)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def test_cli_help_and_version(data: Path) -> None:
    helped = run_check("--help", cwd=data)
    assert helped.returncode == 0
    assert "exit status: 0 the columns are unique, 1 they are not, 2 an error" in helped.stdout
    assert "not confined" in helped.stdout
    version = run_check("--version", cwd=data)
    assert version.returncode == 0
    assert version.stdout.strip()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--database", "nonsense"], "--database expects NAME=URL"),
        (["--database", "x=notascheme"], "not a usable SQLAlchemy URL"),
        (["--allowed-dir", "/nonexistent/dir"], "allowed directory does not exist"),
    ],
)
def test_server_refuses_bad_settings_at_startup(
    tmp_path: Path, args: list[str], message: str
) -> None:
    result = subprocess.run(
        [str(SERVER), *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


@pytest.mark.anyio
async def test_cli_and_tool_read_the_same_delimiter_word(data: Path, tmp_path: Path) -> None:
    # comma and tab each split every line in two: the sniffer takes the comma, so only the
    # delimiter given makes "id" a column
    write(data / "mixed.txt", "id\tname,x\n1\tAnn,1\n2\tBob,1\n")
    sniffed = run_check("mixed.txt", "id", cwd=data)
    assert sniffed.returncode == 2
    assert "column 'id' not found" in sniffed.stderr
    params = StdioServerParameters(
        command=str(SERVER), args=["--allowed-dir", str(data)], cwd=str(tmp_path)
    )
    async with Client(params) as client:
        for word in ("tab", "TAB", "\\t"):
            tabbed = run_check("--delimiter", word, "mixed.txt", "id", "--json", cwd=data)
            assert tabbed.returncode == 0, tabbed.stderr
            served = await client.call_tool(
                "uniqueness_check", {"path": "mixed.txt", "columns": ["id"], "delimiter": word}
            )
            assert not served.is_error, text_of(served)
            assert json.loads(tabbed.stdout) == served.structured_content
            assert served.structured_content is not None
            assert served.structured_content["unique"] is True
        refused = run_check("--delimiter", "tabs", "mixed.txt", "id", cwd=data)
        assert refused.returncode == 2
        words = "the words tab, comma, semicolon, pipe"
        assert words in refused.stderr
        served = await client.call_tool(
            "uniqueness_check", {"path": "mixed.txt", "columns": ["id"], "delimiter": "tabs"}
        )
        assert served.is_error
        assert words in text_of(served)


@pytest.mark.anyio
async def test_a_file_pandas_wrote_with_carriage_returns_in_values_reads_as_written(
    data: Path, tmp_path: Path
) -> None:
    # DataFrame({"id": [1, 2, 3], "note": ["a\rb", "c", "d\re"], "x": [...]}).to_csv(index=False)
    # writes these bytes: lines end with LF, the CRs stay unquoted inside the values
    # (pandas.read_csv(lineterminator="\n") reads three rows; split at the CR, five)
    (data / "notes.csv").write_bytes(b"id,note,x\n1,a\rb,p\n2,c,q\n3,d\re,r\n")
    params = StdioServerParameters(
        command=str(SERVER), args=["--allowed-dir", str(data)], cwd=str(tmp_path)
    )
    async with Client(params) as client:
        checked = await client.call_tool(
            "uniqueness_check", {"path": "notes.csv", "columns": ["note"]}
        )
        listed = await client.call_tool("list_columns", {"path": "notes.csv"})
    assert not checked.is_error, text_of(checked)
    assert checked.structured_content is not None
    assert (checked.structured_content["rows"], checked.structured_content["unique"]) == (3, True)
    assert listed.structured_content is not None
    note = listed.structured_content["columns"][1]
    assert note["samples"] == ["a\rb", "c", "d\re"]
    answered = run_check("notes.csv", "note", "--json", cwd=data)
    assert answered.returncode == 0, answered.stderr
    assert json.loads(answered.stdout) == checked.structured_content


@pytest.mark.anyio
async def test_cli_find_keys_and_list_columns_answer_as_the_tools_do(
    data: Path, tmp_path: Path
) -> None:
    write(data / "people.csv", "id,email,country\n1,a@x,PL\n2,b@x,PL\n3,a@x,US\n")
    calls = {
        "find_keys": (["--find-keys", "people.csv", "--max-columns", "2"], {"maxColumns": 2}),
        "list_columns": (["--list-columns", "people.csv", "--limit", "2"], {"limit": 2}),
        "uniqueness_check": (["people.csv", "email,country", "--delimiter", "comma"], {
            "columns": ["email", "country"], "delimiter": "comma"
        }),
    }  # fmt: skip
    params = StdioServerParameters(
        command=str(SERVER), args=["--allowed-dir", str(data)], cwd=str(tmp_path)
    )
    async with Client(params) as client:
        for tool, (argv, arguments) in calls.items():
            served = await client.call_tool(tool, {"path": "people.csv", **arguments})
            assert not served.is_error, text_of(served)
            answered = run_check(*argv, "--json", cwd=data)
            assert answered.returncode == 0, answered.stderr
            assert json.loads(answered.stdout) == served.structured_content
            shown = run_check(*argv, cwd=data)
            assert shown.returncode == 0, shown.stderr
            if tool != "uniqueness_check":  # the check prints one line per finding instead
                assert shown.stdout.strip() == text_of(served).strip()
    keys = run_check("--find-keys", "people.csv", "--json", cwd=data)
    assert [k["columns"] for k in json.loads(keys.stdout)["keys"]] == [["id"], ["email", "country"]]


def test_ctrl_c_prints_one_line_and_exits_130(data: Path) -> None:
    slow = (
        "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 500000000) "
        "SELECT i FROM r"
    )
    process = subprocess.Popen(
        [str(CHECK), "--database", f"shop=sqlite:///{data / 'shop.db'}", "--query", slow, "i"],
        cwd=data,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # a shell runs a foreground command with the default SIGINT action
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 60
    while not _has_open(process.pid, data / "shop.db"):  # the query is running
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the query never started"
        time.sleep(0.1)
    time.sleep(0.5)
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert time.monotonic() - sent < 3.0
    assert process.returncode == 130
    assert err == "uniqueness-check: interrupted\n"
    assert out == ""


def _has_open(pid: int, path: Path) -> bool:
    """Whether process ``pid`` holds ``path`` open."""
    try:
        descriptors = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return False
    for descriptor in descriptors:
        try:
            if os.readlink(descriptor) == str(path):
                return True
        except OSError:
            continue
    return False


def test_ctrl_c_while_starting_is_one_line_too(data: Path) -> None:
    process = subprocess.Popen(
        [str(CHECK), "household.csv.gz", "year1"],
        cwd=data,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    # as soon as the engine's libraries load: the command is still importing (a run takes
    # seconds); before its own code runs, Python alone answers Ctrl-C
    deadline = time.monotonic() + 30
    while not _loaded(process.pid, "numpy") and time.monotonic() < deadline:
        time.sleep(0.005)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    if process.returncode == 1:  # a fast machine finished first: nothing to interrupt
        return
    assert process.returncode == 130, err
    assert err == "uniqueness-check: interrupted\n"
    assert out == ""


def _loaded(pid: int, library: str) -> bool:
    """Whether process ``pid`` has mapped a shared library of ``library``."""
    try:
        return f"/{library}" in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False


def test_cli_read_limits_name_their_flag_and_raise(data: Path) -> None:
    write(data / "many.yaml", "".join(f"- id: {i}\n  v: {i}\n" for i in range(60)))
    refused = run_check("--max-cells", "100", "many.yaml", "id", cwd=data)
    assert refused.returncode == 2
    assert "many.yaml expands to more than 100 cells" in refused.stderr
    assert "Raise --max-cells" in refused.stderr
    raised = run_check("--max-cells", "120", "many.yaml", "id", cwd=data)
    assert raised.returncode == 0, raised.stderr
    assert raised.stdout.startswith("id: unique (60 rows)")
    nonsense = run_check("--max-cells", "0", "many.yaml", "id", cwd=data)
    assert nonsense.returncode == 2
    assert "--max-cells must be 1 or more" in nonsense.stderr
