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


def test_a_chatty_child_cannot_fill_the_log(
    caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    caplog.set_level("DEBUG", logger="mcp_common.isolation")
    assert run_isolated(isolated_work.shout, 50, env={"PYTHONPATH": TESTS}, limits=LIMITS) == "done"
    (noise,) = [m for m in caplog.messages if "to stderr" in m]
    assert noise.startswith("the isolated work wrote 52428815 bytes to stderr; the last 8192:\n")
    assert noise.endswith("the last words\n")
    assert len(noise) < 10_000
    assert len(capfd.readouterr().err) < 10_000  # nothing reached the server's own stderr


def test_the_default_answer_limit_bounds_what_the_server_decodes() -> None:
    with pytest.raises(IsolatedWorkError, match="larger than the 8,388,608 byte limit"):
        run_isolated(
            isolated_work.forge_answer,
            "[" + "[]," * 3_000_000 + "[]]",
            env={"PYTHONPATH": TESTS},
        )
