"""Every source file of a repository is read, parsed and reduced to facts in a child process
that can be stopped.

tree-sitter's own parse is superlinear on some inputs (a 60 KB Java file of ``a<`` repeated
30,000 times parses in 22 s) and holds the interpreter lock throughout, past the reach of
any check in Python: in the server's process it froze every call, ping and cancel alike. So
the server parses nothing itself. :data:`PARSERS` keeps parse children (fresh interpreters,
``fork`` + ``exec``, never a fork of the threaded server) and sends them files in batches;
each child

- limits its own address space to :data:`MEMORY_BYTES` and writes no core file,
- before each file sets its CPU time limit (``RLIMIT_CPU``) to that file's budget
  (:func:`~context_server.core.languages.base.Parsed.budget_for`) plus a second, so the kernel
  ends it (``SIGXCPU``) wherever the time goes, inside tree-sitter included,
- is killed by the kernel when the server ends (``PR_SET_PDEATHSIG``; children are started by
  one long-lived thread, as that signal follows the thread that started them),
- answers each batch, a record per file, as MessagePack decoded into :class:`FileRecord`
  (never a pickle: a child taken over by its input cannot make the server run code).

The server's thread waits without holding the interpreter lock, so it keeps answering; a
cancel kills the busy children at once. When a child ends (a limit, a crash) or outlasts
:data:`WALL_SECONDS`, the files of the batch it was reading are sent again one at a time to
a fresh child: the one that ends its child alone is recorded as skipped with the limit it
reached, the others are parsed. One child is kept between calls, so a warm
re-parse of an edited file costs a round trip, not an interpreter start-up (about 0.8 s of
CPU); a large build starts one child per core and ends the others when it is done.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import logging
import os
import pickle
import queue
import resource
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import cast

import msgspec
from mcp_common import AllowedPaths
from mcp_common.child_environment import child_environment
from mcp_common.paths import PathRefusedError

from context_server.core.facts import bounded
from context_server.core.languages import TooComplexError, dialect, family_of
from context_server.core.languages.base import BUDGET_EXCEEDED, Parsed
from context_server.core.packed import pack
from context_server.core.store import FileRecord
from context_server.core.walk import FileEntry

_log = logging.getLogger(__name__)

MAX_SOURCE_BYTES = 2 * 1024 * 1024
"""Source files larger than this are listed as skipped, never read."""
MIB = 1024 * 1024
MEMORY_BYTES = 1024 * MIB
"""A parse child's address space (``RLIMIT_AS``): the interpreter with every grammar takes
about 150 MiB, a 2 MB source file's trees and facts a few tens more."""
WALL_SECONDS = 60.0
"""How long one batch may keep its child without an answer, whatever the CPU time says (a
stalled read): far past any CPU budget even on a loaded machine. A batch of several files
that outlasts it is sent again one file at a time."""
PARALLEL_FROM = 4000
"""Files to parse from which one child per core (at most 8) parses them; fewer go to one."""
BATCH = 16
"""Files sent to a child at once; it answers them at once (an answer per file would wake
the server per file: twice the CPU time). Two batches are sent ahead, so it never waits."""
PROGRESS_EVERY = 200
"""Files parsed between two progress reports."""
POLL_SECONDS = 0.05
"""How often a waiting build looks for a cancel."""
FACTS_PER_SOURCE_BYTE = 16
"""How many times its own size a file's packed facts may take once cut to the limits per
file (see :func:`~context_server.core.facts.bounded`): past that it is skipped. Real code
stays under 5 (0.3 on average over 6,000 Python, Java, Kotlin, Scala, C#, Go, Rust and
TypeScript files); a hostile one repeats a long prefix per imported name (``from <3 KB
name> import (n0, ..., n99)``: 3.5 KB of source, 262 KB of facts once cut to 256 K
characters of names; uncut, ten files of ``from <30 KB name> import (n0, ..., n1999)``
held the server at 1.3 GB and filled the store with 600 MB)."""
FACTS_SLACK = 4096
"""Bytes of facts any file may take whatever its size (an empty file's take 127, most of
them its module's names)."""
MAX_ANSWER_BYTES = FACTS_PER_SOURCE_BYTE * MAX_SOURCE_BYTES + MIB
"""The longest answer a child may send for one file (the largest facts a file may have, and
room for the rest of its record): a longer one ends it."""
KEPT = 1
"""Children kept waiting between builds (for warm re-parses)."""

