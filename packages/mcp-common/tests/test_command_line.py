"""The light start of every command: the package root loads nothing until a name is used, and a
parser rebuilt from its table answers ``--help`` and ``--version`` as the real one does."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import mcp_common
import pytest
from mcp_common.command_line import TABLE_FILE, answer_help_or_version, describe, rebuild, render
from mcp_common.usage import UsageParser


def test_every_public_name_of_the_package_root_loads_on_first_use() -> None:
    assert set(mcp_common._MODULES) == set(mcp_common.__all__)
    for name in mcp_common.__all__:
        assert getattr(mcp_common, name) is not None


def test_importing_the_package_root_and_the_usage_parser_loads_no_pydantic() -> None:
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            "import json, sys, mcp_common, mcp_common.usage, mcp_common.command_line;"
            "print(json.dumps(sorted(sys.modules)))",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout

    assert not [name for name in json.loads(loaded) if name.startswith(("pydantic", "mcp."))]


def real_parser() -> argparse.ArgumentParser:
    parser = UsageParser(prog="tool", description="Does things.", epilog="examples:\n  tool a")
    modes = parser.add_mutually_exclusive_group()
    modes.add_argument("--fast", dest="mode", action="store_const", const="fast", help="fast")
    modes.add_argument("--slow", dest="mode", action="store_const", const="slow", help="slow")
    parser.add_argument("source", nargs="?", help="a file")
    parser.add_argument("columns", nargs="*", help="columns")
    parser.add_argument("--limit", type=int, default=5, metavar="N", help="at most %(default)s")
    parser.add_argument("--tag", action="append", default=[], help="a tag (repeatable)")
    parser.add_argument("--format", choices=["text", "json"], default="text", help="output")
    parser.add_argument("--title", help="a title")
    parser.add_argument("--quiet", action="store_true", help="say less")
    parser.add_argument("--version", action="version", version="tool 1.2.3")
    return parser


def table() -> dict[str, object]:
    # through JSON, as the committed file is read
    return json.loads(json.dumps(describe(real_parser(), "1.2.3")))


def test_a_rebuilt_parser_shows_the_same_help_and_version() -> None:
    rebuilt = rebuild(table(), "1.2.3")

    assert rebuilt.format_help() == real_parser().format_help()
    assert rebuild(table(), "9.9")._actions[-1].version == "tool 9.9"  # type: ignore[attr-defined]


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """An importable package holding the table of ``tool``, as a wheel installs it."""
    folder = tmp_path / "tool_package"
    folder.mkdir()
    (folder / "__init__.py").write_text("", encoding="utf-8")
    (folder / TABLE_FILE).write_text(render({"tool": table()}), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    return folder.name


@pytest.mark.parametrize(
    ("words", "shown"),
    [
        (["--help"], "usage: tool"),
        (["--limit", "many", "-h"], "usage: tool"),  # help wins over a value only parsing refuses
        (["--no-such-flag", "--help"], "usage: tool"),  # as argparse: unknown words come last
        (["--version"], "tool unknown"),  # the distribution is not installed
    ],
)
def test_help_and_version_are_answered_from_the_table(
    words: list[str], shown: str, package: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        answer_help_or_version("tool", package, "no-such-distribution", words)

    assert stop.value.code == 0
    assert capsys.readouterr().out.startswith(shown)


@pytest.mark.parametrize(
    "words",
    [["a.csv", "id"], ["--title", "-h"], ["--title"], ["--help=yes"]],
    ids=["no help asked", "help as a value", "a missing value", "help given a value"],
)
def test_other_lines_are_left_to_the_real_parser(
    words: list[str], package: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert answer_help_or_version("tool", package, "no-such-distribution", words) is None
    assert capsys.readouterr() == ("", "")
