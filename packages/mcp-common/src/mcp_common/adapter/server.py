"""Builds the SDK's low-level ``Server`` from a list of :class:`~mcp_common.tool.McpTool`.

The one place tool definitions and results are translated to MCP types. Every failure of a
call (an exception in the tool, bad arguments, an unknown tool name) becomes an ``isError``
result the model can read; never a JSON-RPC error, never a traceback.
"""

from __future__ import annotations

import difflib
import logging
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace
from typing import Any

import anyio
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread
import mcp_types as types
from mcp.server import Server
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from mcp_common.adapter.logging_setup import loggable
from mcp_common.adapter.telemetry import (
    OUTCOME_CANCELLED,
    OUTCOME_ERROR,
    CallRecord,
    tool_call,
)
from mcp_common.arguments import parse_arguments
from mcp_common.context import ToolContext
from mcp_common.definition import ToolDefinition
from mcp_common.markdown import guard_output
from mcp_common.masking import FailureMessage, mask_credentials, mask_structured, redact
from mcp_common.result import ErrorCode, ToolError, ToolResult
from mcp_common.tool import McpTool

_log = logging.getLogger("mcp_common.adapter")


class ClientConnection:
    """The tool calls one client connection (one HTTP request) started: when the client
    disconnects, every one of them is cancelled."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._contexts: set[ToolContext] = set()
        self._gone = False

    def attach(self, context: ToolContext) -> None:
        """Tie ``context`` to this connection (cancelled at once if the client already left)."""
        with self._lock:
            if self._gone:
                context.cancel()
            else:
                self._contexts.add(context)

    def detach(self, context: ToolContext) -> None:
        """The call of ``context`` ended."""
        with self._lock:
            self._contexts.discard(context)

    def disconnected(self) -> None:
        """The client is gone: cancel its running calls."""
        with self._lock:
            self._gone = True
            running, self._contexts = self._contexts, set()
        for context in running:
            context.cancel()
        if running:
            _log.info("client disconnected: %d running call(s) cancelled", len(running))


CLIENT_CONNECTION: ContextVar[ClientConnection | None] = ContextVar(
    "mcp_common_client_connection", default=None
)
"""Set by a transport around the requests of one client connection. The SDK runs a request's
handler in the context of the task that received the request, so the handler sees the
connection its transport set."""


class RunningCalls:
    """The tool calls whose worker threads are running, process-wide.

    A cancelled call's thread runs on until its tool checks the context, so shutdown cancels
    every call still running here and waits a moment for their threads to end.
    """

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._contexts: set[ToolContext] = set()

    @contextmanager
    def running(self, context: ToolContext) -> Iterator[None]:
        """Register ``context`` for the duration of its call's thread."""
        with self._changed:
            self._contexts.add(context)
        try:
            yield
        finally:
            with self._changed:
                self._contexts.discard(context)
                self._changed.notify_all()

    def __len__(self) -> int:
        with self._changed:
            return len(self._contexts)

    def cancel_all(self) -> int:
        """Cancel every running call; the number cancelled."""
        with self._changed:
            for context in self._contexts:
                context.cancel()
            return len(self._contexts)

    def wait_stopped(self, timeout: float) -> int:
        """Wait up to ``timeout`` seconds for every call's thread to end; the number left."""
        with self._changed:
            self._changed.wait_for(lambda: not self._contexts, timeout)
            return len(self._contexts)


RUNNING_CALLS = RunningCalls()
"""Every tool call of this process whose thread is still running."""

# Set by the middleware when a tools/call carried arguments that are not a JSON object (the
# SDK would refuse them with a JSON-RPC error before our handler ran).
_NON_OBJECT_ARGUMENTS: ContextVar[tuple[object] | None] = ContextVar(
    "mcp_common_non_object_arguments", default=None
)


def tool_to_mcp(definition: ToolDefinition) -> types.Tool:
    """The ``tools/list`` entry of one tool: schemas, description and all four hints."""
    hints = definition.annotations
    return types.Tool(
        name=definition.name,
        description=definition.description,
        input_schema=dict(definition.input_schema),
        output_schema=dict(definition.output_schema) if definition.output_schema else None,
        annotations=types.ToolAnnotations(
            title=hints.title,
            read_only_hint=hints.read_only,
            destructive_hint=hints.destructive,
            idempotent_hint=hints.idempotent,
            open_world_hint=hints.open_world,
        ),
    )


