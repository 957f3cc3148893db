"""Deeply nested source files replayed against the real ``context-server`` over stdio.

A 120 KB Java file of 20,000 nested generics held ``project_tree`` for minutes: every
identifier's parent look-ups cost its depth in the syntax tree (quadratic), and the
language modules recurse over trees. Each such file is now refused before its reading
starts (nesting past the limit) or as soon as its CPU budget is spent, and listed as
skipped with that reason while the rest of the project is answered.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
from context_server.core.languages import LANGUAGES, TooComplexError, family_of
from mcp_common.testing import result_text, stdio_client

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

COMMAND = Path(sys.executable).with_name("context-server")
LEVELS = 3000


def _parenthesised(head: str, tail: str) -> str:
    """``head`` + an expression nested ``LEVELS`` parentheses deep + ``tail``."""
    return head + "(" * LEVELS + "X" + ")" * LEVELS + tail


# One file per dialect whose syntax nests far past the limit.
DEEP = {
    "Deep.java": _parenthesised("class Deep { Object f = ", "; }\n"),
    "Deep.kt": _parenthesised("val f = ", "\n"),
    "Deep.scala": _parenthesised("object Deep { val f = ", " }\n"),
    "deep.py": _parenthesised("f = ", "\n"),
    "deep.go": _parenthesised("package deep\nvar f = ", "\n"),
    "deep.rs": _parenthesised("const F: i32 = ", ";\n"),
    "Deep.cs": _parenthesised("class Deep { object f = ", "; }\n"),
    "deep.ts": _parenthesised("export const f = ", ";\n"),
    "deep.tsx": _parenthesised("export const f = ", ";\n"),
    "deep.js": _parenthesised("export const f = ", ";\n"),
}


def _generics(levels: int) -> str:
    """The reported example: a field of ``levels`` nested generic types (120 KB at
    24,000)."""
    return "package app;\nclass Hostile { " + "Map<" * levels + "X" + ">" * levels + " f; }\n"


@pytest.mark.parametrize("name", sorted(DEEP))
def test_every_language_refuses_a_deep_file_quickly(name: str) -> None:
    language = next(one for one in LANGUAGES if name.endswith(one.extensions))
    started = time.process_time()
    with pytest.raises(TooComplexError, match="nests more than 256 levels deep"):
        family_of(language.name).extract(language, DEEP[name], name, "deep")
    # far under the per-file budget: refused by the depth check, before any reading
    assert time.process_time() - started < 1.0


async def test_nested_generics_leave_the_rest_of_the_project_answered(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    files = {
        "src/app/Main.java": "package app;\nclass Main { Util util; }\n",
        "src/app/Util.java": "package app;\nclass Util {}\n",
        "src/app/Hostile.java": _generics(24_000),
        **{f"deep/{name}": text for name, text in DEEP.items()},
    }
    for relative, text in files.items():
        (project / relative).parent.mkdir(parents=True, exist_ok=True)
        (project / relative).write_text(text, encoding="utf-8")
    assert (project / "src/app/Hostile.java").stat().st_size > 120_000
    async with stdio_client(
        COMMAND, "--allowed-dir", str(tmp_path), cwd=tmp_path, drop_prefix="CONTEXT_SERVER_"
    ) as client:
        started = time.monotonic()
        tree = await client.call_tool("project_tree", {"path": "proj", "format": "json"})
        elapsed = time.monotonic() - started
        assert not tree.is_error, result_text(tree)
        # minutes before; a few seconds now, generous for a loaded machine
        assert elapsed < 30, f"project_tree took {elapsed:.1f} s"
        assert tree.structured_content is not None
        problems = {p["path"]: p["reason"] for p in tree.structured_content["problems"]}
        for path in ["src/app/Hostile.java", *(f"deep/{name}" for name in DEEP)]:
            assert problems.get(path) == (
                "skipped: its syntax nests more than 256 levels deep (the limit for a source file)"
            ), path
        assert "Util.java" in result_text(tree)
        context = await client.call_tool("find_context", {"path": "proj", "className": "app.Main"})
        assert not context.is_error, result_text(context)
        assert "src/app/Util.java" in result_text(context)
        # the server still answers
        assert {tool.name for tool in (await client.list_tools()).tools} >= {"project_tree"}
