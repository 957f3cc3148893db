"""A cancelled key search stops inside its long steps, not only between them.

On a tall table one sampling round sorts every row of every column, and one group of
candidates sorts several chunks of rows: a cancel must not wait for the whole step (issue 29:
within 1 s at any level). The search is cancelled from the progress it reports just before
such a step; the error must then come from inside that step. Timing is measured by
``benchmarks/uniqueness_cancel.py``, not here.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from mcp_common import ToolCancelledError, ToolContext
from test_uniqueness_keys_oracle import Row, csv_text
from uniqueness_server.engine.files import open_file
from uniqueness_server.engine.keys import find_keys


def _search_cancelled_at(tmp_path: Path, step: str) -> pytest.ExceptionInfo[ToolCancelledError]:
    # 24 columns of 40 values over 3,000 rows: sampling, then levels of candidates to check
    rng = random.Random(9)
    rows: list[Row] = [tuple(str(rng.randrange(40)) for _ in range(24)) for _ in range(3_000)]
    path = tmp_path / "long.csv"
    path.write_text(csv_text(24, rows), encoding="utf-8")
    context: ToolContext

    def sink(progress: float, total: float | None, message: str | None) -> None:
        if message is not None and message.startswith(step):
            context.cancel()

    context = ToolContext(sink)
    table = open_file(path, label=path.name, context=context)
    try:
        with pytest.raises(ToolCancelledError) as stopped:
            find_keys(table, max_columns=4, context=context)
    finally:
        table.close()
    return stopped


def _stopped_in(stopped: pytest.ExceptionInfo[ToolCancelledError]) -> list[str]:
    return [Path(str(entry.path)).name for entry in stopped.traceback]


def test_a_cancel_stops_a_sampling_round_between_its_columns(tmp_path: Path) -> None:
    stopped = _search_cancelled_at(tmp_path, "sampling row pairs")
    assert "sampling.py" in _stopped_in(stopped)


def test_a_cancel_stops_a_group_of_candidates_between_its_sorts(tmp_path: Path) -> None:
    stopped = _search_cancelled_at(tmp_path, "checking")
    assert "partitions.py" in _stopped_in(stopped)
