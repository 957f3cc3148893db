"""A project's own ``.gitignore`` cannot hang the context-server (issue 23, item 1).

pathspec translates each gitignore line to a regular expression; run by Python's backtracking
``re``, the line ``*a*a*a*a*a*a*a*a*a*a*a*a*a*a!`` against a 120-character name takes longer
than any client waits (the work grows as the name's length to the fourteenth power). The walk
compiles every ``.gitignore`` for RE2, which runs in time linear in the path whatever the
pattern. Replayed over stdio, and compared with pathspec's own answers on random lines.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import anyio
import pathspec
import pytest
from context_server.core.walk import compiled_ignore
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp_common.testing import result_text

COMMAND = Path(sys.executable).with_name("context-server")
HOSTILE_LINE = "*a" * 14 + "!"
HANG_GUARD = 120  # seconds; the backtracking translation needs years on this input
GLOBS = st.lists(
    st.sampled_from(["*", "**", "?", "a", "b", "/", "!", "[ab]", "\\*", "."]), max_size=12
)
PATHS = st.lists(st.sampled_from(["a", "b", "/", ".", "*", "!"]), min_size=1, max_size=16)


@pytest.mark.e2e
@pytest.mark.anyio
async def test_a_hostile_gitignore_line_is_matched_in_linear_time(tmp_path: Path) -> None:
    project = tmp_path / "allowed" / "proj"
    slow_name = "a" * 120
    (project / slow_name).mkdir(parents=True)
    (project / slow_name / "Main.java").write_text("class Main {}\n", encoding="utf-8")
    (project / ".gitignore").write_text(f"{HOSTILE_LINE}\n", encoding="utf-8")
    params = StdioServerParameters(
        command=str(COMMAND),
        args=["--allowed-dir", str(tmp_path / "allowed"), "--log-file", str(tmp_path / "log")],
        cwd=str(tmp_path),
    )
    with anyio.fail_after(HANG_GUARD):
        async with Client(params) as client:
            tree = await client.call_tool("project_tree", {"path": "proj", "depth": 3})
            assert not tree.is_error, result_text(tree)
            assert "Main.java" in result_text(tree), "the line does not match, so nothing hides"
            again = await client.call_tool("project_tree", {"path": "proj"})
            assert not again.is_error, "the server serves on"


@settings(max_examples=400, deadline=None)
@given(GLOBS.map("".join), PATHS.map("".join))
def test_the_linear_matcher_answers_as_pathspec_does(line: str, path: str) -> None:
    problems: list[object] = []
    ours = compiled_ignore((line,), "", problems)  # type: ignore[arg-type]
    try:
        reference = pathspec.GitIgnoreSpec.from_lines([line], backend="simple")
    except ValueError:
        assert ours is None, "an unusable line is not matched"
        assert problems, "an unusable line is reported"
        return
    assert ours is not None
    assert ours.match_file(path) == reference.match_file(path)


def test_without_re2_the_walk_fails_instead_of_backtracking() -> None:
    # pathspec's own fallback would quietly use the backtracking translation
    probe = (
        "import sys; sys.modules['re2'] = None\n"
        "from context_server.core.walk import compiled_ignore\n"
        "compiled_ignore(('*.py',), '', [])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode != 0
    assert "re2" in done.stderr
