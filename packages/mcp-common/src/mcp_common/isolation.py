"""Run untrusted CPU-bound work where it can be stopped: a fresh subprocess with limits.

A regular expression, a glob or a parser fed by a hostile file can run for hours inside C code
that holds the interpreter lock; in a server's own process nothing could stop it (not a
cancel, not a signal handler, not the event loop answering pings). :func:`run_isolated` runs
such work in a new interpreter instead::

    from mcp_common import IsolationLimits, run_isolated

    report = run_isolated(
        check_repository,            # a module-level function (imported by name in the child)
        str(checkout), profile,      # picklable arguments
        context=context,             # the call's ToolContext: a cancel kills the child
        limits=IsolationLimits(seconds=30, memory_bytes=512 * 1024 * 1024),
        what="the configuration check",
        returns=CheckReport,         # optional: validate the JSON answer back into a type
    )

The child is spawned fresh (``fork`` + ``exec`` of ``sys.executable``, never a fork of the
threaded server), limits its own address space (``RLIMIT_AS``) and CPU time before it reads
the call, writes no core file, and is killed by the kernel when the thread that started it
ends. The caller's thread waits without holding the GIL, so the server keeps answering. The
child is killed (its whole process group) when the time limit passes, when ``context`` is
cancelled and when the server shuts down (:func:`stop_isolated_work`, also run at exit).

The answer comes back as JSON, never as a pickle, and bounded (``answer_bytes``), so even a
child taken over by its input cannot make the server run code or fill its memory; its stderr
is read and only the last :data:`STDERR_KEPT` bytes are logged. The function returns JSON
values, dataclasses, pydantic models, paths or sets (``returns`` turns the JSON back into a
type). A
:class:`~mcp_common.ToolError` the function raises keeps its message and code; a limit reached
is an :class:`IsolatedWorkError` naming the limit (``limit`` is ``"time"``, ``"memory"`` or
``"answer"``); any other failure is an :class:`IsolatedWorkError` with the exception's type
and message.

The child's environment is the allow-list of
:func:`~mcp_common.child_environment.child_environment` plus ``PYTHONPATH`` and ``env``: no
token or key of the server's reaches it. Its working
directory is the server's unless ``cwd`` is given; ``-P`` keeps that directory off
``sys.path``. Starting a child costs an interpreter start-up plus the imports of the
function's module: use it per check, not per line.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import math
import os
import pickle
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar, overload

from pydantic import TypeAdapter, ValidationError

from mcp_common.child_environment import child_environment
from mcp_common.context import ToolContext
from mcp_common.result import ErrorCode, ToolCancelledError, ToolError

_log = logging.getLogger("mcp_common.isolation")

T = TypeVar("T")

MIB = 1024 * 1024
CHILD_SCRIPT = Path(__file__).with_name("_isolated_child.py")
POLL_SECONDS = 0.05
"""How often a waiting caller looks at its context and the clock."""
STDERR_KEPT = 8 * 1024
"""Bytes of the child's stderr kept (the last ones) for the log; the rest is dropped, so a
chatty child cannot fill the server's log."""

_KEPT_VARIABLES = ("PYTHONPATH", "SYSTEMROOT")
"""Kept beyond :data:`~mcp_common.child_environment.BASE_VARIABLES`: the child is Python."""

Limit = Literal["time", "memory", "answer"]


@dataclass(frozen=True, slots=True)
class IsolationLimits:
    """What one piece of isolated work may use."""

    seconds: float = 60.0
    """Wall-clock time from the start of the child (its start-up and imports included)."""
    memory_bytes: int = 1024 * MIB
    """The child's address space (``RLIMIT_AS``); the interpreter itself takes ~30 MiB."""
    answer_bytes: int = 8 * MIB
    """The largest JSON answer the parent reads (decoding JSON can take ten times its size in
    objects: the bound keeps a forged answer from filling the server)."""

    def __post_init__(self) -> None:
        if not (self.seconds > 0 and math.isfinite(self.seconds)):
            raise ValueError(f"seconds must be a positive number, not {self.seconds!r}")
        if self.memory_bytes < 64 * MIB:
            raise ValueError("memory_bytes must be at least 64 MiB (the interpreter's own size)")
        if self.answer_bytes <= 0:
            raise ValueError("answer_bytes must be positive")


