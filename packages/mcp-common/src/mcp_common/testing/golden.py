"""The golden ``tools/list``: the exact wire listing of a server, committed and diffed.

Format (reference section 2.5): a JSON array sorted by tool name; each entry has exactly
``name``, ``description``, ``inputSchema``, ``annotations`` and ``outputSchema`` (``null`` when
the tool has none); keys sorted at every depth, two-space indent, UTF-8 kept as is, and a
trailing newline. ``UPDATE_GOLDEN=1`` rewrites the file instead of comparing.
"""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

UPDATE_VARIABLE = "UPDATE_GOLDEN"
_DIFF_LINES = 60


def canonical_tools_list(tools_list: Sequence[Mapping[str, Any]]) -> str:
    """The golden text of a ``tools/list`` result's ``tools`` array (wire JSON, by alias)."""
    entries = [
        {
            "name": tool["name"],
            "description": tool.get("description"),
            "inputSchema": tool.get("inputSchema"),
            "annotations": tool.get("annotations"),
            "outputSchema": tool.get("outputSchema"),
        }
        for tool in sorted(tools_list, key=lambda tool: str(tool["name"]))
    ]
    return json.dumps(entries, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def golden_path(server_name: str, golden_dir: str | os.PathLike[str]) -> Path:
    """Where the golden of ``server_name`` lives."""
    return Path(golden_dir) / f"{server_name}.tools.json"


def assert_golden_tools_list(
    server_name: str,
    tools_list: Sequence[Mapping[str, Any]],
    golden_dir: str | os.PathLike[str],
    min_tools: int = 1,
) -> None:
    """Compare the wire ``tools/list`` of ``server_name`` with its committed golden.

    With ``UPDATE_GOLDEN=1`` the golden is (re)written and the check passes. Otherwise a
    missing golden fails with the command that creates it, and a different one writes
    ``<server>.tools.actual.json`` next to it and fails with the head of a unified diff.
    """
    if len(tools_list) < min_tools:
        raise AssertionError(
            f"{server_name}: tools/list has {len(tools_list)} tools, at least {min_tools} expected"
        )
    actual = canonical_tools_list(tools_list)
    golden = golden_path(server_name, golden_dir)
    actual_file = golden.with_name(f"{server_name}.tools.actual.json")
    regenerate = f"{UPDATE_VARIABLE}=1 uv run pytest <this test> and review the git diff"
    if os.environ.get(UPDATE_VARIABLE, "") not in ("", "0"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(actual, encoding="utf-8", newline="\n")
        actual_file.unlink(missing_ok=True)
        return
    if not golden.is_file():
        raise AssertionError(f"{server_name}: no golden at {golden}; create it with {regenerate}")
    expected = golden.read_text(encoding="utf-8")
    if expected == actual:
        actual_file.unlink(missing_ok=True)
        return
    actual_file.write_text(actual, encoding="utf-8", newline="\n")
    diff = list(
        difflib.unified_diff(
            expected.splitlines(),
            actual.splitlines(),
            fromfile=golden.name,
            tofile=actual_file.name,
            lineterm="",
        )
    )
    shown = "\n".join(diff[:_DIFF_LINES])
    more = f"\n... ({len(diff) - _DIFF_LINES} more diff lines)" if len(diff) > _DIFF_LINES else ""
    raise AssertionError(
        f"{server_name}: tools/list differs from its golden (actual written to "
        f"{actual_file.name}); if the change is intended, regenerate with {regenerate}\n"
        f"{shown}{more}"
    )
