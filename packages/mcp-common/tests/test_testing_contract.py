"""The contract checks catch each violation they exist for, and pass a good registry."""

from __future__ import annotations

import pytest
from kit_tools import SAMPLES, CountAnswer, KitTool, RepeatArguments
from mcp_common import StructuredResult, ToolError, ToolResult
from mcp_common.testing import (
    STATIC_CHECKS,
    check_aliases,
    check_annotations,
    check_answers,
    check_descriptions,
    check_input_schemas,
    check_names,
    check_output_schemas,
    check_parameter_names,
    check_read_parity,
    contract_violations,
    run_contract_checks,
)


def test_a_good_registry_passes_every_check() -> None:
    tools = [KitTool(), KitTool(name="other_tool")]
    samples = {**SAMPLES, "other_tool": SAMPLES["repeat_text"]}
    assert contract_violations(tools, samples, min_tools=2) == []
    run_contract_checks(tools, samples, min_tools=2)


@pytest.mark.parametrize("check", STATIC_CHECKS)
def test_every_static_check_refuses_an_empty_or_short_registry(check: object) -> None:
    assert callable(check)
    assert check([], 1) == ["registry: 0 tools, at least 1 expected (nothing to check)"]
    assert check([KitTool()], 2)[0].startswith("registry: 1 tools, at least 2")


def test_calling_checks_refuse_an_empty_registry_and_missing_samples() -> None:
    assert check_read_parity([], {})[0].startswith("registry: 0 tools")
    assert check_output_schemas([], {})[0].startswith("registry: 0 tools")
    missing = "repeat_text: no sample arguments given, so the calls were never checked"
    assert check_read_parity([KitTool()], {}) == [missing]
    assert check_output_schemas([KitTool()], {}) == [missing]


def test_names_must_be_snake_case_and_unique() -> None:
    problems = check_names([KitTool(name="RepeatText"), KitTool(), KitTool()])
    assert problems == [
        "'RepeatText': tool name is not snake_case ([a-z][a-z0-9_]*)",
        "repeat_text: tool name is registered twice",
    ]


def test_descriptions_of_tools_and_parameters_must_not_be_blank() -> None:
    tool = KitTool(
        description="  ",
        properties={"text": {"type": "string"}, "repeat": {"type": "integer", "description": ""}},
    )
    assert check_descriptions([tool]) == [
        "repeat_text: tool description is empty",
        "repeat_text param 'text': description is empty",
        "repeat_text param 'repeat': description is empty",
    ]


def test_parameter_names_must_be_lower_camel_case() -> None:
    tool = KitTool(
        properties={
            "max_rows": {"type": "integer", "description": "d"},
            "MaxRows": {"type": "integer", "description": "d"},
            "maxRows": {"type": "integer", "description": "d"},
        },
        required=(),
    )
    assert [p.split(":")[0] for p in check_parameter_names([tool])] == [
        "repeat_text param 'max_rows'",
        "repeat_text param 'MaxRows'",
    ]


def test_input_schemas_must_be_closed_objects_with_required_declared() -> None:
    open_schema = KitTool(schema_patch={"additionalProperties": True})
    assert check_input_schemas([open_schema]) == [
        "repeat_text: input schema does not set additionalProperties: false"
    ]
    undeclared = KitTool(required=("text", "count"))
    assert check_input_schemas([undeclared]) == [
        "repeat_text param 'count': required but not a declared property"
    ]
    untyped = KitTool(properties={"text": {"description": "d"}})
    assert check_input_schemas([untyped]) == ["repeat_text param 'text': no JSON type declared"]
    union = KitTool(properties={"text": {"type": ["string", "null"], "description": "d"}})
    assert check_input_schemas([union]) == [
        "repeat_text param 'text': a union of types; declare one type"
    ]
    not_object = KitTool(schema_patch={"type": "array"})
    assert "input schema type is 'array', not 'object'" in check_input_schemas([not_object])[0]


def test_aliases_must_not_be_declared_and_must_point_at_declared_parameters() -> None:
    declared = KitTool(
        properties={
            "text": {"type": "string", "description": "d"},
            "repeat": {"type": "integer", "description": "d"},
            "repeat_count": {"type": "integer", "description": "d"},
        }
    )
    dangling = KitTool(aliases={"old_text": "texts"})
    assert check_aliases([declared, dangling]) == [
        "repeat_text param 'repeat_count': deprecated alias is declared as a property",
        "repeat_text param 'old_text': alias of 'texts', which is not a declared property",
    ]


def test_annotations_must_be_present_and_consistent() -> None:
    assert check_annotations([KitTool(annotations=None)]) == ["repeat_text: no annotations"]