_CHILD_CODE = "from context_server.core.parsing import serve; serve()"
_LENGTH = 4
_PR_SET_PDEATHSIG = 1


class ParseJob(msgspec.Struct, frozen=True, array_like=True):
    """A file to read and parse: its listing entry, dialect name, module name, and the
    content hash of the record it had (``""``: none), which spares a parse when it still
    matches."""

    entry: FileEntry
    language: str
    module: str
    digest: str = ""


class _Answer(msgspec.Struct, frozen=True, array_like=True):
    """A child's answer for one file: its record, whether it was parsed, and what of its
    facts was cut to the limits per file (see :func:`~context_server.core.facts.bounded`;
    empty: nothing), which the server logs."""

    record: FileRecord
    parsed: bool
    cut: str = ""


def parse_file(job: ParseJob, allowed: AllowedPaths) -> _Answer:
    """The record of one file and whether it was parsed (not when its content hash is
    ``job.digest``: the record then carries no facts, its caller keeps those it had).

    Runs in a parse child: the file is hostile input.
    """
    item, language, module = job.entry, dialect(job.language), job.module

    def problem(reason: str, digest: str = "") -> _Answer:
        return _Answer(_skipped(job, reason, digest), True)

    if item.size > MAX_SOURCE_BYTES:
        return problem(
            f"skipped: {_size(item.size)} is over the {_size(MAX_SOURCE_BYTES)} limit"
            " for a source file"
        )
    try:
        data = allowed.read_bytes(item.real, max_bytes=MAX_SOURCE_BYTES)
    except PathRefusedError as exc:
        return problem(f"skipped: {exc.reason}")
    digest = hashlib.sha256(data).hexdigest()
    if job.digest == digest:
        return _Answer(_skipped(job, None, digest), False)
    if b"\x00" in data[:8192]:
        return problem("skipped: binary content in a source file", digest)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return problem(f"skipped: not UTF-8 (invalid byte at offset {exc.start})", digest)
    try:
        facts, cut = bounded(
            family_of(language.name).extract(language, text, item.relative, module)
        )
        packed = pack(facts)
    except TooComplexError as exc:
        return problem(f"skipped: {exc}", digest)
    except MemoryError:
        return problem(f"skipped: {_OVER_MEMORY}", digest)
    if len(packed) > FACTS_PER_SOURCE_BYTE * len(data) + FACTS_SLACK:
        return problem(
            f"skipped: its facts take {_size(len(packed))}, more than"
            f" {FACTS_PER_SOURCE_BYTE} times its size",
            digest,
        )
    record = FileRecord(
        item.size, item.mtime_ns, item.ctime_ns, digest, module, language.name, packed, None
    )
    return _Answer(record, True, cut)


_OVER_MEMORY = f"reading it needed more than the {MEMORY_BYTES // MIB} MiB memory limit"


def _skipped(job: ParseJob, reason: str | None, digest: str = "") -> FileRecord:
    item = job.entry
    return FileRecord(
        item.size, item.mtime_ns, item.ctime_ns, digest, job.module, job.language, None, reason
    )


def _size(count: int) -> str:
    """A byte count for people: ``52 MB``, ``2 MB``, ``2.5 MB``, ``1536 bytes``."""
    if count < 1024 * 1024:
        return f"{count} bytes"
    return f"{count / (1024 * 1024):.1f}".removesuffix(".0") + " MB"


# --- the server's side -------------------------------------------------------------------


class _Starter:
    """One daemon thread that starts every parse child: the kernel kills a child when the
    thread that started it ends (``PR_SET_PDEATHSIG``), and a call's thread may end long
    before the child it started should (thread pools retire idle threads)."""

    def __init__(self) -> None:
        self._requests: queue.SimpleQueue[Future[subprocess.Popen[bytes]]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def start(self) -> subprocess.Popen[bytes]:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="parse-starter", daemon=True)
                self._thread.start()
        request: Future[subprocess.Popen[bytes]] = Future()
        self._requests.put(request)
        return request.result()

    def _run(self) -> None:
        while True:
            request = self._requests.get()
            try:
                request.set_result(_popen())
            except BaseException as exc:  # handed to the thread that asked
                request.set_exception(exc)


