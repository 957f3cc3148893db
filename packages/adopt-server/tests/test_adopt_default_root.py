"""The default workspace root is private to the user and refused when someone else planted it;
a --workspace-root that cannot be made is one error line naming it, after the usage."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from adopt_server.server import prepare_default_root


def test_default_root_is_created_private(tmp_path: Path) -> None:
    root = tmp_path / "adopt-server-root"
    prepare_default_root(root)
    assert root.is_dir()
    assert root.stat().st_mode & 0o777 == 0o700


def test_default_root_open_to_others_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "shared"
    root.mkdir()
    root.chmod(0o777)
    with pytest.raises(ValueError, match="not a private directory"):
        prepare_default_root(root)


def test_default_root_planted_as_symlink_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    target.mkdir(mode=0o700)
    root = tmp_path / "planted"
    os.symlink(target, root)
    with pytest.raises(ValueError, match="not a private directory"):
        prepare_default_root(root)


@pytest.mark.parametrize(
    ("name", "reason"),
    [("a-file", "it is not a directory"), ("a-file/below", "Not a directory")],
)
def test_a_workspace_root_that_cannot_be_made_is_one_line_naming_it(
    tmp_path: Path, name: str, reason: str
) -> None:
    (tmp_path / "a-file").write_text("not a directory\n", encoding="utf-8")
    root = tmp_path / name
    done = subprocess.run(
        [str(Path(sys.executable).parent / "adopt-server"), "--workspace-root", str(root)],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        check=False,
    )

    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert lines[0].startswith("usage: adopt-server")  # a flag's value it cannot use
    assert lines[-1] == f"adopt-server: error: --workspace-root {root}: cannot create it: {reason}"
    assert sum(": error:" in line for line in lines) == 1