def test_read_parity_catches_unread_declarations() -> None:
    def ignores_repeat(arguments: RepeatArguments) -> ToolResult:
        return ToolResult.success(arguments.text, CountAnswer(count=1))

    assert check_read_parity([KitTool()], SAMPLES) == []
    assert check_read_parity([KitTool(run=ignores_repeat)], SAMPLES) == [
        "repeat_text param 'repeat': declared, never read by the code"
    ]


def test_read_parity_takes_the_union_over_samples() -> None:
    def branches(arguments: RepeatArguments) -> ToolResult:
        if arguments.text == "a":
            assert arguments.repeat >= 1
        return ToolResult.success("x", CountAnswer(count=1))

    tool = KitTool(run=branches)
    assert check_read_parity([tool], {"repeat_text": [{"text": "b"}]}) != []
    assert check_read_parity([tool], {"repeat_text": [{"text": "b"}, {"text": "a"}]}) == []


def test_read_recording_lets_a_tool_check_its_argument_model() -> None:
    def checks_type(arguments: RepeatArguments) -> ToolResult:
        assert isinstance(arguments, RepeatArguments)
        return ToolResult.success(arguments.text * arguments.repeat, CountAnswer(count=1))

    assert contract_violations([KitTool(run=checks_type)], SAMPLES) == []


def test_output_schema_if_and_only_if_valid_structured_content() -> None:
    def no_structured(arguments: RepeatArguments) -> ToolResult:
        return ToolResult.success(arguments.text * arguments.repeat)

    class WordAnswer(StructuredResult):
        count: str

    def wrong_shape(arguments: RepeatArguments) -> ToolResult:
        return ToolResult.success(arguments.text * arguments.repeat, WordAnswer(count="two"))

    assert check_output_schemas([KitTool(run=no_structured)], SAMPLES) == [
        "repeat_text: declares an output schema but returned no structured content"
    ]
    assert check_output_schemas([KitTool(output_schema=None)], SAMPLES) == [
        "repeat_text: returns structured content but declares no output schema"
    ]
    assert check_output_schemas([KitTool(run=wrong_shape)], SAMPLES) == [
        "repeat_text: structured content at count: 'two' is not of type 'integer'"
    ]
    assert check_output_schemas([KitTool(output_schema={"type": "array"})], SAMPLES)[0] == (
        "repeat_text: output schema type is 'array', not 'object'"
    )


def test_output_check_needs_one_successful_sample_call() -> None:
    def always_fails(arguments: RepeatArguments) -> ToolResult:
        raise ToolError("no such file", "not_found")

    def crashes(arguments: RepeatArguments) -> ToolResult:
        raise RuntimeError("boom")

    assert check_output_schemas([KitTool(run=always_fails)], SAMPLES) == [
        "repeat_text: no sample call succeeded (not_found: no such file)"
    ]
    assert check_output_schemas([KitTool(run=crashes)], SAMPLES) == [
        "repeat_text: no sample call succeeded (RuntimeError: boom)"
    ]
    bad_sample = {"repeat_text": [{"txt": "a"}]}
    assert "unknown argument 'txt'" in check_output_schemas([KitTool()], bad_sample)[0]


def test_successes_must_not_hide_failures_and_answers_must_be_results() -> None:
    def bare_error(arguments: RepeatArguments) -> ToolResult:
        return ToolResult.success(
            f"Error: no file {arguments.text * arguments.repeat}", CountAnswer(count=0)
        )

    def blank(arguments: RepeatArguments) -> ToolResult:
        return ToolResult.success(" " * arguments.repeat, CountAnswer(count=0))

    def text_only(arguments: RepeatArguments) -> str:
        return "done"

    assert check_answers(
        [KitTool(run=bare_error), KitTool(name="blank_tool", run=blank)],
        {
            "repeat_text": SAMPLES["repeat_text"],
            "blank_tool": SAMPLES["repeat_text"],
        },
    ) == [
        "repeat_text: a successful answer reading like a failure (Error: ...)",
        "blank_tool: a successful answer with no text",
    ]
    assert check_output_schemas([KitTool(run=text_only)], SAMPLES) == [  # type: ignore[arg-type]
        "repeat_text: no sample call succeeded (returned str instead of a ToolResult)"
    ]
    assert check_answers([], {}) == ["registry: 0 tools, at least 1 expected (nothing to check)"]


def test_run_contract_checks_aggregates_every_violation_in_one_message() -> None:
    tools = [KitTool(name="Bad", description="")]
    with pytest.raises(AssertionError) as caught:
        run_contract_checks(tools, {"Bad": SAMPLES["repeat_text"], "ghost": []})
    message = str(caught.value)
    assert message.startswith("3 tool contract violation(s):\n")
    assert "'Bad': tool name is not snake_case" in message
    assert "Bad: tool description is empty" in message
    assert "ghost: samples given for a tool that is not registered" in message
