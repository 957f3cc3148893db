"""ToolArguments: coercion, strictness, aliases, unknown arguments, size limits, read recording."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp_common import (
    ErrorCode,
    ToolAnnotations,
    ToolArguments,
    ToolDefinition,
    ToolError,
    object_schema,
)

DEFINITION = ToolDefinition(
    name="sample_tool",
    description="Reads every kind of argument.",
    input_schema=object_schema(
        {
            "count": {"type": "integer", "description": "A count."},
            "name": {"type": "string", "description": "A name.", "maxLength": 8},
            "columns": {"type": "array", "description": "Column names."},
            "mode": {"type": "string", "description": "fast or slow."},
            "flag": {"type": "boolean", "description": "A switch."},
        },
        required=["columns"],
    ),
    annotations=ToolAnnotations.read_only_tool(),
    deprecated_aliases={"columns_name": "columns"},
)


def args(raw: object) -> ToolArguments:
    return ToolArguments(raw, DEFINITION)


def _read_through(raw: object, read: Any) -> None:
    arguments = args(raw)
    if read is not None:
        read(arguments)


def refused(raw: object, read: Any = None) -> str:
    with pytest.raises(ToolError) as caught:
        _read_through(raw, read)
    assert caught.value.code is ErrorCode.INVALID_ARGUMENT
    return caught.value.message


@pytest.mark.parametrize(
    ("given", "expected"), [("1", 1), (" 1 ", 1), ("+5", 5), ("-3", -3), (7, 7)]
)
def test_integers_accept_numeric_text(given: object, expected: int) -> None:
    assert args({"count": given}).optional_int("count") == expected


@pytest.mark.parametrize("given", [1.0, True, "abc", "1.5", "-", "１２", [1], "9" * 19])
def test_integers_refuse_floats_booleans_and_junk_naming_the_argument(given: object) -> None:
    message = refused({"count": given}, lambda a: a.optional_int("count"))
    assert message.startswith("count must be an integer but was ")


def test_blank_strings_count_as_absent() -> None:
    arguments = args({"name": "   ", "count": ""})
    assert arguments.optional_string("name", "fallback") == "fallback"
    assert arguments.optional_int("count", 4) == 4
    assert not arguments.is_given("name")
    assert "missing required argument: name" in refused(
        {"name": " "}, lambda a: a.required_string("name")
    )


def test_strings_accept_numbers_but_not_objects() -> None:
    assert args({"name": 5}).optional_string("name") == "5"
    assert "name must be a string" in refused(
        {"name": {"a": 1}}, lambda a: a.optional_string("name")
    )
    assert "name must be a string" in refused({"name": True}, lambda a: a.optional_string("name"))


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (["a", " b ", ""], ["a", "b"]),
        ('["a", " b", ""]', ["a", "b"]),
        ("a, b,,c", ["a", "b", "c"]),
        ("[a,b]", ["[a", "b]"]),
        ([], []),
        ("[]", []),
        ([1, "x"], ["1", "x"]),
    ],
)
def test_string_lists_from_arrays_json_text_and_commas(given: object, expected: list[str]) -> None:
    assert args({"columns": given}).optional_string_list("columns") == expected


def test_string_lists_refuse_nested_values_and_required_lists_refuse_empty_ones() -> None:
    assert "columns must hold only strings" in refused(
        {"columns": [["x"]]}, lambda a: a.optional_string_list("columns")
    )
    assert "columns must hold only strings" in refused(
        {"columns": '[1, {"a": 1}]'}, lambda a: a.optional_string_list("columns")
    )
    assert "give at least one value" in refused(
        {"columns": "[]"}, lambda a: a.required_string_list("columns")
    )
    assert args({}).optional_string_list("columns") is None


def test_enums_match_case_insensitively_and_name_the_choices() -> None:
    assert args({"mode": " FAST "}).optional_enum("mode", ["fast", "slow"], "slow") == "fast"
    assert args({}).optional_enum("mode", ["fast", "slow"], "slow") == "slow"
    message = refused(
        {"mode": "medium"}, lambda a: a.optional_enum("mode", ["fast", "slow"], "slow")
    )
    assert message == "mode must be one of fast, slow but was 'medium'"


@pytest.mark.parametrize(
    ("given", "expected"), [(True, True), ("YES", True), ("0", False), ("False", False)]
)
def test_booleans(given: object, expected: bool) -> None:
    assert args({"flag": given}).optional_boolean("flag", not expected) is expected


@pytest.mark.parametrize("given", [1, "maybe", [True]])
def test_booleans_refuse_other_values(given: object) -> None:
    assert "flag must be true or false" in refused(
        {"flag": given}, lambda a: a.optional_boolean("flag", False)
    )


def test_bounded_ints_refuse_and_clamped_ints_clamp() -> None:
    assert args({"count": "5"}).optional_bounded_int("count", 1, 1, 5) == 5
    assert args({}).optional_bounded_int("count", 3, 1, 5) == 3
    message = refused({"count": 6}, lambda a: a.optional_bounded_int("count", 1, 1, 5))
    assert message == "count must be between 1 and 5 but was 6"
    assert args({"count": 0}).clamped_int("count", 3, 1, 5) == 1
    assert args({"count": 99}).clamped_int("count", 3, 1, 5) == 5


def test_required_readers_name_the_missing_argument() -> None:
    assert refused({}, lambda a: a.required_int("count")) == "missing required argument: count"


def test_unknown_arguments_are_refused_with_a_did_you_mean() -> None:
    assert refused({"colums": ["a"]}).startswith(
        "unknown argument 'colums'. Did you mean 'columns'?"
    )
    assert "Did you mean 'count'?" in refused({"Count": 1})
    assert "Did you mean 'columns'?" in refused({"column_name": "a"})
    assert refused({"zzz": 1}) == (
        "unknown argument 'zzz'. Accepted arguments: columns, count, flag, mode, name"
    )


def test_a_huge_unknown_argument_name_is_cut_in_the_message() -> None:
    message = refused({"k" * 100_000: 1})
    assert message.startswith("unknown argument '" + "k" * 61 + "...'. Accepted arguments:")


def test_deprecated_alias_resolves_and_warns(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="mcp_common.arguments"):
        arguments = args({"columns_name": "a,b"})
    assert arguments.optional_string_list("columns") == ["a", "b"]
    assert "argument 'columns_name' is deprecated, use 'columns'" in caplog.text


def test_alias_with_a_different_canonical_value_is_a_conflict() -> None:
    message = refused({"columns": "a", "columns_name": "b"})
    assert message == "columns_name is a deprecated alias of columns; give only one of them"
    assert args({"columns": "a", "columns_name": "a"}).optional_string_list("columns") == ["a"]


def test_oversized_strings_are_refused_by_schema_max_length_and_default_cap() -> None:
    assert refused({"name": "x" * 9}) == "name is 9 characters long; at most 8 are accepted"
    assert "at most 100000 are accepted" in refused({"mode": "x" * 100_001})
    assert "at most 100000 are accepted" in refused({"columns": ["ok", "x" * 100_001]})
    assert "at most 100000 are accepted" in refused({"columns": {"deep": [["x" * 100_001]]}})
    assert "more than 10000 items" in refused({"columns": [[0] * 6000, [0] * 6000]})


@pytest.mark.parametrize("raw", [[1], "text", 3, True])
def test_non_object_payloads_are_refused(raw: object) -> None:
    assert refused(raw).startswith("arguments must be a JSON object of named arguments")


def test_null_payload_and_null_values_mean_no_arguments() -> None:
    assert args(None).given_names == frozenset()
    assert args({"count": None}).given_names == frozenset()


def test_reads_are_recorded_whether_or_not_the_argument_was_given() -> None:
    arguments = args({"count": "2"})
    arguments.optional_int("count")
    arguments.is_given("flag")
    assert arguments.read_names == {"count", "flag"}
    assert arguments.given_names == {"count"}
    assert arguments.tool_name == "sample_tool"


def test_error_messages_never_carry_a_credential_even_when_cut() -> None:
    value = "x" * 30 + " https://user:hunter2secret@host/x"
    message = refused({"count": value}, lambda a: a.optional_int("count"))
    assert "hunter2" not in message


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=10,
)
_READERS = [
    lambda a: a.optional_int("count"),
    lambda a: a.required_string("name"),
    lambda a: a.optional_string_list("columns"),
    lambda a: a.optional_enum("mode", ["fast", "slow"], "slow"),
    lambda a: a.optional_boolean("flag", False),
    lambda a: a.optional_bounded_int("count", 1, 1, 5),
]


@given(
    st.dictionaries(st.sampled_from(["count", "name", "columns", "mode", "flag"]), _JSON) | _JSON,
    st.sampled_from(_READERS),
)
def test_any_payload_and_any_reader_give_a_value_or_an_argument_error(
    raw: object, read: Any
) -> None:
    failure: ToolError | None = None
    try:
        read(args(raw))
    except ToolError as error:
        failure = error
    if failure is not None:
        assert failure.code is ErrorCode.INVALID_ARGUMENT
        assert failure.message.strip()
