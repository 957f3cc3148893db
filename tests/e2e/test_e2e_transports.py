"""Transport-level promises of a real server process: the stdio wire, the command line,
and the HTTP protections (DNS rebinding, bearer token, TLS 1.3)."""

from __future__ import annotations

import json
import queue
import socket
import ssl
import subprocess
import threading
from pathlib import Path
from typing import Any

import httpx
import mcp_types as types
import pytest
import trustme

from .e2e_support import (
    REPO_ROOT,
    HttpServers,
    run_cli,
    sdk_client,
    server_command,
    server_env,
    stop,
)

pytestmark = pytest.mark.e2e

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw-test", "version": "1"},
    },
}
MCP_HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


def _call(
    request_id: int, name: str, arguments: object, token: str | None = None
) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name, "arguments": arguments}
    if token is not None:
        params["_meta"] = {"progressToken": token}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


class _LineReader:
    """Reads a pipe's lines in a thread so the test can wait with a timeout."""

    def __init__(self, pipe: Any) -> None:
        self.lines: queue.Queue[str | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, args=(pipe,), daemon=True)
        self._thread.start()

    def _run(self, pipe: Any) -> None:
        for raw in pipe:
            self.lines.put(raw.decode("utf-8"))
        self.lines.put(None)

    def next(self, timeout: float = 30) -> str | None:
        return self.lines.get(timeout=timeout)


def test_stdio_stdout_carries_only_json_rpc(tmp_path: Path) -> None:
    stderr_file = tmp_path / "stderr.txt"
    requests: list[dict[str, Any]] = [
        INIT,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        _call(3, "echo", {"text": "hello"}),
        _call(4, "boom", {}),
        _call(5, "slow", {"seconds": 0.2, "steps": 2}, token="p-5"),
        _call(6, "echo", [1, 2, 3]),
        _call(7, "nope", {}),
        {"jsonrpc": "2.0", "id": 8, "method": "no/such/method"},
    ]
    with stderr_file.open("wb") as stderr:
        process = subprocess.Popen(
            server_command("--stray-print", "--log-level", "DEBUG"),
            env=server_env(),
            cwd=REPO_ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
        )
    try:
        assert process.stdin is not None
        reader = _LineReader(process.stdout)
        for request in requests:
            process.stdin.write((json.dumps(request) + "\n").encode())
        process.stdin.flush()
        lines: list[str] = []
        answered: set[object] = set()
        expected_ids = {r["id"] for r in requests if "id" in r}
        while answered != expected_ids:
            line = reader.next()
            assert line is not None, f"stdout closed early; stderr:\n{stderr_file.read_text()}"
            lines.append(line)
            message = json.loads(line)
            if "id" in message and ("result" in message or "error" in message):
                answered.add(message["id"])
        process.stdin.close()
        process.wait(timeout=30)
        while (line := reader.next()) is not None:
            lines.append(line)
    finally:
        stop(process)
        for pipe in (process.stdin, process.stdout):
            if pipe is not None:
                pipe.close()

    assert process.returncode == 0
    messages = [json.loads(line) for line in lines]
    for line in lines:
        assert line.endswith("\n")
        types.jsonrpc_message_adapter.validate_json(line)  # a JSON-RPC message, nothing else
    by_id = {m["id"]: m for m in messages if "id" in m}
    assert by_id[3]["result"]["content"][0]["text"] == "hello"
    assert by_id[4]["result"]["isError"] is True
    assert "secret" not in by_id[4]["result"]["content"][0]["text"]
    assert by_id[6]["result"]["isError"] is True
    assert "arguments must be a JSON object" in by_id[6]["result"]["content"][0]["text"]
    assert by_id[7]["result"]["isError"] is True
    assert by_id[8]["error"]["code"] == -32601  # an unknown method stays a protocol error
    progress = [m for m in messages if m.get("method") == "notifications/progress"]
    assert [p["params"]["progress"] for p in progress] == [1, 2]
    assert all(p["params"]["progressToken"] == "p-5" for p in progress)
    stderr_text = stderr_file.read_text()
    assert "stray output from a careless library" in stderr_text
    assert "Traceback" in stderr_text  # the boom traceback went to the log ...
    assert "user:secret" not in stderr_text  # ... with the credential masked


def test_unknown_transport_is_refused_at_startup() -> None:
    done = run_cli(["--transport", "sse"])
    assert done.returncode == 2
    assert done.stdout == ""
    last = done.stderr.strip().splitlines()[-1]
    assert last == (
        "example-server: error: argument --transport: unknown transport 'sse'; "
        "use one of: stdio, streamable-http, stateless-http"
    )
    assert "Traceback" not in done.stderr


def test_unknown_transport_from_the_environment_is_refused() -> None:
    done = run_cli([], {"EXAMPLE_SERVER_TRANSPORT": "websocket"})
    assert done.returncode == 2
    assert "unknown transport 'websocket'" in done.stderr


def test_version_and_help() -> None:
    version = run_cli(["--version"])
    assert version.returncode == 0
    assert version.stdout.strip().startswith("example-server ")
    assert version.stdout.strip() != "example-server unknown"
    shown = run_cli(["--help"])
    assert shown.returncode == 0
    assert "python -m example_server --transport stateless-http --port 8099" in shown.stdout
    assert "EXAMPLE_SERVER_AUTH_TOKEN" in shown.stdout


def test_missing_tls_certificate_is_a_one_line_error(tmp_path: Path) -> None:
    missing = tmp_path / "missing.pem"
    done = run_cli(["--transport", "stateless-http", "--tls-cert", str(missing)])
    assert done.returncode == 2
    # the person who started the server sees their own path as they gave it
    assert done.stderr.strip().splitlines() == [
        f"example-server: error: cannot read --tls-cert {missing}: No such file or directory"
    ]
    assert "Traceback" not in done.stderr


