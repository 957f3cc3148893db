"""The HTTP transports: streamable HTTP (sessions) and stateless HTTP, at ``/mcp``.

DNS-rebinding protection is always on (Host and Origin checked against an allow-list), a
bearer token is required (constant-time comparison) unless the server runs with
``--no-auth``, and TLS, when a certificate is given, accepts TLS 1.3 only.
"""

from __future__ import annotations

import errno
import hmac
import ipaddress
import logging
import math
import socket
import ssl
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import uvicorn
from mcp.server import Server
from mcp.server.auth.middleware.bearer_auth import AuthorizationContext
from mcp.server.streamable_http import StreamableHTTPServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mcp_common.adapter.server import CLIENT_CONNECTION, ClientConnection
from mcp_common.settings import DEFAULT_MAX_MESSAGE_BYTES

_log = logging.getLogger("mcp_common.adapter")

MCP_PATH = "/mcp"
_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
_WILDCARDS = ("0.0.0.0", "::", "")  # noqa: S104 - names of the wildcard addresses, not a bind


@dataclass(frozen=True, slots=True)
class HttpSettings:
    """How to serve over HTTP."""

    host: str
    port: int
    stateless: bool
    auth_token: str | None = None
    tls: ssl.SSLContext | None = None
    allowed_hosts: Sequence[str] = ()
    session_idle_timeout: float = 300.0
    max_sessions: int = 1000
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES


class BoundedSessionManager(StreamableHTTPSessionManager):
    """The SDK's session manager, but a full house makes room: at ``max_sessions`` the
    longest-idle session is closed for the newcomer (the SDK would refuse everyone with 503
    until a session times out). Only when every session has a request in flight is a new
    client refused."""

    def _admit_session(
        self, requestor: AuthorizationContext | None
    ) -> StreamableHTTPServerTransport | None:
        if self.max_sessions is not None and len(self._server_instances) >= self.max_sessions:
            self._evict_longest_idle()
        return super()._admit_session(requestor)

    def _evict_longest_idle(self) -> None:
        # a session's idle deadline is its last request's end plus the (shared) idle timeout,
        # and infinite while a request is in flight: the smallest finite one idled longest
        idle = [
            (transport.idle_scope.deadline, session_id)
            for session_id, transport in self._server_instances.items()
            if transport.idle_scope is not None and math.isfinite(transport.idle_scope.deadline)
        ]
        if not idle:
            return
        _, session_id = min(idle)
        transport = self._server_instances.pop(session_id)
        self._session_owners.pop(session_id, None)
        assert transport.idle_scope is not None
        # ends the session's loop as its idle timeout would; the SDK then terminates it
        transport.idle_scope.cancel()
        _log.info("session limit (%d) reached: closed the longest-idle session", self.max_sessions)


def host_label(host: str) -> str:
    """``host`` as it appears in a Host header or a URL (IPv6 literals bracketed)."""
    try:
        if ipaddress.ip_address(host).version == 6:
            return f"[{host}]"
    except ValueError:
        pass
    return host


def is_loopback(host: str) -> bool:
    """Whether ``host`` names only this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def transport_security(host: str, extra_hosts: Sequence[str]) -> TransportSecuritySettings:
    """The Host/Origin allow-list: loopback names always; the bind address when it is a
    specific one; the machine's name when bound to every interface; plus ``extra_hosts``."""
    names: list[str] = list(_LOOPBACK_NAMES)
    if host in _WILDCARDS:
        names.extend({socket.gethostname(), socket.getfqdn()})
    elif not is_loopback(host):
        names.append(host_label(host))
    names.extend(host_label(h.strip()) for h in extra_hosts if h.strip())
    unique = list(dict.fromkeys(names))
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[h for name in unique for h in (name, f"{name}:*")],
        allowed_origins=[
            origin
            for name in unique
            for scheme in ("http", "https")
            for origin in (f"{scheme}://{name}", f"{scheme}://{name}:*")
        ],
    )


class BearerTokenMiddleware:
    """Refuses every HTTP request without ``Authorization: Bearer <token>`` (401); the
    scheme's case does not matter (RFC 9110), the token's does."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._expected = token.encode()

    def _authorized(self, scope: Scope) -> bool:
        given = next((v for k, v in scope["headers"] if k == b"authorization"), b"")
        scheme, _, credentials = given.strip().partition(b" ")
        # compared even for a wrong scheme, so the timing tells nothing about which part failed
        matches = hmac.compare_digest(credentials.strip(), self._expected)
        return scheme.lower() == b"bearer" and matches

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self._authorized(scope):
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [
                        (b"content-type", b"text/plain; charset=utf-8"),
                        (b"www-authenticate", b'Bearer realm="mcp"'),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": b"missing or wrong bearer token"})
            return
        await self.app(scope, receive, send)


class DisconnectWatch:
    """Cancels the tool calls an HTTP request started when its client disconnects before
    the answer: the SDK would otherwise let a streamable-HTTP call run on for nobody."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        connection = ClientConnection()

        async def watched_receive() -> Message:
            message = await receive()
            if message["type"] == "http.disconnect":
                connection.disconnected()
            return message

        token = CLIENT_CONNECTION.set(connection)
        try:
            await self.app(scope, watched_receive, send)
        finally:
            CLIENT_CONNECTION.reset(token)


