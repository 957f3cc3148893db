"""Markdown building blocks: table escaping, front matter quoting, inline escaping, size guard."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from mcp_common import (
    code_block,
    escape_inline,
    front_matter,
    guard_output,
    key_value_table,
    markdown_table,
)


def split_row(line: str) -> list[str]:
    """A GFM-faithful reader of one table row: a backslash escapes the next character, only
    unescaped pipes split, and the two outer empty parts are dropped by position."""
    assert line.startswith("|")
    assert line.endswith("|")
    cells, current, index = [], "", 0
    while index < len(line):
        char = line[index]
        if char == "\\" and index + 1 < len(line):
            current += line[index : index + 2]
            index += 2
            continue
        if char == "|":
            cells.append(current)
            current = ""
        else:
            current += char
        index += 1
    cells.append(current)
    return [cell.strip() for cell in cells[1:-1]]


def test_table_layout_and_escaping() -> None:
    table = markdown_table(["Name", "Value"], [["a|b", "x\r\ny"], ["c\rd", None]])
    assert table == ("| Name | Value |\n| --- | --- |\n| a\\|b | x y |\n| cd |  |\n")


def test_headers_are_escaped_too() -> None:
    first_line = markdown_table(["a|b", "c\nd"], []).splitlines()[0]
    assert first_line == "| a\\|b | c d |"
    assert len(split_row(first_line)) == 2


def test_backslash_before_pipe_cannot_split_a_cell() -> None:
    line = markdown_table(["x"], [["path\\|rest"]]).splitlines()[2]
    assert split_row(line) == ["path\\\\\\|rest"]


def test_zero_columns_and_ragged_rows_are_refused() -> None:
    with pytest.raises(ValueError, match="at least one column"):
        markdown_table([], [])
    with pytest.raises(ValueError, match="row has 1 cells, the table has 2 columns"):
        markdown_table(["a", "b"], [["only"]])


def test_key_value_table_keeps_insertion_order() -> None:
    table = key_value_table({"zeta": 1, "alpha": "x|y"})
    assert table.splitlines()[2:] == ["| zeta | 1 |", "| alpha | x\\|y |"]


@given(
    st.lists(
        st.lists(st.text(alphabet=st.sampled_from("ab |\\\r\n`*")), min_size=3, max_size=3),
        max_size=5,
    )
)
def test_rows_always_split_back_into_the_same_number_of_cells(rows: list[list[str]]) -> None:
    lines = markdown_table(["h1", "h|2", "h\\3"], rows).splitlines()
    assert len(lines) == len(rows) + 2
    for line in lines:
        assert len(split_row(line)) == 3


def test_front_matter_quoting_rules() -> None:
    block = front_matter(
        {
            "tool": "list_columns",
            "count": 3,
            "truncated": False,
            "missing": None,
            "empty": "",
            "padded": " x",
            "colon": "a: b",
            "reserved": "yes",
            "numeric": "012",
            "multi": 'a\nb\r"c"\\',
        }
    )
    assert block == (
        "---\n"
        "tool: list_columns\n"
        "count: 3\n"
        "truncated: false\n"
        "missing:\n"
        'empty: ""\n'
        'padded: " x"\n'
        'colon: "a: b"\n'
        'reserved: "yes"\n'
        'numeric: "012"\n'
        'multi: "a\\nb\\r\\"c\\"\\\\"\n'
        "---\n"
    )


def test_front_matter_refuses_empty_keys() -> None:
    with pytest.raises(ValueError, match="keys must not be empty"):
        front_matter({"": 1})


@given(st.text())
def test_front_matter_values_read_back_as_the_same_string(value: str) -> None:
    body = front_matter({"value": value}).removeprefix("---\n").removesuffix("---\n")
    assert yaml.safe_load(body) == {"value": value}


def test_escape_inline() -> None:
    assert escape_inline("a*b_c`d[e]<f>\\") == "a\\*b\\_c\\`d\\[e\\]\\<f\\>\\\\"


def test_guard_output_passes_short_text_and_cuts_long_text_naming_levers() -> None:
    assert guard_output("short", max_chars=10) == "short"
    cut = guard_output("x" * 25, max_chars=10, levers="a smaller limit")
    assert cut.startswith("x" * 10 + "\n\n---\n[OUTPUT TRUNCATED] showing 10 of 25 characters")
    assert cut.endswith("narrow the request with a smaller limit.")
    assert guard_output("x" * 10, max_chars=10) == "x" * 10


@given(st.text(alphabet="`ab\n ", max_size=40))
def test_code_block_is_never_closed_by_its_own_text(text: str) -> None:
    block = code_block(text, "java")
    fence = block.split("\n", 1)[0].removesuffix("java")
    assert set(fence) == {"`"}
    assert len(fence) >= 3
    body = block.removeprefix(fence + "java\n").removesuffix(fence + "\n")
    assert body == text.rstrip() + "\n"
    # A fence inside the text is shorter than the block's, so it only opens or closes there.
    assert all(not line.startswith(fence) for line in body.splitlines())
