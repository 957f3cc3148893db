"""The TOON subset parser: the reference's edge cases (§5, items 49-52) where they apply."""

from __future__ import annotations

import pytest
from mcp_common import ToolError
from uniqueness_server.engine.toon import parse_toon, split_row, unquote


def test_an_escaped_backslash_before_a_closing_quote_ends_the_field() -> None:
    assert split_row('"a\\\\",c') == ['"a\\\\"', "c"]
    assert [unquote(v) for v in split_row('"a\\\\",c')] == ["a\\", "c"]


def test_unquote_decodes_escapes_in_one_pass_and_keeps_unknown_ones() -> None:
    assert unquote('"x\\\\ny"') == "x\\ny"
    assert unquote('"tab\\there"') == "tab\there"
    assert unquote('"keep\\q"') == "keep\\q"
    assert unquote("null") is None
    assert unquote('"null"') == "null"
    assert unquote(" 01 ") == "01"


def test_tabular_rows_stop_at_the_next_top_level_key() -> None:
    document = parse_toon("users[2]{id,name}:\n  1,Ann\n  2,Bob\ncount: 2\n")
    assert document == {
        "users": [{"id": "1", "name": "Ann"}, {"id": "2", "name": "Bob"}],
        "count": "2",
    }


def test_inline_arrays_and_nested_objects() -> None:
    document = parse_toon("tags[3]: admin,ops,dev\nowner:\n  name: Ann\n  address:\n    city: W\n")
    assert document == {
        "tags": ["admin", "ops", "dev"],
        "owner": {"name": "Ann", "address": {"city": "W"}},
    }


def test_a_short_list_is_an_error_not_a_silent_cut() -> None:
    with pytest.raises(ToolError, match="declares 3 items but holds 2"):
        parse_toon("items[3]:\n  - a\n  - b\n")


def test_unexpected_indentation_is_an_error() -> None:
    with pytest.raises(ToolError, match="TOON line 2"):
        parse_toon("a: 1\n    b: 2\n")
