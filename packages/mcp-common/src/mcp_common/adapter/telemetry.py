"""OpenTelemetry for tool calls: one span and a few metrics per call, never argument values.

Instrumented through the OpenTelemetry API only, so nothing is recorded or exported until an
SDK is set up. :func:`configure_telemetry` sets one up when the standard ``OTEL_*`` variables
ask for OTLP export (``OTEL_EXPORTER_OTLP_ENDPOINT`` and friends, or ``OTEL_TRACES_EXPORTER`` /
``OTEL_METRICS_EXPORTER`` set to ``otlp``) and the ``mcp-tools-common[otel]`` extra is installed;
the exporter itself reads the rest (headers, protocol details, service name, resource).

Per call: a span ``execute_tool <tool>`` (inside the SDK's span ``tools/call <tool>``) with
``gen_ai.tool.name``, ``mcp.tool.outcome`` (``success``, ``error``, ``cancelled``),
``mcp.tool.error_code``, ``mcp.tool.arguments.count`` and ``mcp.tool.arguments.bytes``; the
metrics ``mcp.tool.calls`` (counter), ``mcp.tool.duration`` (seconds) and
``mcp.tool.arguments.size`` (bytes), with the tool name, outcome and error code as attributes.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from time import perf_counter
from typing import Any

from opentelemetry import metrics, trace
from opentelemetry.trace import SpanKind, Status, StatusCode

_log = logging.getLogger("mcp_common.adapter")

INSTRUMENTATION = "mcp_common"
OUTCOME_SUCCESS = "success"
OUTCOME_ERROR = "error"
OUTCOME_CANCELLED = "cancelled"

_tracer = trace.get_tracer(INSTRUMENTATION)
_meter = metrics.get_meter(INSTRUMENTATION)
_calls = _meter.create_counter("mcp.tool.calls", unit="{call}", description="Tool calls")
_duration = _meter.create_histogram(
    "mcp.tool.duration", unit="s", description="Duration of tool calls"
)
_argument_size = _meter.create_histogram(
    "mcp.tool.arguments.size", unit="By", description="Size of tool-call arguments as JSON"
)


def _json_size(arguments: object) -> int:
    try:
        return len(json.dumps(arguments, ensure_ascii=False, default=str).encode())
    except (TypeError, ValueError, RecursionError):
        return 0


@dataclass
class CallRecord:
    """What one call reports when it ends: its outcome and, for a failure, the error code."""

    outcome: str = OUTCOME_SUCCESS
    error_code: str | None = None
    attributes: dict[str, Any] = field(default_factory=dict)

    def failed(self, code: str, outcome: str = OUTCOME_ERROR) -> None:
        """Mark the call failed with ``code`` (``cancelled`` for a cancelled call)."""
        self.outcome = outcome
        self.error_code = code


@contextmanager
def tool_call(name: str, arguments: object) -> Iterator[CallRecord]:
    """Trace and measure one call of tool ``name``; the caller fills in the outcome."""
    record = CallRecord()
    started = perf_counter()
    with _tracer.start_as_current_span(
        f"execute_tool {name}",
        kind=SpanKind.INTERNAL,
        attributes={"gen_ai.tool.name": name},
        record_exception=False,
        set_status_on_exception=False,
    ) as span:
        # sizing the arguments costs a serialization: only when someone records it
        size = _json_size(arguments) if span.is_recording() else 0
        count = len(arguments) if isinstance(arguments, Mapping) else 0
        try:
            yield record
        except BaseException:
            if record.outcome == OUTCOME_SUCCESS:
                record.failed(OUTCOME_CANCELLED, OUTCOME_CANCELLED)
            raise
        finally:
            common: dict[str, Any] = {"gen_ai.tool.name": name, "mcp.tool.outcome": record.outcome}
            if record.error_code is not None:
                common["mcp.tool.error_code"] = record.error_code
            span.set_attributes(
                {**common, "mcp.tool.arguments.count": count, "mcp.tool.arguments.bytes": size}
            )
            if record.outcome != OUTCOME_SUCCESS:
                span.set_status(Status(StatusCode.ERROR, record.error_code))
            _calls.add(1, common)
            _duration.record(perf_counter() - started, common)
            if size:
                _argument_size.record(size, {"gen_ai.tool.name": name})


def _otlp_requested(environ: Mapping[str, str]) -> tuple[bool, bool]:
    """Whether the environment asks for OTLP traces and metrics."""
    if environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False, False
    endpoint = bool(environ.get("OTEL_EXPORTER_OTLP_ENDPOINT"))

    def wanted(signal: str) -> bool:
        exporter = environ.get(f"OTEL_{signal}_EXPORTER", "").strip().lower()
        if exporter:
            return "otlp" in exporter.split(",")
        return endpoint or bool(environ.get(f"OTEL_EXPORTER_OTLP_{signal}_ENDPOINT"))

    return wanted("TRACES"), wanted("METRICS")


_providers: list[Any] = []


def configure_telemetry(service_name: str, environ: Mapping[str, str] | None = None) -> bool:
    """Export traces and metrics over OTLP when the ``OTEL_*`` environment asks for it;
    whether export was set up. Call once per process (each worker after its fork)."""
    env = os.environ if environ is None else environ
    traces, metrics_wanted = _otlp_requested(env)
    if not (traces or metrics_wanted):
        return False
    try:
        from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError:
        _log.warning(
            "OTEL_* variables ask for OTLP export but the exporter is not installed: "
            "install mcp-tools-common[otel]"
        )
        return False
    resource = Resource.create(
        {} if env.get("OTEL_SERVICE_NAME") else {"service.name": service_name}
    )
    if traces:
        tracer_provider = TracerProvider(resource=resource, shutdown_on_exit=False)
        tracer_provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
        trace.set_tracer_provider(tracer_provider)
        _providers.append(tracer_provider)
    if metrics_wanted:
        reader = PeriodicExportingMetricReader(OTLPMetricExporter())
        meter_provider = MeterProvider(
            resource=resource, metric_readers=[reader], shutdown_on_exit=False
        )
        metrics.set_meter_provider(meter_provider)
        _providers.append(meter_provider)
    _log.info(
        "exporting %s over OTLP",
        " and ".join(kind for kind, on in (("traces", traces), ("metrics", metrics_wanted)) if on),
    )
    return True


def shutdown_telemetry() -> None:
    """Flush and stop the exporters :func:`configure_telemetry` set up. The server calls it
    on its way out (it leaves through ``os._exit``, so nothing is left to an exit hook)."""
    while _providers:
        _providers.pop().shutdown()