def _text_result(
    text: str, *, is_error: bool, structured: Mapping[str, Any] | None = None
) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content=dict(structured) if structured is not None else None,
        is_error=is_error,
    )


def _error_result(
    definition: ToolDefinition | None,
    text: str,
    code: ErrorCode,
    structured: Mapping[str, Any] | None = None,
) -> types.CallToolResult:
    """An ``isError`` result. The code rides in ``structuredContent`` as
    ``{"error": {"code", "message"}}`` unless the tool declares an output schema (whose shape
    an error block would not match) or supplied structured data of its own."""
    if structured is None and (definition is None or definition.output_schema is None):
        structured = {"error": {"code": code.value, "message": text}}
    return _text_result(text, is_error=True, structured=structured)


def _to_mcp_result(definition: ToolDefinition, result: ToolResult) -> types.CallToolResult:
    if result.is_error:
        text = redact(result.text)
        return _error_result(definition, text, result.code or ErrorCode.FAILED, result.structured)
    # answers are masked like failures (credentials only: an answer's paths are its content),
    # so a tool that echoes its arguments or a file's text never hands a secret back
    structured = mask_structured(result.structured) if result.structured is not None else None
    return _text_result(
        guard_output(mask_credentials(result.text)), is_error=False, structured=structured
    )


class _ToolRunner:
    """Runs one tool call off the event loop with progress and cancellation wired up."""

    def __init__(self, tool: McpTool, definition: ToolDefinition) -> None:
        self.tool = tool
        self.definition = definition

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], raw_arguments: object
    ) -> types.CallToolResult:
        with tool_call(self.definition.name, raw_arguments) as record:
            return await self._run(ctx, raw_arguments, record)

    async def _run(
        self, ctx: ServerRequestContext[Any, Any], raw_arguments: object, record: CallRecord
    ) -> types.CallToolResult:
        name = self.definition.name
        session = ctx.session
        # with the loop's token, threads the tool starts itself (a query watcher) report too,
        # not only the worker thread the call runs in
        loop = anyio.lowlevel.current_token()

        def forward_progress(progress: float, total: float | None, message: str | None) -> None:
            try:
                anyio.from_thread.run(session.report_progress, progress, total, message, token=loop)
            except Exception:  # the call ended or the client left: progress is best effort
                _log.debug("%s: progress notification not delivered", name, exc_info=True)

        context = ToolContext(forward_progress)

        def run() -> object:
            with RUNNING_CALLS.running(context):
                arguments = parse_arguments(raw_arguments, self.definition.arguments, tool=name)
                return self.tool.call(arguments, context)

        connection = CLIENT_CONNECTION.get()
        if connection is not None:
            connection.attach(context)
        try:
            result = await anyio.to_thread.run_sync(run, abandon_on_cancel=True)
        except anyio.get_cancelled_exc_class():
            context.cancel()
            _log.info(
                "%s: call cancelled (the client cancelled or left, or the server stops)", name
            )
            raise
        except ToolError as error:
            cancelled = error.code is ErrorCode.CANCELLED
            record.failed(error.code.value, OUTCOME_CANCELLED if cancelled else OUTCOME_ERROR)
            # a call that stopped because it was cancelled did what it was told: no warning
            _log.log(
                logging.INFO if cancelled else logging.WARNING,
                "%s failed (%s): %s; arguments=%s",
                name,
                error.code.value,
                str(error),
                loggable(raw_arguments),
            )
            text = FailureMessage.for_client(name, error)
            return _error_result(self.definition, text, error.code)
        except (Exception, SystemExit) as error:  # SystemExit: e.g. argparse inside a tool
            record.failed(ErrorCode.FAILED.value)
            _log.error("%s failed; arguments=%s", name, loggable(raw_arguments), exc_info=True)
            if isinstance(error, SystemExit):
                text = FailureMessage.for_client(
                    name, f"the tool tried to exit the process (status {error.code})"
                )
            else:
                text = FailureMessage.for_client(name, error)
            return _error_result(self.definition, text, ErrorCode.FAILED)
        finally:
            if connection is not None:
                connection.detach(context)
        if not isinstance(result, ToolResult):
            record.failed(ErrorCode.FAILED.value)
            _log.error("%s returned %s instead of a ToolResult", name, type(result).__name__)
            message = f"the tool returned {type(result).__name__} instead of a result"
            return _error_result(
                self.definition, FailureMessage.for_client(name, message), ErrorCode.FAILED
            )
        if result.is_error:
            record.failed((result.code or ErrorCode.FAILED).value)
            _log.warning(
                "%s answered an error (%s): %s; arguments=%s",
                name,
                (result.code or ErrorCode.FAILED).value,
                result.text,
                loggable(raw_arguments),
            )
        return _to_mcp_result(self.definition, result)


