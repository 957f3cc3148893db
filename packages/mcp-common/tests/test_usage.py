"""Command-line flags derived from tool argument models (mcp_common.usage)."""

from __future__ import annotations

from typing import Annotated

import pytest
from mcp_common import Arguments, Between, Bool, Int, OneOf, Str, ToolError
from mcp_common.arguments import parse_arguments
from mcp_common.usage import UsageParser, argument_flags, flag_message, given_arguments
from pydantic import Field


class ReadArguments(Arguments):
    path: Str = Field(description="File to read.")
    header_row: Annotated[Int, Between(0, 10)] = Field(1, description="Header line.")
    format: Annotated[Str, OneOf(["auto", "csv"])] = Field("auto", description="File format.")
    verify: Bool = Field(False, description="Scan anyway.")
    better_options: Bool = Field(True, description="Search smaller keys.")
    limit: Int = Field(5, description="Groups to show.")


class KeysArguments(Arguments):
    path: Str = Field(description="File to read.")
    limit: Int = Field(10, description="Keys to show.")


def _parser() -> tuple[UsageParser, dict[str, str]]:
    parser = UsageParser(prog="tool")
    flags = argument_flags(
        parser,
        [ReadArguments, KeysArguments],
        skip=["path"],
        help_prefixes={ReadArguments: "read: ", KeysArguments: "keys: "},
    )
    return parser, flags


def test_every_argument_but_the_skipped_is_a_flag_named_like_it() -> None:
    parser, flags = _parser()
    assert flags == {
        "--header-row": "headerRow",
        "--format": "format",
        "--verify": "verify",
        "--no-better-options": "betterOptions",
        "--limit": "limit",
    }
    usage = parser.format_help()
    assert "--format {auto,csv}" in usage
    assert "read: Groups to show; keys: Keys to show" in usage
    assert "set betterOptions to false: Search smaller keys" in usage


def test_given_flags_become_the_tools_arguments_and_absent_ones_stay_absent() -> None:
    parser, _ = _parser()
    options = parser.parse_args(["--header-row", "3", "--no-better-options", "--format", "CSV"])
    given = given_arguments(options)
    assert given == {"headerRow": "3", "betterOptions": False, "format": "CSV"}
    read = parse_arguments({"path": "x.csv", **given}, ReadArguments)
    assert (read.header_row, read.better_options, read.format, read.verify) == (
        3,
        False,
        "csv",
        False,
    )


def test_a_refused_value_names_the_flag() -> None:
    parser, flags = _parser()
    given = given_arguments(parser.parse_args(["--header-row", "x"]))
    with pytest.raises(ToolError) as refused:
        parse_arguments({"path": "x.csv", **given}, ReadArguments)
    assert flag_message(str(refused.value), flags) == "--header-row must be an integer but was 'x'"
    assert flag_message("limit must be between 1 and 5", flags) == "--limit must be between 1 and 5"
    assert flag_message("the delimiter is unlimited", flags) == "the delimiter is unlimited"
