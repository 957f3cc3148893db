"""Small files whose facts are huge, replayed against the real ``context-server`` over stdio.

An import repeats its module's name for every name it imports: ``from <30 KB name> import
(n0, ..., n1999)`` is 40 KB of Python (Rust's ``use <30 KB path>::{n0, ..., n1999}`` the
same) and 60 MB of facts. A 400 KB project of ten such files held the server at 1.3 GB and
wrote 600 MB to the index store (seventh attack pass, issue 23). A file's facts may now take
at most 16 times its size (real code: under 5): past that it is skipped, naming the rule.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from mcp_common.testing import process_logging_to, result_text, stdio_client

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

COMMAND = Path(sys.executable).with_name("context-server")
PREFIX = "m" * 30_000
NAMES = ", ".join(f"n{number}" for number in range(2000))
HOSTILE = {
    **{f"bombs/b{n}.py": f"from {PREFIX}{n} import ({NAMES})\n" for n in range(4)},
    "src/bomb.rs": f"use {PREFIX}::{{{NAMES}}};\n",
}
FILES = {
    "app/main.py": "from app.util import helper\n\nhelper()\n",
    "app/util.py": "def helper():\n    return 1\n",
}
SKIPPED = re.compile(r"skipped: its facts take \d+(\.\d)? MB, more than 16 times its size")
PEAK_BYTES = 400 * 1024 * 1024
"""The server's own peak resident memory: 134 MB here; before the rule these five files'
facts alone took 300 MB of it (ten took the server to 1.3 GB)."""


def _peak_bytes(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+) kB", status)[1]) * 1024  # type: ignore[index]


async def test_facts_far_larger_than_their_file_are_refused(tmp_path: Path) -> None:
    project = tmp_path / "work" / "proj"
    for relative, text in {**FILES, **HOSTILE}.items():
        (project / relative).parent.mkdir(parents=True, exist_ok=True)
        (project / relative).write_text(text, encoding="utf-8")
    store = tmp_path / "store"
    log_file = tmp_path / "server.log"
    async with stdio_client(
        COMMAND,
        "--allowed-dir",
        str(tmp_path / "work"),
        "--index-store-dir",
        str(store),
        "--log-file",
        str(log_file),
        cwd=tmp_path / "work",
        drop_prefix="CONTEXT_SERVER_",
    ) as client:
        server = process_logging_to(log_file)
        tree = await client.call_tool("project_tree", {"path": "proj", "format": "json"})
        assert not tree.is_error, result_text(tree)
        assert tree.structured_content is not None
        problems = {p["path"]: p["reason"] for p in tree.structured_content["problems"]}
        for relative in HOSTILE:
            assert SKIPPED.fullmatch(problems.get(relative, "")), (relative, problems)
        # the rest of the project is answered
        context = await client.call_tool("find_context", {"path": "proj", "className": "app.main"})
        assert not context.is_error, result_text(context)
        assert "app/util.py" in result_text(context)
        assert _peak_bytes(server) < PEAK_BYTES
    # nothing of the facts reached the store
    stored = sum(path.stat().st_size for path in store.rglob("*") if path.is_file())
    assert stored < 4 * 1024 * 1024, stored
