"""Every step of a search reaches the client, however fast it is, and progress only grows."""

from __future__ import annotations

from mcp_common.context import ToolContext
from uniqueness_server.engine.backend import Progress
from uniqueness_server.engine.heartbeat import Heartbeat


def test_each_new_step_is_announced_even_at_the_same_fraction() -> None:
    reports: list[tuple[float, str]] = []
    # beats far apart: only the steps' own reports can arrive during this test
    heartbeat = Heartbeat(lambda value, message: reports.append((value, message)), 3600.0)
    heartbeat.phase(10.0, 90.0, "searching keys")
    heartbeat.update(0.0, "sampling row pairs")
    heartbeat.update(0.0, "sampling row pairs")  # the same step again at the same point: quiet
    heartbeat.update(0.0, "checking 2 candidate keys of 3 columns (0 done)")
    heartbeat.update(0.5, "checking 2 candidate keys of 3 columns (1 done)")
    assert [message for _, message in reports] == [
        "searching keys",
        "sampling row pairs",
        "checking 2 candidate keys of 3 columns (0 done)",
        "checking 2 candidate keys of 3 columns (1 done)",
    ]
    values = [value for value, _ in reports]
    assert values == sorted(set(values)), "progress must grow with every notification"
    assert values[0] == 10.0
    assert values[-1] == 50.0
    assert all(value < 12.0 for value in values[:3])


def test_a_step_reported_below_the_last_value_never_lowers_it() -> None:
    reports: list[tuple[float, str]] = []
    heartbeat = Heartbeat(lambda value, message: reports.append((value, message)), 3600.0)
    heartbeat.phase(0.0, 100.0, "reading")
    heartbeat.update(0.6, "reading rows")
    heartbeat.update(0.2, "coding columns")
    values = [value for value, _ in reports]
    assert values == sorted(set(values))
    assert reports[-1][1] == "coding columns"
    assert 60.0 < reports[-1][0] < 61.0


def test_steps_reach_the_client_with_values_that_grow_as_sent() -> None:
    sent: list[tuple[float, str | None]] = []
    context = ToolContext(lambda value, total, message: sent.append((value, message)))
    heartbeat = Heartbeat(Progress(context).report, 3600.0)
    heartbeat.phase(30.0, 30.2, "searching keys")
    for step in ("sampling row pairs", "checking 4 candidate keys of 2 columns (0 done)"):
        heartbeat.update(0.0, step)
    heartbeat.update(0.00001, "checking 4 candidate keys of 2 columns (1 done)")
    values = [value for value, _ in sent]
    assert values == sorted(set(values)), f"one value sent twice: {sent}"
    assert [message for _, message in sent][:2] == ["searching keys", "sampling row pairs"]
