"""Attacks on run_isolated: a checkout's files must not be imported by the child, and a child
taken over by its input must not be able to crash or confuse the server with its answer."""

from __future__ import annotations

from pathlib import Path

import isolated_work
import pytest
from mcp_common import IsolatedWorkError, IsolationLimits, run_isolated
from mcp_common.isolation import MIB

TESTS = str(Path(__file__).resolve().parents[1])
LIMITS = IsolationLimits(seconds=30, memory_bytes=512 * MIB)


def plant(checkout: Path) -> Path:
    """A module named like the work's, in the directory the child works in."""
    marker = checkout / "imported"
    (checkout / "isolated_work.py").write_text(
        f"open({str(marker)!r}, 'w').close()\ndef add(a, b, scale=1): return 'planted'\n"
    )
    return marker


@pytest.mark.parametrize("search_path", [f":{TESTS}", f"{TESTS}:", f".:{TESTS}"])
def test_an_empty_or_relative_pythonpath_entry_does_not_import_the_checkout(
    tmp_path: Path, search_path: str
) -> None:
    # ':/x' (an empty entry: the working directory) is what 'PYTHONPATH=$PYTHONPATH:/x' gives
    marker = plant(tmp_path)
    answer = run_isolated(
        isolated_work.add, 1, 1, env={"PYTHONPATH": search_path}, cwd=tmp_path, limits=LIMITS
    )
    assert answer["sum"] == 2
    assert not marker.exists()


@pytest.mark.parametrize(
    "forged",
    ["[" * 2_000_000, "[1, 2]", '"ok"', "{not json"],
    ids=["nested-2M-deep", "a-list", "a-string", "garbage"],
)
def test_a_forged_answer_is_a_clear_error(forged: str) -> None:
    with pytest.raises(IsolatedWorkError) as caught:
        run_isolated(
            isolated_work.forge_answer,
            forged,
            env={"PYTHONPATH": TESTS},
            limits=LIMITS,
            what="the scan",
        )
    assert str(caught.value) == "the scan failed: its answer is not valid JSON"