class IsolatedWorkError(ToolError):
    """Isolated work failed; ``limit`` names the limit it reached, if that was the cause."""

    def __init__(
        self, message: str, code: ErrorCode = ErrorCode.FAILED, limit: Limit | None = None
    ) -> None:
        super().__init__(message, code)
        self.limit = limit


class _Children:
    """The live children of this process, so shutdown can kill them all."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._live: set[subprocess.Popen[bytes]] = set()
        self.stopping = False

    def add(self, child: subprocess.Popen[bytes]) -> None:
        with self._lock:
            self._live.add(child)
            if self.stopping:
                _kill(child)

    def finish(self, child: subprocess.Popen[bytes]) -> None:
        """Kill what is left of ``child`` (its process group) and reap it. The group is
        killed before the child is reaped, and under the lock, so no signal can reach a
        process that took a reaped child's number."""
        with self._lock:
            _kill(child)
            self._live.discard(child)
        child.wait()
        for pipe in (child.stdin, child.stdout, child.stderr):
            if pipe is not None and not pipe.closed:
                with contextlib.suppress(OSError):
                    pipe.close()

    def kill_all(self) -> int:
        with self._lock:
            self.stopping = True
            for child in self._live:
                _kill(child)
            return len(self._live)


_CHILDREN = _Children()


def stop_isolated_work() -> int:
    """Kill every running child (the server is stopping); the number killed. Work started
    afterwards is killed at once. Runs at interpreter exit too."""
    return _CHILDREN.kill_all()


atexit.register(stop_isolated_work)


