"""Log lines stay small whatever a client sends: every value and every line is capped."""

from __future__ import annotations

import logging
import sys

import pytest
from adapter_tools import SECRET_URL
from mcp.client.client import Client
from mcp_common.adapter.logging_setup import (
    LINE_LIMIT,
    VALUE_LIMIT,
    MaskingFormatter,
    loggable,
)

pytestmark = pytest.mark.anyio

HUGE = 5_000_000
# the longest line a capped record can make: the line limit plus its note and the prefix
LINE_BOUND = LINE_LIMIT + 200


def formatted(caplog: pytest.LogCaptureFixture, start: str) -> list[str]:
    """The adapter's records starting with ``start``, as the servers' formatter writes them."""
    formatter = MaskingFormatter("%(levelname)s %(name)s: %(message)s")
    return [formatter.format(r) for r in caplog.records if r.getMessage().startswith(start)]


@pytest.mark.parametrize(
    ("tool", "arguments", "start"),
    [
        ("greet", {"name": "A" * HUGE}, "greet failed"),  # oversize argument
        ("greet", {"name": "Ada", "nickname": "N" * HUGE}, "greet failed"),  # unknown argument
        ("greet", {"name": ["x" * 1000] * 5000}, "greet failed"),  # a wide list
        ("explode", {"password": "p" * 10, "extra": "e" * HUGE}, "explode failed"),
        ("refuse", {"x": "r" * HUGE}, "refuse failed"),
    ],
    ids=["oversize", "unknown-argument", "wide-list", "failure", "no-arguments"],
)
async def test_a_refused_call_logs_a_bounded_line(
    client: Client,
    caplog: pytest.LogCaptureFixture,
    tool: str,
    arguments: dict[str, object],
    start: str,
) -> None:
    caplog.set_level(logging.INFO, logger="mcp_common")
    result = await client.call_tool(tool, arguments)
    assert result.is_error
    lines = formatted(caplog, start)
    assert lines
    for line in lines:
        # the arguments are one value: cut at the value limit, whatever the rest of the line
        assert len(line) < VALUE_LIMIT + 1_000
        assert "cut" in line


async def test_an_unknown_tool_with_a_huge_name_logs_a_bounded_line(
    client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="mcp_common")
    result = await client.call_tool("t" * HUGE, {})
    assert result.is_error
    (line,) = formatted(caplog, "call of unknown tool")
    assert len(line) < VALUE_LIMIT + 200
    assert f"{HUGE:,} characters in all" in line


def test_loggable_masks_and_notes_the_original_size() -> None:
    text = loggable({"url": SECRET_URL + "x" * 10_000, "apiKey": "k" * 10, "n": 3})
    assert "user:secret" not in text
    assert "https://***@db.example.com" in text
    assert "'apiKey': '***'" in text
    assert "10,036 characters in all" in text
    assert len(text) <= VALUE_LIMIT + 100


def test_loggable_elides_deep_nesting_and_long_lists() -> None:
    deep: object = "leaf"
    for _ in range(500):
        deep = [deep]
    assert "nested deeper than" in loggable(deep)
    assert "1,000 items in all" in loggable(list(range(1000)))


def test_a_credential_straddling_the_cut_is_still_masked() -> None:
    value = "x" * (VALUE_LIMIT - 10) + SECRET_URL
    assert "user:sec" not in loggable(value)


def test_every_formatted_line_is_capped_traceback_included() -> None:
    try:
        raise RuntimeError("bad value " + "v" * HUGE)
    except RuntimeError:
        record = logging.getLogger("t").makeRecord(
            "t", logging.ERROR, __file__, 1, "failed: " + "m" * HUGE, (), sys.exc_info()
        )
    line = MaskingFormatter().format(record)
    assert len(line) < LINE_BOUND
    assert "characters in all" in line


def test_each_percent_argument_is_capped() -> None:
    record = logging.getLogger("t").makeRecord(
        "t", logging.WARNING, __file__, 1, "a=%s b=%r c=%d", ("a" * HUGE, "b" * HUGE, 7), None
    )
    line = MaskingFormatter().format(record)
    assert len(line) < 2 * VALUE_LIMIT + 200
    assert line.endswith("c=7")
    # the record itself is left alone for other handlers
    assert len(record.args[0]) == HUGE  # type: ignore[index]
