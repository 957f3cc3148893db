"""AllowedPaths refuses a second name of a file: a hard link inside a root to a file outside
passes every path check, so files with more than one link are refused unless allowed."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from mcp_common import AllowedPaths, ErrorCode, ToolError
from mcp_common.paths import PathRefusedError
from mcp_common.testing import HARD_LINK_RULE, plant_hard_link

SECRET = "root-only secret\n"
RULE = re.escape(HARD_LINK_RULE)


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, Path]:
    """``allowed/`` holding ``link.csv``, a hard link to ``outside/secret.csv``."""
    secret = plant_hard_link(tmp_path, "secret.csv", "link.csv", SECRET)
    allowed = tmp_path / "allowed"
    (allowed / "plain.csv").write_bytes(b"a,b\n")
    return allowed, secret


def test_reading_a_hard_link_is_refused_naming_the_rule(world: tuple[Path, Path]) -> None:
    allowed, _ = world
    paths = AllowedPaths([allowed])
    with pytest.raises(PathRefusedError) as caught:
        paths.read_bytes("link.csv", max_bytes=1000)
    assert caught.value.code is ErrorCode.ACCESS_DENIED
    assert str(caught.value) == f"link.csv: {HARD_LINK_RULE}"
    assert paths.read_bytes("plain.csv", max_bytes=1000) == b"a,b\n"


def test_every_way_in_is_refused(world: tuple[Path, Path]) -> None:
    allowed, secret = world
    paths = AllowedPaths([allowed])
    with pytest.raises(ToolError, match=RULE):
        paths.resolve("link.csv", kind="file")
    with pytest.raises(ToolError, match=RULE):
        paths.open_descriptor(allowed / "link.csv")
    with pytest.raises(ToolError, match=RULE):
        paths.write_bytes("link.csv", b"overwritten")
    with pytest.raises(ToolError, match=RULE):
        paths.write_bytes("link.csv", b"appended", mode="append")
    assert secret.read_text(encoding="utf-8") == SECRET  # nothing written through the second name


def test_a_symlink_to_a_hard_link_is_refused_too(world: tuple[Path, Path]) -> None:
    allowed, _ = world
    (allowed / "alias.csv").symlink_to(allowed / "link.csv")
    with pytest.raises(ToolError, match=RULE):
        AllowedPaths([allowed]).read_bytes("alias.csv", max_bytes=1000)


def test_allow_hard_links_reads_them(world: tuple[Path, Path]) -> None:
    allowed, _ = world
    paths = AllowedPaths.from_options([str(allowed)], allow_hard_links=True)
    assert paths.read_bytes("link.csv", max_bytes=1000) == SECRET.encode()
    assert paths.resolve("link.csv", kind="file") == allowed / "link.csv"


def test_directories_are_not_affected(world: tuple[Path, Path]) -> None:
    allowed, _ = world
    (allowed / "sub" / "deeper").mkdir(parents=True)  # sub now has 3 links
    assert AllowedPaths([allowed]).resolve("sub", kind="dir") == allowed / "sub"


def test_a_link_made_after_the_check_is_refused_at_the_open(world: tuple[Path, Path]) -> None:
    allowed, secret = world
    paths = AllowedPaths([allowed])
    assert paths.resolve("late.csv", must_exist=False) == allowed / "late.csv"
    os.link(secret, allowed / "late.csv")
    with pytest.raises(ToolError, match=re.escape(HARD_LINK_RULE.replace("2 hard", "3 hard"))):
        paths.read_bytes("late.csv", max_bytes=1000)
