"""HTTP is never open to every local user by default: a real server started without
``--auth-token`` generates one (printed once on stderr, written to a private file) and refuses
requests without it; serving unauthenticated takes ``--no-auth``, which the log says plainly."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
from pathlib import Path

import httpx
import pytest

from .e2e_support import (
    INITIALIZE,
    HttpServers,
    RunningServer,
    printed_token,
    run_cli,
    sdk_client,
    token_file,
)

pytestmark = pytest.mark.e2e

NO_AUTH_WARNING = (
    "WARNING mcp_common.adapter: serving HTTP without authentication (--no-auth): every user "
    "of this machine can call the tools"
)


def post(server: RunningServer, headers: dict[str, str]) -> httpx.Response:
    plain = {k: v for k, v in server.headers.items() if k != "authorization"}
    return httpx.post(server.url, json=INITIALIZE, headers={**plain, **headers}, timeout=30)


@pytest.mark.anyio
@pytest.mark.parametrize("transport", ["streamable-http", "stateless-http"])
async def test_without_a_token_flag_a_generated_token_guards_the_server(
    http_servers: HttpServers, tmp_path: Path, transport: str
) -> None:
    log_file = tmp_path / "server-log.txt"
    server = http_servers.start(transport, "--log-file", str(log_file))
    token = server.token
    assert token is not None
    assert len(token) >= 43
    written = token_file(http_servers.runtime_dir, server.port)
    assert stat.S_IMODE(written.stat().st_mode) == 0o600
    assert stat.S_IMODE(written.parent.stat().st_mode) == 0o700
    # printed once on stderr, with the URL; never in the log file
    printed = server.log()
    assert printed.count(token) == 1
    assert f"Bearer <token>' to {server.url}" in printed
    assert f"  token: {token}" in printed
    assert str(written) in printed
    assert token not in log_file.read_text()

    missing = post(server, {})
    assert missing.status_code == 401
    assert missing.headers["www-authenticate"] == 'Bearer realm="mcp"'
    assert post(server, {"authorization": "Bearer wrong"}).status_code == 401
    assert post(server, {"authorization": f"Bearer {token[:-1]}"}).status_code == 401
    assert post(server, {"authorization": token}).status_code == 401
    assert post(server, {"authorization": f"Bearer {token}"}).status_code == 200
    async with sdk_client(server) as client:
        answer = await client.call_tool("echo", {"text": "let in"})
    assert answer.structured_content == {"text": "let in"}

    server.process.send_signal(signal.SIGTERM)
    server.process.wait(timeout=30)
    assert not written.exists()  # removed with the server


def test_every_start_has_a_new_token(http_servers: HttpServers) -> None:
    first = http_servers.start("stateless-http")
    second = http_servers.start("stateless-http")
    assert first.token != second.token
    assert post(second, first.auth).status_code == 401


def test_workers_share_the_generated_token(http_servers: HttpServers) -> None:
    server = http_servers.start("stateless-http", "--workers", "2")
    with httpx.Client(timeout=30) as client:
        echo = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": "hi"}},
        }
        plain = {k: v for k, v in server.headers.items() if k != "authorization"}
        for _ in range(10):  # the kernel spreads the connections over both workers
            assert client.post(server.url, json=echo, headers=server.headers).status_code == 200
            with httpx.Client(timeout=30) as fresh:
                assert fresh.post(server.url, json=echo, headers=plain).status_code == 401


def test_no_auth_serves_anyone_and_warns_in_plain_words(http_servers: HttpServers) -> None:
    server = http_servers.start("streamable-http", "--no-auth")
    assert server.token is None
    assert post(server, {}).status_code == 200
    log = server.log()
    assert NO_AUTH_WARNING in log
    warning = next(line for line in log.splitlines() if "--no-auth" in line)
    assert "***" not in warning  # the masking left the warning whole
    assert not token_file(http_servers.runtime_dir, server.port).exists()
    assert "token:" not in log


def test_no_auth_and_auth_token_exclude_each_other() -> None:
    done = run_cli(
        ["--transport", "stateless-http", "--no-auth"],
        env={"EXAMPLE_SERVER_AUTH_TOKEN": "chosen-token"},
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == (
        "example-server: error: --no-auth and --auth-token exclude each other"
    )


def test_no_auth_is_also_an_environment_variable(http_servers: HttpServers) -> None:
    server = http_servers.start("stateless-http", env={"EXAMPLE_SERVER_NO_AUTH": "true"})
    assert post(server, {}).status_code == 200
    assert NO_AUTH_WARNING in server.log()


def test_a_token_file_that_cannot_be_written_safely_still_leaves_the_server_guarded(
    http_servers: HttpServers,
) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to give the directory to another user")
    planted = http_servers.runtime_dir / "mcp-tools"
    planted.mkdir(mode=0o777)
    os.chown(planted, 65534, 65534)  # another user got there first
    server = http_servers.start("stateless-http")
    assert list(planted.iterdir()) == []  # nothing written into their directory
    log = server.log()
    refusal = f"could not write the token file: {planted} belongs to another user"
    assert f"{refusal}; the token was printed on stderr only" in log
    assert server.token is not None  # read from stderr, where it was printed all the same
    assert post(server, {}).status_code == 401
    assert post(server, server.auth).status_code == 200


def test_the_printed_token_is_what_the_file_holds(http_servers: HttpServers) -> None:
    server = http_servers.start("stateless-http")
    assert printed_token(server.log()) == server.token


def raw_status(server: RunningServer, authorization: list[bytes]) -> int:
    """The status of an initialize sent over a bare socket with these Authorization lines."""
    body = json.dumps(INITIALIZE).encode()
    head = [
        b"POST /mcp HTTP/1.1",
        f"Host: 127.0.0.1:{server.port}".encode(),
        b"Accept: application/json, text/event-stream",
        b"Content-Type: application/json",
        f"Content-Length: {len(body)}".encode(),
        *(b"Authorization: " + value for value in authorization),
        b"Connection: close",
    ]
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as raw:
        raw.sendall(b"\r\n".join(head) + b"\r\n\r\n" + body)
        reply = b""
        while chunk := raw.recv(65536):
            reply += chunk
    return int(reply.split(b" ", 2)[1])


def test_odd_authorization_headers_are_refused_cleanly(http_servers: HttpServers) -> None:
    server = http_servers.start("stateless-http")
    assert server.token is not None
    token = server.token.encode()
    for odd in (
        [b"Bearer"],
        [b"Bearer "],
        [b"Bearer \xff\xfe" + token],  # not UTF-8
        [b"Bearer " + token + b"\x00"],  # the HTTP parser refuses it first (400)
        [b"Bearer " + token * 200],  # long, and starting with the token
        [b"Bearer wrong", b"Bearer " + token],  # a second header does not rescue the first
    ):
        assert raw_status(server, odd) in (400, 401), odd
    assert raw_status(server, [b"Bearer " + token]) == 200
    assert "Traceback" not in server.log()
