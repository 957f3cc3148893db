"""The tool contract (DESIGN.md section 3) as checks any server runs over its real registry.

Each check takes the tools (and, where it must call them, sample arguments per tool name) and
returns violation strings ``"<tool>: <reason>"`` or ``"<tool> param '<p>': <reason>"``. Every
check refuses to pass vacuously: fewer tools than ``min_tools`` is itself a violation, and the
checks that call tools report a tool without a usable sample instead of skipping it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import jsonschema

from mcp_common.arguments import Arguments, parse_arguments, wire_names
from mcp_common.context import ToolContext
from mcp_common.definition import ToolAnnotations
from mcp_common.result import ToolError, ToolResult
from mcp_common.tool import McpTool

Samples = Mapping[str, Sequence[Mapping[str, object]]]
"""Sample argument payloads per tool name: calls that should succeed on the test's fixtures."""

_TOOL_NAME = re.compile(r"[a-z][a-z0-9_]*")
_PARAMETER_NAME = re.compile(r"[a-z][a-zA-Z0-9]*")
_JSON_TYPES = frozenset({"string", "integer", "number", "boolean", "array", "object", "null"})


def _too_few(tools: Sequence[McpTool], min_tools: int) -> list[str]:
    if len(tools) < min_tools:
        return [f"registry: {len(tools)} tools, at least {min_tools} expected (nothing to check)"]
    return []


def check_names(tools: Sequence[McpTool], min_tools: int = 1) -> list[str]:
    """Tool names are snake_case and unique."""
    problems = _too_few(tools, min_tools)
    seen: set[str] = set()
    for tool in tools:
        name = tool.definition.name
        if not isinstance(name, str) or not _TOOL_NAME.fullmatch(name):
            problems.append(f"{name!r}: tool name is not snake_case ([a-z][a-z0-9_]*)")
        elif name in seen:
            problems.append(f"{name}: tool name is registered twice")
        seen.add(name)
    return problems


def check_descriptions(tools: Sequence[McpTool], min_tools: int = 1) -> list[str]:
    """Every tool and every declared parameter has a non-blank description."""
    problems = _too_few(tools, min_tools)
    for tool in tools:
        definition = tool.definition
        if not isinstance(definition.description, str) or not definition.description.strip():
            problems.append(f"{definition.name}: tool description is empty")
        for param, spec in definition.properties.items():
            text = spec.get("description") if isinstance(spec, Mapping) else None
            if not isinstance(text, str) or not text.strip():
                problems.append(f"{definition.name} param '{param}': description is empty")
    return problems


def check_input_schemas(tools: Sequence[McpTool], min_tools: int = 1) -> list[str]:
    """Input schemas are closed objects: ``type: object``, ``additionalProperties: false``,
    each property an object schema with a JSON type, ``required`` a subset of ``properties``."""
    problems = _too_few(tools, min_tools)
    for tool in tools:
        definition = tool.definition
        schema, name = definition.input_schema, definition.name
        if schema.get("type") != "object":
            problems.append(f"{name}: input schema type is {schema.get('type')!r}, not 'object'")
        if schema.get("additionalProperties") is not False:
            problems.append(f"{name}: input schema does not set additionalProperties: false")
        properties = schema.get("properties", {})
        if not isinstance(properties, Mapping):
            problems.append(f"{name}: input schema properties is not an object")
            continue
        for param, spec in properties.items():
            if not isinstance(spec, Mapping):
                problems.append(f"{name} param '{param}': declaration is not an object")
            elif isinstance(spec.get("type"), list):
                problems.append(f"{name} param '{param}': a union of types; declare one type")
            elif spec.get("type") not in _JSON_TYPES and not {"anyOf", "oneOf", "enum"} & set(spec):
                problems.append(f"{name} param '{param}': no JSON type declared")
        required = schema.get("required", [])
        if not isinstance(required, list):
            problems.append(f"{name}: input schema required is not an array")
            continue
        for param in required:
            if param not in properties:
                problems.append(f"{name} param '{param}': required but not a declared property")
        try:
            jsonschema.Draft202012Validator.check_schema(dict(schema))
        except jsonschema.SchemaError as error:
            problems.append(f"{name}: input schema is not a valid JSON schema: {error.message}")
    return problems


def check_parameter_names(tools: Sequence[McpTool], min_tools: int = 1) -> list[str]:
    """Declared parameters are lowerCamelCase ``[a-z][a-zA-Z0-9]*``."""
    problems = _too_few(tools, min_tools)
    for tool in tools:
        for param in tool.definition.properties:
            if not _PARAMETER_NAME.fullmatch(param):
                problems.append(
                    f"{tool.definition.name} param '{param}': not lowerCamelCase "
                    "([a-z][a-zA-Z0-9]*); keep an old name as a deprecated alias instead"
                )
    return problems


