"""Tool calls emit OpenTelemetry spans and metrics (names, outcomes, sizes; never values)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from adapter_tools import BlockTool
from mcp.client.client import Client
from mcp_common.adapter.telemetry import configure_telemetry
from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

pytestmark = pytest.mark.anyio

SECRET_VALUE = "Ada-the-secret-value"


class Recorded:
    def __init__(self) -> None:
        self.spans = InMemorySpanExporter()
        self.metrics = InMemoryMetricReader()

    def tool_spans(self, tool: str) -> list[ReadableSpan]:
        return [s for s in self.spans.get_finished_spans() if s.name == f"execute_tool {tool}"]

    def points(self, metric: str) -> list[Any]:
        data = self.metrics.get_metrics_data()
        assert data is not None
        return [
            point
            for resource in data.resource_metrics
            for scope in resource.scope_metrics
            for found in scope.metrics
            if found.name == metric
            for point in found.data.data_points
        ]


@pytest.fixture(scope="module")
def recorded() -> Iterator[Recorded]:
    """The process's OpenTelemetry SDK, recording in memory (set once: the API allows one)."""
    recording = Recorded()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(recording.spans))
    trace.set_tracer_provider(tracer_provider)
    metrics.set_meter_provider(MeterProvider(metric_readers=[recording.metrics]))
    yield recording
    tracer_provider.shutdown()


@pytest.fixture
def fresh(recorded: Recorded) -> Recorded:
    recorded.spans.clear()
    return recorded


def attribute_values(span: ReadableSpan) -> str:
    return repr(dict(span.attributes or {}))


async def test_a_successful_call_is_a_span_and_metrics_without_values(
    client: Client, fresh: Recorded
) -> None:
    await client.call_tool("greet", {"name": SECRET_VALUE})
    (span,) = fresh.tool_spans("greet")
    attributes = dict(span.attributes or {})
    assert attributes["gen_ai.tool.name"] == "greet"
    assert attributes["mcp.tool.outcome"] == "success"
    assert attributes["mcp.tool.arguments.count"] == 1
    assert attributes["mcp.tool.arguments.bytes"] == len(f'{{"name": "{SECRET_VALUE}"}}')
    assert "mcp.tool.error_code" not in attributes
    assert SECRET_VALUE not in attribute_values(span)
    # inside the SDK's span for the JSON-RPC message
    assert span.parent is not None
    calls = fresh.points("mcp.tool.calls")
    assert any(
        p.attributes == {"gen_ai.tool.name": "greet", "mcp.tool.outcome": "success"} and p.value
        for p in calls
    )
    durations = [
        p for p in fresh.points("mcp.tool.duration") if p.attributes["gen_ai.tool.name"] == "greet"
    ]
    assert durations
    assert durations[0].count >= 1
    sizes = fresh.points("mcp.tool.arguments.size")
    assert any(p.attributes == {"gen_ai.tool.name": "greet"} for p in sizes)


@pytest.mark.parametrize(
    ("tool", "arguments", "code"),
    [
        ("explode", {"password": SECRET_VALUE}, "failed"),
        ("refuse", {}, "not_found"),
        ("greet", {"name": SECRET_VALUE, "nickname": "x"}, "invalid_argument"),
        ("wrong", {}, "failed"),
    ],
    ids=["exception", "tool-error", "bad-arguments", "not-a-result"],
)
async def test_a_failed_call_records_outcome_and_code(
    client: Client, fresh: Recorded, tool: str, arguments: dict[str, Any], code: str
) -> None:
    result = await client.call_tool(tool, arguments)
    assert result.is_error
    (span,) = fresh.tool_spans(tool)
    attributes = dict(span.attributes or {})
    assert (attributes["mcp.tool.outcome"], attributes["mcp.tool.error_code"]) == ("error", code)
    assert span.status.status_code is StatusCode.ERROR
    assert SECRET_VALUE not in attribute_values(span)
    assert SECRET_VALUE not in (span.status.description or "")
    expected = {"gen_ai.tool.name": tool, "mcp.tool.outcome": "error", "mcp.tool.error_code": code}
    assert any(p.attributes == expected for p in fresh.points("mcp.tool.calls"))


async def test_a_cancelled_call_is_recorded_as_cancelled(
    client: Client, fresh: Recorded, block_tool: BlockTool
) -> None:
    async with anyio.create_task_group() as group:
        group.start_soon(client.call_tool, "block", {})
        await anyio.to_thread.run_sync(block_tool.started.wait, 10)
        group.cancel_scope.cancel()
    with anyio.fail_after(10):
        while not fresh.tool_spans("block"):
            await anyio.sleep(0.05)
    (span,) = fresh.tool_spans("block")
    assert dict(span.attributes or {})["mcp.tool.outcome"] == "cancelled"


@pytest.mark.parametrize(
    "environ",
    [{}, {"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}],
    ids=["nothing-configured", "sdk-disabled"],
)
def test_nothing_is_exported_unless_configured(environ: dict[str, str]) -> None:
    assert configure_telemetry("demo", environ) is False
