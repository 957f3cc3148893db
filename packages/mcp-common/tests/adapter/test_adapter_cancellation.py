"""Cancellation bookkeeping: a client's disconnect and the server's shutdown reach every call."""

from __future__ import annotations

import threading

from mcp_common import ToolContext
from mcp_common.adapter.server import ClientConnection, RunningCalls


def test_a_disconnect_cancels_the_attached_calls_only() -> None:
    connection = ClientConnection()
    running, finished, other = ToolContext(), ToolContext(), ToolContext()
    connection.attach(running)
    connection.attach(finished)
    connection.detach(finished)
    connection.disconnected()
    assert running.cancelled
    assert not finished.cancelled
    assert not other.cancelled


def test_a_call_attached_after_the_disconnect_is_cancelled_at_once() -> None:
    connection = ClientConnection()
    connection.disconnected()
    late = ToolContext()
    connection.attach(late)
    assert late.cancelled


def test_shutdown_cancels_running_calls_and_waits_for_their_threads() -> None:
    calls = RunningCalls()
    context = ToolContext()
    stopped = threading.Event()

    def tool() -> None:
        with calls.running(context):
            while not context.cancelled:
                threading.Event().wait(0.01)
        stopped.set()

    worker = threading.Thread(target=tool)
    worker.start()
    while not len(calls):
        threading.Event().wait(0.01)
    assert calls.cancel_all() == 1
    assert calls.wait_stopped(30) == 0
    worker.join()
    assert stopped.is_set()


def test_waiting_for_a_stubborn_call_gives_up_and_counts_it() -> None:
    calls = RunningCalls()
    release = threading.Event()

    def stubborn() -> None:
        with calls.running(ToolContext()):
            release.wait(30)

    worker = threading.Thread(target=stubborn)
    worker.start()
    while not len(calls):
        threading.Event().wait(0.01)
    assert calls.cancel_all() == 1
    assert calls.wait_stopped(0.05) == 1
    release.set()
    worker.join()
    assert len(calls) == 0
