"""Hostile input over real subprocesses: every bad message gets an answer, every log line stays
small, and the server keeps serving."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from .e2e_support import HttpServers
from .raw_stdio import RawStdioServer

DEEP = 300


def deep_call(request_id: int, depth: int) -> str:
    nested = "[" * depth + "]" * depth
    return (
        f'{{"jsonrpc":"2.0","id":{request_id},"method":"tools/call",'
        f'"params":{{"name":"echo","arguments":{{"text":{nested}}}}}}}'
    )


@pytest.fixture
def stdio(tmp_path: Path) -> Iterator[RawStdioServer]:
    server = RawStdioServer(tmp_path / "stdio.log")
    try:
        yield server
    finally:
        server.stop()


def assert_echo_works(server: RawStdioServer, request_id: int) -> None:
    server.call(request_id, "echo", {"text": "still here"})
    reply = server.reply_to(request_id)
    assert reply["result"]["content"][0]["text"] == "still here"


def test_tools_call_before_initialize_says_so(stdio: RawStdioServer) -> None:
    stdio.call(7, "echo", {"text": "x"})
    error = stdio.reply_to(7)["error"]
    assert "not initialized" in error["message"]
    assert "initialize" in error["message"]
    stdio.initialize()
    assert_echo_works(stdio, 8)


def test_malformed_lines_get_json_rpc_errors(stdio: RawStdioServer) -> None:
    stdio.initialize()
    stdio.send_line("this is not json")
    error = stdio.receive()
    assert error is not None
    assert error["id"] is None
    assert error["error"]["code"] == -32700
    assert "not valid JSON" in error["error"]["message"]

    stdio.send_line('{"hello": "world", "id": 41}')
    error = stdio.receive()
    assert error is not None
    assert (error["id"], error["error"]["code"]) == (41, -32600)
    assert "not a JSON-RPC 2.0" in error["error"]["message"]

    stdio.send_line("")  # a blank line is no message: nothing to answer
    assert_echo_works(stdio, 2)
    assert "refused a stdio line" in stdio.log()


def test_a_deeply_nested_message_gets_a_parse_error(stdio: RawStdioServer) -> None:
    stdio.initialize()
    stdio.send_line(deep_call(3, DEEP))
    error = stdio.receive()
    assert error is not None
    assert error["error"]["code"] == -32700
    assert "nested more than 200 levels deep" in error["error"]["message"]
    # nesting the parser accepts is refused by the argument reader, as a tool error
    stdio.send_line(deep_call(4, 150))
    result = stdio.reply_to(4)["result"]
    assert result["isError"]
    assert "nested more than 32 levels deep" in result["content"][0]["text"]
    assert_echo_works(stdio, 5)


def test_a_huge_refused_argument_logs_a_few_kilobytes(tmp_path: Path) -> None:
    # the message limit raised above the 20 MB message, so the argument reader refuses it
    stdio = RawStdioServer(tmp_path / "stdio.log", "--max-message-bytes", "64000000")
    try:
        refuse_a_huge_argument(stdio)
    finally:
        stdio.stop()


def refuse_a_huge_argument(stdio: RawStdioServer) -> None:
    stdio.initialize()
    huge = "x" * 20_000_000
    stdio.call(6, "echo", {"text": huge, "unknown": huge})
    result = stdio.reply_to(6, timeout=120)["result"]
    assert result["isError"]
    stdio.call(7, "no-such-tool-" + "y" * 5_000_000, {})
    assert stdio.reply_to(7, timeout=120)["result"]["isError"]
    assert_echo_works(stdio, 8)
    log = stdio.log()
    assert len(log) < 20_000
    assert "20,000,000 characters in all" in log


LIMIT = 100_000


@pytest.fixture
def small_limit(tmp_path: Path) -> Iterator[RawStdioServer]:
    server = RawStdioServer(tmp_path / "limit.log", "--max-message-bytes", str(LIMIT))
    try:
        yield server
    finally:
        server.stop()


def echo_line(request_id: int, size: int, id_last: bool = False) -> str:
    fields = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call"}
    params = {"name": "echo", "arguments": {"text": "z" * size}}
    if id_last:  # how the TypeScript SDK orders a request's members
        fields = {"method": "tools/call", "params": params, "jsonrpc": "2.0", "id": request_id}
        return json.dumps(fields, separators=(",", ":"))
    return json.dumps({**fields, "params": params}, separators=(",", ":"))


def test_a_line_over_the_message_limit_is_refused_with_its_id(
    small_limit: RawStdioServer,
) -> None:
    small_limit.initialize()
    for request_id, size, id_last in ((11, 5 * LIMIT, False), (12, 30 * LIMIT, True)):
        small_limit.send_line(echo_line(request_id, size, id_last))
        error = small_limit.reply_to(request_id)
        assert error["error"]["code"] == -32700
        assert "larger than the 100,000 byte limit" in error["error"]["message"]
        assert "--max-message-bytes" in error["error"]["message"]
    small_limit.send_line("[" * (2 * LIMIT))  # no id anywhere: answered with id null
    anonymous = small_limit.receive()
    assert anonymous is not None
    assert (anonymous["id"], anonymous["error"]["code"]) == (None, -32700)
    # a message just under the limit is served as usual
    small_limit.send_line(echo_line(13, LIMIT - 200))
    assert small_limit.reply_to(13)["result"]["content"][0]["text"] == "z" * (LIMIT - 200)
    assert_echo_works(small_limit, 14)
    assert len(small_limit.log()) < 20_000


@pytest.mark.parametrize("transport", ["stateless-http", "streamable-http"])
def test_http_bodies_over_the_message_limit_get_413(
    http_servers: HttpServers, transport: str
) -> None:
    server = http_servers.start(transport, "--max-message-bytes", str(LIMIT))
    headers = server.headers
    with httpx.Client(timeout=30) as client:
        response = client.post(server.url, content=echo_line(1, 2 * LIMIT), headers=headers)
        assert response.status_code == 413


@pytest.mark.parametrize("transport", ["stateless-http", "streamable-http"])
def test_http_answers_deep_and_malformed_messages(
    http_servers: HttpServers, transport: str
) -> None:
    server = http_servers.start(transport)
    headers = server.headers
    with httpx.Client(timeout=30) as client:
        for body in (deep_call(1, DEEP), "not json"):
            response = client.post(server.url, content=body, headers=headers)
            assert response.status_code == 400
            assert json.loads(response.text)["error"]["code"] == -32700
        huge = json.dumps(
            {"jsonrpc": "2.0", "id": 1, "method": "x", "params": {"a": "b" * 5_000_000}}
        )
        assert client.post(server.url, content=huge, headers=headers).status_code == 413
    assert len(server.log()) < 20_000
