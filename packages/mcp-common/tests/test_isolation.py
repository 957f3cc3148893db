"""run_isolated: untrusted CPU-bound work in a fresh child process that can be stopped."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import isolated_work
import pytest
from mcp_common import (
    ErrorCode,
    IsolatedWorkError,
    IsolationLimits,
    ToolCancelledError,
    ToolContext,
    ToolError,
    run_isolated,
)
from mcp_common.isolation import MIB

TESTS = str(Path(__file__).resolve().parent)
ENV = {"PYTHONPATH": TESTS}
QUICK = IsolationLimits(seconds=20, memory_bytes=512 * MIB)


def gone(pid: int) -> bool:
    """Whether ``pid`` no longer exists (a zombie still counts as existing)."""
    return not Path(f"/proc/{pid}").exists()


def wait_for_pid(pid_file: Path, timeout: float = 20.0) -> int:
    deadline = time.monotonic() + timeout
    while not pid_file.exists() or not pid_file.read_text():
        assert time.monotonic() < deadline, "the child never started its work"
        time.sleep(0.02)
    return int(pid_file.read_text())


def zombies_of(pid: int) -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] == "Z" and int(fields[1]) == pid:
            found.append(entry.name)
    return found


def test_the_answer_comes_back_as_json_from_another_process() -> None:
    answer = run_isolated(isolated_work.add, 2, 3, scale=10, env=ENV, limits=QUICK)
    assert answer["sum"] == 50
    assert answer["pid"] != os.getpid()


def test_returns_validates_the_answer_into_a_type() -> None:
    answer = run_isolated(
        isolated_work.summary, "abc", env=ENV, limits=QUICK, returns=isolated_work.Summary
    )
    assert answer == isolated_work.Summary("abc", [3, 2])


def test_a_tool_error_keeps_its_message_and_code() -> None:
    with pytest.raises(ToolError) as caught:
        run_isolated(isolated_work.refuse, "columns must differ", env=ENV, limits=QUICK)
    assert caught.value.code is ErrorCode.INVALID_ARGUMENT
    assert str(caught.value) == "columns must differ"


def test_an_exception_is_named_with_its_message() -> None:
    with pytest.raises(IsolatedWorkError) as caught:
        run_isolated(isolated_work.fail, "bad input", env=ENV, limits=QUICK, what="the check")
    assert str(caught.value) == "the check failed: ValueError: bad input"
    assert caught.value.limit is None


def test_the_time_limit_stops_a_catastrophic_match(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    started = time.monotonic()
    with pytest.raises(IsolatedWorkError) as caught:
        run_isolated(
            isolated_work.burn,
            str(pid_file),
            env=ENV,
            limits=IsolationLimits(seconds=5, memory_bytes=512 * MIB),
            what="the secret scan",
        )
    elapsed = time.monotonic() - started
    assert str(caught.value) == "the secret scan stopped: it ran past its 5 s time limit"
    assert caught.value.limit == "time"
    assert caught.value.code is ErrorCode.TIMEOUT
    assert elapsed < 5 + 2
    assert gone(int(pid_file.read_text()))


def test_the_memory_limit_is_a_clear_error() -> None:
    with pytest.raises(IsolatedWorkError) as caught:
        run_isolated(
            isolated_work.hog,
            2048,
            env=ENV,
            limits=IsolationLimits(seconds=20, memory_bytes=256 * MIB),
            what="the parser",
        )
    assert str(caught.value) == "the parser stopped: it needed more than its 256 MiB memory limit"
    assert caught.value.limit == "memory"


def test_within_the_memory_limit_the_work_succeeds() -> None:
    assert run_isolated(isolated_work.hog, 100, env=ENV, limits=QUICK) == 100


def test_cancelling_the_context_kills_the_child_within_two_seconds(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    context = ToolContext()
    outcome: list[BaseException] = []

    def work() -> None:
        try:
            run_isolated(isolated_work.burn, str(pid_file), context=context, env=ENV)
        except BaseException as error:
            outcome.append(error)

    worker = threading.Thread(target=work)
    worker.start()
    child = wait_for_pid(pid_file)
    time.sleep(0.3)  # well inside the match
    cancelled_at = time.monotonic()
    context.cancel()
    worker.join(timeout=10)
    assert not worker.is_alive()
    assert time.monotonic() - cancelled_at < 2
    assert isinstance(outcome[0], ToolCancelledError)
    assert gone(child)
    assert zombies_of(os.getpid()) == []


def test_a_cancelled_context_starts_nothing() -> None:
    context = ToolContext()
    context.cancel()
    with pytest.raises(ToolCancelledError):
        run_isolated(isolated_work.add, 1, 2, context=context, env=ENV)


def test_the_child_gets_an_allow_listed_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GH_TOKEN", "ghp_planted")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-planted")
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    seen = run_isolated(isolated_work.environment, env={**ENV, "EXTRA": "given"}, limits=QUICK)
    assert "GH_TOKEN" not in seen
    assert "ANTHROPIC_API_KEY" not in seen
    assert seen["EXTRA"] == "given"
    assert seen["LC_ALL"] == "C.UTF-8"


def test_the_working_directory_is_not_importable(tmp_path: Path) -> None:
    # a checkout under test holding a module named like one the work imports must not run
    marker = tmp_path / "marker"
    (tmp_path / "isolated_work.py").write_text(
        f"open({str(marker)!r}, 'w').close()\ndef add(a, b, scale=1): return 'planted'\n"
    )
    answer = run_isolated(isolated_work.add, 1, 1, env=ENV, cwd=tmp_path, limits=QUICK)
    assert answer["sum"] == 2
    assert not marker.exists()
    assert str(tmp_path) not in run_isolated(
        isolated_work.search_path, env=ENV, cwd=tmp_path, limits=QUICK
    )


def test_stray_output_does_not_corrupt_the_answer() -> None:
    assert run_isolated(isolated_work.chatty, env=ENV, limits=QUICK) == "answer"


def test_an_oversized_answer_is_refused_naming_the_limit() -> None:
    limits = IsolationLimits(seconds=20, memory_bytes=512 * MIB, answer_bytes=100_000)
    with pytest.raises(IsolatedWorkError) as caught:
        run_isolated(isolated_work.huge, 1_000_000, env=ENV, limits=limits, what="the dump")
    assert str(caught.value) == "the dump failed: its answer is larger than the 100,000 byte limit"
    assert caught.value.limit == "answer"


def test_a_crash_is_named_by_its_signal() -> None:
    with pytest.raises(IsolatedWorkError) as caught:
        run_isolated(isolated_work.crash, env=ENV, limits=QUICK, what="the reader")
    assert str(caught.value).startswith("the reader failed: its process was ended by SIGABRT")


def test_an_answer_that_is_not_json_is_a_clear_error() -> None:
    with pytest.raises(IsolatedWorkError) as caught:
        run_isolated(isolated_work.unanswerable, env=ENV, limits=QUICK, what="the check")
    assert str(caught.value) == (
        "the check failed: its answer cannot be sent back: object is not JSON serialisable"
    )


@pytest.mark.parametrize(
    "function",
    [lambda: 1, textwrap.dedent],  # a lambda cannot be named; dedent can (and works)
)
def test_only_functions_importable_by_name_are_accepted(function: object) -> None:
    if function is textwrap.dedent:
        assert run_isolated(textwrap.dedent, "  x", limits=QUICK) == "x"
        return
    with pytest.raises(ValueError, match="module-level function"):
        run_isolated(function, limits=QUICK)  # type: ignore[arg-type]


def test_limits_are_checked() -> None:
    with pytest.raises(ValueError, match="positive"):
        IsolationLimits(seconds=0)
    with pytest.raises(ValueError, match="at least 64 MiB"):
        IsolationLimits(memory_bytes=10 * MIB)


def test_the_whole_process_group_is_killed(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    context = ToolContext()
    outcome: list[BaseException] = []

    def work() -> None:
        try:
            run_isolated(isolated_work.spawn_sleeper, str(pid_file), context=context, env=ENV)
        except BaseException as error:
            outcome.append(error)

    worker = threading.Thread(target=work)
    worker.start()
    grandchild = wait_for_pid(pid_file)
    context.cancel()
    worker.join(timeout=10)
    assert isinstance(outcome[0], ToolCancelledError)
    deadline = time.monotonic() + 5
    while not gone(grandchild):  # reaped by init once killed
        assert time.monotonic() < deadline, "the grandchild outlived the work"
        time.sleep(0.05)


PARENT = textwrap.dedent(
    """
    import sys
    import isolated_work
    from mcp_common import run_isolated
    run_isolated(isolated_work.burn, sys.argv[1], env={"PYTHONPATH": sys.argv[2]})
    """
)


def test_the_child_dies_with_its_parent(tmp_path: Path) -> None:
    # SIGKILL leaves the parent no chance to clean up: the kernel ends the child
    pid_file = tmp_path / "pid"
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, str(pid_file), TESTS], env={**os.environ, **ENV}
    )
    try:
        child = wait_for_pid(pid_file)
        parent.send_signal(signal.SIGKILL)
        parent.wait(timeout=10)
        deadline = time.monotonic() + 2
        while not gone(child):
            assert time.monotonic() < deadline, "the child outlived its killed parent by 2 s"
            time.sleep(0.05)
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()


def test_stop_isolated_work_kills_running_children_and_refuses_new_ones(tmp_path: Path) -> None:
    script = textwrap.dedent(
        """
        import sys, threading, time
        import isolated_work
        from mcp_common import IsolatedWorkError, run_isolated, stop_isolated_work
        outcome = []
        def work():
            try:
                run_isolated(isolated_work.burn, sys.argv[1], env={"PYTHONPATH": sys.argv[2]})
            except IsolatedWorkError as error:
                outcome.append(str(error))
        worker = threading.Thread(target=work)
        worker.start()
        while True:
            try:
                if open(sys.argv[1]).read():
                    break
            except OSError:
                pass
            time.sleep(0.02)
        started = time.monotonic()
        print(stop_isolated_work())
        worker.join()
        print(outcome[0])
        print(time.monotonic() - started < 2)
        try:
            run_isolated(isolated_work.add, 1, 2, env={"PYTHONPATH": sys.argv[2]})
        except IsolatedWorkError as error:
            print(error)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "pid"), TESTS],
        env={**os.environ, **ENV},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "1",
        "the isolated work stopped: the server is shutting down",
        "True",
        "the isolated work stopped: the server is shutting down",
    ]
    assert gone(int((tmp_path / "pid").read_text()))
