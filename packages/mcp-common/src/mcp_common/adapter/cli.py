"""The command line every server shares, derived from the server's settings model.

``serve(app)`` is a server's whole ``__main__``: it reads the options (flags over environment
variables over defaults, all declared once in the app's :class:`~mcp_common.ServerSettings`
subclass), sets up logging (stderr or ``--log-file``, never stdout), builds the tools and
serves them over the chosen transport.
"""

from __future__ import annotations

import argparse
import atexit
import logging
import os
import signal
import socket
import ssl
import sys
import types
import typing
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path
from typing import Any, Generic, NoReturn, TypeVar

from mcp.server import Server
from pydantic import ValidationError
from pydantic.fields import FieldInfo

from mcp_common.adapter.auth import announce_token, generate_token
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
from mcp_common.environ import reading
from mcp_common.isolation import stop_isolated_work
from mcp_common.masking import redact
from mcp_common.result import ToolError
from mcp_common.settings import LIST_SEPARATOR, Flag, ServerSettings, Transport
from mcp_common.tool import McpTool
from mcp_common.usage import UsageParser
from mcp_common.version import package_version

SettingsT = TypeVar("SettingsT", bound=ServerSettings)

_log = logging.getLogger("mcp_common.adapter")


@dataclass(frozen=True)
class ServerApp(Generic[SettingsT]):
    """What a server contributes: its identity, its settings model and its tools."""

    name: str
    """The server's name, as advertised in the handshake and used as the program name."""
    distribution: str
    """The installed distribution whose version ``--version`` and the handshake report."""
    description: str
    epilog: str
    """Usage examples shown at the end of ``--help``."""
    settings: type[SettingsT]
    """The server's options (a :class:`~mcp_common.ServerSettings` subclass)."""
    build_tools: Callable[[SettingsT], Sequence[McpTool]]
    instructions: str | None = None

    @property
    def version(self) -> str:
        """The installed version of :attr:`distribution` (``unknown`` when not installed)."""
        return package_version(self.distribution)

    @property
    def default_port(self) -> int:
        """The HTTP port the server listens on unless told otherwise."""
        return int(self.settings.model_fields["port"].default)

    @property
    def env_prefix(self) -> str:
        """E.g. ``UNIQUENESS_SERVER_``: ``--allowed-dir`` is ``UNIQUENESS_SERVER_ALLOWED_DIR``."""
        return str(self.settings.model_config.get("env_prefix", ""))


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def env_name(app: ServerApp[Any], field: str) -> str:
    """The environment variable of a settings field: ``<PREFIX><FIELD_IN_UPPER_SNAKE>``."""
    return f"{app.env_prefix}{field.upper()}"


def _is_list(info: FieldInfo) -> bool:
    return typing.get_origin(info.annotation) is list


def _is_switch(info: FieldInfo) -> bool:
    return info.annotation is bool


def _metavar(info: FieldInfo) -> str | None:
    for mark in info.metadata:
        if isinstance(mark, Flag):
            return mark.metavar
    annotation = info.annotation
    if isinstance(annotation, type) and issubclass(annotation, StrEnum):
        return "{" + ",".join(member.value for member in annotation) + "}"
    return None


def _help(info: FieldInfo) -> str:
    text = info.description or ""
    default = info.get_default(call_default_factory=True)
    if default not in (None, [], False) and not isinstance(default, types.FunctionType):
        shown = default.value if hasattr(default, "value") else default
        text += f" (default: {shown})"
    return text


@dataclass(frozen=True, slots=True)
class Option:
    """One option of a server as its users see it: for ``--help``, guides and their tests."""

    flag: str
    variable: str
    metavar: str | None
    default: object
    help: str
    repeatable: bool


def options(app: ServerApp[Any]) -> list[Option]:
    """Every option of ``app``, in declaration order, derived from its settings model."""
    found = []
    for name, info in app.settings.model_fields.items():
        default = info.get_default(call_default_factory=True)
        found.append(
            Option(
                flag=_flag(name),
                variable=env_name(app, name),
                metavar=None if _is_switch(info) else _metavar(info) or name.upper(),
                default=getattr(default, "value", default),
                help=info.description or "",
                repeatable=_is_list(info),
            )
        )
    return found


def _env_help(app: ServerApp[Any]) -> str:
    lines = [
        "environment variables (a flag on the command line wins over its variable;",
        f"repeatable flags take several values separated by '{LIST_SEPARATOR}'):",
    ]
    for option in options(app):
        lines.append(f"  {option.variable:<36} {option.flag}")
    return "\n".join(lines)


