"""Issue 23 item 7 over the real ``context-server`` (stdio): a source file that is a hard
link to a file outside the allowed directory is listed by the tree walk (its name is inside)
but never read: the walk reports it skipped with the rule, no tool returns a byte of it, and
``--allow-hard-links`` reads it."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path

import pytest
from mcp.client.client import Client
from mcp_common.testing import HARD_LINK_RULE, everything_in, result_text, stdio_client

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

COMMAND = Path(sys.executable).with_name("context-server")
SECRET = "HARDLINKED-SECRET-5150"


@pytest.fixture
def world(tmp_path: Path, java_beside_outside: Callable[[str], Path]) -> Path:
    project = java_beside_outside(SECRET)
    os.link(tmp_path / "outside" / "Secret.java", project / "src" / "app" / "Leak.java")
    return tmp_path


def server(world: Path, *flags: str) -> AbstractAsyncContextManager[Client]:
    return stdio_client(
        COMMAND,
        *("--allowed-dir", str(world / "allowed")),
        *("--log-file", str(world / "server.log")),
        "--no-index-store",
        *flags,
        cwd=world,
        drop_prefix="CONTEXT_SERVER_",
    )


CALLS = [
    ("project_tree", {"path": "proj", "format": "json"}),
    ("find_context", {"path": "proj", "className": "Main", "includeSource": True, "depth": 3}),
    ("find_context", {"path": "proj", "className": "Leak", "includeSource": True}),
    ("estimate_tokens", {"path": "proj", "className": "Main"}),
    ("okf_bundle", {"path": "proj"}),
    ("repo_map", {"path": "proj"}),
    ("find_usages", {"path": "proj", "className": "Util"}),
]


async def test_the_walk_skips_a_hard_linked_source_and_no_tool_reads_it(world: Path) -> None:
    async with server(world) as client:
        for name, arguments in CALLS:
            answer = await client.call_tool(name, arguments)
            assert SECRET not in everything_in(answer), f"outside content in {name} {arguments}"
        tree = await client.call_tool("project_tree", {"path": "proj", "format": "json"})
        assert tree.structured_content is not None
        problems = {(p["path"], p["reason"]) for p in tree.structured_content["problems"]}
        assert ("src/app/Leak.java", f"skipped: {HARD_LINK_RULE}") in problems
        good = await client.call_tool(
            "find_context", {"path": "proj", "className": "Main", "includeSource": True}
        )
        assert not good.is_error
        assert "class Util" in result_text(good), "the server keeps serving"
    assert SECRET not in (world / "server.log").read_text(encoding="utf-8")


async def test_allow_hard_links_reads_them(world: Path) -> None:
    async with server(world, "--allow-hard-links") as client:
        answer = await client.call_tool(
            "find_context", {"path": "proj", "className": "Main", "includeSource": True}
        )
    assert SECRET in result_text(answer), result_text(answer)
