"""The process watch of the test kit: a server found by its own log file, its CPU read, and
the moment it stops computing (what a cancel test waits for)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest
from mcp_common.testing import cpu_seconds, process_logging_to, until_idle

# busy for 1.2 s of CPU, then asleep: a cancelled call's work stopping. The test asks /proc
# for at least 1.0 s; its clock-tick accounting can read a little under process_time's.
BUSY_THEN_IDLE = """
import sys, time
spent = time.process_time()
while time.process_time() - spent < 1.2:
    pass
print("idle", flush=True)
time.sleep(120)
"""


@pytest.mark.anyio
async def test_a_busy_process_is_found_and_seen_going_idle(tmp_path: Path) -> None:
    log_file = tmp_path / "server.log"
    with subprocess.Popen(
        [sys.executable, "-c", BUSY_THEN_IDLE, "--log-file", str(log_file)],
        stdout=subprocess.PIPE,
        text=True,
    ) as child:
        try:
            assert process_logging_to(log_file) == child.pid
            started = time.monotonic()
            with anyio.fail_after(120):
                went_idle = await until_idle(child.pid, quiet=1.0)
            assert child.stdout is not None
            assert child.stdout.readline() == "idle\n", "until_idle returned while it was busy"
            assert cpu_seconds(child.pid) >= 1.0
            assert started <= went_idle <= time.monotonic() - 1.0
        finally:  # never wait out its sleep
            child.kill()


def test_no_process_with_the_file_is_a_lookup_error(tmp_path: Path) -> None:
    with pytest.raises(LookupError, match="no process has"):
        process_logging_to(tmp_path / "nobody.log", timeout=0.2)
