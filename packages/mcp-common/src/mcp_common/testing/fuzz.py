"""Hypothesis fuzzing of tool arguments through the real adapter and an SDK client.

Whatever a client sends (right and wrong types, unknown keys, huge strings, nested junk,
payloads that are not objects), every answer must be a tool result: never a protocol error,
never traceback text, never a path of the server's own installation or of the roots the test
names, never the canary credential planted in URL-shaped arguments.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import anyio.from_thread
import mcp_types as types
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp.client.client import Client

import mcp_common
from mcp_common.adapter import ServerApp
from mcp_common.adapter.logging_setup import LOG_FORMAT, MaskingFormatter
from mcp_common.testing.client import call_tool_raw, in_process_client, result_text, wire_tools_list
from mcp_common.tool import McpTool

CANARY_SECRET = "canarySecret7f3a"  # noqa: S105 - a planted fake, not a credential
"""Planted as the password of URL-shaped fuzz values; no answer may ever contain it."""

_TRACEBACK_MARKERS = ("Traceback (most recent call last)", 'File "')

_NASTY_STRINGS = (
    "",
    "   ",
    "../../../../etc/passwd",
    "/etc/passwd",
    "C:\\Windows\\win.ini",
    "~/.ssh/id_rsa",
    "--upload-pack=false",
    "-rf",
    "a\x00b",
    "a|b\r\nc",
    "'; DROP TABLE t; --",
    "%s%n{0}{{7*7}}",
    "x" * 100_001,
)

_CANARY_URLS = (
    f"https://fuzzer:{CANARY_SECRET}@example.invalid/org/repo.git",
    f"postgresql://fuzzer:{CANARY_SECRET}@localhost:1/db",
)
_STRINGS = st.one_of(
    st.text(max_size=24), st.sampled_from(_NASTY_STRINGS), st.sampled_from(_CANARY_URLS)
)
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | _STRINGS
)
_JUNK = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


def _right_type(spec: Mapping[str, Any]) -> st.SearchStrategy[Any]:
    strings = _STRINGS
    by_type: dict[str, st.SearchStrategy[Any]] = {
        "string": strings,
        "integer": st.integers() | st.integers(-3, 12).map(str),
        "number": st.floats(allow_nan=False, allow_infinity=False),
        "boolean": st.booleans() | st.sampled_from(["true", "no", "maybe"]),
        "array": st.lists(strings, max_size=4) | strings,
        "object": st.dictionaries(st.text(max_size=6), _SCALARS, max_size=3),
    }
    value = by_type.get(str(spec.get("type")), _JUNK)
    choices = spec.get("enum")
    if isinstance(choices, list) and choices:
        value = st.sampled_from(choices) | value
    return value


def payloads(input_schema: Mapping[str, Any]) -> st.SearchStrategy[object]:
    """Argument payloads for one tool: mostly objects over its declared properties (each value
    of the right type or junk), some with unknown keys, some that are not objects at all."""
    properties = input_schema.get("properties", {})
    declared = {
        name: st.one_of(_right_type(spec), _right_type(spec), _JUNK)
        for name, spec in properties.items()
        if isinstance(spec, Mapping)
    }
    objects = st.fixed_dictionaries({}, optional=declared)
    unknown = st.dictionaries(
        st.text(min_size=1, max_size=12).filter(lambda key: key not in properties),
        _JUNK,
        min_size=1,
        max_size=2,
    )
    with_unknown = st.tuples(objects, unknown).map(lambda pair: {**pair[0], **pair[1]})
    non_objects = _JUNK.filter(lambda value: not isinstance(value, dict))
    return st.one_of(objects, objects, objects, with_unknown, non_objects)


def _default_forbidden() -> list[str]:
    # the server's own installation shows up in tracebacks and unredacted paths
    paths = [sys.prefix, str(Path(mcp_common.__file__).parent), str(Path.cwd())]
    return [path for path in paths if len(Path(path).parts) > 2]


def answer_problems(tool: str, result: types.CallToolResult, forbidden: Sequence[str]) -> list[str]:
    """What is wrong with one answer: traceback text, a forbidden string, the canary."""
    text = result_text(result)
    if result.structured_content is not None:
        text += "\n" + json.dumps(result.structured_content, ensure_ascii=False)
    problems = [f"{tool}: traceback text in the answer" for m in _TRACEBACK_MARKERS if m in text]
    problems += [
        f"{tool}: the answer contains {needle!r}" for needle in forbidden if needle in text
    ]
    if CANARY_SECRET in text:
        problems.append(f"{tool}: the answer leaks a credential given in the arguments")
    if result.is_error and not text.strip():
        problems.append(f"{tool}: an error result with no message")
    return problems


class _LogLines(logging.Handler):
    """Every record formatted as the server's log handler would write it."""

    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(MaskingFormatter(LOG_FORMAT))
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


