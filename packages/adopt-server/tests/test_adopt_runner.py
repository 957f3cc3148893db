"""The command runner against real processes: closed stdin, merged output, timeouts that
kill the whole tree, bounded transcripts, retries only for transient git/gh failures."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from adopt_server.pipeline.runner import (
    HEAD_CHARS,
    CommandError,
    CommandResult,
    CommandRunner,
    CommandTimeoutError,
    backoff_seconds,
    is_transient,
    rate_limit_notice,
)
from adopt_testkit import FAKES


def test_stdin_is_closed_so_cat_finishes(tmp_path: Path) -> None:
    result = CommandRunner(timeout_seconds=5).run(tmp_path, ["cat"])
    assert result.ok
    assert result.transcript == ""


def test_stderr_is_merged_in_order_and_output_kept_verbatim(tmp_path: Path) -> None:
    script = "printf 'one\\r\\n'; printf 'two\\n' >&2; printf 'three'"
    result = CommandRunner().run(tmp_path, ["sh", "-c", script])
    assert result.transcript == "one\r\ntwo\nthree"


def test_exit_code_is_reported(tmp_path: Path) -> None:
    result = CommandRunner().run(tmp_path, ["sh", "-c", "echo nope; exit 3"])
    assert result.exit_code == 3
    assert not result.ok
    assert "step failed (exit 3) running: sh -c" in result.describe_failure("step")


def test_missing_program_cannot_start(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="Could not start command: no-such-program-xyz"):
        CommandRunner().run(tmp_path, ["no-such-program-xyz", "--version"])


def test_timeout_kills_the_whole_tree_and_keeps_partial_output(tmp_path: Path) -> None:
    marker = tmp_path / "grandchild-survived"
    script = f"echo started; (sleep 2; touch {marker}) & sleep 30"
    started = time.monotonic()
    with pytest.raises(CommandTimeoutError) as caught:
        CommandRunner(timeout_seconds=0.5).run(tmp_path, ["sh", "-c", script])
    assert time.monotonic() - started < 5
    assert "Timed out after 0.5s running: sh -c" in str(caught.value)
    assert "started" in str(caught.value)
    time.sleep(2.5)
    assert not marker.exists(), "a grandchild outlived the timeout kill"


def test_timeout_message_masks_credentials(tmp_path: Path) -> None:
    url = "https://user:hunter2@example.com/o/r.git"
    with pytest.raises(CommandTimeoutError) as caught:
        CommandRunner(timeout_seconds=0.3).run(tmp_path, ["sh", "-c", f"echo {url}; sleep 10"])
    assert "hunter2" not in str(caught.value)
    assert "https://***@example.com/o/r.git" in str(caught.value)


def test_long_output_is_bounded_without_cutting_a_line(tmp_path: Path) -> None:
    url = "https://user:tok3n@example.com/o/r.git"
    script = f'i=0; while [ $i -lt 12000 ]; do echo "line $i {url}"; i=$((i+1)); done'
    result = CommandRunner().run(tmp_path, ["sh", "-c", script])
    text = result.transcript
    assert "characters of output omitted ...]" in text
    assert len(text) < 3 * HEAD_CHARS + 200
    assert text.startswith("line 0 ")
    assert text.endswith("line 11999 " + url + "\n")
    for line in text.splitlines():
        assert line.startswith(("line ", "[... ")), line
        assert line.startswith("[... ") or line.endswith(url)
    assert "tok3n" not in result.describe_failure("x")


def test_output_that_fits_is_verbatim(tmp_path: Path) -> None:
    result = CommandRunner().run(tmp_path, ["printf", "a\nb\n"])
    assert result.transcript == "a\nb\n"


@pytest.mark.parametrize(
    ("argv", "output", "expected"),
    [
        (["git", "fetch"], "fatal: unable to access: Connection reset by peer", True),
        (["/usr/bin/git", "push"], "error: RPC failed; HTTP 502", True),
        (["gh", "pr", "create"], "HTTP 503: Service Unavailable", True),
        (["git", "push"], "remote: Permission denied (403)", False),
        (["git", "push"], "! [rejected] main -> main (non-fast-forward)", False),
        (["gh", "api", "user"], "HTTP 429: rate limit exceeded, connection reset by peer", False),
        (["claude", "-p"], "connection reset by peer", False),
        (["mvn", "validate"], "Could not resolve host: repo.maven.apache.org", False),
    ],
)
def test_only_transient_git_and_gh_failures_are_retried(
    argv: list[str], output: str, expected: bool
) -> None:
    assert is_transient(argv, CommandResult(tuple(argv), 1, output)) is expected


def test_backoff_doubles_and_caps_at_thirty() -> None:
    assert [backoff_seconds(k, 1.0) for k in range(1, 7)] == [2, 4, 8, 16, 30, 30]


def test_rate_limit_notice_reads_the_wait() -> None:
    assert rate_limit_notice("API rate limit exceeded; retry after 90 seconds") == (
        "GitHub is rate limiting this run; try again in about 2 minutes."
    )
    assert rate_limit_notice("HTTP 429 Too Many Requests") == (
        "GitHub is rate limiting this run; try again later."
    )
    assert rate_limit_notice("all good") is None


def _flaky_env(tmp_path: Path, failures: int, message: str | None = None) -> dict[str, str]:
    env = {
        **os.environ,
        "PATH": f"{FAKES / 'flaky'}{os.pathsep}{os.environ['PATH']}",
        "REAL_GIT": "/usr/bin/git",
        "FAKE_STATE": str(tmp_path),
        "FAKE_GIT_FAIL_ON": "--version",
        "FAKE_GIT_FAILURES": str(failures),
    }
    if message:
        env["FAKE_GIT_MESSAGE"] = message
    return env


def test_transient_git_failure_is_retried_until_it_succeeds(tmp_path: Path) -> None:
    waits: list[float] = []
    runner = CommandRunner(retries=3, env=_flaky_env(tmp_path, 2), sleep=waits.append)
    result = runner.run(tmp_path, ["git", "--version"])
    assert result.ok
    assert waits == [2.0, 4.0]
    assert (tmp_path / "git-fail-count").read_text().strip() == "3"


def test_retries_run_out(tmp_path: Path) -> None:
    waits: list[float] = []
    runner = CommandRunner(retries=1, env=_flaky_env(tmp_path, 5), sleep=waits.append)
    result = runner.run(tmp_path, ["git", "--version"])
    assert not result.ok
    assert "Connection reset by peer" in result.transcript
    assert waits == [2.0]


def test_permanent_failure_is_not_retried(tmp_path: Path) -> None:
    waits: list[float] = []
    env = _flaky_env(tmp_path, 5, "remote: Repository not found. fatal: 404")
    result = CommandRunner(retries=3, env=env, sleep=waits.append).run(
        tmp_path, ["git", "--version"]
    )
    assert not result.ok
    assert waits == []
    assert (tmp_path / "git-fail-count").read_text().strip() == "1"


def test_zero_retries_is_a_single_attempt(tmp_path: Path) -> None:
    waits: list[float] = []
    result = CommandRunner(retries=0, env=_flaky_env(tmp_path, 1), sleep=waits.append).run(
        tmp_path, ["git", "--version"]
    )
    assert not result.ok
    assert waits == []
