"""A server that cannot stop by itself is stopped from outside.

A tool thread running C code that holds the interpreter lock (a catastrophic regular
expression, say) starves every other thread: the event loop never sees stdin close, and the
Python-level SIGTERM handler never runs. :func:`start_watchdog` starts a small separate
process that learns of a stop without the server's help (the C-level signal handler writes
the signal number to a pipe, :func:`signal.set_wakeup_fd`; stdin's hang-up is polled) and
kills the server when it has not ended :data:`STOP_DEADLINE` seconds later. A server that
stops by itself (the usual case) never hears from it. Untrusted work belongs in
:func:`mcp_common.run_isolated` all the same: the watchdog only bounds the damage.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

STOP_DEADLINE = 1.7
"""Seconds after SIGINT, SIGTERM or (stdio) stdin's end by which the server has ended."""

_SCRIPT = Path(__file__).resolve().parent.parent / "_watchdog.py"
_WATCHDOG: subprocess.Popen[bytes] | None = None


def start_watchdog(*, stdin_fd: int | None, log_fd: int, deadline: float = STOP_DEADLINE) -> None:
    """Start the watchdog of this process. Call it from the main thread, before serving;
    ``stdin_fd`` is the client's stdin (stdio) or None, ``log_fd`` where the log goes.

    From here on the process's signal wakeup descriptor belongs to the watchdog: signal
    handlers must be installed with :func:`signal.signal`, not ``loop.add_signal_handler``
    (which would take the descriptor back).
    """
    # the lifeline is never written: its write end (not inherited by children) closes when
    # this process ends, which is all the watchdog waits for
    lifeline_read, _lifeline_write = os.pipe()
    signals_read, signals_write = os.pipe()
    os.set_blocking(signals_write, False)
    # copies above 2: the watchdog's own 0-2 are the null device and the server's stderr
    stdin_copy = os.dup(stdin_fd) if stdin_fd is not None else -1
    log_copy = os.dup(log_fd)
    watched = [lifeline_read, signals_read, log_copy] + ([stdin_copy] if stdin_copy >= 0 else [])
    global _WATCHDOG
    _WATCHDOG = subprocess.Popen(
        [
            sys.executable,
            "-I",  # no environment variables, user site or working directory on the path
            "-S",  # no site packages: the script needs the standard library only
            str(_SCRIPT),
            str(os.getpid()),
            str(deadline),
            str(lifeline_read),
            str(signals_read),
            str(stdin_copy),
            str(log_copy),
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        pass_fds=watched,
        env={},  # it needs nothing, and gets none of the server's secrets
        start_new_session=True,  # a terminal's Ctrl-C reaches the server, not the watchdog
    )
    for copy in watched:
        os.close(copy)
    signal.set_wakeup_fd(signals_write, warn_on_full_buffer=False)