def build_parser(app: ServerApp[Any]) -> UsageParser:
    """The server's argument parser, one flag per settings field (nothing given = absent)."""
    parser = UsageParser(prog=app.name, description=app.description)
    for name, info in app.settings.model_fields.items():
        options: dict[str, Any] = {"help": _help(info), "default": argparse.SUPPRESS}
        if _is_switch(info):
            options["action"] = "store_true"
        else:
            options["metavar"] = _metavar(info)
            if _is_list(info):
                options["action"] = "append"
        parser.add_argument(_flag(name), dest=name, **options)
    parser.add_argument(
        "--version", action="version", version=f"{app.name} {app.version}", help="print the version"
    )
    epilog = _env_help(app)
    parser.epilog = f"{app.epilog.rstrip()}\n\n{epilog}" if app.epilog else epilog
    return parser


def _refusal(app: ServerApp[Any], given: Mapping[str, Any], error: ValidationError) -> str:
    first = error.errors(include_url=False)[0]
    field = str(first["loc"][0]) if first["loc"] else ""
    cause = (first.get("ctx") or {}).get("error")
    message = str(cause) if cause is not None else str(first["msg"])
    if str(first["type"]).startswith("bool"):
        message = "use true or false"
    if field in given or field not in app.settings.model_fields:
        return f"argument {_flag(field)}: {message}"
    return f"{env_name(app, field)}={first.get('input')!r}: {message}"


def parse_arguments(
    app: ServerApp[SettingsT],
    argv: Sequence[str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> SettingsT:
    """The app's settings from ``argv`` (default ``sys.argv[1:]``) over its environment
    variables (default ``os.environ``) over the declared defaults."""
    parser = build_parser(app)
    given = vars(parser.parse_args(list(sys.argv[1:] if argv is None else argv)))
    try:
        with reading(environ):
            settings = app.settings(**given)
    except ValidationError as error:
        parser.error(_refusal(app, given, error))
    if settings.tls_key and not settings.tls_cert:
        parser.error("--tls-key needs --tls-cert")
    if settings.no_auth and settings.auth_token:
        parser.error("--no-auth and --auth-token exclude each other")
    return settings


def _build_tools(app: ServerApp[SettingsT], settings: SettingsT) -> Sequence[McpTool]:
    try:
        return app.build_tools(settings)
    except (ValueError, ToolError, OSError) as error:
        # a server's usage errors may end up in a client's log: paths shortened too
        build_parser(app).error(redact(str(error)))


def build_server_for(
    app: ServerApp[Any],
    argv: Sequence[str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Server[Any]:
    """The server ``app`` would serve for this command line, without serving it."""
    settings = parse_arguments(app, argv, environ)
    return build_server(app.name, app.version, _build_tools(app, settings), app.instructions)


def _fail(app: ServerApp[Any], message: str) -> NoReturn:
    build_parser(app).error(message)


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
            _fail(app, f"cannot read {flag} {redact(path)}: {error.strerror or error}")
    try:
        return tls_context(cert, key)
    except (OSError, ssl.SSLError) as error:
        files = redact(cert) + (f" and {redact(key)}" if key else "")
        _fail(app, f"cannot use --tls-cert/--tls-key ({files}): {redact(str(error))}")


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


def serve(app: ServerApp[Any], argv: Sequence[str] | None = None) -> None:
    """Parse the command line and serve ``app`` until the client leaves or a signal arrives."""
    settings = parse_arguments(app, argv)
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
            _fail(app, error.strerror or str(error))
    wire = claim_stdout() if stdio else None
    try:
        configure_logging(settings.log_level.value, settings.log_file)
    except OSError as error:
        _fail(app, f"cannot open --log-file: {error}")

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
    if http.auth_token is None and not settings.no_auth:
        token = generate_token()
        http = replace(http, auth_token=token)
        announce_token(app.name, endpoint_url(http), http.port, token)
    warn_if_open(http)
    if settings.workers > 1:
        # the tools are built in each worker; a configuration error still shows at once
        # because every worker fails the same way and stops the others
        _log.info("%s", describe(app.name, http, settings.workers))
        _exit(_run_workers(make_server, http, listener, settings.workers))
    server = make_server()
    start_watchdog(stdin_fd=None, log_fd=log_descriptor())
    with _interruptible():
        run_http(server, http, listener)
    _finish()
