"""The child side of :func:`mcp_common.isolation.run_isolated` (standard library only).

Run by path as ``python -P _isolated_child.py MEMORY_BYTES CPU_SECONDS PARENT_PID``: it limits
itself before it reads anything (address space, CPU time, no core dump, killed with its
parent), reads one pickled call from stdin, runs it, and writes one JSON answer to the
original stdout, whose descriptor 1 it first points at stderr so a stray ``print`` cannot
corrupt the answer. ``-P`` keeps the working directory (a checkout under test, say) off
``sys.path``.
"""

from __future__ import annotations

import json
import os
import pickle
import resource
import sys
import traceback
from typing import Any

_PR_SET_PDEATHSIG = 1
_SIGKILL = 9

OUT_OF_MEMORY = b'{"ok": false, "error": "memory"}'


def _die_with_parent(parent: int) -> None:
    """Be killed by the kernel when the thread that started us ends (Linux); nothing this
    process runs (C code holding the GIL included) can stop that."""
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, _SIGKILL)
    if os.getppid() != parent:  # the parent ended before prctl took effect
        os._exit(1)


def _limit(memory_bytes: int, cpu_seconds: int) -> None:
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # no core file holding the data
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
    if memory_bytes > 0:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))


def _json_default(value: Any) -> Any:
    """Dataclasses, pydantic models, paths and sets as JSON (the parent may validate them
    back into their types)."""
    import dataclasses

    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json")
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def _failure(error: BaseException) -> dict[str, Any]:
    tool_errors = sys.modules.get("mcp_common.result")
    if tool_errors is not None and isinstance(error, tool_errors.ToolError):
        code = str(error.code.value)
        return {"ok": False, "error": "tool", "code": code, "message": str(error)}
    return {
        "ok": False,
        "error": "exception",
        "type": type(error).__name__,
        "message": str(error),
        "traceback": "".join(traceback.format_exception(error))[-8000:],
    }


def main() -> None:
    """Limit, read the call, run it, answer."""
    memory_bytes, cpu_seconds, parent = (int(value) for value in sys.argv[1:4])
    _die_with_parent(parent)
    answer_fd = os.dup(1)
    os.dup2(2, 1)
    _limit(memory_bytes, cpu_seconds)
    try:
        # the parent wrote this pickle (the server's own call), never the untrusted input
        request = pickle.load(sys.stdin.buffer)  # noqa: S301
        function, args, kwargs = request["function"], request["args"], request["kwargs"]
        value = function(*args, **kwargs)
        try:
            answer = json.dumps({"ok": True, "value": value}, default=_json_default).encode()
        except (TypeError, ValueError) as error:
            answer = json.dumps(
                {"ok": False, "error": "result", "message": str(error)}, default=str
            ).encode()
    except MemoryError:
        answer = OUT_OF_MEMORY
    except BaseException as error:
        try:
            answer = json.dumps(_failure(error), default=str).encode()
        except MemoryError:
            answer = OUT_OF_MEMORY
    view = memoryview(answer)
    while view:
        view = view[os.write(answer_fd, view) :]
    os._exit(0)


if __name__ == "__main__":
    main()
