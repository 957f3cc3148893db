"""Argument models: coercion, strictness, aliases, unknown arguments, size limits, schemas."""

from __future__ import annotations

import logging
from enum import StrEnum
from typing import Annotated, Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp_common import (
    Arguments,
    Between,
    Bool,
    Clamp,
    Deprecated,
    ErrorCode,
    Int,
    NonEmpty,
    OneOf,
    Str,
    StrList,
    ToolAnnotations,
    ToolDefinition,
    ToolError,
    parse_arguments,
)
from pydantic import Field


class Mode(StrEnum):
    FAST = "fast"
    SLOW = "slow"


class Sample(Arguments):
    count: Int | None = Field(None, description="A count.")
    name: Str | None = Field(None, description="A name.", max_length=8)
    columns: Annotated[StrList, Deprecated("columns_name")] = Field(description="Column names.")
    mode: Annotated[Str, OneOf(Mode)] = Field("slow", description="fast or slow.")
    flag: Bool = Field(False, description="A switch.")
    bounded: Annotated[Int, Between(1, 5)] = Field(1, description="1..5.")
    clamped: Annotated[Int, Clamp(1, 5)] = Field(3, description="Clamped to 1..5.")
    wanted: Annotated[StrList | None, NonEmpty()] = Field(None, description="At least one.")


def args(raw: object) -> Sample:
    return parse_arguments(raw, Sample, tool="sample_tool")


def with_columns(**values: object) -> dict[str, object]:
    return {"columns": "a", **values}


def refused(raw: object) -> str:
    with pytest.raises(ToolError) as caught:
        args(raw)
    assert caught.value.code is ErrorCode.INVALID_ARGUMENT
    return caught.value.message


@pytest.mark.parametrize(
    ("given", "expected"), [("1", 1), (" 1 ", 1), ("+5", 5), ("-3", -3), (7, 7)]
)
def test_integers_accept_numeric_text(given: object, expected: int) -> None:
    assert args(with_columns(count=given)).count == expected


@pytest.mark.parametrize("given", [1.0, True, "abc", "1.5", "-", "１２", [1], "9" * 19])
def test_integers_refuse_floats_booleans_and_junk_naming_the_argument(given: object) -> None:
    assert refused(with_columns(count=given)).startswith("count must be an integer but was ")


def test_blank_strings_and_nulls_count_as_absent() -> None:
    arguments = args(with_columns(name="   ", count="", flag=None))
    assert arguments.name is None
    assert arguments.count is None
    assert arguments.flag is False
    assert refused({"columns": " "}) == "missing required argument: columns"


def test_strings_accept_numbers_but_not_objects() -> None:
    assert args(with_columns(name=5)).name == "5"
    assert "name must be a string" in refused(with_columns(name={"a": 1}))
    assert "name must be a string" in refused(with_columns(name=True))


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
    assert args({"columns": given}).columns == expected


def test_string_lists_refuse_nested_values_and_non_empty_lists_refuse_empty_ones() -> None:
    assert "columns must hold only strings" in refused({"columns": [["x"]]})
    assert "columns must hold only strings" in refused({"columns": '[1, {"a": 1}]'})
    assert refused(with_columns(wanted="[]")) == "wanted needs at least one value"
    assert args(with_columns()).wanted is None


def test_choices_match_case_insensitively_and_name_the_choices() -> None:
    assert args(with_columns(mode=" FAST ")).mode == "fast"
    assert args(with_columns()).mode == "slow"
    assert refused(with_columns(mode="medium")) == "mode must be one of fast, slow but was 'medium'"


@pytest.mark.parametrize(
    ("given", "expected"), [(True, True), ("YES", True), ("0", False), ("False", False)]
)
def test_booleans(given: object, expected: bool) -> None:
    assert args(with_columns(flag=given)).flag is expected


@pytest.mark.parametrize("given", [1, "maybe", [True]])
def test_booleans_refuse_other_values(given: object) -> None:
    assert "flag must be true or false" in refused(with_columns(flag=given))


def test_bounded_ints_refuse_and_clamped_ints_clamp() -> None:
    assert args(with_columns(bounded="5")).bounded == 5
    assert refused(with_columns(bounded=6)) == "bounded must be between 1 and 5 but was 6"
    assert args(with_columns(clamped=0)).clamped == 1
    assert args(with_columns(clamped=99)).clamped == 5


