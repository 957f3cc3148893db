"""What a person trying a server for the first time reads when a call names a path outside the
directories the server was started with: the refusal says which of the server's options allows
more, so the fix is one flag away (``--allowed-dir``; adopt-server's ``--workspace-root``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from adopt_server.server import APP as ADOPT_APP
from context_server.server import APP as CONTEXT_APP
from mcp_common.adapter import ServerApp
from mcp_common.testing import in_process_client, result_text
from uniqueness_server.server import APP as UNIQUENESS_APP

OUTSIDE_CALLS: list[tuple[ServerApp[Any], str, str, dict[str, Any]]] = [
    (
        UNIQUENESS_APP,
        "--allowed-dir",
        "uniqueness_check",
        {"path": "{outside}/a.csv", "columns": ["a"]},
    ),
    (UNIQUENESS_APP, "--allowed-dir", "list_columns", {"path": "{outside}/a.csv"}),
    (CONTEXT_APP, "--allowed-dir", "project_tree", {"path": "{outside}"}),
    (CONTEXT_APP, "--allowed-dir", "find_context", {"path": "{outside}", "className": "A"}),
    (ADOPT_APP, "--workspace-root", "verify_adoption", {"repositoryUrl": "{outside}"}),
    (ADOPT_APP, "--workspace-root", "adopt_repo", {"repositoryUrl": "{outside}", "dryRun": True}),
]
"""A server, the flag confining it, and a call of one of its tools naming a path outside."""


async def refusal(
    app: ServerApp[Any], argv: list[str], tool: str, arguments: dict[str, Any]
) -> tuple[bool, str]:
    async with in_process_client(app, argv) as client:
        result = await client.call_tool(tool, arguments)
    return bool(result.is_error), result_text(result)


@pytest.mark.parametrize(
    ("app", "flag", "tool", "arguments"),
    OUTSIDE_CALLS,
    ids=[f"{app.name}-{tool}" for app, _, tool, _ in OUTSIDE_CALLS],
)
def test_a_path_outside_is_refused_naming_the_flag_that_allows_it(
    app: ServerApp[Any], flag: str, tool: str, arguments: dict[str, Any], tmp_path: Path
) -> None:
    allowed, outside = tmp_path / "allowed", tmp_path / "elsewhere"
    allowed.mkdir()
    (outside / "A").mkdir(parents=True)
    (outside / "a.csv").write_text("a\n1\n", encoding="utf-8")
    filled = {
        name: value.format(outside=outside) if isinstance(value, str) else value
        for name, value in arguments.items()
    }

    is_error, text = anyio.run(refusal, app, [flag, str(allowed)], tool, filled)

    assert is_error, text
    assert text.startswith(f"{tool} failed: access denied: "), text
    assert text.endswith(
        f"is outside the allowed directories (the server's {flag} option names them)"
    ), text
    assert str(tmp_path) not in text  # what reaches the model stays masked
