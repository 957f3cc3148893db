"""Issue 23 item 7 over the real ``context-server`` (stdio): a source file that is a hard
link to a file outside the allowed directory is listed by the tree walk (its name is inside)
but never read: the walk reports it skipped with the rule, no tool returns a byte of it, and
``--allow-hard-links`` reads it."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp_common.testing import result_text

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

COMMAND = Path(sys.executable).with_name("context-server")
SECRET = "HARDLINKED-SECRET-5150"
SKIPPED = (
    "skipped: the file has 2 hard links, and another name of it may lie outside the allowed "
    "directories (refused unless the server runs with --allow-hard-links)"
)


@pytest.fixture
def world(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "Secret.java").write_text(
        f'package app; class Leak {{ String s = "{SECRET}"; }}\n', encoding="utf-8"
    )
    project = tmp_path / "allowed" / "proj"
    (project / "src" / "app").mkdir(parents=True)
    (project / "src" / "app" / "Main.java").write_text(
        "package app; class Main { Util util; Leak leak; }\n", encoding="utf-8"
    )
    (project / "src" / "app" / "Util.java").write_text(
        "package app; class Util {}\n", encoding="utf-8"
    )
    os.link(outside / "Secret.java", project / "src" / "app" / "Leak.java")
    return tmp_path


@asynccontextmanager
async def server(world: Path, *flags: str) -> AsyncIterator[Client]:
    assert COMMAND.is_file(), f"{COMMAND} is not installed; run uv sync"
    params = StdioServerParameters(
        command=str(COMMAND),
        args=[
            *("--allowed-dir", str(world / "allowed")),
            *("--log-file", str(world / "server.log")),
            "--no-index-store",
            *flags,
        ],
        env={k: v for k, v in os.environ.items() if not k.startswith("CONTEXT_SERVER_")},
        cwd=str(world),
    )
    async with Client(params) as client:
        yield client


def everything(result: object) -> str:
    structured = getattr(result, "structured_content", None)
    return result_text(result) + json.dumps(structured)  # type: ignore[arg-type]


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
            assert SECRET not in everything(answer), f"outside content in {name} {arguments}"
        tree = await client.call_tool("project_tree", {"path": "proj", "format": "json"})
        assert tree.structured_content is not None
        problems = {(p["path"], p["reason"]) for p in tree.structured_content["problems"]}
        assert ("src/app/Leak.java", SKIPPED) in problems
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
