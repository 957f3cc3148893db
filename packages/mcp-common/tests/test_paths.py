"""AllowedPaths: one path policy, checked against a real directory tree with real symlinks."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp_common import AllowedPaths, ErrorCode, ToolError


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
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=200)
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
