"""Streamable-HTTP sessions cannot pile up: idle ones expire, and at the limit the longest-idle
one makes room for a new client."""

from __future__ import annotations

import time

import httpx

from .e2e_support import INITIALIZE, HttpServers, RunningServer

PING = {"jsonrpc": "2.0", "id": 5, "method": "ping"}


def open_session(client: httpx.Client, server: RunningServer) -> httpx.Response:
    return client.post(server.url, json=INITIALIZE, headers=server.headers)


def session_id(response: httpx.Response) -> str:
    assert response.status_code == 200, response.text
    return response.headers["mcp-session-id"]


def ping(client: httpx.Client, server: RunningServer, session: str) -> int:
    headers = {**server.headers, "mcp-session-id": session}
    return client.post(server.url, json=PING, headers=headers).status_code


def test_the_longest_idle_session_makes_room(http_servers: HttpServers) -> None:
    server = http_servers.start("streamable-http", "--max-sessions", "3")
    with httpx.Client(timeout=30) as client:
        first, second, third = (session_id(open_session(client, server)) for _ in range(3))
        assert ping(client, server, first) == 200  # first is now the most recently used
        fourth = session_id(open_session(client, server))
        assert ping(client, server, second) == 404  # the longest idle was closed
        for alive in (first, third, fourth):
            assert ping(client, server, alive) == 200
    assert "session limit (3) reached: closed the longest-idle session" in server.log()


def test_busy_sessions_are_not_evicted_and_a_newcomer_is_refused(
    http_servers: HttpServers,
) -> None:
    server = http_servers.start("streamable-http", "--max-sessions", "1")
    slow = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "slow", "arguments": {"seconds": 60, "steps": 2}},
    }
    with httpx.Client(timeout=60) as client:
        busy = session_id(open_session(client, server))
        headers = {**server.headers, "mcp-session-id": busy}
        client.post(
            server.url,
            json={"jsonrpc": "2.0", "method": "notifications/initialized"},
            headers=headers,
        )
        with (
            httpx.Client(timeout=60) as other,
            other.stream("POST", server.url, json=slow, headers=headers),
        ):
            time.sleep(1.0)
            assert open_session(client, server).status_code == 503
        # once the call's connection is gone the session is idle again and makes room
        deadline = time.monotonic() + 30
        while open_session(client, server).status_code != 200:
            assert time.monotonic() < deadline
            time.sleep(0.2)


def test_an_idle_session_expires(http_servers: HttpServers) -> None:
    server = http_servers.start("streamable-http", env={"EXAMPLE_SERVER_SESSION_IDLE_TIMEOUT": "1"})
    with httpx.Client(timeout=30) as client:
        session = session_id(open_session(client, server))
        time.sleep(3)  # no request for three times the timeout (a ping would restart it)
        assert ping(client, server, session) == 404
        assert session_id(open_session(client, server))
    assert "idle timeout" in server.log()
