"""Adversarial regressions replayed against the real ``context-server`` over stdio.

Each test plants what an attacker could put in a project (symlinks to files outside the
allowed directory, an oversized ignore file) and asserts the harm did not happen: no byte of
an outside file reaches any answer, outside ignore rules do not change the listing, refusals
name the rule, and the server keeps answering.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path

import pytest
from mcp.client.client import Client
from mcp_common.testing import everything_in, result_text, stdio_client

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

COMMAND = Path(sys.executable).with_name("context-server")
SECRET = "TOPSECRET-4242"
FORMATS = ("markdown", "text", "json", "dot", "mermaid")


@pytest.fixture
def world(tmp_path: Path, java_beside_outside: Callable[[str], Path]) -> Path:
    """``allowed/proj`` (a small Java project) next to ``outside/`` holding secrets.

    The outside ignore file would hide every Java file, and its last line is an invalid
    pattern whose error message would quote it: either effect proves it was read.
    """
    project = java_beside_outside(f"{SECRET}-source")
    outside = tmp_path / "outside"
    (outside / "ignore").write_text(f"*.java\n{SECRET}-ignore\\\n", encoding="utf-8")
    (project / "src" / "app" / "Leak.java").symlink_to(outside / "Secret.java")
    (project / ".gitignore").symlink_to(outside / "ignore")
    (project / "nested").mkdir()
    (project / "nested" / "Nested.java").write_text(
        "package app; class Nested {}\n", encoding="utf-8"
    )
    (project / "nested" / ".gitignore").symlink_to(outside / "ignore")
    (project / "escape").symlink_to(outside)
    (tmp_path / "allowed" / ".gitignore").symlink_to(outside / "ignore")
    return tmp_path


def server(world: Path) -> AbstractAsyncContextManager[Client]:
    return stdio_client(
        COMMAND,
        *("--allowed-dir", str(world / "allowed")),
        *("--log-file", str(world / "server.log")),
        cwd=world,
        drop_prefix="CONTEXT_SERVER_",
    )


async def test_symlinked_gitignore_files_are_never_read(world: Path) -> None:
    async with server(world) as client:
        for fmt in FORMATS:
            for path in ("proj", "proj/nested", "."):
                tree = await client.call_tool(
                    "project_tree", {"path": path, "format": fmt, "depth": 10}
                )
                assert not tree.is_error, result_text(tree)
                text = everything_in(tree)
                assert SECRET not in text, f"outside content in project_tree {path} {fmt}"
                assert "Main.java" in text or path == "proj/nested", "outside rules applied"
                assert "Nested.java" in text, "the outside ignore file hid a file"
        tree = await client.call_tool("project_tree", {"path": "proj", "format": "json"})
        problems = {(p["path"], p["reason"]) for p in tree.structured_content["problems"]}
        assert (".gitignore", "not used: symlink leads outside the allowed directories") in problems
        assert ("src/app/Leak.java", "symlink leads outside the allowed directories") in problems
    assert SECRET not in (world / "server.log").read_text(encoding="utf-8")


async def test_no_tool_returns_a_byte_of_a_symlinked_outside_source(world: Path) -> None:
    async with server(world) as client:
        calls = [
            ("find_context", {"path": "proj", "className": "Main", "includeSource": True}),
            ("find_context", {"path": "proj", "className": "Leak", "includeSource": True}),
            ("estimate_tokens", {"path": "proj", "className": "Main"}),
            ("okf_bundle", {"path": "proj"}),
            ("project_tree", {"path": "proj/escape"}),
            ("find_context", {"path": "proj", "className": "escape/Secret.java"}),
        ]
        for name, arguments in calls:
            answer = await client.call_tool(name, arguments)
            assert SECRET not in everything_in(answer), f"outside content in {name} {arguments}"
        refused = await client.call_tool("project_tree", {"path": "proj/escape"})
        assert refused.is_error
        assert "symlink leads outside the allowed directories" in result_text(refused)
        assert str(world) not in result_text(refused)
        good = await client.call_tool(
            "find_context", {"path": "proj", "className": "Main", "includeSource": True}
        )
        assert not good.is_error
        assert "class Util" in result_text(good), "the server keeps serving"


async def test_an_oversized_ignore_file_is_skipped_not_read(world: Path) -> None:
    project = world / "allowed" / "proj"
    (project / "nested" / ".gitignore").unlink()
    (project / "nested" / ".gitignore").write_text(
        "Nested.java\n" + "#" * (1024 * 1024), encoding="utf-8"
    )
    async with server(world) as client:
        tree = await client.call_tool("project_tree", {"path": "proj", "format": "json"})
        problems = {(p["path"], p["reason"]) for p in tree.structured_content["problems"]}
        assert ("nested/.gitignore", "not used: larger than the 1048576 byte limit") in problems
        assert "Nested.java" in result_text(tree)