def tls_context(cert: str, key: str | None) -> ssl.SSLContext:
    """A server TLS context that accepts TLS 1.3 only."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_3
    context.load_cert_chain(cert, key)
    return context


def build_http_app(server: Server[Any], settings: HttpSettings) -> ASGIApp:
    """The ASGI application serving ``server`` at ``/mcp`` with the configured protections."""
    manager = BoundedSessionManager(
        app=server,
        stateless=settings.stateless,
        security_settings=transport_security(settings.host, settings.allowed_hosts),
        session_idle_timeout=settings.session_idle_timeout,
        max_sessions=settings.max_sessions,
        max_request_body_size=settings.max_message_bytes,
    )
    app: ASGIApp = Starlette(
        routes=[Route(MCP_PATH, endpoint=StreamableHTTPASGIApp(manager))],
        lifespan=lambda _app: manager.run(),
    )
    app = DisconnectWatch(app)
    if settings.auth_token:
        app = BearerTokenMiddleware(app, settings.auth_token)
    return app


def listen(host: str, port: int, shared: bool = False) -> socket.socket:
    """A socket bound to ``host:port``, before anything is served: a port in use is one clear
    :class:`OSError` here, never a traceback after the server announced itself.

    ``shared`` sets ``SO_REUSEPORT``: each worker process binds its own socket to the port
    and the kernel spreads new connections over them (one socket accepted from by every
    worker leaves most connections with whichever worker wakes first).

    The socket names its protocol (TCP) explicitly: asyncio turns Nagle's algorithm off only
    on accepted sockets whose protocol says TCP, and with it on every HTTP answer waited about
    40 ms (the body held back until the client's delayed acknowledgement of the headers).
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if shared:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        listener.bind((host, port))
    except OSError as error:
        listener.close()
        where = f"{host_label(host)}:{port}"
        if error.errno == errno.EADDRINUSE:
            raise OSError(error.errno, f"port {port} is already in use ({where})") from None
        raise OSError(error.errno, f"cannot listen on {where}: {error.strerror}") from None
    return listener


class _QuietStatelessTermination(logging.Filter):
    """Drops the SDK's "Terminating session: None", logged at INFO after every stateless
    request (a session that never existed)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.getMessage() != "Terminating session: None"


_QUIET_STATELESS = _QuietStatelessTermination()


def endpoint_url(settings: HttpSettings) -> str:
    """The URL clients connect to."""
    scheme = "https" if settings.tls is not None else "http"
    return f"{scheme}://{host_label(settings.host)}:{settings.port}{MCP_PATH}"


def describe(name: str, settings: HttpSettings, workers: int = 1) -> str:
    """The "serving …" line: transport, URL and worker count."""
    kind = "stateless HTTP" if settings.stateless else "streamable HTTP"
    url = endpoint_url(settings)
    processes = f" with {workers} worker processes" if workers > 1 else ""
    return f"serving {name} {kind} on {url}{processes}"


def warn_if_open(settings: HttpSettings) -> None:
    """Log a warning when HTTP is served without a bearer token (``--no-auth``)."""
    if settings.auth_token:
        return
    if is_loopback(settings.host):
        _log.warning(
            "serving HTTP without authentication (--no-auth): every user of this machine can "
            "call the tools"
        )
    else:
        _log.warning(
            "serving HTTP on %s without authentication (--no-auth): anyone who can reach this "
            "port can call the tools",
            host_label(settings.host),
        )


def run_http(
    server: Server[Any], settings: HttpSettings, listener: socket.socket, announce: bool = True
) -> None:
    """Serve on ``listener`` until interrupted (SIGINT/SIGTERM)."""
    tls = settings.tls

    def factory(_config: uvicorn.Config, _default: Callable[[], ssl.SSLContext]) -> ssl.SSLContext:
        assert tls is not None
        return tls

    logging.getLogger("mcp.server.streamable_http").addFilter(_QUIET_STATELESS)
    config = uvicorn.Config(
        build_http_app(server, settings),
        host=settings.host,
        port=settings.port,
        log_config=None,
        lifespan="on",
        ssl_context_factory=factory if tls is not None else None,
        # open streams are ended by the shutdown itself; this bounds a connection that is not
        timeout_graceful_shutdown=1,
    )
    if announce:
        _log.info("%s", describe(server.name, settings))
    uvicorn.Server(config).run(sockets=[listener])
