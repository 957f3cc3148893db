"""Bad input at the protocol level: arbitrary JSON arguments never break the server."""

from __future__ import annotations

from typing import Any

import mcp_types as types
import pytest
from adapter_tools import RawCallRequest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp.client.client import Client
from mcp.server import Server

pytestmark = pytest.mark.anyio

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=12,
)
NAMES = st.sampled_from(["name", "times", "person_name", "password", "n", "nme", "_", ""])
ARGUMENTS = st.dictionaries(NAMES | st.text(max_size=12), JSON, max_size=4) | JSON
TOOLS = st.sampled_from(["greet", "explode", "refuse", "count", "wrong", "greeet"])


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(tool=TOOLS, arguments=ARGUMENTS)
async def test_any_arguments_get_a_tool_answer(
    server: Server[Any], tool: str, arguments: object
) -> None:
    async with Client(server, mode="legacy") as client:
        request = RawCallRequest(params={"name": tool, "arguments": arguments})
        result = await client.session.send_request(request, types.CallToolResult)
        text = "".join(c.text for c in result.content if isinstance(c, types.TextContent))
        assert text.strip()
        assert "Traceback" not in text
        assert "/srv/private" not in text
        assert "user:secret" not in text
        if tool in ("explode", "refuse", "wrong", "greeet"):
            assert result.is_error
        ok = await client.call_tool("greet", {"name": "Ada"})
        assert not ok.is_error