def fuzz_tools(
    target: ServerApp[Any] | Sequence[McpTool],
    argv: Sequence[str] = (),
    *,
    forbidden: Sequence[str] = (),
    max_examples: int = 60,
    environ: Mapping[str, str] | None = None,
) -> None:
    """Fuzz every tool of ``target`` through an in-process SDK client; fail on the first
    protocol error, traceback, forbidden string (``forbidden`` plus the server's installation
    and working directory) or canary credential in an answer or a log line (formatted as the
    server's log handler writes it), showing the payload that caused it.

    Pass the server's roots and temporary directories as ``forbidden``. The examples are
    derandomized, so a run in CI repeats exactly what ran on the developer's machine.
    """
    needles = [*forbidden, *_default_forbidden()]
    # failures are raised only after the connection closed: raised inside, they would reach
    # the test wrapped in the client's task-group exception groups
    failure: Exception | None = None
    with anyio.from_thread.start_blocking_portal() as portal:
        connection = in_process_client(target, argv, environ=environ)
        with portal.wrap_async_context_manager(connection) as client:
            try:
                _fuzz(portal, client, needles, max_examples)
            except Exception as error:
                failure = error
    if failure is not None:
        raise failure


def _fuzz(
    portal: anyio.from_thread.BlockingPortal,
    client: Client,
    needles: Sequence[str],
    max_examples: int,
) -> None:
    tools = portal.call(wire_tools_list, client)
    if not tools:
        raise AssertionError("fuzz_tools: the server lists no tools, nothing to fuzz")
    schemas = {tool["name"]: tool.get("inputSchema", {}) for tool in tools}
    calls = st.sampled_from(sorted(schemas)).flatmap(
        lambda name: st.tuples(st.just(name), payloads(schemas[name]))
    )

    log = _LogLines()

    @settings(
        max_examples=max_examples,
        deadline=None,
        database=None,
        derandomize=True,
        report_multiple_bugs=False,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(calls)
    def one_call(call: tuple[str, object]) -> None:
        name, arguments = call
        log.lines.clear()
        result = _call(portal, client, name, arguments)
        problems = answer_problems(name, result, needles)
        if any(CANARY_SECRET in line for line in log.lines):
            problems.append(f"{name}: the log leaks a credential given in the arguments")
        shown = repr(arguments)
        shown = shown if len(shown) <= 300 else shown[:297] + "..."
        assert not problems, "\n".join(problems) + f"\narguments sent: {shown}"

    logging.getLogger().addHandler(log)
    try:
        one_call()
    finally:
        logging.getLogger().removeHandler(log)
    # the server still serves after everything it was sent
    portal.call(wire_tools_list, client)


def _call(
    portal: anyio.from_thread.BlockingPortal, client: Client, name: str, arguments: object
) -> types.CallToolResult:
    try:
        return portal.call(call_tool_raw, client, name, arguments)
    except Exception as error:
        raise AssertionError(
            f"{name}: protocol error instead of a tool result: {type(error).__name__}: {error}"
        ) from error
