"""Every shell example of the READMEs and the other documents that can run offline runs, and
succeeds.

The documents are every Markdown file a user reads: those at the root (README, CONTRIBUTING,
SECURITY, ...), the user guides in docs/ and each package's README. A document's shell
examples are its ``sh``/``bash`` blocks. Each one runs here with ``bash -euo pipefail``,
unless the line before it says why it cannot run offline, or where another test runs it:
``<!-- not run here: REASON -->``. A block that uses ``uv run`` (a command of this checkout)
runs at the repository root; any other runs in a scratch directory holding the small data
files the examples name (``orders.csv``, ``shop.db``, ...) and a copy of the sample data
(``examples/data``). A command block left untagged would escape all this, so an untagged
block may not start a command.
"""

from __future__ import annotations

import gzip
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from mcp_common.workspace import workspace_packages
from readme_snippets import ROOT

DOCUMENTS = sorted(
    {*ROOT.glob("*.md"), *(ROOT / "docs").glob("*.md"), *(ROOT / "packages").glob("*/*.md")}
)
"""Every Markdown file a user reads: at the root, the guides in docs/, each package's."""
BLOCK = re.compile(
    r"(?:^<!-- not run here: (?P<reason>[^\n]*?) -->\n)?^```(?P<lang>\w*)\n(?P<body>.*?)^```",
    re.DOTALL | re.MULTILINE,
)
COMMANDS = {command for package in workspace_packages(ROOT) for command, _ in package.scripts} | {
    "uv",
    "uvx",
    "pip",
    "python",
    "python3",
    "git",
    "claude",
    "docker",
    "export",
}
"""Words that start a command line: an untagged block starting with one is a shell example."""


@dataclass(frozen=True)
class Example:
    readme: Path
    line: int
    language: str
    body: str
    not_run: str | None

    @property
    def id(self) -> str:
        return f"{self.readme.relative_to(ROOT)}:{self.line}"


def examples() -> list[Example]:
    found = []
    for readme in DOCUMENTS:
        text = readme.read_text("utf-8")
        for match in BLOCK.finditer(text):
            found.append(
                Example(
                    readme,
                    text.count("\n", 0, match.start("body")),
                    match["lang"],
                    match["body"],
                    match["reason"],
                )
            )
    return found


SHELL = [example for example in examples() if example.language in ("sh", "bash")]
RUNNABLE = [example for example in SHELL if example.not_run is None]


def test_every_command_block_is_tagged_as_shell_and_skips_say_why() -> None:
    for example in examples():
        if example.language in ("sh", "bash"):
            assert example.not_run is None or example.not_run.strip(), example.id
            continue
        assert example.not_run is None, f"{example.id}: only shell blocks are run"
        if example.language == "":
            first_words = {line.split()[0] for line in example.body.splitlines() if line.split()}
            assert not first_words & COMMANDS, f"{example.id}: tag this command block ```sh"
    assert RUNNABLE, "no README shell example runs: the test would prove nothing"


@pytest.fixture(scope="module")
def example_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The files the README examples name, small and unique on the keys they check."""
    data = tmp_path_factory.mktemp("readme-data")
    (data / "orders.csv").write_text("order_id,customer\n1,a\n2,a\n3,b\n", encoding="utf-8")
    with gzip.open(data / "households.csv.gz", "wt", encoding="utf-8") as households:
        households.write("year1,hlpi_name,value\n2020,a,1\n2020,b,2\n2021,a,3\n")
    (data / "export.tsv").write_text("1\tx\tp\n2\tx\tq\n3\ty\tr\n", encoding="utf-8")
    with sqlite3.connect(data / "shop.db") as shop:
        shop.execute("CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer TEXT)")
        shop.executemany("INSERT INTO orders VALUES (?, ?)", [(1, "a"), (2, "a"), (3, "b")])
    shop.close()
    shutil.copytree(ROOT / "examples" / "data", data / "examples" / "data")
    return data


@pytest.mark.e2e
@pytest.mark.parametrize("example", RUNNABLE, ids=[example.id for example in RUNNABLE])
def test_the_shell_example_runs(example: Example, example_data: Path) -> None:
    uses_checkout = "uv run" in example.body
    environment = {key: value for key, value in os.environ.items() if key != "VIRTUAL_ENV"}
    environment["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{environment['PATH']}"
    # what the example writes under ~ or in temporary directories stays in the scratch area
    for variable, name in (("HOME", "home"), ("TMPDIR", "tmp")):
        (example_data / name).mkdir(exist_ok=True)
        environment[variable] = str(example_data / name)
    answer = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", example.body],
        cwd=ROOT if uses_checkout else example_data,
        env=environment,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    output = f"{answer.stdout[-3000:]}\n{answer.stderr[-3000:]}"
    assert answer.returncode == 0, f"{example.id}:\n{output}"
    assert "Traceback" not in answer.stderr
