"""The default workspace root is private to the user and refused when someone else planted it."""

from __future__ import annotations

import os
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
