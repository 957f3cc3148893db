"""HTTP operator details: exposure warning, the serving line, binding before serving."""

from __future__ import annotations

import logging
import socket

import pytest
from mcp_common.adapter.http import HttpSettings, describe, listen, warn_if_exposed


@pytest.mark.parametrize(
    ("host", "token", "warned"),
    [
        ("127.0.0.1", None, False),
        ("::1", None, False),
        ("localhost", None, False),
        ("0.0.0.0", None, True),  # noqa: S104 - a name, not a bind
        ("192.0.2.7", None, True),
        ("0.0.0.0", "s3cret", False),  # noqa: S104 - a name, not a bind
    ],
)
def test_an_exposed_address_without_a_token_is_warned_about(
    caplog: pytest.LogCaptureFixture, host: str, token: str | None, warned: bool
) -> None:
    caplog.set_level(logging.WARNING, logger="mcp_common")
    warn_if_exposed(HttpSettings(host=host, port=8080, stateless=True, auth_token=token))
    assert ("without --auth-token" in caplog.text) is warned


def test_the_serving_line_names_transport_url_and_workers() -> None:
    settings = HttpSettings(host="::1", port=8123, stateless=True)
    assert describe("demo", settings) == "serving demo stateless HTTP on http://[::1]:8123/mcp"
    assert describe("demo", settings, 4).endswith("/mcp with 4 worker processes")


def test_listen_names_a_busy_port() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(OSError, match=f"port {port} is already in use"):
            listen("127.0.0.1", port)


def test_shared_sockets_bind_one_port_for_several_workers() -> None:
    first = listen("127.0.0.1", 0, shared=True)
    try:
        port = first.getsockname()[1]
        first.listen()
        second = listen("127.0.0.1", port, shared=True)
        second.listen()
        second.close()
        # an unshared bind of the same port is refused
        with pytest.raises(OSError, match="already in use"):
            listen("127.0.0.1", port)
    finally:
        first.close()
