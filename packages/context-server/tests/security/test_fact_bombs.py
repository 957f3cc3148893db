"""Files whose facts are huge, replayed against the real ``context-server`` over stdio.

An import repeats its module's name for every name it imports: ``from <30 KB name> import
(n0, ..., n1999)`` is 40 KB of Python (Rust's ``use <30 KB path>::{n0, ..., n1999}`` the
same) and 60 MB of facts. A 400 KB project of ten such files held the server at 1.3 GB and
wrote 600 MB to the index store (seventh attack pass, issue 23). Import-only files of 2 MB
(270,000 names each, facts 12 times their size) then still took it to 1.1 GB for ten.
A file's facts now keep at most 10,000 entries and 256 K characters of names of each kind
(real code: a few hundred), the rest cut with a line in the log; facts still over 16 times
their file's size skip it, naming the rule.
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
CUT_DOWN = {
    **{f"bombs/b{n}.py": f"from {PREFIX}{n} import ({NAMES})\n" for n in range(4)},
    "src/bomb.rs": f"use {PREFIX}::{{{NAMES}}};\n",
}
"""Kept to their first 8 imports (256 K characters of names), 240 KB of facts each."""
SKIPPED_FILES = {
    "bombs/dense.py": f"from {'m' * 3000} import ({', '.join(f'n{k}' for k in range(100))})\n"
}
"""3.5 KB of source whose 87 imports kept still take 262 KB: over 16 times its size."""
FILES = {
    "app/main.py": "from app.util import helper\n\nhelper()\n",
    "app/util.py": "def helper():\n    return 1\n",
}
LIMITS = (
    r"facts cut to the limit per file \(10,000 entries and 256 K characters of names of each kind\)"
)
SKIPPED = re.compile(r"skipped: its facts take \d+ bytes, more than 16 times its size")
PEAK_BYTES = 400 * 1024 * 1024
"""The server's own peak resident memory: 134 MB here; before the rule these five files'
facts alone took 300 MB of it (ten took the server to 1.3 GB)."""


def _peak_bytes(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+) kB", status)[1]) * 1024  # type: ignore[index]


def _write(project: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        (project / relative).parent.mkdir(parents=True, exist_ok=True)
        (project / relative).write_text(text, encoding="utf-8")


def _cut_lines(log_file: Path) -> dict[str, int]:
    """How often the log says each file's facts were cut."""
    found: dict[str, int] = {}
    for line in log_file.read_text(encoding="utf-8").splitlines():
        match = re.search(r" (\S+): " + LIMITS + ", kept: ", line)
        if match:
            found[match[1]] = found.get(match[1], 0) + 1
    return found


async def test_facts_far_larger_than_their_file_are_cut_or_refused(tmp_path: Path) -> None:
    project = tmp_path / "work" / "proj"
    _write(project, {**FILES, **CUT_DOWN, **SKIPPED_FILES})
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
        assert set(problems) == set(SKIPPED_FILES), problems
        assert SKIPPED.fullmatch(problems["bombs/dense.py"]), problems
        # each file cut is said once in the log, and to whoever asks for its context
        assert _cut_lines(log_file) == dict.fromkeys(CUT_DOWN, 1)
        bomb = await client.call_tool("find_context", {"path": "proj", "className": "bombs/b0.py"})
        assert not bomb.is_error, result_text(bomb)
        assert bomb.structured_content is not None
        (note,) = bomb.structured_content["notes"]
        assert re.fullmatch(LIMITS + ", kept: imports 8 of 2,000", note), note
        # the rest of the project is answered
        context = await client.call_tool("find_context", {"path": "proj", "className": "app.main"})
        assert not context.is_error, result_text(context)
        assert "app/util.py" in result_text(context)
        assert _peak_bytes(server) < PEAK_BYTES
    # nothing of the facts reached the store
    stored = sum(path.stat().st_size for path in store.rglob("*") if path.is_file())
    assert stored < 4 * 1024 * 1024, stored


def _import_only(module: int) -> str:
    """Just under 2 MiB (the largest source file read) of one Python import line naming
    about 270,000 names: 12 times its size in facts, uncut."""
    names: list[str] = []
    size = len(f"from m{module} import ()\n")
    for number in range(400_000):
        name = f"a{number:x}"
        if size + len(name) + 2 > 2 * 1024 * 1024:
            break
        names.append(name)
        size += len(name) + 2
    return f"from m{module} import ({', '.join(names)})\n"


IMPORT_ONLY_PEAK_BYTES = 500 * 1024 * 1024
"""The server's own peak resident memory with ten import-only files of 2 MB: 200 MB
measured; 1,075 MB before their facts were cut (each file's about 100 MB once decoded and
linked)."""


async def test_import_only_files_of_two_megabytes_are_cut_and_stay_small(tmp_path: Path) -> None:
    project = tmp_path / "work" / "proj"
    hostile = {f"imports/i{n}.py": _import_only(n) for n in range(10)}
    _write(project, {**FILES, **hostile})
    log_file = tmp_path / "server.log"
    async with stdio_client(
        COMMAND,
        "--allowed-dir",
        str(tmp_path / "work"),
        "--no-index-store",
        "--log-file",
        str(log_file),
        cwd=tmp_path / "work",
        drop_prefix="CONTEXT_SERVER_",
    ) as client:
        server = process_logging_to(log_file)
        tree = await client.call_tool("project_tree", {"path": "proj", "format": "json"})
        assert not tree.is_error, result_text(tree)
        assert tree.structured_content is not None
        assert tree.structured_content["problems"] == []
        assert _cut_lines(log_file) == dict.fromkeys(hostile, 1)
        for question, arguments in (
            ("find_usages", {"path": "proj", "className": "app.util"}),
            ("repo_map", {"path": "proj"}),
        ):
            answer = await client.call_tool(question, arguments)
            assert not answer.is_error, result_text(answer)
        context = await client.call_tool("find_context", {"path": "proj", "className": "i3"})
        assert context.structured_content is not None
        (note,) = context.structured_content["notes"]
        assert re.fullmatch(LIMITS + ", kept: imports 10,000 of 2\\d\\d,\\d{3}(, .+)?", note), note
        assert _peak_bytes(server) < IMPORT_ONLY_PEAK_BYTES
