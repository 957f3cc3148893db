"""Serving a parsed command line: logging, the tools, the transport, and a clean exit.

:func:`mcp_common.adapter.cli.serve` parses the options and calls :func:`run`; everything that
needs the MCP SDK or a transport lives here, so the command line answers without loading it.
"""

from __future__ import annotations

import atexit
import logging
import os
import signal
import socket
import ssl
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import replace
from pathlib import Path
from typing import Any, NoReturn

from mcp.server import Server

from mcp_common.adapter.auth import announce_token, generate_token
from mcp_common.adapter.cli import ServerApp, SettingsT, build_parser, parse_arguments
from mcp_common.adapter.http import (
    HttpSettings,
    describe,
    endpoint_url,
    listen,
    run_http,
    tls_context,
    warn_if_open,
)
from mcp_common.adapter.logging_setup import configure_logging, log_descriptor
from mcp_common.adapter.server import RUNNING_CALLS, build_server
from mcp_common.adapter.stdio import claim_stdout, run_stdio
from mcp_common.adapter.telemetry import configure_telemetry, shutdown_telemetry
from mcp_common.adapter.watchdog import STOP_DEADLINE, start_watchdog
from mcp_common.hardening import harden_process
from mcp_common.isolation import stop_isolated_work
from mcp_common.masking import mask_credentials
from mcp_common.result import ToolError
from mcp_common.settings import ServerSettings, Transport
from mcp_common.tool import McpTool

_log = logging.getLogger("mcp_common.adapter")


def _build_tools(app: ServerApp[SettingsT], settings: SettingsT) -> Sequence[McpTool]:
    try:
        return app.build_tools(settings)
    except (ValueError, ToolError, OSError) as error:
        # the person who started the server reads this: their own paths are shown as given
        # (credentials are still masked); masking paths is for what reaches a model
        build_parser(app).error(str(error))


