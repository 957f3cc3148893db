"""Issue 23.1 through the real ``adopt-server`` over stdio: an adopted repository whose own
``.claude/agent-config-check.json`` holds a catastrophic pattern (and whose ``.gitignore``
holds catastrophic globs) is verified at once, and the server keeps serving.

Before the fix one ``verify_adoption`` here held the server for hours; the bound below is far
beyond a linear check and far below that.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from adopt_server.conformance import rules_for
from adopt_server.guards import install_guard
from adopt_testkit import make_bare_repository
from conftest import AdoptEnv
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp_common.testing import result_text

pytestmark = pytest.mark.e2e

SERVER = Path(sys.executable).parent / "adopt-server"
HANG_GUARD = 120
GLOB = "*a" * 14 + "!"


def adopted_files(tmp_path: Path) -> dict[str, str]:
    """The files of a repository as the adoption leaves it (the CI guard and its script)."""
    work = tmp_path / "guard"
    work.mkdir()
    install_guard(work, "github-actions", rules_for("project", "github-actions"), None)
    return {
        path.relative_to(work).as_posix(): path.read_text(encoding="utf-8")
        for path in work.rglob("*")
        if path.is_file()
    }


@pytest.mark.parametrize(
    ("config", "gitignore"),
    [
        ({"rules": {"noSecrets": {"secretPatterns": ["((a)+)+!"]}}}, ""),
        (
            {"rules": {"localSettingsIgnored": {"ignoredPaths": ["a" * 120]}}},
            "".join(f"{prefix}{GLOB}\n" for prefix in ("", "/", "!")),
        ),
    ],
    ids=["secret-pattern", "gitignore-globs"],
)
def test_verify_adoption_of_a_hostile_configuration_answers_and_the_server_keeps_serving(
    adopt_env: AdoptEnv, tmp_path: Path, config: dict[str, Any], gitignore: str
) -> None:
    root = adopt_env.root / "root"
    (root / "repos").mkdir(parents=True)
    files = {
        **adopted_files(tmp_path),
        "CLAUDE.md": "a" * 60 + "b!\n",
        ".claude/agent-config-check.json": json.dumps(config),
    }
    if gitignore:
        files[".gitignore"] = gitignore
    remote = make_bare_repository(root / "repos", "hostile", files)

    async def verify() -> tuple[Any, set[str]]:
        params = StdioServerParameters(
            command=str(SERVER),
            args=["--workspace-root", str(root), "--log-file", str(adopt_env.root / "log")],
            env=dict(os.environ),
            cwd=str(adopt_env.root),
        )
        with anyio.fail_after(HANG_GUARD):
            async with Client(params) as client:
                result = await client.call_tool("verify_adoption", {"repositoryUrl": str(remote)})
                listing = await client.list_tools()  # still serving after the check
        return result, {tool.name for tool in listing.tools}

    result, tools = anyio.run(verify)
    assert "verify_adoption" in tools
    report = result.structured_content
    assert report is not None, result_text(result)
    (entry,) = report["repositories"]
    assert entry["completedSteps"] == ["toolchain", "clone", "check-adopted"]
    failure = entry["failure"] or ""
    assert failure.startswith("verify: verify failed: "), failure  # a verdict, not a timeout
    if gitignore:
        assert f".gitignore does not cover: {'a' * 120}" in failure
    else:
        assert "looks like a" not in failure
