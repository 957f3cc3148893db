"""The watchdog process of a server (standard library only; see ``adapter/watchdog.py``).

Run by path as ``python -I -S _watchdog.py SERVER_PID DEADLINE LIFELINE_FD SIGNALS_FD
STDIN_FD LOG_FD``. It waits, holding no lock of the server's, for one of three things: the
server's end (its lifeline pipe closes: the watchdog just exits), a SIGINT or SIGTERM byte
the server's C-level signal handler writes to the signals pipe, or the client closing the
server's stdin (``STDIN_FD``, polled for a hang-up, never read). After either of the last two
it gives the server ``DEADLINE`` seconds to end by itself, then kills it and says so in the
log (``LOG_FD``).
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
import time

_STOPPING = {signal.SIGINT.value: "SIGINT", signal.SIGTERM.value: "SIGTERM"}
_HANG_UP = select.POLLHUP | select.POLLERR | getattr(select, "POLLRDHUP", 0)


def _log(fd: int, message: str) -> None:
    now = time.time()
    stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(now))
    line = f"{stamp},{int(now % 1 * 1000):03d} WARNING mcp_common.watchdog: {message}\n"
    with contextlib.suppress(OSError):
        os.write(fd, line.encode())


def main() -> None:
    """Watch until the server ends; end it if it overstays a stop."""
    server, deadline = int(sys.argv[1]), float(sys.argv[2])
    lifeline, signals, stdin, log = (int(value) for value in sys.argv[3:7])
    os.set_blocking(signals, False)
    poller = select.poll()
    poller.register(lifeline, select.POLLIN)
    poller.register(signals, select.POLLIN)
    if stdin >= 0:
        poller.register(stdin, getattr(select, "POLLRDHUP", 0))  # hang-ups only, no data
    cause = None
    kill_at = 0.0
    while True:
        wait = None if cause is None else max(0.0, kill_at - time.monotonic()) * 1000
        events = poller.poll(wait)
        for fd, event in events:
            if fd == lifeline:
                return  # the server ended (its end of the pipe closed)
            if fd == signals:
                try:
                    received = os.read(signals, 256)
                except BlockingIOError:
                    continue
                if not received:
                    poller.unregister(signals)
                names = [_STOPPING[byte] for byte in received if byte in _STOPPING]
                if names and cause is None:
                    cause, kill_at = names[0], time.monotonic() + deadline
            elif fd == stdin and event & _HANG_UP:
                poller.unregister(stdin)
                if cause is None:
                    cause, kill_at = "the client closed stdin", time.monotonic() + deadline
        if cause is not None and time.monotonic() >= kill_at:
            if any(fd == lifeline for fd, _ in poller.poll(0)):
                return
            _log(
                log,
                f"the server did not stop within {deadline:g} s of {cause} (a tool is running "
                "code that cannot be interrupted); killing it",
            )
            os.kill(server, signal.SIGKILL)
            return


if __name__ == "__main__":
    main()