def build_server_for(
    app: ServerApp[Any],
    argv: Sequence[str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Server[Any]:
    """The server ``app`` would serve for this command line, without serving it."""
    settings = parse_arguments(app, argv, environ)
    return build_server(app.name, app.version, _build_tools(app, settings), app.instructions)


def _fail(app: ServerApp[Any], message: str) -> NoReturn:
    """A misused command line: the usage, then one error line (exit status 2)."""
    build_parser(app).error(message)


def _stop(app: ServerApp[Any], message: str) -> NoReturn:
    """A well-formed command line that cannot be served (a port in use, an unreadable file):
    one error line, no usage (exit status 2)."""
    sys.stderr.write(f"{app.name}: error: {mask_credentials(message)}\n")
    sys.exit(2)


SHUTDOWN_GRACE = 0.8
"""Seconds a stopping server waits for cancelled calls whose tools have not stopped yet
(the watchdog ends it :data:`~mcp_common.adapter.watchdog.STOP_DEADLINE` seconds after the
stop in any case)."""


@contextmanager
def _interruptible() -> Iterator[None]:
    try:
        yield
    except KeyboardInterrupt:
        _log.info("interrupted; shutting down")


def _exit(status: int) -> NoReturn:
    """End the process now: exit hooks run (telemetry is flushed, tools clean up) and the log
    is flushed, but the interpreter's teardown of every object a long-running server holds is
    skipped (with a thousand sessions that alone took seconds)."""
    atexit._run_exitfuncs()
    shutdown_telemetry()
    logging.shutdown()
    os._exit(status)


def _finish() -> NoReturn:
    """Once the transport stopped: cancel the calls still running, give their tools a moment
    to stop (one that ignores cancellation does not keep the process alive) and exit.
    Isolated work (:func:`~mcp_common.run_isolated`) is killed at once."""
    stop_isolated_work()
    if RUNNING_CALLS.cancel_all():
        left = RUNNING_CALLS.wait_stopped(SHUTDOWN_GRACE)
        if left:
            _log.warning(
                "%d call(s) still running %g s after shutdown; exiting without them",
                left,
                SHUTDOWN_GRACE,
            )
    _exit(0)


def _tls(app: ServerApp[Any], cert: str, key: str | None) -> ssl.SSLContext:
    for flag, path in (("--tls-cert", cert), ("--tls-key", key)):
        if path is None:
            continue
        try:
            Path(path).read_bytes()
        except OSError as error:
            _stop(app, f"cannot read {flag} {path}: {error.strerror or error}")
    try:
        return tls_context(cert, key)
    except (OSError, ssl.SSLError) as error:
        files = cert + (f" and {key}" if key else "")
        _stop(app, f"cannot use --tls-cert/--tls-key ({files}): {error}")


def _run_workers(
    make_server: Callable[[], Server[Any]],
    http: HttpSettings,
    listener: socket.socket,
    workers: int,
) -> int:
    """Serve from ``workers`` forked processes on ``listener``'s port; the exit status.

    Each worker builds its own tools after the fork (no connection or thread is shared).
    SIGINT and SIGTERM are passed on to every worker, and a worker still running
    :data:`STOP_DEADLINE` seconds later is killed; a worker that ends on its own stops the
    others, so a supervisor (systemd, Kubernetes) sees the failure and restarts the server.
    """
    port = listener.getsockname()[1]  # the port bound, also when 0 asked for any
    children: dict[int, int] = {}
    for index in range(workers):
        pid = os.fork()
        if pid == 0:
            status = 1
            try:
                listener.close()
                own = listen(http.host, port, shared=True)
                with _interruptible():
                    run_http(make_server(), http, own, announce=False)
                _finish()
            except SystemExit as exit_:
                status = exit_.code if isinstance(exit_.code, int) else 1
            except BaseException:
                _log.exception("worker %d failed", index + 1)
            finally:
                _exit(status)
        children[pid] = index + 1
    listener.close()  # the workers listen on sockets of their own
    stopping = False

    def kill_rest(_signum: int = signal.SIGALRM, _frame: object = None) -> None:
        for child, index in list(children.items()):
            _log.warning("worker %d did not stop within %g s; killing it", index, STOP_DEADLINE)
            with suppress(ProcessLookupError):
                os.kill(child, signal.SIGKILL)

    def stop_all(_signum: int = signal.SIGTERM, _frame: object = None) -> None:
        nonlocal stopping
        if not stopping:  # a worker stuck in C code cannot stop by itself: bound the wait
            signal.signal(signal.SIGALRM, kill_rest)
            signal.setitimer(signal.ITIMER_REAL, STOP_DEADLINE)
        stopping = True
        for child in children:
            with suppress(ProcessLookupError):
                os.kill(child, signal.SIGTERM)

    signal.signal(signal.SIGINT, stop_all)
    signal.signal(signal.SIGTERM, stop_all)
    status = 0
    while children:
        pid, wait_status = os.wait()
        if pid not in children:
            continue
        index = children.pop(pid)
        code = os.waitstatus_to_exitcode(wait_status)
        if not stopping:
            _log.error("worker %d ended with status %d; stopping the others", index, code)
            status = code or 1
            stop_all()
    signal.setitimer(signal.ITIMER_REAL, 0)  # every worker ended: no deadline left to keep
    return status


def run(app: ServerApp[Any], settings: ServerSettings) -> None:
    """Serve ``app`` with these settings until the client leaves or a signal arrives."""
    stdio = settings.transport is Transport.STDIO
    if settings.workers > 1 and settings.transport is not Transport.STATELESS_HTTP:
        _fail(app, "--workers needs --transport stateless-http (a session lives in one process)")
    tls = (
        _tls(app, settings.tls_cert, settings.tls_key) if settings.tls_cert and not stdio else None
    )
    listener = None
    if not stdio:
        try:
            listener = listen(settings.host, settings.port, shared=settings.workers > 1)
        except OSError as error:
            _stop(app, error.strerror or str(error))
    wire = claim_stdout() if stdio else None
    try:
        configure_logging(settings.log_level.value, settings.log_file)
    except OSError as error:
        _stop(app, f"cannot open --log-file: {error}")
    # before any tool runs: what the server starts (a repository's build, a parse child)
    # must not read the server's environment from /proc/<pid>/environ
    harden_process()

    def make_server() -> Server[Any]:
        # once per serving process: a worker sets up its own exporters after the fork
        configure_telemetry(app.name)
        tools = _build_tools(app, settings)
        return build_server(app.name, app.version, tools, app.instructions)

    # SIGTERM ends the server as SIGINT does: the HTTP server re-raises the signal it shut
    # down for, and SIGTERM's default action would kill the process before _finish lets the
    # cancelled calls stop (their subprocesses with them)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    if wire is not None:
        server = make_server()
        if settings.auth_token or settings.no_auth or settings.tls_cert:
            _log.warning("--auth-token, --no-auth and --tls-cert apply to the HTTP transports only")
        _log.info("serving %s %s over stdio", app.name, app.version)
        start_watchdog(stdin_fd=0, log_fd=log_descriptor())
        with _interruptible():
            run_stdio(server, wire, settings.max_message_bytes)
        _finish()
    assert listener is not None
    http = HttpSettings(
        host=settings.host,
        port=listener.getsockname()[1],  # the port bound, also when 0 asked for any
        stateless=settings.transport is Transport.STATELESS_HTTP,
        auth_token=settings.token,
        tls=tls,
        allowed_hosts=tuple(settings.allowed_host),
        session_idle_timeout=settings.session_idle_timeout,
        max_sessions=settings.max_sessions,
        max_message_bytes=settings.max_message_bytes,
    )
    # built before a token is announced, so a configuration error is not preceded by one
    serving = make_server() if settings.workers == 1 else None
    if http.auth_token is None and not settings.no_auth:
        token = generate_token()
        http = replace(http, auth_token=token)
        announce_token(app.name, endpoint_url(http), http.port, token)
    warn_if_open(http)
    if serving is None:
        # the tools are built in each worker; a configuration error still shows at once
        # because every worker fails the same way and stops the others
        _log.info("%s", describe(app.name, http, settings.workers))
        _exit(_run_workers(make_server, http, listener, settings.workers))
    start_watchdog(stdin_fd=None, log_fd=log_descriptor())
    with _interruptible():
        run_http(serving, http, listener)
    _finish()
