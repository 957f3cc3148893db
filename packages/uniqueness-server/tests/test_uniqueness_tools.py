"""The tools called directly: arguments, aliases, answers, and the bad-input list."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp_common import ErrorCode, McpTool, ToolError, parse_arguments
from uniqueness_testkit import call, tools_for, write


def failure(tool: McpTool, arguments: dict[str, object]) -> ToolError:
    with pytest.raises(ToolError) as caught:
        call(tool, arguments)
    return caught.value


def test_uniqueness_check_answers_with_markdown_and_structured_content(
    tools: dict[str, McpTool],
) -> None:
    result = call(tools["uniqueness_check"], {"path": "household.csv", "columns": ["year1"]})
    assert not result.is_error
    assert result.structured is not None
    assert result.structured["unique"] is False
    assert result.structured["rows"] == 70
    assert result.structured["distinctKeys"] == 5
    assert result.structured["duplicateGroups"] == 5
    assert len(result.structured["duplicates"]) == 5
    first = result.structured["duplicates"][0]
    assert first == {"values": ["2008"], "count": 14, "rows": list(range(1, 11))}
    assert "# year1: NOT unique" in result.text
    assert "| 2008 | 14 | 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, … |" in result.text
    assert result.structured["page"]["nextOffset"] is None


def test_duplicate_groups_are_paged(tools: dict[str, McpTool]) -> None:
    result = call(
        tools["uniqueness_check"],
        {"path": "household.csv", "columns": "year1", "limit": 2, "offset": 2},
    )
    assert result.structured is not None
    assert [d["values"] for d in result.structured["duplicates"]] == [["2014"], ["2017"]]
    assert result.structured["page"]["nextOffset"] == 4
    assert "showing 3-4 of 5; pass offset=4 for more" in result.text


def test_better_options_in_the_answer(tools: dict[str, McpTool]) -> None:
    result = call(
        tools["uniqueness_check"],
        {"path": "household.csv", "columns": ["year1", "hlpi_name", "income"]},
    )
    assert result.structured is not None
    assert result.structured["unique"] is True
    assert sorted(result.structured["betterOptions"]) == [["income"], ["year1", "hlpi_name"]]
    assert "| year1, hlpi_name | 2 |" in result.text
    minimal = call(
        tools["uniqueness_check"], {"path": "household.csv", "columns": ["year1", "hlpi_name"]}
    )
    assert minimal.structured is not None
    assert minimal.structured["minimal"] is True
    assert "already minimal" in minimal.text


def test_anchor_names_are_deprecated_aliases(tools: dict[str, McpTool]) -> None:
    result = call(
        tools["uniqueness_check"],
        {"file": "household.csv", "columns_name": "income", "columns_row": "1"},
    )
    assert result.structured is not None
    assert result.structured["unique"] is True
    assert result.structured["columns"] == ["income"]


def test_header_row_zero_turns_the_header_line_into_data(tools: dict[str, McpTool]) -> None:
    result = call(
        tools["uniqueness_check"], {"path": "household.csv", "columns": "column2", "headerRow": 0}
    )
    assert result.structured is not None
    assert result.structured["rows"] == 71  # the header line is data now


def test_find_keys_ranks_keys(tools: dict[str, McpTool]) -> None:
    result = call(tools["find_keys"], {"path": "household.csv", "maxColumns": 2, "limit": 3})
    assert result.structured is not None
    keys = [k["columns"] for k in result.structured["keys"]]
    assert len(keys) == 3
    assert all(len(k) == 1 for k in keys)
    assert result.structured["page"]["total"] > 3
    assert "| 1 |" in result.text


def test_find_keys_among_given_columns(tools: dict[str, McpTool]) -> None:
    result = call(
        tools["find_keys"], {"path": "household.csv", "columns": ["year1", "hlpi_name", "age"]}
    )
    assert result.structured is not None
    assert [k["columns"] for k in result.structured["keys"]] == [["hlpi_name", "year1"]]


def test_list_columns_profiles_every_column(tools: dict[str, McpTool]) -> None:
    result = call(tools["list_columns"], {"path": "household.csv"})
    assert result.structured is not None
    assert result.structured["rows"] == 70
    columns = {c["name"]: c for c in result.structured["columns"]}
    assert len(columns) == 15
    assert columns["year1"]["type"] == "integer"
    assert columns["year1"]["samples"] == ["2008", "2011", "2014"]
    assert columns["hlpi_name"]["type"] == "text"
    assert columns["own_prop"]["type"] == "number"
    assert columns["year1"]["distinct"] == 5
    assert "| year1 | integer | 0 | 5 | 2008, 2011, 2014 |" in result.text


def test_tools_read_databases_by_name(tmp_path: Path) -> None:
    import sqlite3

    db = tmp_path / "shop.db"
    with sqlite3.connect(db) as connection:
        connection.execute("CREATE TABLE orders (id INTEGER, customer TEXT)")
        connection.executemany("INSERT INTO orders VALUES (?, ?)", [(1, "a"), (2, "a")])
    connection.close()
    tools = tools_for(tmp_path, [f"shop=sqlite:///{db}"])
    check = call(
        tools["uniqueness_check"], {"database": "shop", "table": "orders", "columns": "id"}
    )
    assert check.structured is not None
    assert check.structured["unique"] is True
    by_query = call(
        tools["find_keys"], {"database": "shop", "query": "SELECT customer FROM orders"}
    )
    assert by_query.structured is not None
    assert by_query.structured["keys"] == []


@pytest.mark.parametrize(
    ("tool", "arguments", "code", "message"),
    [
        (
            "uniqueness_check",
            {"path": "household.csv", "columns": "nope"},
            "invalid_argument",
            "column 'nope' not found; the columns are [hlpi_name, year1,",
        ),
        ("uniqueness_check", {"path": "../outside.csv", "columns": "a"}, "access_denied", ".."),
        (
            "uniqueness_check",
            {"path": "/etc/passwd", "columns": "a"},
            "access_denied",
            "outside the allowed",
        ),
        ("uniqueness_check", {"path": "absent.csv", "columns": "a"}, "not_found", "absent.csv"),
        (
            "uniqueness_check",
            {"path": "household.csv", "columns": "year1", "format": "xml"},
            "invalid_argument",
            "format must be one of",
        ),
        ("uniqueness_check", {"columns": "a"}, "invalid_argument", "exactly one source"),
        (
            "uniqueness_check",
            {"path": "household.csv", "database": "x", "columns": "a"},
            "invalid_argument",
            "exactly one source",
        ),
        (
            "uniqueness_check",
            {"database": "x", "table": "t", "columns": "a"},
            "not_found",
            "unknown database 'x'",
        ),
        (
            "uniqueness_check",
            {"path": "household.csv", "table": "t", "columns": "a"},
            "invalid_argument",
            "go with database",
        ),
        (
            "uniqueness_check",
            {"path": "household.csv"},
            "invalid_argument",
            "missing required argument: columns",
        ),
        (
            "uniqueness_check",
            {"path": "household.csv", "columns": "a", "headerRow": -1},
            "invalid_argument",
            "headerRow must be between",
        ),
        (
            "uniqueness_check",
            {"path": "household.csv", "columns": "a", "colums": "b"},
            "invalid_argument",
            "Did you mean 'columns'",
        ),
        (
            "find_keys",
            {"path": "household.csv", "maxColumns": 99},
            "invalid_argument",
            "maxColumns must be between 1 and 6",
        ),
        (
            "find_keys",
            {"path": "household.csv", "maxColumns": 0},
            "invalid_argument",
            "maxColumns must be between 1 and 6",
        ),
        ("list_columns", {"path": "."}, "invalid_argument", "not a file"),
    ],
)
def test_bad_input_is_a_clear_error(
    tools: dict[str, McpTool], tool: str, arguments: dict[str, object], code: str, message: str
) -> None:
    error = failure(tools[tool], arguments)
    assert error.code is ErrorCode(code)
    assert message in str(error)


def test_bad_input_writes_nothing(tmp_path: Path) -> None:
    root = tmp_path / "root"
    write(root / "bad.weird", "a\n1\n")
    write(root / "binary.dat", b"\x00\x01\x02")
    (root / "empty.db").touch()
    before = sorted((p.name, p.stat().st_size) for p in tmp_path.rglob("*"))
    with pytest.raises(ValueError, match=r"gone\.db does not exist"):
        tools_for(root, [f"gone=sqlite:///{root / 'gone.db'}"])
    tools = tools_for(root, [f"empty=sqlite:///{root / 'empty.db'}"])
    for arguments in (
        {"path": "bad.weird", "columns": "a"},
        {"path": "binary.dat", "columns": "a"},
        {"database": "empty", "table": "t", "columns": "a"},
        {"database": "empty", "query": "DELETE FROM t", "columns": "a"},
        {"database": "empty", "query": "CREATE TABLE t (a INTEGER)", "columns": "a"},
    ):
        failure(tools["uniqueness_check"], arguments)
    assert sorted((p.name, p.stat().st_size) for p in tmp_path.rglob("*")) == before


def test_arguments_are_parsed_before_the_source_opens(tools: dict[str, McpTool]) -> None:
    definition = tools["uniqueness_check"].definition
    with pytest.raises(ToolError, match="deprecated alias of path"):
        parse_arguments({"file": "a.csv", "path": "b.csv", "columns": "x"}, definition.arguments)
