"""What the isolation server's tools run in a child process (standard library only)."""

from __future__ import annotations

import os
import re
from pathlib import Path

CATASTROPHIC = re.compile(r"((a)+)+!")
"""Exponential backtracking on a run of ``a`` without ``!``, in C code holding the GIL."""


def scan(text: str, pid_file: str) -> bool:
    """Record this process's id, then match the catastrophic pattern against ``text``."""
    if pid_file:
        Path(pid_file).write_text(str(os.getpid()), encoding="utf-8")
    return CATASTROPHIC.match(text) is not None


def expand(megabytes: int) -> int:
    """Hold ``megabytes`` MiB at once, as a decompression bomb would."""
    return len([bytearray(1024 * 1024) for _ in range(megabytes)])