def _popen() -> subprocess.Popen[bytes]:
    # only what an interpreter needs (no token or key of the server's), one thread for any
    # numeric library imported on the way (each would reserve address space and CPU)
    environment = child_environment(os.environ, ("PYTHONPATH", "SYSTEMROOT"))
    environment.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    return subprocess.Popen(
        [sys.executable, "-P", "-c", _CHILD_CODE, str(os.getpid()), str(MEMORY_BYTES)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        # what it could say is answered per file; a child taken over cannot fill the log
        stderr=subprocess.DEVNULL,
        env=environment,
        close_fds=True,
        process_group=0,  # a terminal's Ctrl-C reaches the server, which decides
    )


@dataclass(eq=False)
class _Child:
    """A parse child seen from the server: the batches it was sent and has not answered
    (it reads the first since ``since``), and what it has written so far."""

    process: subprocess.Popen[bytes]
    batches: deque[list[int]] = field(default_factory=deque)
    since: float = 0.0
    outbox: bytearray = field(default_factory=bytearray)
    inbox: bytearray = field(default_factory=bytearray)
    stalled: bool = False

    def __post_init__(self) -> None:
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        os.set_blocking(self.process.stdin.fileno(), False)
        os.set_blocking(self.process.stdout.fileno(), False)

    @property
    def stdin(self) -> int:
        assert self.process.stdin is not None
        return self.process.stdin.fileno()

    @property
    def stdout(self) -> int:
        assert self.process.stdout is not None
        return self.process.stdout.fileno()

    def kill(self) -> None:
        """Kill and reap it (never reaped before the kill: its number cannot be reused)."""
        with contextlib.suppress(ProcessLookupError):
            self.process.kill()
        self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()


class Parsers:
    """The parse children of this process (see the module). Safe to share between threads:
    each build uses children of its own."""

    def __init__(self) -> None:
        self._idle: list[_Child] = []
        self._busy: set[_Child] = set()
        self._lock = threading.Lock()
        self._starter = _Starter()
        self._closed = False

    def warm(self) -> None:
        """Start a child now when none is waiting, so that its start-up (about 0.8 s of
        CPU) overlaps the caller's walk."""
        with self._lock:
            if self._idle or self._busy or self._closed:
                return
        self._give_back([self.start()])

    def start(self) -> _Child:
        """A new child, known as busy (killed by :meth:`close`) until given back."""
        child = _Child(self._starter.start())
        with self._lock:
            self._busy.add(child)
            closed = self._closed
        if closed:
            child.kill()
            raise RuntimeError("the server is stopping: no file is parsed any more")
        return child

    def parse(
        self,
        jobs: Sequence[ParseJob],
        allowed: AllowedPaths,
        check_cancelled: Callable[[], None] = lambda: None,
        progress: Callable[[int, int], None] | None = None,
    ) -> tuple[list[tuple[FileRecord, bool]], int]:
        """The record of each of ``jobs`` (in order) and whether it was parsed, and how many
        children parsed them. ``check_cancelled`` is called every :data:`POLL_SECONDS` while
        the children work (what it raises kills them), ``progress`` with files done (each
        multiple of :data:`PROGRESS_EVERY` passed) and files in all."""
        if not jobs:
            return [], 0
        wanted = 1 if len(jobs) < PARALLEL_FROM else max(1, min(os.cpu_count() or 1, 8))
        children = self._take(min(wanted, len(jobs)))
        used = len(children)
        try:
            results = _Build(jobs, allowed, children, self.start).run(check_cancelled, progress)
        except BaseException:
            for child in children:  # a cancel: whatever they read is dropped
                child.kill()
            with self._lock:
                self._busy.difference_update(children)
            raise
        self._give_back(children)
        return results, used

    def close(self) -> None:
        """Kill every child (the server is stopping); later builds start none."""
        with self._lock:
            self._closed = True
            children = [*self._idle, *self._busy]
            self._idle.clear()
        for child in children:
            child.kill()

    def forget(self) -> None:
        """In a process forked from this one (``--workers``): the children and the starting
        thread are the parent's; start afresh (the pipes are closed, nothing is killed)."""
        for child in [*self._idle, *self._busy]:
            for pipe in (child.process.stdin, child.process.stdout):
                if pipe is not None:
                    with contextlib.suppress(OSError):
                        pipe.close()
        self._idle, self._busy = [], set()
        self._lock = threading.Lock()
        self._starter = _Starter()

    def _take(self, count: int) -> list[_Child]:
        with self._lock:
            if self._closed:
                raise RuntimeError("the server is stopping: no file is parsed any more")
            children: list[_Child] = []
            while self._idle and len(children) < count:
                child = self._idle.pop()
                if child.process.poll() is None:
                    children.append(child)
            self._busy.update(children)
        while len(children) < count:
            children.append(self.start())
        return children

    def _give_back(self, children: list[_Child]) -> None:
        ended = []
        with self._lock:
            self._busy.difference_update(children)
            for child in children:
                if child.process.poll() is None and len(self._idle) < KEPT and not self._closed:
                    self._idle.append(child)
                else:
                    ended.append(child)
        for child in ended:
            child.kill()


class _Build:
    """One :meth:`Parsers.parse`: its jobs dealt to its children, the answers read back."""

    def __init__(
        self,
        jobs: Sequence[ParseJob],
        allowed: AllowedPaths,
        children: list[_Child],
        start: Callable[[], _Child],
    ) -> None:
        self.jobs = jobs
        self.allowed = pickle.dumps(allowed, pickle.HIGHEST_PROTOCOL)
        self.children = children
        self.start = start
        self.queue: deque[int] = deque(range(len(jobs)))
        # files of a batch whose child ended: each is sent alone, to learn which it was
        self.suspects: deque[int] = deque()
        self.results: list[tuple[FileRecord, bool] | None] = [None] * len(jobs)
        self.done = 0
        self.progress: Callable[[int, int], None] | None = None

    def run(
        self, check_cancelled: Callable[[], None], progress: Callable[[int, int], None] | None
    ) -> list[tuple[FileRecord, bool]]:
        total = len(self.jobs)
        self.progress = progress
        with selectors.DefaultSelector() as selector:
            for child in self.children:
                selector.register(child.stdout, selectors.EVENT_READ, child)
            while self.done < total:
                for child in self.children:
                    self._deal(child, selector)
                for key, events in selector.select(POLL_SECONDS):
                    child = key.data
                    if events & selectors.EVENT_WRITE:
                        self._write(child, selector)
                    if events & selectors.EVENT_READ:
                        self._read(child, selector)
                check_cancelled()
                now = time.monotonic()
                for child in list(self.children):
                    if child.batches and now - child.since > WALL_SECONDS:
                        child.stalled = True
                        self._ended(child, selector)
        assert all(result is not None for result in self.results)
        return cast(list[tuple[FileRecord, bool]], self.results)

    def _deal(self, child: _Child, selector: selectors.BaseSelector) -> None:
        """Send ``child`` batches until it has two to read."""
        was_empty = not child.outbox
        while len(child.batches) < 2 and (self.suspects or self.queue):
            if self.suspects:
                batch = [self.suspects.popleft()]
            else:
                batch = [self.queue.popleft() for _ in range(min(BATCH, len(self.queue)))]
            if not child.batches:
                child.since = time.monotonic()
            child.batches.append(batch)
            message = pickle.dumps(
                (self.allowed, [self.jobs[number] for number in batch]), pickle.HIGHEST_PROTOCOL
            )
            child.outbox += len(message).to_bytes(_LENGTH, "big") + message
        if was_empty and child.outbox:
            self._write(child, selector)

    def _write(self, child: _Child, selector: selectors.BaseSelector) -> None:
        try:
            written = os.write(child.stdin, child.outbox)
        except BlockingIOError:
            written = 0
        except BrokenPipeError:  # it ended: its output's end says why
            written = len(child.outbox)
        del child.outbox[:written]
        registered = selector.get_key(child.stdout).events
        wanted = selectors.EVENT_READ | (selectors.EVENT_WRITE if child.outbox else 0)
        if wanted != registered:
            selector.modify(child.stdout, wanted, child)

    def _read(self, child: _Child, selector: selectors.BaseSelector) -> None:
        try:
            chunk = os.read(child.stdout, 1 << 20)
        except BlockingIOError:
            return
        if not chunk:
            self._ended(child, selector)
            return
        child.inbox += chunk
        while len(child.inbox) >= _LENGTH:
            size = int.from_bytes(child.inbox[:_LENGTH], "big")
            if size > MAX_ANSWER_BYTES or not child.batches:
                self._ended(child, selector)
                return
            if len(child.inbox) < _LENGTH + size:
                return
            payload = bytes(child.inbox[_LENGTH : _LENGTH + size])
            del child.inbox[: _LENGTH + size]
            try:
                answer = _ANSWER.decode(payload)
            except msgspec.DecodeError:
                self._ended(child, selector)
                return
            head = child.batches[0]
            number = head.pop(0)
            if answer.cut:
                _log.warning("%s: %s", self.jobs[number].entry.relative, answer.cut)
            self._record(number, answer.record, answer.parsed)
            if not head:
                child.batches.popleft()
                child.since = time.monotonic()

    def _record(self, number: int, record: FileRecord, parsed: bool) -> None:
        self.results[number] = (record, parsed)
        self.done += 1
        # each multiple reported as it is passed (one read may bring several batches' answers)
        total = len(self.jobs)
        if self.progress is not None and self.done % PROGRESS_EVERY == 0 and self.done < total:
            self.progress(self.done, total)

    def _ended(self, child: _Child, selector: selectors.BaseSelector) -> None:
        """``child`` ended, broke the protocol or stalled: kill it, skip the file it was
        reading with the reason (when it read one alone; else each file of that batch is
        sent alone), and give the batches behind it to a fresh child."""
        selector.unregister(child.stdout)
        child.kill()
        self.children.remove(child)
        if child.batches:
            head = child.batches.popleft()
            if len(head) == 1:
                job = self.jobs[head[0]]
                reason = _why_ended(child)
                _log.warning("%s: %s", job.entry.relative, reason)
                self._record(head[0], _skipped(job, reason), True)
            else:
                self.suspects.extendleft(reversed(head))
            for batch in reversed(child.batches):
                self.queue.extendleft(reversed(batch))
        if self.queue or self.suspects:
            fresh = self.start()
            self.children.append(fresh)
            selector.register(fresh.stdout, selectors.EVENT_READ, fresh)


def _why_ended(child: _Child) -> str:
    if child.stalled:
        return f"skipped: reading it took more than {WALL_SECONDS:g} s of waiting"
    status = child.process.returncode
    if status == -signal.SIGXCPU:
        return f"skipped: {BUDGET_EXCEEDED}"
    if status is not None and status < 0:
        try:
            name = signal.Signals(-status).name
        except ValueError:
            name = f"signal {-status}"
        return (
            f"skipped: reading it ended its parser process ({name}; each has a "
            f"{MEMORY_BYTES // MIB} MiB memory limit)"
        )
    return f"skipped: its parser process ended without an answer (exit status {status})"


_ANSWER = msgspec.msgpack.Decoder(_Answer)

PARSERS = Parsers()
"""The parse children of this process."""
atexit.register(PARSERS.close)
os.register_at_fork(after_in_child=PARSERS.forget)


# --- the child's side --------------------------------------------------------------------


def serve() -> None:
    """A parse child's main loop (``python -P -c ... SERVER_PID MEMORY_BYTES``): limit
    itself, then read batches of files from stdin and answer each batch (a record per file)
    on stdout until stdin ends."""
    server, memory = int(sys.argv[1]), int(sys.argv[2])
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != server:  # the server ended before the signal was set
        os._exit(1)
    answers = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # a stray print cannot corrupt the answers
    os.close(devnull)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    _, cpu_hard = resource.getrlimit(resource.RLIMIT_CPU)
    encoder = msgspec.msgpack.Encoder()
    reader = os.fdopen(0, "rb")
    while True:
        header = reader.read(_LENGTH)
        if len(header) < _LENGTH:
            os._exit(0)
        # the server wrote this (its own jobs and confinement), never the files
        allowed_pickle, batch = pickle.loads(reader.read(int.from_bytes(header, "big")))  # noqa: S301
        allowed = pickle.loads(allowed_pickle)  # noqa: S301
        out = bytearray()
        for job in batch:
            used = resource.getrusage(resource.RUSAGE_SELF)
            # the kernel ends this process once the file's budget and a second are spent
            soft = int(used.ru_utime + used.ru_stime + Parsed.seconds_for(job.entry.size)) + 2
            if cpu_hard != resource.RLIM_INFINITY:
                soft = min(soft, cpu_hard)
            resource.setrlimit(resource.RLIMIT_CPU, (soft, cpu_hard))
            try:
                found = parse_file(job, allowed)
            except MemoryError:
                found = _Answer(_skipped(job, f"skipped: {_OVER_MEMORY}"), True)
            except Exception as exc:  # a defect, not the file's fault: say so, go on
                reason = f"skipped: reading it failed ({type(exc).__name__}: {exc})"
                found = _Answer(_skipped(job, reason), True)
            answer = encoder.encode(found)
            out += len(answer).to_bytes(_LENGTH, "big") + answer
        view = memoryview(out)
        while view:
            view = view[os.write(answers, view) :]
