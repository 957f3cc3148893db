"""A server process seen from its test or benchmark: which process it is, the CPU it has used,
and the moment it stopped computing (a cancelled call's work really stopped, not merely
abandoned).

Linux only: read from ``/proc``.
"""

from __future__ import annotations

import os
import time
from collections import deque
from pathlib import Path

import anyio


def process_logging_to(log_file: Path, *, timeout: float = 10.0) -> int:
    """The process id of the server started with ``log_file`` among its arguments (e.g.
    ``--log-file log_file``): a file of the test's own, so no other process matches.

    Looked for again until ``timeout`` seconds have passed: a process just started may not
    show its arguments in ``/proc`` on the first look (seen once in a CI run).
    """
    wanted = str(log_file).encode()
    deadline = time.monotonic() + timeout
    while True:
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    arguments = (entry / "cmdline").read_bytes().split(b"\0")
                except OSError:  # it ended, or is not ours to read
                    continue
                if wanted in arguments:
                    return int(entry.name)
        if time.monotonic() >= deadline:
            raise LookupError(f"no process has {log_file} among its arguments")
        time.sleep(0.05)


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds the process has used, all its threads together."""
    fields = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def until_idle(
    pid: int, *, quiet: float = 1.0, allowance: float = 0.0, poll: float = 0.02
) -> float:
    """Wait until the process has used at most ``allowance`` CPU seconds over the last
    ``quiet`` seconds; return the :func:`time.monotonic` moment of the last CPU use seen
    before (when it went idle). Its CPU counters are read every ``poll`` seconds; bound the
    wait with the caller's own timeout (``anyio.fail_after``)."""
    samples = deque([(time.monotonic(), cpu_seconds(pid))])
    last_busy = samples[0][0]
    while True:
        await anyio.sleep(poll)
        now, used = time.monotonic(), cpu_seconds(pid)
        if used > samples[-1][1]:
            last_busy = now
        samples.append((now, used))
        while len(samples) > 1 and samples[1][0] <= now - quiet:
            samples.popleft()
        since, used_then = samples[0]
        if now - since >= quiet and used - used_then <= allowance:
            return last_busy