def check_aliases(tools: Sequence[McpTool], min_tools: int = 1) -> list[str]:
    """Deprecated aliases are not declared as properties and point at declared properties."""
    problems = _too_few(tools, min_tools)
    for tool in tools:
        definition = tool.definition
        for alias, canonical in definition.deprecated_aliases.items():
            if alias in definition.properties:
                problems.append(
                    f"{definition.name} param '{alias}': deprecated alias is declared as a property"
                )
            if canonical not in definition.properties:
                problems.append(
                    f"{definition.name} param '{alias}': alias of '{canonical}', "
                    "which is not a declared property"
                )
    return problems


def check_annotations(tools: Sequence[McpTool], min_tools: int = 1) -> list[str]:
    """Every tool declares all four behaviour hints as booleans."""
    problems = _too_few(tools, min_tools)
    for tool in tools:
        definition = tool.definition
        hints = getattr(definition, "annotations", None)
        if not isinstance(hints, ToolAnnotations):
            problems.append(f"{definition.name}: no annotations")
            continue
        for hint in ("read_only", "destructive", "idempotent", "open_world"):
            if not isinstance(getattr(hints, hint), bool):
                problems.append(f"{definition.name}: annotation {hint} is not a boolean")
        if hints.read_only and hints.destructive:
            problems.append(f"{definition.name}: annotated both read-only and destructive")
    return problems


@dataclass(frozen=True, slots=True)
class SampleCall:
    """One call of a tool on sample arguments: what it read and what it answered."""

    arguments: Mapping[str, object]
    read_names: frozenset[str]
    result: ToolResult | None
    error: str | None


class _ReadRecorder:
    """Stands in for a validated argument model and records which fields the tool reads."""

    def __init__(self, arguments: Arguments) -> None:
        self._arguments = arguments
        self._wire = {python: wire for wire, python in wire_names(type(arguments)).items()}
        self.read: set[str] = set()

    # isinstance checks inside a tool must see the model class, not the recorder
    @property  # type: ignore[misc]
    def __class__(self) -> type[Arguments]:  # type: ignore[override]
        return type(self._arguments)

    def __getattr__(self, name: str) -> Any:
        if name in self._wire:
            self.read.add(self._wire[name])
        return getattr(self._arguments, name)


def call_samples(tool: McpTool, samples: Samples) -> list[SampleCall]:
    """Call ``tool`` directly (no MCP) on each of its sample payloads, recording reads."""
    calls = []
    definition = tool.definition
    for sample in samples.get(definition.name, ()):
        arguments: _ReadRecorder | None = None
        result: ToolResult | None = None
        error: str | None = None
        try:
            parsed = parse_arguments(sample, definition.arguments, tool=definition.name)
            arguments = _ReadRecorder(parsed)
            answer: object = tool.call(arguments, ToolContext())
            if isinstance(answer, ToolResult):
                result = answer
            else:
                error = f"returned {type(answer).__name__} instead of a ToolResult"
        except ToolError as failure:
            error = f"{failure.code.value}: {failure}"
        except Exception as failure:  # a crash is reported as a failed sample, not re-raised
            error = f"{type(failure).__name__}: {failure}"
        read = frozenset(arguments.read) if arguments is not None else frozenset()
        calls.append(SampleCall(sample, read, result, error))
    return calls


def _no_samples(name: str) -> str:
    return f"{name}: no sample arguments given, so the calls were never checked"


def _recorded(
    tools: Sequence[McpTool], samples: Samples, calls: Mapping[str, list[SampleCall]] | None
) -> Mapping[str, list[SampleCall]]:
    if calls is not None:
        return calls
    return {tool.definition.name: call_samples(tool, samples) for tool in tools}


def check_read_parity(
    tools: Sequence[McpTool],
    samples: Samples,
    min_tools: int = 1,
    calls: Mapping[str, list[SampleCall]] | None = None,
) -> list[str]:
    """Every declared argument is used: read by at least one sample call (the schema is
    generated from the model the tool receives, so nothing undeclared can be read).
    ``calls`` reuses calls already made."""
    problems = _too_few(tools, min_tools)
    recorded = _recorded(tools, samples, calls)
    for tool in tools:
        definition = tool.definition
        calls_of_tool = recorded.get(definition.name, [])
        if not calls_of_tool:
            problems.append(_no_samples(definition.name))
            continue
        read = frozenset().union(*(call.read_names for call in calls_of_tool))
        for param in sorted(set(definition.properties) - read):
            problems.append(f"{definition.name} param '{param}': declared, never read by the code")
    return problems


