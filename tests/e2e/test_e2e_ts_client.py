"""A client that is not ours: the TypeScript MCP SDK (under Node) against the example server."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from required_tools import missing_tool

from .e2e_support import REPO_ROOT, HttpServers, server_env

pytestmark = pytest.mark.e2e

CLIENT_DIR = Path(__file__).resolve().parent / "ts_client"
NODE = shutil.which("node")
NPM = shutil.which("npm")


@pytest.fixture(scope="module")
def ts_client() -> Path:
    """The client script, with its locked dependencies installed (``npm ci``) if missing."""
    if NODE is None or NPM is None:
        missing_tool("node and npm are needed for the TypeScript SDK client test")
    if not (CLIENT_DIR / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
        installed = subprocess.run(
            [NPM, "ci", "--no-audit", "--no-fund"],
            cwd=CLIENT_DIR,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert installed.returncode == 0, f"npm ci failed:\n{installed.stderr}"
    return CLIENT_DIR / "client.mjs"


def run_ts_client(script: Path, *args: str, token: str | None = None) -> dict[str, Any]:
    assert NODE is not None
    done = subprocess.run(
        [NODE, str(script), *args],
        cwd=REPO_ROOT,
        env=server_env({"MCP_TOKEN": token} if token else None),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, f"TypeScript client failed:\n{done.stderr}"
    summary: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return summary


def check_summary(summary: dict[str, Any]) -> None:
    assert summary["server"]["name"] == "example-server"
    assert [t["name"] for t in summary["tools"]] == ["echo", "slow", "boom"]
    assert summary["tools"][0] == {"name": "echo", "readOnlyHint": True, "hasOutputSchema": True}
    assert summary["echo"] == {
        "text": "from node from node",
        "structured": {"text": "from node from node"},
        "isError": False,
    }
    assert summary["boom"]["isError"] is True
    assert summary["boom"]["text"].startswith("boom failed: cannot connect to https://***@")
    assert "secret" not in summary["boom"]["text"]
    assert "/srv/private" not in summary["boom"]["text"]
    assert summary["slow"] == {
        "text": "waited 0.2 seconds",
        "progress": [[1, 2, "step 1 of 2"], [2, 2, "step 2 of 2"]],
    }


def test_typescript_client_over_stdio(ts_client: Path) -> None:
    check_summary(run_ts_client(ts_client, "stdio", sys.executable, "-m", "example_server"))


@pytest.mark.parametrize("transport", ["streamable-http", "stateless-http"])
def test_typescript_client_over_http(
    ts_client: Path, http_servers: HttpServers, transport: str
) -> None:
    running = http_servers.start(transport)
    check_summary(run_ts_client(ts_client, "http", running.url, token=running.token))
