"""HTTP operator details: the warning of --no-auth, the serving line, binding before serving."""

from __future__ import annotations

import asyncio
import logging
import socket

import pytest
from mcp_common import mask_credentials
from mcp_common.adapter.http import HttpSettings, describe, listen, warn_if_open


@pytest.mark.parametrize(
    ("host", "token", "warning"),
    [
        (
            "127.0.0.1",
            None,
            "serving HTTP without authentication (--no-auth): every user of this machine can "
            "call the tools",
        ),
        ("::1", None, "every user of this machine can call the tools"),
        (
            "0.0.0.0",  # noqa: S104 - a name, not a bind
            None,
            "serving HTTP on 0.0.0.0 without authentication (--no-auth): anyone who can reach "
            "this port can call the tools",
        ),
        ("192.0.2.7", None, "on 192.0.2.7 without authentication"),
        ("0.0.0.0", "s3cret", None),  # noqa: S104 - a name, not a bind
        ("127.0.0.1", "s3cret", None),
    ],
)
def test_serving_without_a_token_is_warned_about_in_words_masking_keeps(
    caplog: pytest.LogCaptureFixture, host: str, token: str | None, warning: str | None
) -> None:
    caplog.set_level(logging.WARNING, logger="mcp_common")
    warn_if_open(HttpSettings(host=host, port=8080, stateless=True, auth_token=token))
    if warning is None:
        assert caplog.text == ""
    else:
        assert warning in caplog.text
        assert mask_credentials(caplog.messages[0]) == caplog.messages[0]


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


@pytest.mark.parametrize("shared", [False, True])
def test_connections_accepted_from_the_listener_send_without_nagle_delay(shared: bool) -> None:
    # uvicorn accepts through asyncio, which turns Nagle's algorithm off only on sockets whose
    # protocol says TCP; with it on, every answer's body waited ~40 ms for the client's
    # delayed acknowledgement of the headers (an HTTP call cost 44 ms instead of 2)
    listener = listen("127.0.0.1", 0, shared=shared)
    port = listener.getsockname()[1]
    seen: list[int] = []

    async def accept_one() -> None:
        async def handle(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            accepted: socket.socket = writer.get_extra_info("socket")
            seen.append(accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            writer.close()

        server = await asyncio.start_server(handle, sock=listener)
        async with server:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            while not seen:
                await asyncio.sleep(0.01)
            writer.close()

    asyncio.run(asyncio.wait_for(accept_one(), 10))
    assert seen[0] != 0
