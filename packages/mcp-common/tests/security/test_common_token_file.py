"""The generated HTTP token's file: private, never written through someone else's link or
directory, removed only when it still holds this server's token."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

import pytest
from mcp_common.adapter.auth import (
    TokenFileError,
    generate_token,
    token_directory,
    write_token_file,
)

NOBODY = 65534


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


@pytest.fixture
def runtime(tmp_path: Path) -> Path:
    directory = tmp_path / "runtime"
    directory.mkdir(mode=0o700)
    return directory


def test_the_token_is_written_0600_in_a_0700_directory(runtime: Path) -> None:
    token = generate_token()
    written = write_token_file(runtime / "mcp-tools", "demo-8080.token", token)
    assert written.path == runtime / "mcp-tools" / "demo-8080.token"
    assert written.path.read_text() == f"{token}\n"
    assert mode_of(written.path) == 0o600
    assert mode_of(written.path.parent) == 0o700
    assert [p.name for p in written.path.parent.iterdir()] == ["demo-8080.token"]  # no leftovers


def test_a_permissive_umask_does_not_widen_the_modes(runtime: Path) -> None:
    previous = os.umask(0)
    try:
        written = write_token_file(runtime / "mcp-tools", "demo.token", generate_token())
    finally:
        os.umask(previous)
    assert mode_of(written.path) == 0o600
    assert mode_of(written.path.parent) == 0o700


def test_an_existing_open_directory_of_ours_is_closed_first(runtime: Path) -> None:
    directory = runtime / "mcp-tools"
    directory.mkdir(mode=0o777)
    directory.chmod(0o777)
    write_token_file(directory, "demo.token", generate_token())
    assert mode_of(directory) == 0o700


def test_a_directory_of_another_user_is_refused(runtime: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to give a directory to another user")
    directory = runtime / "mcp-tools"
    directory.mkdir(mode=0o777)
    os.chown(directory, NOBODY, NOBODY)
    with pytest.raises(TokenFileError, match="belongs to another user"):
        write_token_file(directory, "demo.token", "secret-value")
    assert list(directory.iterdir()) == []


def test_a_symlinked_directory_is_refused(runtime: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (runtime / "mcp-tools").symlink_to(elsewhere)
    with pytest.raises(TokenFileError, match="symlink"):
        write_token_file(runtime / "mcp-tools", "demo.token", "secret-value")
    assert list(elsewhere.iterdir()) == []


def test_a_symlink_planted_at_the_token_name_is_replaced_not_followed(
    runtime: Path, tmp_path: Path
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    directory = runtime / "mcp-tools"
    directory.mkdir(mode=0o700)
    (directory / "demo.token").symlink_to(victim)
    written = write_token_file(directory, "demo.token", "secret-value")
    assert victim.read_text() == "precious\n"
    assert not written.path.is_symlink()
    assert written.path.read_text() == "secret-value\n"


def read_as_nobody(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["cat", str(path)],  # a program any user may run (the venv may be private)
        user=NOBODY,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_another_user_cannot_read_the_token() -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to run a process as another user")
    # a runtime directory others may traverse (the test's own tmp_path is private)
    runtime = Path(tempfile.mkdtemp(prefix="mcp-token-test-"))
    try:
        runtime.chmod(0o755)
        written = write_token_file(runtime / "mcp-tools", "demo.token", "secret-value")
        for attempt in (
            read_as_nobody(written.path),  # the 0700 directory stops them
            (written.path.parent.chmod(0o755), read_as_nobody(written.path))[1],  # the 0600 file
        ):
            assert attempt.returncode != 0
            assert "Permission denied" in attempt.stderr
            assert "secret-value" not in attempt.stdout
    finally:
        shutil.rmtree(runtime)


def test_remove_deletes_only_a_file_holding_our_token(runtime: Path) -> None:
    directory = runtime / "mcp-tools"
    ours = write_token_file(directory, "demo.token", "first-token")
    theirs = write_token_file(directory, "demo.token", "second-token")  # a newer server
    ours.remove()
    assert theirs.path.read_text() == "second-token\n"
    theirs.remove()
    assert not theirs.path.exists()
    theirs.remove()  # gone already: nothing to do, no error


def test_the_directory_is_per_user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runtime = tmp_path / "run-user"
    runtime.mkdir()
    assert token_directory({"XDG_RUNTIME_DIR": str(runtime)}) == runtime / "mcp-tools"
    # a relative or missing runtime directory is not trusted: the state directory is used
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    state = tmp_path / "home" / ".local" / "state" / "mcp-tools"
    assert token_directory({"XDG_RUNTIME_DIR": "relative/run"}) == state
    assert token_directory({"XDG_RUNTIME_DIR": str(tmp_path / "missing")}) == state
    custom = tmp_path / "state"
    assert token_directory({"XDG_STATE_HOME": str(custom)}) == custom / "mcp-tools"


def test_generated_tokens_are_long_and_random() -> None:
    tokens = {generate_token() for _ in range(100)}
    assert len(tokens) == 100
    assert all(len(token) >= 43 for token in tokens)


def test_a_runtime_directory_of_another_user_is_not_used(tmp_path: Path) -> None:
    # 'sudo -E' keeps the invoking user's XDG_RUNTIME_DIR: root's token does not go there
    if os.geteuid() != 0:
        pytest.skip("needs root to give a directory to another user")
    theirs = tmp_path / "run-user-65534"
    theirs.mkdir(mode=0o700)
    os.chown(theirs, NOBODY, NOBODY)
    chosen = token_directory({"XDG_RUNTIME_DIR": str(theirs), "XDG_STATE_HOME": str(tmp_path)})
    assert chosen == tmp_path / "mcp-tools"