def test_unwritable_log_file_is_a_one_line_error(tmp_path: Path) -> None:
    done = run_cli(["--log-file", str(tmp_path / "missing-dir" / "server.log")])
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("example-server: error: cannot open --log-file:")
    assert str(tmp_path / "missing-dir" / "server.log") in line
    assert "Traceback" not in done.stderr


def _raw_post(url: str, headers: dict[str, str] | None = None, **options: Any) -> httpx.Response:
    return httpx.post(
        url, headers={**MCP_HEADERS, **(headers or {})}, content=json.dumps(INIT), **options
    )


@pytest.mark.parametrize("transport", ["streamable-http", "stateless-http"])
def test_dns_rebinding_is_refused(http_servers: HttpServers, transport: str) -> None:
    running = http_servers.start(transport)
    auth = running.auth  # the token does not make a foreign Host or Origin acceptable
    assert _raw_post(running.url, auth).status_code == 200
    assert _raw_post(running.url, {**auth, "host": "evil.example"}).status_code == 421
    assert (
        _raw_post(running.url, {**auth, "host": f"evil.example:{running.port}"}).status_code == 421
    )
    assert _raw_post(running.url, {**auth, "origin": "http://evil.example"}).status_code == 403
    assert _raw_post(running.url, {"host": "evil.example"}).status_code == 401


def test_allowed_host_flag_extends_the_allow_list(http_servers: HttpServers) -> None:
    running = http_servers.start("stateless-http", "--allowed-host", "mcp.example.com")
    assert _raw_post(running.url, {**running.auth, "host": "mcp.example.com"}).status_code == 200
    assert _raw_post(running.url, {**running.auth, "host": "evil.example"}).status_code == 421


@pytest.mark.anyio
@pytest.mark.parametrize("transport", ["streamable-http", "stateless-http"])
async def test_bearer_token_is_required_when_set(http_servers: HttpServers, transport: str) -> None:
    token = "s3cret-token-value"
    running = http_servers.start(transport, env={"EXAMPLE_SERVER_AUTH_TOKEN": token})
    missing = _raw_post(running.url)
    assert missing.status_code == 401
    assert missing.headers["www-authenticate"].startswith("Bearer")
    assert _raw_post(running.url, {"authorization": "Bearer wrong"}).status_code == 401
    assert _raw_post(running.url, {"authorization": token}).status_code == 401
    assert _raw_post(running.url, {"authorization": f"Bearer {token}"}).status_code == 200
    # the scheme is case-insensitive (RFC 9110); the token is not
    assert _raw_post(running.url, {"authorization": f"bearer {token}"}).status_code == 200
    assert _raw_post(running.url, {"authorization": f"BEARER  {token}"}).status_code == 200
    assert _raw_post(running.url, {"authorization": f"Bearer {token.upper()}"}).status_code == 401
    assert _raw_post(running.url, {"authorization": f"Basic {token}"}).status_code == 401
    async with sdk_client(running) as client:
        result = await client.call_tool("echo", {"text": "authorised"})
    assert result.structured_content == {"text": "authorised"}
    assert token not in running.log()


@pytest.fixture(scope="module")
def certificate_authority() -> trustme.CA:
    return trustme.CA()


@pytest.mark.anyio
@pytest.mark.parametrize("separate_key", [True, False], ids=["cert+key", "combined-pem"])
async def test_tls(
    http_servers: HttpServers,
    tmp_path: Path,
    certificate_authority: trustme.CA,
    separate_key: bool,
) -> None:
    issued = certificate_authority.issue_cert("127.0.0.1", "localhost")
    cert = tmp_path / "server.pem"
    if separate_key:
        key = tmp_path / "server.key"
        issued.cert_chain_pems[0].write_to_path(str(cert))
        issued.private_key_pem.write_to_path(str(key))
        flags = ["--tls-cert", str(cert), "--tls-key", str(key)]
    else:
        issued.private_key_and_cert_chain_pem.write_to_path(str(cert))
        flags = ["--tls-cert", str(cert)]
    running = http_servers.start("stateless-http", *flags, scheme="https")

    trusting = ssl.create_default_context(ssl.Purpose.SERVER_AUTH)
    certificate_authority.configure_trust(trusting)
    async with sdk_client(running, verify=trusting) as client:
        result = await client.call_tool("echo", {"text": "over tls"})
    assert result.structured_content == {"text": "over tls"}

    # plain HTTP on the TLS port gets nowhere, and neither does TLS 1.2
    with pytest.raises(httpx.HTTPError):
        _raw_post(f"http://127.0.0.1:{running.port}/mcp", timeout=5)
    old = ssl.create_default_context(ssl.Purpose.SERVER_AUTH)
    certificate_authority.configure_trust(old)
    old.maximum_version = ssl.TLSVersion.TLSv1_2
    with (
        socket.create_connection(("127.0.0.1", running.port), timeout=5) as raw,
        pytest.raises(ssl.SSLError),
    ):
        old.wrap_socket(raw, server_hostname="127.0.0.1")


def test_environment_variables_configure_the_server(http_servers: HttpServers) -> None:
    running = http_servers.start(
        "stateless-http",
        env={"EXAMPLE_SERVER_LOG_LEVEL": "DEBUG", "EXAMPLE_SERVER_GREETING": "one|two"},
    )
    assert _raw_post(running.url, running.auth).status_code == 200
    assert " DEBUG " in running.log()
