"""The stdio line reader: lines pass through byte for byte, and a line over the message limit
is dropped as it arrives, leaving a stand-in that keeps the request's id."""

from __future__ import annotations

import json
import os
import threading

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp_common.adapter.stdio import OVERSIZED, StdinLines, oversized_line


def read_lines(data: bytes, limit: int) -> list[str]:
    """Every line the reader yields for ``data`` written to a real pipe in small pieces."""
    read_fd, write_fd = os.pipe()

    def write() -> None:
        with os.fdopen(write_fd, "wb", buffering=0) as sink:
            for start in range(0, len(data), 7_001):
                sink.write(data[start : start + 7_001])

    writer = threading.Thread(target=write)
    writer.start()

    async def collect() -> list[str]:
        return [line async for line in StdinLines(read_fd, limit)]

    try:
        return anyio.run(collect)
    finally:
        writer.join()
        os.close(read_fd)


def test_lines_within_the_limit_arrive_unchanged() -> None:
    lines = [b'{"a": 1}\n', b"\n", b'{"text": "\xc3\xa9"}\n', b"last without newline"]
    assert read_lines(b"".join(lines), 100) == [line.decode() for line in lines]


def test_an_oversized_line_is_replaced_and_reading_goes_on() -> None:
    big = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "x", "params": {"t": "y" * 50_000}})
    tail_id = json.dumps({"method": "x", "params": {"t": "y" * 50_000}, "id": "req-8"})
    data = f'{big}\n{{"ok": 1}}\n{tail_id}\n{"[" * 30_000}'.encode()
    got = read_lines(data, 1_000)
    assert got == [f"{OVERSIZED} 7", '{"ok": 1}\n', f'{OVERSIZED} "req-8"', OVERSIZED]


@settings(max_examples=40, deadline=None)
@given(
    sizes=st.lists(st.integers(min_value=0, max_value=3_000), min_size=1, max_size=8),
    limit=st.integers(min_value=1, max_value=2_500),
)
def test_each_line_is_kept_or_replaced_by_its_length(sizes: list[int], limit: int) -> None:
    lines = [f'{{"id":{i},"t":"{"q" * size}"}}' for i, size in enumerate(sizes)]
    got = read_lines("\n".join(lines).encode() + b"\n", limit)
    expected = [
        line + "\n" if len(line) <= limit else f"{OVERSIZED} {i}" for i, line in enumerate(lines)
    ]
    assert got == expected


@pytest.mark.parametrize(
    ("head", "tail", "stand_in"),
    [
        (b'{"jsonrpc":"2.0","id":12,"method":"m"', b"", f"{OVERSIZED} 12"),
        (b'{ "id" : "a\\"b", "x"', b"", f'{OVERSIZED} "a\\"b"'),
        (b'{"method":"m","params":{"x', b'yyy"},"jsonrpc":"2.0","id":-3}\n', f"{OVERSIZED} -3"),
        # an "id" inside params or inside a string is not the request's id
        (b'{"params":{"id":5,"t":"', b'"}}\n', OVERSIZED),
        (b'{"params":{"t":"', b'\\",\\"id\\":5}"}\n', OVERSIZED),
    ],
)
def test_the_stand_in_names_only_a_top_level_id(head: bytes, tail: bytes, stand_in: str) -> None:
    assert oversized_line(head, tail) == stand_in