def test_required_arguments_are_named_when_missing() -> None:
    assert refused({}) == "missing required argument: columns"


def test_unknown_arguments_are_refused_with_a_did_you_mean() -> None:
    assert refused({"colums": ["a"]}).startswith(
        "unknown argument 'colums'. Did you mean 'columns'?"
    )
    assert "Did you mean 'count'?" in refused({"Count": 1})
    assert "Did you mean 'columns'?" in refused({"column_name": "a"})
    assert refused({"zzz": 1}) == (
        "unknown argument 'zzz'. Accepted arguments: bounded, clamped, columns, count, flag, "
        "mode, name, wanted"
    )


def test_a_huge_unknown_argument_name_is_cut_in_the_message() -> None:
    message = refused({"k" * 100_000: 1})
    assert message.startswith("unknown argument '" + "k" * 61 + "...'. Accepted arguments:")


def test_deprecated_alias_resolves_and_warns(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="mcp_common.arguments"):
        arguments = args({"columns_name": "a,b"})
    assert arguments.columns == ["a", "b"]
    assert "argument 'columns_name' is deprecated, use 'columns'" in caplog.text


def test_alias_with_a_different_canonical_value_is_a_conflict() -> None:
    message = refused({"columns": "a", "columns_name": "b"})
    assert message == "columns_name is a deprecated alias of columns; give only one of them"
    assert args({"columns": "a", "columns_name": "a"}).columns == ["a"]


def test_oversized_strings_are_refused_by_max_length_and_default_cap() -> None:
    assert refused(with_columns(name="x" * 9)) == (
        "name is 9 characters long; at most 8 are accepted"
    )
    assert "at most 100000 are accepted" in refused(with_columns(mode="x" * 100_001))
    assert "at most 100000 are accepted" in refused({"columns": ["ok", "x" * 100_001]})
    assert "at most 100000 are accepted" in refused({"columns": {"deep": [["x" * 100_001]]}})
    assert "more than 10000 items" in refused({"columns": [[0] * 6000, [0] * 6000]})


def test_deep_nesting_is_refused_before_validation() -> None:
    deep: object = "a"
    for _ in range(500):
        deep = [deep]
    assert refused({"columns": deep}) == "columns is nested more than 32 levels deep"


@pytest.mark.parametrize("raw", [[1], "text", 3, True])
def test_non_object_payloads_are_refused(raw: object) -> None:
    assert refused(raw).startswith("arguments must be a JSON object of named arguments")


def test_error_messages_never_carry_a_credential_even_when_cut() -> None:
    value = "x" * 30 + " https://user:hunter2secret@host/x"
    assert "hunter2" not in refused(with_columns(count=value))


def test_the_input_schema_is_generated_from_the_model() -> None:
    definition = ToolDefinition(
        name="sample_tool",
        description="Reads every kind of argument.",
        arguments=Sample,
        annotations=ToolAnnotations.read_only_tool(),
    )
    schema = definition.input_schema
    assert schema["additionalProperties"] is False
    assert schema["required"] == ["columns"]
    properties = schema["properties"]
    assert list(properties) == [
        "count",
        "name",
        "columns",
        "mode",
        "flag",
        "bounded",
        "clamped",
        "wanted",
    ]
    assert properties["count"] == {"type": "integer", "description": "A count."}
    assert properties["name"] == {"type": "string", "maxLength": 8, "description": "A name."}
    assert properties["mode"] == {
        "type": "string",
        "enum": ["fast", "slow"],
        "default": "slow",
        "description": "fast or slow.",
    }
    assert properties["bounded"]["minimum"] == 1
    assert properties["bounded"]["maximum"] == 5
    assert definition.deprecated_aliases == {"columns_name": "columns"}
    assert all("title" not in spec for spec in properties.values())


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=10,
)


@given(
    st.dictionaries(
        st.sampled_from(["count", "name", "columns", "mode", "flag", "bounded", "wanted"]), _JSON
    )
    | _JSON
)
def test_any_payload_gives_a_model_or_an_argument_error(raw: Any) -> None:
    failure: ToolError | None = None
    try:
        parsed = args(raw)
    except ToolError as error:
        failure = error
    if failure is not None:
        assert failure.code is ErrorCode.INVALID_ARGUMENT
        assert failure.message.strip()
    else:
        assert isinstance(parsed, Sample)
