"""The real ``adopt-server`` command as a stdio subprocess, driven by the SDK client."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from conftest import AdoptEnv
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp_common.testing import result_text

pytestmark = pytest.mark.e2e

SERVER = Path(sys.executable).parent / "adopt-server"
TOKEN = "ghs_E2ETOKEN1234567890abcdefghij"


def test_stdio_server_adopts_and_never_leaks_the_token(adopt_env: AdoptEnv) -> None:
    adopt_env.remote("plain", "repo")
    adopt_env.git_config(f'[url "{adopt_env.remotes}/"]\n\tinsteadOf = https://github.com/owner/\n')
    log_file = adopt_env.root / "server.log"
    params = StdioServerParameters(
        command=str(SERVER),
        args=["--workspace-root", str(adopt_env.root), "--log-file", str(log_file)],
        env=dict(os.environ),
        cwd=str(adopt_env.root),
    )
    progress: list[str] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(message or "")

    async def scenario() -> tuple[list[str], Any, Any]:
        async with Client(params) as client:
            names = [tool.name for tool in (await client.list_tools()).tools]
            adopted = await client.call_tool(
                "adopt_repo",
                {"repository_url": f"https://x-access-token:{TOKEN}@github.com/owner/repo.git"},
                progress_callback=on_progress,
            )
            refused = await client.call_tool("verify_adoption", {"repositoryUrl": "-x"})
            return names, adopted, refused

    names, adopted, refused = anyio.run(scenario)
    assert names == ["adopt_repo", "verify_adoption", "adoption_status"]
    assert not adopted.is_error, result_text(adopted)
    [entry] = adopted.structured_content["repositories"]
    assert entry["pullRequestUrl"] == "https://github.com/owner/repo/pull/1"
    assert entry["repositoryUrl"] == "https://***@github.com/owner/repo.git"
    assert refused.is_error
    assert "must not start with '-'" in result_text(refused)
    assert any("step 14/14 pull-request" in m for m in progress)
    log = log_file.read_text()
    assert "Step 1/14: toolchain" in log
    everything = log + result_text(adopted) + str(adopted.structured_content) + "".join(progress)
    assert TOKEN not in everything
    assert TOKEN not in (adopt_env.remotes / "repo.git" / "config").read_text()
