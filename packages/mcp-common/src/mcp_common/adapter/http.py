"""The HTTP transports: streamable HTTP (sessions) and stateless HTTP, at ``/mcp``.

DNS-rebinding protection is always on (Host and Origin checked against an allow-list), a
bearer token is required when one is configured (constant-time comparison), and TLS, when
a certificate is given, accepts TLS 1.3 only.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import socket
import ssl
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import uvicorn
from mcp.server import Server
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mcp_common.adapter.server import CLIENT_CONNECTION, ClientConnection

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


def _host_label(host: str) -> str:
    """``host`` as it appears in a Host header (IPv6 literals bracketed)."""
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
        names.append(_host_label(host))
    names.extend(_host_label(h.strip()) for h in extra_hosts if h.strip())
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
    """Refuses every HTTP request without ``Authorization: Bearer <token>`` (401)."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = next((v for k, v in scope["headers"] if k == b"authorization"), b"")
            if not hmac.compare_digest(given, self._expected):
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
    app: ASGIApp = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        stateless_http=settings.stateless,
        transport_security=transport_security(settings.host, settings.allowed_hosts),
        host=settings.host,
    )
    app = DisconnectWatch(app)
    if settings.auth_token:
        app = BearerTokenMiddleware(app, settings.auth_token)
    return app


def run_http(server: Server[Any], settings: HttpSettings) -> None:
    """Serve until interrupted (SIGINT/SIGTERM)."""
    tls = settings.tls

    def factory(_config: uvicorn.Config, _default: Callable[[], ssl.SSLContext]) -> ssl.SSLContext:
        assert tls is not None
        return tls

    config = uvicorn.Config(
        build_http_app(server, settings),
        host=settings.host,
        port=settings.port,
        log_config=None,
        lifespan="on",
        ssl_context_factory=factory if tls is not None else None,
    )
    scheme = "https" if tls is not None else "http"
    _log.info(
        "serving %s %s on %s://%s:%d%s",
        server.name,
        "stateless HTTP" if settings.stateless else "streamable HTTP",
        scheme,
        _host_label(settings.host),
        settings.port,
        MCP_PATH,
    )
    uvicorn.Server(config).run()
