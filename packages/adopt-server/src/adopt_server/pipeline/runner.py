"""The one way the pipeline runs an external program.

Every command is an argv list (never a shell string) with stdin closed and stderr merged
into stdout in order. A per-command timeout kills the whole process tree and keeps the
partial output; transient network failures of ``git``/``gh`` are retried with backoff;
every transcript that leaves this module is credential-masked.
"""

from __future__ import annotations

import codecs
import contextlib
import logging
import math
import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from mcp_common import mask_credentials
from mcp_common.child_environment import child_environment

_log = logging.getLogger(__name__)

HEAD_CHARS = 64 * 1024
TAIL_CHARS = 64 * 1024
_READER_GRACE_SECONDS = 5.0
_MAX_BACKOFF_SECONDS = 30.0

TRANSIENT_MARKERS = (
    "could not resolve host",
    "temporary failure in name resolution",
    "no such host",
    "failed to connect to",
    "connection refused",
    "connection reset by peer",
    "connection timed out",
    "operation timed out",
    "timeout was reached",
    "i/o timeout",
    "network is unreachable",
    "the remote end hung up unexpectedly",
    "unexpected disconnect",
    "early eof",
    "rpc failed",
    "gnutls recv error",
    "ssl connect error",
    "ssl_error_syscall",
    "tls handshake timeout",
    "the requested url returned error: 5",
    "server error: 5",
    "internal server error",
    "bad gateway",
    "service unavailable",
    "gateway timeout",
)
_RETRIED_PROGRAMS = frozenset({"git", "gh"})
_RATE_LIMIT = re.compile(
    r"rate limit|secondary rate|abuse detection|too many requests|\b429\b", re.IGNORECASE
)
_RATE_WAIT = re.compile(
    r"(?:retry-after|retry after|try again in|wait)\D{0,20}?(\d{1,5})\s*(second|minute|hour)",
    re.IGNORECASE,
)


# CSI sequences (colours, cursor moves), OSC sequences (titles, hyperlinks) and lone escapes
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
EXCERPT_LINES = 25
EXCERPT_CHARS = 4000


