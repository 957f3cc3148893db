"""AllowedPaths: one path policy, checked against a real directory tree with real symlinks."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp_common import AllowedPaths, ErrorCode, ToolError
from mcp_common.paths import PathRefusedError


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """``code/`` (the root) with a file and a subdirectory, and ``code2/`` and ``outside/`` next to
    it."""
    (tmp_path / "code" / "src").mkdir(parents=True)
    (tmp_path / "code" / "src" / "main.py").write_text("print()\n")
    (tmp_path / "code2").mkdir()
    (tmp_path / "code2" / "secret.txt").write_text("s\n")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("s\n")
    return tmp_path


def denied(paths: AllowedPaths, path: str) -> ToolError:
    with pytest.raises(ToolError) as caught:
        paths.resolve(path)
    return caught.value


def test_relative_paths_resolve_against_the_first_root_not_the_cwd(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tree / "outside")
    paths = AllowedPaths([tree / "code"])
    assert paths.resolve("src/main.py") == (tree / "code" / "src" / "main.py").resolve()
    assert denied(paths, "secret.txt").code is ErrorCode.NOT_FOUND


def test_dot_dot_is_refused_even_when_it_stays_inside(tree: Path) -> None:
    paths = AllowedPaths([tree / "code"])
    error = denied(paths, "src/../src/main.py")
    assert error.code is ErrorCode.ACCESS_DENIED
    assert "'..'" in error.message
    assert denied(paths, str(tree / "code" / ".." / "outside" / "secret.txt")).code is (
        ErrorCode.ACCESS_DENIED
    )


def test_sibling_with_a_common_prefix_is_outside(tree: Path) -> None:
    paths = AllowedPaths([tree / "code"])
    error = denied(paths, str(tree / "code2" / "secret.txt"))
    assert error.code is ErrorCode.ACCESS_DENIED
    assert "outside the allowed directories" in error.message


def test_symlink_escaping_the_root_is_refused(tree: Path) -> None:
    (tree / "code" / "link").symlink_to(tree / "outside")
    (tree / "code" / "file_link").symlink_to(tree / "outside" / "secret.txt")
    paths = AllowedPaths([tree / "code"])
    assert denied(paths, "link/secret.txt").code is ErrorCode.ACCESS_DENIED
    assert denied(paths, "file_link").code is ErrorCode.ACCESS_DENIED


def test_symlink_staying_inside_is_followed(tree: Path) -> None:
    (tree / "code" / "alias").symlink_to(tree / "code" / "src")
    paths = AllowedPaths([tree / "code"])
    assert paths.resolve("alias/main.py") == (tree / "code" / "src" / "main.py").resolve()


def test_a_root_given_through_a_symlink_is_its_real_path(tree: Path) -> None:
    (tree / "code_link").symlink_to(tree / "code")
    paths = AllowedPaths([tree / "code_link"])
    assert paths.roots == ((tree / "code").resolve(),)
    assert paths.resolve(str(tree / "code" / "src")) == (tree / "code" / "src").resolve()


def test_several_roots(tree: Path) -> None:
    paths = AllowedPaths([tree / "code", tree / "outside", tree / "code"])
    assert len(paths.roots) == 2
    assert paths.resolve(str(tree / "outside" / "secret.txt")).name == "secret.txt"
    assert paths.resolve("src").name == "src"
    assert paths.display(paths.resolve(str(tree / "outside" / "secret.txt"))) == "secret.txt"
    assert paths.display(paths.resolve("src/main.py")) == "src/main.py"
    assert paths.display(paths.roots[0]) == "."


@pytest.mark.parametrize("bad", ["", "   ", "src/\x00main.py"])
def test_blank_and_nul_paths_are_invalid(tree: Path, bad: str) -> None:
    assert denied(AllowedPaths([tree / "code"]), bad).code is ErrorCode.INVALID_ARGUMENT


def test_missing_paths_and_kinds(tree: Path) -> None:
    paths = AllowedPaths([tree / "code"])
    assert denied(paths, "nope.txt").message == "path does not exist: nope.txt"
    assert paths.resolve("new.txt", must_exist=False) == (tree / "code" / "new.txt").resolve()
    with pytest.raises(ToolError, match="not a file: src"):
        paths.resolve("src", kind="file")
    with pytest.raises(ToolError, match=r"not a directory: src/main\.py"):
        paths.resolve("src/main.py", kind="dir")


def test_the_root_itself_is_allowed_and_contains_is_component_wise(tree: Path) -> None:
    paths = AllowedPaths([tree / "code"])
    root = (tree / "code").resolve()
    assert paths.resolve(str(tree / "code")) == root
    assert paths.contains(root / "x")
    assert not paths.contains((tree / "code2").resolve())


def test_construction_needs_existing_directories(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ValueError, match="at least one"):
        AllowedPaths([])
    with pytest.raises(ValueError, match="does not exist"):
        AllowedPaths([tree / "missing"])
    monkeypatch.chdir(tree / "code")
    assert AllowedPaths.from_options(None).roots == ((tree / "code").resolve(),)
    assert AllowedPaths.from_options([str(tree / "outside")]).roots == (
        (tree / "outside").resolve(),
    )


@given(st.text(alphabet=st.sampled_from("ab/.~-\\ \x00"), max_size=16))
@settings(
    suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=200, deadline=None
)
def test_whatever_the_text_a_resolved_path_never_leaves_the_roots(tree: Path, text: str) -> None:
    (tree / "code" / "a").mkdir(exist_ok=True)
    if not (tree / "code" / "b").exists():
        (tree / "code" / "b").symlink_to(tree / "outside")
    paths = AllowedPaths([tree / "code"])
    refusal: ToolError | None = None
    try:
        resolved = paths.resolve(text, must_exist=False)
    except ToolError as error:
        refusal = error
    if refusal is not None:
        assert refusal.code in (ErrorCode.ACCESS_DENIED, ErrorCode.INVALID_ARGUMENT)
    else:
        assert resolved.is_relative_to((tree / "code").resolve())


def digest(folder: Path) -> dict[str, bytes]:
    """Every entry under ``folder`` and its bytes (symlinks by target): a snapshot to compare."""
    snapshot: dict[str, bytes] = {}
    for path in sorted(folder.rglob("*")):
        key = path.relative_to(folder).as_posix()
        if path.is_symlink():
            snapshot[key] = b"-> " + str(path.readlink()).encode()
        elif path.is_file():
            snapshot[key] = path.read_bytes()
        else:
            snapshot[key] = b"<dir>"
    return snapshot


def refused(call: Callable[[], object]) -> PathRefusedError:
    with pytest.raises(PathRefusedError) as caught:
        call()
    return caught.value


def test_read_bytes_reads_inside_and_follows_symlinks_that_stay_inside(tree: Path) -> None:
    (tree / "code" / "alias").symlink_to(tree / "code" / "src")
    paths = AllowedPaths([tree / "code"])
    assert paths.read_bytes("src/main.py", max_bytes=100) == b"print()\n"
    assert paths.read_bytes(tree / "code" / "alias" / "main.py", max_bytes=100) == b"print()\n"


def test_read_bytes_refuses_a_symlink_out_of_the_roots_file_or_parent(tree: Path) -> None:
    (tree / "code" / "file_link").symlink_to(tree / "outside" / "secret.txt")
    (tree / "code" / "dir_link").symlink_to(tree / "outside")
    paths = AllowedPaths([tree / "code"])
    for path in ("file_link", "dir_link/secret.txt"):
        error = refused(lambda p=path: paths.read_bytes(p, max_bytes=100))  # type: ignore[misc]
        assert error.code is ErrorCode.ACCESS_DENIED
        assert error.reason == "symlink leads outside the allowed directories"
        assert error.path == path
        assert str(tree) not in error.message, "no absolute path in a refusal"


def test_read_bytes_enforces_the_size_limit_and_regular_files(tree: Path) -> None:
    os.mkfifo(tree / "code" / "pipe")
    paths = AllowedPaths([tree / "code"])
    assert refused(lambda: paths.read_bytes("src/main.py", max_bytes=3)).reason == (
        "larger than the 3 byte limit"
    )
    assert refused(lambda: paths.read_bytes("pipe", max_bytes=3)).reason == "not a regular file"
    assert refused(lambda: paths.read_bytes("src", max_bytes=3)).code is (
        ErrorCode.INVALID_ARGUMENT
    )


@pytest.mark.parametrize("swapped", ["src", "src/main.py"])
def test_a_symlink_swapped_in_after_the_check_is_not_followed(
    tree: Path, monkeypatch: pytest.MonkeyPatch, swapped: str
) -> None:
    """The race a check cannot see: a path read through an in-root symlink (so its real path
    is resolved and checked) has a component replaced by a symlink to the outside between
    that check and the open."""
    (tree / "outside" / "main.py").write_text("OUTSIDE\n")
    (tree / "code" / "alias").symlink_to(tree / "code" / "src")
    paths = AllowedPaths([tree / "code"])
    resolved = AllowedPaths._real

    def check_then_swap(path: str) -> str:
        answer = resolved(path)
        victim = tree / "code" / swapped
        if victim.is_dir():
            victim.rename(tree / "code" / "moved")
            victim.symlink_to(tree / "outside")
        else:
            victim.unlink()
            victim.symlink_to(tree / "outside" / "main.py")
        return answer

    monkeypatch.setattr(AllowedPaths, "_real", staticmethod(check_then_swap))
    error = refused(lambda: paths.read_bytes("alias/main.py", max_bytes=100))
    assert error.code is ErrorCode.ACCESS_DENIED
    assert error.reason.startswith("a symlink appeared after the check")


def test_a_symlink_swapped_in_on_the_direct_path_is_resolved_and_refused(tree: Path) -> None:
    """Without any symlink the path is opened as written, component by component without
    following one; a symlink found there is resolved and checked like any other."""
    (tree / "outside" / "main.py").write_text("OUTSIDE\n")
    paths = AllowedPaths([tree / "code"])
    assert paths.read_bytes("src/main.py", max_bytes=100) == b"print()\n"
    (tree / "code" / "src").rename(tree / "code" / "moved")
    (tree / "code" / "src").symlink_to(tree / "outside")
    error = refused(lambda: paths.read_bytes("src/main.py", max_bytes=100))
    assert error.reason == "symlink leads outside the allowed directories"


def test_write_bytes_modes_create_parents_and_never_leave_the_roots(tree: Path) -> None:
    (tree / "code" / "dir_link").symlink_to(tree / "outside")
    (tree / "code" / "file_link").symlink_to(tree / "outside" / "secret.txt")
    (tree / "code" / "dangling").symlink_to(tree / "outside" / "new.txt")
    paths = AllowedPaths([tree / "code"], label="the checkout")
    before = digest(tree / "outside")
    paths.write_bytes("a/b/new.txt", b"one\n", mode="create")
    paths.write_bytes("a/b/new.txt", b"two\n", mode="append")
    assert (tree / "code" / "a" / "b" / "new.txt").read_bytes() == b"one\ntwo\n"
    assert refused(lambda: paths.write_bytes("a/b/new.txt", b"x", mode="create")).code is (
        ErrorCode.CONFLICT
    )
    paths.write_bytes("run.sh", b"#!/bin/sh\n", executable=True)
    assert os.access(tree / "code" / "run.sh", os.X_OK)
    for path in ("dir_link/new.txt", "dir_link/deeper/new.txt", "file_link", "dangling"):
        error = refused(lambda p=path: paths.write_bytes(p, b"pwned"))  # type: ignore[misc]
        assert error.reason == "symlink leads outside the checkout", path
    assert digest(tree / "outside") == before, "nothing outside was written"


def test_write_bytes_refuses_a_parent_swapped_for_a_symlink_after_the_check(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tree / "code" / "alias").symlink_to(tree / "code" / "src")
    paths = AllowedPaths([tree / "code"])
    before = digest(tree / "outside")
    resolved = AllowedPaths._real

    def check_then_swap(path: str) -> str:
        answer = resolved(path)
        (tree / "code" / "src").rename(tree / "code" / "moved")
        (tree / "code" / "src").symlink_to(tree / "outside")
        return answer

    monkeypatch.setattr(AllowedPaths, "_real", staticmethod(check_then_swap))
    error = refused(lambda: paths.write_bytes("alias/new/secret.txt", b"pwned"))
    assert error.reason.startswith("a symlink appeared after the check")
    assert digest(tree / "outside") == before


_PARTS = st.sampled_from(["src", "main.py", "in_dir", "in_file", "out_dir", "out_file", "nope"])


@given(st.lists(_PARTS, min_size=1, max_size=4), st.booleans())
@settings(
    suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=150, deadline=None
)
def test_whatever_the_path_reads_and_writes_stay_inside(
    tree: Path, parts: list[str], write: bool
) -> None:
    code = tree / "code"
    (tree / "outside" / "main.py").write_text("OUTSIDE\n")
    for name, target in (
        ("in_dir", code / "src"),
        ("in_file", code / "src" / "main.py"),
        ("out_dir", tree / "outside"),
        ("out_file", tree / "outside" / "main.py"),
    ):
        if not (code / name).is_symlink():
            (code / name).symlink_to(target)
    before = digest(tree / "outside")
    paths = AllowedPaths([code])
    path = "/".join(parts)
    read = b""
    refusal: ToolError | None = None
    try:
        if write:
            paths.write_bytes(path, b"written\n")
        else:
            read = paths.read_bytes(path, max_bytes=1000)
    except ToolError as error:
        refusal = error
    assert b"OUTSIDE" not in read
    if refusal is not None:
        assert refusal.code in (
            ErrorCode.ACCESS_DENIED,
            ErrorCode.INVALID_ARGUMENT,
            ErrorCode.NOT_FOUND,
        ), refusal.message
    assert digest(tree / "outside") == before
