"""The demo a new user runs first: it starts the three servers over stdio and shows answers."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


NEEDED_PROGRAMS = ("git", "sh", "dirname", "grep")
"""git for verify_adoption, the rest for the POSIX guard script it runs: no claude, no gh."""


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> subprocess.CompletedProcess[str]:
    bin_dir = tmp_path_factory.mktemp("bin")
    for program in NEEDED_PROGRAMS:
        found = shutil.which(program)
        assert found, f"{program} is needed on the PATH"
        (bin_dir / program).symlink_to(found)
    return subprocess.run(
        [sys.executable, str(ROOT / "examples" / "demo.py")],
        cwd=ROOT,
        env={**os.environ, "PATH": str(bin_dir)},
        capture_output=True,
        text=True,
        timeout=180,
        stdin=subprocess.DEVNULL,
        check=False,
    )


@pytest.mark.e2e
def test_the_demo_succeeds_and_says_so(demo: subprocess.CompletedProcess[str]) -> None:
    assert demo.returncode == 0, demo.stdout[-3000:] + demo.stderr[-3000:]
    assert "all three servers answered over stdio" in demo.stdout
    assert "Traceback" not in demo.stdout + demo.stderr


@pytest.mark.e2e
def test_the_demo_lists_each_servers_tools(demo: subprocess.CompletedProcess[str]) -> None:
    assert "tools/list -> uniqueness_check, find_keys, list_columns" in demo.stdout
    assert (
        "tools/list -> project_tree, find_context, estimate_tokens, okf_bundle, repo_map, "
        "find_usages" in demo.stdout
    )
    assert "tools/list -> adopt_repo, verify_adoption" in demo.stdout


@pytest.mark.e2e
def test_the_demo_shows_duplicates_then_a_key(demo: subprocess.CompletedProcess[str]) -> None:
    lower = demo.stdout.lower()
    assert "order_number: not unique" in lower
    assert "| so-2026001 | 6 | 1, 2, 3, 4, 5, 6 |" in lower
    assert "order_number, line_no: unique" in lower
    assert "| 1 | order_number, line_no |" in lower


@pytest.mark.e2e
def test_the_demo_shows_the_context_of_a_class_across_languages(
    demo: subprocess.CompletedProcess[str],
) -> None:
    assert "OrderService.java" in demo.stdout
    assert "# Context for `OrderService`" in demo.stdout
    assert "pricing/PriceCalculator.kt" in demo.stdout


@pytest.mark.e2e
def test_the_demo_verifies_a_repository_and_names_what_another_lacks(
    demo: subprocess.CompletedProcess[str],
) -> None:
    adopt_part = demo.stdout.split("3/3 adopt-server")[1]
    assert "| file://.../orders-service.git | ok |" in adopt_part
    assert "| file://.../legacy-service.git | failed |" in adopt_part
    assert "no CLAUDE.md at its root" in adopt_part


@pytest.mark.e2e
def test_the_demo_says_what_it_did_and_what_to_try_next(
    demo: subprocess.CompletedProcess[str],
) -> None:
    assert "adopt-server: verify_adoption, verify_adoption" in demo.stdout
    assert "claude mcp add uniqueness -- " in demo.stdout
    assert "docs/<server>.md" in demo.stdout
