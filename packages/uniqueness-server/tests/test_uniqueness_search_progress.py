"""A long find_keys keeps telling the client it works, over the installed server (stdio).

A client that resets its timeout whenever progress arrives must never time out on a working
search: notifications come through reading, sampling and every level of candidate checks,
and at least every second or so in between (a heartbeat repeats the current step).
"""

from __future__ import annotations

import itertools
import random
import time
from pathlib import Path

import anyio
import pytest
from test_uniqueness_keys_oracle import Row, csv_text
from uniqueness_server.engine.heartbeat import BEAT_SECONDS
from uniqueness_testkit import stdio_server

_SILENCE = 5 * BEAT_SECONDS  # longest quiet stretch tolerated on a loaded machine


@pytest.mark.anyio
async def test_progress_keeps_arriving_through_a_long_find_keys(tmp_path: Path) -> None:
    root = tmp_path / "data"
    root.mkdir()
    # 24 columns of 40 values over 6,000 rows: sampling, then thousands of candidates of 3
    # and 4 columns checked against every row (seconds of work)
    rng = random.Random(9)
    rows: list[Row] = [tuple(str(rng.randrange(40)) for _ in range(24)) for _ in range(6_000)]
    (root / "long.csv").write_text(csv_text(24, rows), encoding="utf-8")
    arrived: list[tuple[float, float, str]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        arrived.append((time.monotonic(), progress, message or ""))

    async with stdio_server(root, tmp_path / "server.log") as client:
        started = time.monotonic()
        with anyio.fail_after(600):
            result = await client.call_tool(
                "find_keys",
                {"path": "long.csv", "maxColumns": 4},
                progress_callback=on_progress,
            )
        ended = time.monotonic()
    assert not result.is_error
    assert result.structured_content is not None
    assert result.structured_content["page"]["total"] > 0
    messages = [m for _, _, m in arrived]
    for step in ("reading long.csv", "sampling row pairs", "candidate keys of 4 columns"):
        assert any(step in m for m in messages), f"no progress while {step!r}: {messages}"
    values = [p for _, p, _ in arrived]
    assert values == sorted(set(values)), "progress must grow with every notification"
    moments = [started, *(t for t, _, _ in arrived), ended]
    silences = [b - a for a, b in itertools.pairwise(moments)]
    assert max(silences) < _SILENCE, (
        f"{max(silences):.1f} s without progress in a {ended - started:.1f} s call"
    )
    assert len(arrived) >= (ended - started) / _SILENCE
