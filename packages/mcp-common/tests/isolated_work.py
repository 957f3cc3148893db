"""Functions the isolation tests run in a child process (importable there by name)."""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import sys
import time
from pathlib import Path

CATASTROPHIC = re.compile(r"((a)+)+!")
"""Backtracks exponentially on a run of ``a`` without ``!``; holds the GIL throughout."""


@dataclasses.dataclass(frozen=True)
class Summary:
    name: str
    sizes: list[int]


def add(a: int, b: int, *, scale: int = 1) -> dict[str, int]:
    return {"sum": (a + b) * scale, "pid": os.getpid()}


def summary(name: str) -> Summary:
    return Summary(name, [len(name), 2])


def burn(pid_file: str, length: int = 40) -> bool:
    """Write this process's id, then match a catastrophic pattern (minutes of C code)."""
    Path(pid_file).write_text(str(os.getpid()), encoding="utf-8")
    return CATASTROPHIC.match("a" * length) is not None


def hog(megabytes: int) -> int:
    chunks = [bytearray(1024 * 1024) for _ in range(megabytes)]
    return len(chunks)


def fail(message: str) -> None:
    raise ValueError(message)


def refuse(message: str) -> None:
    # imported here: the other functions start a child without mcp_common's imports
    from mcp_common import ErrorCode, ToolError

    raise ToolError(message, ErrorCode.INVALID_ARGUMENT)


def environment() -> dict[str, str]:
    return dict(os.environ)


def search_path() -> list[str]:
    return list(sys.path)


def chatty() -> str:
    print("noise on stdout that must not corrupt the answer")
    sys.stdout.flush()
    os.write(1, b"raw noise on descriptor 1\n")
    return "answer"


def huge(size: int) -> str:
    return "x" * size


def crash() -> None:
    os.abort()


def unanswerable() -> object:
    return object()


def spawn_sleeper(pid_file: str) -> None:
    """Start a grandchild (in the same process group) and hang, for the group kill test."""
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    Path(pid_file).write_text(str(sleeper.pid), encoding="utf-8")
    time.sleep(120)


def forge_answer(answer: str) -> None:
    """Play a child taken over by its input: write a forged answer where the real one goes
    (the lowest descriptor the bootstrap duplicated stdout to) and end at once."""
    for fd in range(3, 10):
        try:
            if os.readlink(f"/proc/self/fd/{fd}").startswith("pipe:"):
                os.write(fd, answer.encode())
                os._exit(0)
        except OSError:
            continue


def shout(megabytes: int) -> str:
    """Write ``megabytes`` MiB to stderr, then answer."""
    line = b"x" * 1023 + b"\n"
    for _ in range(megabytes * 1024):
        os.write(2, line)
    os.write(2, b"the last words\n")
    return "done"