def _kill(child: subprocess.Popen[bytes]) -> None:
    """SIGKILL to the child's process group (anything it started goes with it); the child is
    never reaped before this, so its number cannot belong to anyone else."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(child.pid, signal.SIGKILL)


def _environment(extra: Mapping[str, str] | None) -> dict[str, str]:
    kept = child_environment(os.environ, _KEPT_VARIABLES)
    kept.update(extra or {})
    if "PYTHONPATH" in kept:
        kept["PYTHONPATH"] = _absolute_search_path(kept["PYTHONPATH"])
    return kept


def _absolute_search_path(value: str) -> str:
    """``PYTHONPATH`` with every entry absolute (against this process's directory) and the
    empty ones dropped: in the child, whose working directory may be a checkout under test,
    an empty entry (``:/x``, a classic slip) or a relative one would import its files."""
    entries = [os.path.abspath(entry) for entry in value.split(os.pathsep) if entry]
    return os.pathsep.join(entries)


def _request(function: Callable[..., object], args: tuple[object, ...], kwargs: object) -> bytes:
    module = getattr(function, "__module__", None)
    if module == "__main__":
        raise ValueError(
            f"run_isolated needs a function importable by name; "
            f"{getattr(function, '__qualname__', function)!r} is defined in __main__"
        )
    try:
        return pickle.dumps(
            {"function": function, "args": args, "kwargs": kwargs}, pickle.HIGHEST_PROTOCOL
        )
    except (pickle.PicklingError, AttributeError, TypeError) as error:
        raise ValueError(
            f"run_isolated needs a module-level function and picklable arguments: {error}"
        ) from error


@overload
def run_isolated(
    function: Callable[..., object],
    /,
    *args: object,
    context: ToolContext | None = None,
    limits: IsolationLimits = ...,
    what: str = ...,
    returns: None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    **kwargs: object,
) -> Any: ...
@overload
def run_isolated(
    function: Callable[..., object],
    /,
    *args: object,
    context: ToolContext | None = None,
    limits: IsolationLimits = ...,
    what: str = ...,
    returns: type[T],
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    **kwargs: object,
) -> T: ...
def run_isolated(
    function: Callable[..., object],
    /,
    *args: object,
    context: ToolContext | None = None,
    limits: IsolationLimits = IsolationLimits(),
    what: str = "the isolated work",
    returns: type[Any] | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    **kwargs: object,
) -> Any:
    """``function(*args, **kwargs)`` run in a fresh child process under ``limits``.

    Returns the function's answer decoded from JSON (validated into ``returns`` when given).
    Raises :class:`~mcp_common.ToolCancelledError` when ``context`` is cancelled (the child is
    killed within :data:`POLL_SECONDS`), :class:`IsolatedWorkError` for a limit reached or a
    failure of the function (``what`` names the work in its message), the function's own
    :class:`~mcp_common.ToolError` as it raised it, and :class:`ValueError` when ``function``
    cannot be called by name in a child (a lambda, a nested function, one in ``__main__``).

    Call it from the thread that waits for the answer (a tool's ``call`` does): the child is
    killed when that thread ends.
    """
    payload = _request(function, args, kwargs)
    if context is not None:
        context.check_cancelled()
    cpu_seconds = math.ceil(limits.seconds) + 1
    command = [
        sys.executable,
        "-P",
        str(CHILD_SCRIPT),
        str(limits.memory_bytes),
        str(cpu_seconds),
        str(os.getpid()),
    ]
    started = time.monotonic()
    child = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_environment(env),
        cwd=cwd,
        close_fds=True,
        process_group=0,
    )
    _CHILDREN.add(child)
    noise = _Noise()
    try:
        answer, stopped = _exchange(child, payload, started, limits, context, noise)
        if stopped is None and not answer:  # killed before the loop saw why: look again
            stopped = _why_stopped(started, limits, context)
    finally:
        _CHILDREN.finish(child)
    elapsed = time.monotonic() - started
    if noise.total:
        _log.log(
            logging.DEBUG
            if stopped is None and answer.startswith(b'{"ok": true')
            else logging.INFO,
            "%s wrote %d bytes to stderr; the last %d:\n%s",
            what,
            noise.total,
            len(noise.tail),
            noise.tail.decode("utf-8", errors="replace"),
        )
    if stopped == "cancelled":
        raise ToolCancelledError
    if stopped == "shutdown":
        raise IsolatedWorkError(f"{what} stopped: the server is shutting down", ErrorCode.CANCELLED)
    if stopped == "time" or child.returncode == -signal.SIGXCPU:
        raise IsolatedWorkError(
            f"{what} stopped: it ran past its {limits.seconds:g} s time limit",
            ErrorCode.TIMEOUT,
            limit="time",
        )
    if stopped == "answer":
        raise IsolatedWorkError(
            f"{what} failed: its answer is larger than the {limits.answer_bytes:,} byte limit",
            limit="answer",
        )
    return _decode(answer, child.returncode, limits, what, returns, elapsed)


def _why_stopped(
    started: float, limits: IsolationLimits, context: ToolContext | None
) -> str | None:
    if context is not None and context.cancelled:
        return "cancelled"
    if _CHILDREN.stopping:
        return "shutdown"
    if time.monotonic() - started > limits.seconds:
        return "time"
    return None


class _Noise:
    """What a child wrote to stderr: its size and last :data:`STDERR_KEPT` bytes."""

    def __init__(self) -> None:
        self.total = 0
        self.tail = b""

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        self.tail = (self.tail + chunk)[-STDERR_KEPT:]


def _exchange(
    child: subprocess.Popen[bytes],
    payload: bytes,
    started: float,
    limits: IsolationLimits,
    context: ToolContext | None,
    noise: _Noise,
) -> tuple[bytes, str | None]:
    """Send the call, read the answer (and stderr, bounded); what stopped the child early,
    if anything."""
    assert child.stdin is not None
    assert child.stdout is not None
    assert child.stderr is not None
    pending = memoryview(payload)
    answer = bytearray()
    os.set_blocking(child.stdin.fileno(), False)
    with selectors.DefaultSelector() as selector:
        selector.register(child.stdin, selectors.EVENT_WRITE)
        selector.register(child.stdout, selectors.EVENT_READ)
        selector.register(child.stderr, selectors.EVENT_READ)
        # the child is never reaped here (no poll): its answer ends when it exits
        while True:
            stopped = _why_stopped(started, limits, context)
            if stopped is not None:
                return b"", stopped
            for key, _ in selector.select(POLL_SECONDS):
                if key.fileobj is child.stdin:
                    try:
                        pending = pending[os.write(child.stdin.fileno(), pending) :]
                    except BlockingIOError:
                        continue
                    except BrokenPipeError:  # the child ended early; its status tells why
                        pending = pending[len(pending) :]
                    if not pending:
                        selector.unregister(child.stdin)
                        child.stdin.close()
                    continue
                if key.fileobj is child.stderr:
                    chunk = os.read(child.stderr.fileno(), 1 << 16)
                    if chunk:
                        noise.add(chunk)
                    else:
                        selector.unregister(child.stderr)
                    continue
                chunk = os.read(child.stdout.fileno(), 1 << 16)
                if not chunk:
                    _drain(child.stderr.fileno(), noise)
                    return bytes(answer), None
                answer += chunk
                if len(answer) > limits.answer_bytes:
                    return b"", "answer"


def _drain(fd: int, noise: _Noise) -> None:
    """Read what the ended child left on stderr, without waiting (a grandchild may hold it)."""
    os.set_blocking(fd, False)
    with contextlib.suppress(OSError):
        for _ in range(64):
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return
            noise.add(chunk)


def _decode(
    answer: bytes,
    status: int,
    limits: IsolationLimits,
    what: str,
    returns: type[Any] | None,
    elapsed: float,
) -> Any:
    memory = f"{limits.memory_bytes / MIB:g} MiB"
    if not answer:
        if status < 0:
            try:
                name = signal.Signals(-status).name
            except ValueError:
                name = f"signal {-status}"
            raise IsolatedWorkError(
                f"{what} failed: its process was ended by {name} (it may have reached its "
                f"{memory} memory limit)",
                limit="memory" if -status in (signal.SIGSEGV, signal.SIGABRT) else None,
            )
        raise IsolatedWorkError(
            f"{what} failed: its process ended without an answer (exit status {status})"
        )
    try:
        message = json.loads(answer)
    except (ValueError, RecursionError) as error:  # a child taken over may send anything
        raise IsolatedWorkError(f"{what} failed: its answer is not valid JSON") from error
    if not isinstance(message, dict):
        raise IsolatedWorkError(f"{what} failed: its answer is not valid JSON")
    if message.get("ok") is True:
        _log.debug("%s answered in %.2f s", what, elapsed)
        value = message.get("value")
        if returns is None:
            return value
        try:
            return TypeAdapter(returns).validate_python(value)
        except ValidationError as error:
            raise IsolatedWorkError(f"{what} failed: its answer is not a {returns}") from error
    kind = message.get("error")
    if kind == "memory":
        raise IsolatedWorkError(
            f"{what} stopped: it needed more than its {memory} memory limit", limit="memory"
        )
    if kind == "tool":
        raise ToolError(str(message.get("message")), _code(message.get("code")))
    if kind == "result":
        raise IsolatedWorkError(
            f"{what} failed: its answer cannot be sent back: {message.get('message')}"
        )
    _log.warning("%s failed in its process:\n%s", what, message.get("traceback", ""))
    raise IsolatedWorkError(f"{what} failed: {message.get('type')}: {message.get('message')}")


def _code(value: object) -> ErrorCode:
    try:
        return ErrorCode(str(value))
    except ValueError:
        return ErrorCode.FAILED
