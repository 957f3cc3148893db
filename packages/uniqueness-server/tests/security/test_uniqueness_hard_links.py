"""Issue 23 item 7 over the real ``uniqueness-server`` (stdio): a hard link inside the allowed
directory to a file outside it is refused by every tool, the refusal names the rule and the
flag, nothing of the file comes back, and ``--allow-hard-links`` reads it."""

from __future__ import annotations

import sys
from contextlib import AbstractAsyncContextManager
from pathlib import Path

import pytest
from mcp.client.client import Client
from mcp_common.testing import HARD_LINK_RULE, everything_in, plant_hard_link, stdio_client
from uniqueness_testkit import text_of

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

SERVER = Path(sys.executable).parent / "uniqueness-server"
SECRET = "Outside-Secret-7731"


@pytest.fixture
def world(tmp_path: Path) -> Path:
    plant_hard_link(tmp_path, "secret.csv", "link.csv", f"id,name\n1,{SECRET}\n2,{SECRET}\n")
    (tmp_path / "allowed" / "plain.csv").write_text("id,name\n1,a\n2,b\n", encoding="utf-8")
    return tmp_path


def server(world: Path, *flags: str) -> AbstractAsyncContextManager[Client]:
    return stdio_client(
        SERVER,
        *("--allowed-dir", str(world / "allowed"), "--log-file", str(world / "log"), *flags),
        cwd=world,
        drop_prefix="UNIQUENESS_SERVER_",
    )


CALLS = [
    ("uniqueness_check", {"path": "link.csv", "columns": ["id"]}),
    ("find_keys", {"path": "link.csv"}),
    ("list_columns", {"path": "link.csv"}),
]


async def test_every_tool_refuses_a_hard_link_to_an_outside_file(world: Path) -> None:
    async with server(world) as client:
        for tool, arguments in CALLS:
            answer = await client.call_tool(tool, arguments)
            assert answer.is_error, text_of(answer)
            assert text_of(answer) == f"{tool} failed: link.csv: {HARD_LINK_RULE}"
            assert SECRET not in everything_in(answer)
        still = await client.call_tool("uniqueness_check", {"path": "plain.csv", "columns": ["id"]})
        assert not still.is_error, text_of(still)
    assert SECRET not in (world / "log").read_text(encoding="utf-8")


async def test_allow_hard_links_reads_them(world: Path) -> None:
    async with server(world, "--allow-hard-links") as client:
        answer = await client.call_tool("list_columns", {"path": "link.csv"})
    assert not answer.is_error, text_of(answer)
    assert SECRET in text_of(answer)  # the flag really opens the door the default keeps shut