async def _non_object_arguments_middleware(
    ctx: ServerRequestContext[Any, Any], call_next: CallNext
) -> HandlerResult:
    """Lets a ``tools/call`` whose ``arguments`` is not an object reach our handler, which
    answers it with a tool error instead of the SDK's JSON-RPC ``invalid params``."""
    params = ctx.params
    if ctx.method != "tools/call" or not isinstance(params, Mapping):
        return await call_next(ctx)
    arguments = params.get("arguments")
    if arguments is None or isinstance(arguments, Mapping):
        return await call_next(ctx)
    token = _NON_OBJECT_ARGUMENTS.set((arguments,))
    try:
        return await call_next(replace(ctx, params={**params, "arguments": None}))
    finally:
        _NON_OBJECT_ARGUMENTS.reset(token)


async def _not_initialized_middleware(
    ctx: ServerRequestContext[Any, Any], call_next: CallNext
) -> HandlerResult:
    """Says why a request before the handshake is refused: the SDK's gate answers only
    "Invalid request parameters", which sends a client looking for a fault in its params."""
    try:
        return await call_next(ctx)
    except MCPError as error:
        gate = error.code == INVALID_PARAMS and error.message == "Invalid request parameters"
        if gate and ctx.session.client_params is None and ctx.method != "initialize":
            raise MCPError(
                INVALID_PARAMS,
                f"the session is not initialized: send 'initialize' before '{ctx.method}'",
            ) from error
        raise


def _unknown_tool_message(name: str, known: Sequence[str]) -> str:
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    hint = f" Did you mean '{close[0]}'?" if close else ""
    listed = ", ".join(sorted(known)) or "none"
    return f"unknown tool '{redact(name)[:100]}'.{hint} Available tools: {listed}"


def build_server(
    name: str,
    version: str,
    tools: Sequence[McpTool],
    instructions: str | None = None,
) -> Server[Any]:
    """The SDK low-level server that lists ``tools`` and runs their calls.

    Tool names must be unique. Calls run in worker threads (``anyio.to_thread``), so a slow
    synchronous tool never blocks the event loop or other calls.
    """
    runners: dict[str, _ToolRunner] = {}
    for tool in tools:
        definition = tool.definition
        if definition.name in runners:
            raise ValueError(f"duplicate tool name: {definition.name}")
        runners[definition.name] = _ToolRunner(tool, definition)
    listing = types.ListToolsResult(tools=[tool_to_mcp(r.definition) for r in runners.values()])
    schemas = {n: dict(r.definition.input_schema) for n, r in runners.items()}

    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return listing

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        runner = runners.get(params.name)
        if runner is None:
            _log.warning("call of unknown tool %s", loggable(params.name))
            text = _unknown_tool_message(params.name, list(runners))
            return _error_result(None, text, ErrorCode.NOT_FOUND)
        boxed = _NON_OBJECT_ARGUMENTS.get()
        raw = boxed[0] if boxed is not None else params.arguments
        return await runner(ctx, raw)

    server: Server[Any] = Server(
        name,
        version=version,
        instructions=instructions,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        get_tool_input_schema=schemas.get,
    )
    server.middleware.extend([_not_initialized_middleware, _non_object_arguments_middleware])
    return server
