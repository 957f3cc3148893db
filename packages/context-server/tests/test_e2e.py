"""The real ``context-server`` command as a subprocess, driven by the SDK client over stdio."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import mcp_types as types
import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp_common.testing import http_client

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

COMMAND = Path(sys.executable).with_name("context-server")


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(part.text for part in result.content if isinstance(part, types.TextContent))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src" / "app").mkdir(parents=True)
    for n in range(450):
        (root / "src" / "app" / f"Gen{n}.java").write_text(
            f"package app; class Gen{n} {{ Gen{(n + 1) % 450} next; }}", encoding="utf-8"
        )
    (root / "src" / "app" / "Main.kt").write_text(
        "package app\nclass Main(val first: Gen0)\n", encoding="utf-8"
    )
    return root


async def test_stdio_server_answers_tools_with_progress(project: Path, tmp_path: Path) -> None:
    assert COMMAND.is_file(), f"{COMMAND} is not installed; run uv sync"
    log_file = tmp_path / "server.log"
    params = StdioServerParameters(
        command=str(COMMAND),
        args=["--allowed-dir", str(project), "--log-file", str(log_file)],
        cwd=str(tmp_path),
    )
    progress: list[float] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append(done)

    async with Client(params) as client:
        listed = await client.list_tools()
        assert [tool.name for tool in listed.tools] == [
            "project_tree",
            "find_context",
            "estimate_tokens",
            "okf_bundle",
            "repo_map",
            "find_usages",
        ]
        tree = await client.call_tool(
            "project_tree", {"path": ".", "format": "dot"}, progress_callback=on_progress
        )
        assert not tree.is_error
        assert '  "src/app/Main.kt" -> "src/app/Gen0.java";\n' in text_of(tree)
        assert progress
        assert progress[-1] == 451
        context = await client.call_tool(
            "find_context", {"path": ".", "className": "app.Main", "depth": 2}
        )
        assert context.structured_content is not None
        assert [d["path"] for d in context.structured_content["dependencies"]] == [
            "src/app/Gen0.java",
            "src/app/Gen1.java",
        ]
        denied = await client.call_tool("okf_bundle", {"path": str(tmp_path)})
        assert denied.is_error
        assert str(tmp_path) not in text_of(denied)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def http_server(
    request: pytest.FixtureRequest, project: Path, tmp_path: Path
) -> Iterator[tuple[str, str]]:
    """The real command serving ``request.param`` (an HTTP transport) on a free port: its URL
    and the bearer token it generated (read from the token file, as a client would)."""
    port = _free_port()
    log_file = tmp_path / "http.log"
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    with log_file.open("wb") as sink:
        process = subprocess.Popen(
            [
                str(COMMAND),
                *("--transport", request.param, "--port", str(port)),
                *("--allowed-dir", str(project)),
            ],
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
            cwd=tmp_path,
            env={**os.environ, "XDG_RUNTIME_DIR": str(runtime)},
        )
    try:
        deadline = time.monotonic() + 30
        while True:
            assert process.poll() is None, log_file.read_text(errors="replace")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                assert time.monotonic() < deadline, "the server did not start listening"
                time.sleep(0.05)
        token = (runtime / "mcp-tools" / f"context-server-{port}.token").read_text().strip()
        yield f"http://127.0.0.1:{port}/mcp", token
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


@pytest.mark.parametrize("http_server", ["streamable-http", "stateless-http"], indirect=True)
async def test_http_transports_answer_the_same_tools(http_server: tuple[str, str]) -> None:
    url, token = http_server
    async with http_client(url, token=token) as client:
        listed = await client.list_tools()
        assert len(listed.tools) == 6
        result = await client.call_tool(
            "estimate_tokens", {"path": ".", "className": "Main", "tokenizer": "heuristic"}
        )
        assert result.structured_content is not None
        assert [f["path"] for f in result.structured_content["files"]] == [
            "src/app/Main.kt",
            "src/app/Gen0.java",
        ]


async def test_long_answers_reach_the_client_whole_page_by_page(tmp_path: Path) -> None:
    # Long file names make 5000 tree nodes far more than the 100,000-character answer cap.
    root = tmp_path / "wide"
    (root / "src").mkdir(parents=True)
    stem = "AVeryLongGeneratedSourceFileName" * 6
    for n in range(900):
        (root / "src" / f"{stem}{n:04d}.txt").write_text("x", encoding="utf-8")
    params = StdioServerParameters(
        command=str(COMMAND), args=["--allowed-dir", str(root)], cwd=str(tmp_path)
    )
    async with Client(params) as client:
        seen: list[str] = []
        offset: int | None = 0
        while offset is not None:
            result = await client.call_tool(
                "project_tree", {"path": ".", "format": "json", "limit": 5000, "offset": offset}
            )
            assert result.structured_content is not None
            text = text_of(result)
            assert "[OUTPUT TRUNCATED]" not in text  # the adapter never cut it again
            tree = json.loads(text)  # whole, valid JSON
            page = result.structured_content["page"]
            names = [c["name"] for c in tree["children"][0]["children"]] if tree["children"] else []
            assert len(names) == page["returned"] - (2 if page["offset"] == 0 else 0)
            seen += [node["path"] for node in result.structured_content["nodes"]]
            offset = page["nextOffset"]
        assert len(seen) == len(set(seen)) == 902