def excerpt(transcript: str, lines: int = EXCERPT_LINES, chars: int = EXCERPT_CHARS) -> str:
    """The end of a command's output as a report can show it: ANSI codes removed, progress
    redraws (carriage returns) collapsed, blank lines dropped, the last ``lines`` lines and at
    most ``chars`` characters kept, credentials masked."""
    text = _ANSI.sub("", transcript)
    kept = [line.rsplit("\r", 1)[-1].rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    kept = [line for line in kept if line.strip()]
    omitted = max(0, len(kept) - lines)
    body = "\n".join(kept[-lines:])
    if len(body) > chars:
        body = body[-chars:]
        body = body[body.find("\n") + 1 :] if "\n" in body else body
        omitted += 1
    head = f"[... {omitted} earlier lines omitted ...]\n" if omitted else ""
    return mask_credentials(head + body)


# What a repository's own build (its wrapper, its build tool, a formatter it configures) may
# see of this process's environment beyond mcp-common's allow-list for untrusted children.
BUILD_VARIABLES = frozenset(
    {
        "USER",
        "LOGNAME",
        "SHELL",
        "TERM",
        "JAVA_HOME",
        "MAVEN_HOME",
        "M2_HOME",
        "GRADLE_HOME",
        "GRADLE_USER_HOME",
    }
)


EnvironmentFilter = Callable[[Mapping[str, str]], dict[str, str]]
"""The part of this process's environment a command may see, given all of it."""


def build_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The part of ``environ`` a repository's own build runs with: mcp-common's allow-list
    (:func:`~mcp_common.child_environment.child_environment`), the JDK and build tool homes
    of :data:`BUILD_VARIABLES` and proxy settings that carry no credentials; everything else
    (tokens, ``*_API_KEY``, cloud credentials) is left out."""
    return child_environment(environ, BUILD_VARIABLES, proxies=True)


class CommandError(Exception):
    """A command could not be started, timed out, or failed; the message is already masked."""


class CommandTimeoutError(CommandError):
    """A command ran past its timeout and its process tree was killed."""


@dataclass(frozen=True, slots=True)
class CommandResult:
    """One finished command: its argv, exit code and (bounded, unmasked) transcript."""

    argv: tuple[str, ...]
    exit_code: int
    transcript: str

    @property
    def ok(self) -> bool:
        """Whether the command exited 0."""
        return self.exit_code == 0

    def describe_failure(self, step: str) -> str:
        """``<step> failed (exit N) running: <cmd>`` + transcript, masked, with a rate-limit
        notice first when GitHub is throttling."""
        notice = rate_limit_notice(self.transcript)
        head = f"{notice}\n" if notice else ""
        return mask_credentials(
            f"{head}{step} failed (exit {self.exit_code}) running: {render(self.argv)}\n"
            f"{_ANSI.sub('', self.transcript).rstrip()}"
        )


def render(argv: Sequence[str]) -> str:
    """A readable, masked one-line form of a command."""
    return mask_credentials(" ".join(_quote(a) for a in argv))


def _quote(arg: str) -> str:
    return arg if arg and not re.search(r"\s|['\"]", arg) else repr(arg)


class _Transcript:
    """Keeps the first HEAD_CHARS and the last TAIL_CHARS..2*TAIL_CHARS of a stream."""

    def __init__(self) -> None:
        self.head: list[str] = []
        self.head_len = 0
        self.tail: list[str] = []
        self.tail_len = 0
        self.dropped = 0
        self.lock = threading.Lock()

    def add(self, chunk: str) -> None:
        with self.lock:
            room = HEAD_CHARS - self.head_len
            if room > 0:
                self.head.append(chunk[:room])
                self.head_len += min(room, len(chunk))
                chunk = chunk[room:]
            if not chunk:
                return
            self.tail.append(chunk)
            self.tail_len += len(chunk)
            if self.tail_len > 2 * TAIL_CHARS:
                joined = "".join(self.tail)
                keep = joined[-TAIL_CHARS:]
                self.dropped += len(joined) - len(keep)
                self.tail = [keep]
                self.tail_len = len(keep)

    def text(self) -> str:
        with self.lock:
            head = "".join(self.head)
            tail = "".join(self.tail)
            if not self.dropped:
                return head + tail
            # cut on line boundaries so a credentialled URL is never split (masking needs it whole)
            cut_head = head[: head.rfind("\n") + 1] if "\n" in head else ""
            first_lf = tail.find("\n")
            cut_tail = tail[first_lf + 1 :] if first_lf >= 0 else ""
            omitted = self.dropped + (len(head) - len(cut_head)) + (len(tail) - len(cut_tail))
            return f"{cut_head}[... {omitted} characters of output omitted ...]\n{cut_tail}"


def is_transient(argv: Sequence[str], result: CommandResult) -> bool:
    """Whether a failed git/gh command failed for a network reason worth another attempt."""
    if result.ok or not argv:
        return False
    if Path(argv[0]).name.lower() not in _RETRIED_PROGRAMS:
        return False
    lowered = result.transcript.lower()
    if _RATE_LIMIT.search(lowered):
        return False
    return any(marker in lowered for marker in TRANSIENT_MARKERS)


def rate_limit_notice(transcript: str) -> str | None:
    """The first line of a failure when GitHub is rate limiting, with the wait it asked for."""
    if not _RATE_LIMIT.search(transcript):
        return None
    match = _RATE_WAIT.search(transcript)
    if match is None:
        return "GitHub is rate limiting this run; try again later."
    amount = int(match[1])
    unit = match[2].lower()
    seconds = amount * {"second": 1, "minute": 60, "hour": 3600}[unit]
    return f"GitHub is rate limiting this run; try again in about {_duration(seconds)}."


def _duration(seconds: int) -> str:
    if seconds < 60:
        return f"{seconds}s"
    minutes = math.ceil(seconds / 60)
    if minutes < 60:
        return f"{minutes} minute" + ("s" if minutes != 1 else "")
    return f"{minutes // 60}h{minutes % 60}m"


def backoff_seconds(attempt: int, unit: float) -> float:
    """The wait before retry number ``attempt`` (1-based): 2, 4, 8, 16, 30, 30 ... units."""
    return min(unit * 2.0**attempt, _MAX_BACKOFF_SECONDS * unit)


class CommandRunner:
    """Runs commands with one timeout and one retry policy, shared by a whole run.

    ``backoff_unit`` scales every wait (1.0 = real seconds); tests shrink it.
    """

    def __init__(
        self,
        *,
        timeout_seconds: float = 600.0,
        retries: int = 2,
        backoff_unit: float = 1.0,
        env: Mapping[str, str] | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.timeout_seconds = timeout_seconds
        self.retries = retries
        self.backoff_unit = backoff_unit
        self._env = dict(env) if env is not None else None
        self._sleep = sleep

    def pause(self, units: float) -> None:
        """Wait ``units`` backoff units (seconds in production)."""
        self._sleep(units * self.backoff_unit)

    def run(
        self,
        cwd: Path,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        allowed_environment: EnvironmentFilter | None = None,
    ) -> CommandResult:
        """Run ``argv`` in ``cwd``, retrying transient git/gh network failures.

        ``allowed_environment`` is given to a command that runs code the repository controls
        or reads (its build wrapper, its build tool, a formatter it configures, ``claude``):
        the command then sees only what it keeps of this process's environment (for a build
        :func:`build_environment`), never a token it does not need.

        Raises :class:`CommandError` when the program cannot start and
        :class:`CommandTimeoutError` when it outlives the timeout (neither is retried).
        """
        attempt = 0
        while True:
            result = self.run_once(cwd, argv, env=env, allowed_environment=allowed_environment)
            if attempt >= self.retries or not is_transient(argv, result):
                if attempt and result.ok:
                    _log.info("%s succeeded after %d retries", render(argv), attempt)
                return result
            attempt += 1
            wait = backoff_seconds(attempt, self.backoff_unit)
            _log.warning(
                "transient failure (attempt %d of %d), retrying in %.1fs: %s\n%s",
                attempt,
                self.retries + 1,
                wait,
                render(argv),
                mask_credentials(result.transcript.strip()),
            )
            self._sleep(wait)

    def run_or_fail(
        self, step: str, cwd: Path, argv: Sequence[str], *, env: Mapping[str, str] | None = None
    ) -> CommandResult:
        """Like :meth:`run`, but a non-zero exit raises a masked :class:`CommandError`."""
        result = self.run(cwd, argv, env=env)
        if not result.ok:
            raise CommandError(result.describe_failure(step))
        return result

    def run_once(
        self,
        cwd: Path,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        allowed_environment: EnvironmentFilter | None = None,
    ) -> CommandResult:
        """One attempt, no retry."""
        command = tuple(argv)
        environment = dict(os.environ if self._env is None else self._env)
        if allowed_environment is not None:
            environment = allowed_environment(environment)
        environment.setdefault("GIT_TERMINAL_PROMPT", "0")
        if env:
            environment.update(env)
        started = time.monotonic()
        try:
            process = subprocess.Popen(
                command,
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                env=environment,
                start_new_session=True,
            )
        except OSError as error:
            raise CommandError(
                f"Could not start command: {render(command)} ({error.strerror or error})"
            ) from None
        transcript = _Transcript()
        reader = threading.Thread(target=_pump, args=(process, transcript), daemon=True)
        reader.start()
        try:
            exit_code = process.wait(timeout=self.timeout_seconds)
        except subprocess.TimeoutExpired:
            _kill_tree(process)
            reader.join(_READER_GRACE_SECONDS)
            raise CommandTimeoutError(
                mask_credentials(
                    f"Timed out after {_seconds(self.timeout_seconds)} running: "
                    f"{render(command)}\n{transcript.text().rstrip()}"
                )
            ) from None
        except BaseException:
            _kill_tree(process)
            raise
        # a grandchild that outlives its parent may hold the pipe open; do not wait forever
        reader.join(_READER_GRACE_SECONDS)
        if reader.is_alive():
            _kill_tree(process)
            reader.join(_READER_GRACE_SECONDS)
        result = CommandResult(command, exit_code, transcript.text())
        _log.debug(
            "ran in %s: %s -> exit %d (%.2fs)",
            cwd,
            render(command),
            exit_code,
            time.monotonic() - started,
        )
        return result


def _seconds(value: float) -> str:
    if value >= 60 and value % 60 == 0:
        minutes = int(value // 60)
        return f"{minutes} minute" + ("s" if minutes != 1 else "")
    return f"{value:g}s"


def _pump(process: subprocess.Popen[bytes], transcript: _Transcript) -> None:
    assert process.stdout is not None
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    while chunk := os.read(process.stdout.fileno(), 65536):
        transcript.add(decoder.decode(chunk))
    transcript.add(decoder.decode(b"", final=True))
    process.stdout.close()


def _kill_tree(process: subprocess.Popen[bytes]) -> None:
    """Kill the command's whole session (its process group), then reap it."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    try:
        process.wait(timeout=_READER_GRACE_SECONDS)
    except subprocess.TimeoutExpired:
        _log.warning("process %d did not exit after SIGKILL", process.pid)