def check_output_schemas(
    tools: Sequence[McpTool],
    samples: Samples,
    min_tools: int = 1,
    calls: Mapping[str, list[SampleCall]] | None = None,
) -> list[str]:
    """Output schema if and only if structured content, and the content validates.

    A tool with an output schema must return structured content that validates against it on
    every successful sample call; a tool without one must return none. At least one sample call
    of each tool must succeed, or the check would have checked nothing.
    """
    problems = _too_few(tools, min_tools)
    recorded = _recorded(tools, samples, calls)
    for tool in tools:
        definition = tool.definition
        name, schema = definition.name, definition.output_schema
        if schema is not None:
            problems.extend(_output_schema_problems(name, schema))
        calls_of_tool = recorded.get(name, [])
        if not calls_of_tool:
            problems.append(_no_samples(name))
            continue
        successes = [
            c.result for c in calls_of_tool if c.result is not None and not c.result.is_error
        ]
        if not successes:
            failures = "; ".join(
                c.error or (c.result.text if c.result else "no result") for c in calls_of_tool
            )
            problems.append(f"{name}: no sample call succeeded ({failures[:300]})")
        for result in successes:
            structured = result.structured
            if schema is None and structured is not None:
                problems.append(f"{name}: returns structured content but declares no output schema")
            elif schema is not None and structured is None:
                problems.append(
                    f"{name}: declares an output schema but returned no structured content"
                )
            elif schema is not None and structured is not None:
                validator = jsonschema.Draft202012Validator(dict(schema))
                for error in validator.iter_errors(structured):
                    where = "/".join(str(p) for p in error.absolute_path) or "(root)"
                    problems.append(f"{name}: structured content at {where}: {error.message}")
    return problems


def check_answers(
    tools: Sequence[McpTool],
    samples: Samples,
    min_tools: int = 1,
    calls: Mapping[str, list[SampleCall]] | None = None,
) -> list[str]:
    """A successful answer never hides a failure: its Markdown is not blank and does not
    start with ``Error:`` (failures are error results)."""
    problems = _too_few(tools, min_tools)
    recorded = _recorded(tools, samples, calls)
    for tool in tools:
        name = tool.definition.name
        for call in recorded.get(name, []):
            result = call.result
            if result is None:
                continue
            if not result.is_error and not result.text.strip():
                problems.append(f"{name}: a successful answer with no text")
            elif not result.is_error and result.text.lstrip().lower().startswith("error:"):
                problems.append(f"{name}: a successful answer reading like a failure (Error: ...)")
    return problems


def _output_schema_problems(name: str, schema: Mapping[str, Any]) -> list[str]:
    problems = []
    if schema.get("type") != "object":
        problems.append(f"{name}: output schema type is {schema.get('type')!r}, not 'object'")
    try:
        jsonschema.Draft202012Validator.check_schema(dict(schema))
    except jsonschema.SchemaError as error:
        problems.append(f"{name}: output schema is not a valid JSON schema: {error.message}")
    return problems


StaticCheck = Callable[[Sequence[McpTool], int], list[str]]

STATIC_CHECKS: tuple[StaticCheck, ...] = (
    check_names,
    check_descriptions,
    check_input_schemas,
    check_parameter_names,
    check_aliases,
    check_annotations,
)
"""Checks that read definitions only; :func:`check_read_parity`, :func:`check_output_schemas`
and :func:`check_answers` also call the tools."""


def contract_violations(
    tools: Sequence[McpTool], samples: Samples, min_tools: int = 1
) -> list[str]:
    """Every violation of every check, in check order."""
    problems: list[str] = []
    for static in STATIC_CHECKS:
        problems.extend(static(tools, min_tools))
    calls = _recorded(tools, samples, None)
    problems.extend(check_read_parity(tools, samples, min_tools, calls))
    problems.extend(check_output_schemas(tools, samples, min_tools, calls))
    problems.extend(check_answers(tools, samples, min_tools, calls))
    unknown = sorted(set(samples) - {tool.definition.name for tool in tools})
    problems.extend(f"{name}: samples given for a tool that is not registered" for name in unknown)
    return list(dict.fromkeys(problems))


def run_contract_checks(tools: Sequence[McpTool], samples: Samples, min_tools: int = 1) -> None:
    """Assert the whole contract; one failure lists every violation."""
    problems = contract_violations(tools, samples, min_tools)
    if problems:
        raise AssertionError(f"{len(problems)} tool contract violation(s):\n" + "\n".join(problems))
