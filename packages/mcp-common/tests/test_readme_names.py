"""The mcp-common README names what the package has: every name of its API table resolves,
its declaration examples run as written, and the ``run_isolated`` example passes only
arguments the functions take."""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import mcp_common
import pytest

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
BLOCKS: list[str] = re.findall(r"^```python\n(.*?)^```", README, re.DOTALL | re.MULTILINE)
# what a reader of the examples is expected to have imported already
PRELUDE = """
from typing import Annotated
from pydantic import Field
from pydantic_settings import SettingsConfigDict
from mcp_common import *
"""


def _table_names() -> list[str]:
    table = README.split("| name | what it is |", 1)[1].split("\n\n", 1)[0]
    names: list[str] = []
    for row in table.splitlines()[2:]:
        first_cell = row.split(" | ", 1)[0]
        names += [name.split("(", 1)[0] for name in re.findall(r"`([^`]+)`", first_cell)]
    return names


def _resolve(dotted: str) -> object:
    found: object = mcp_common
    for part in dotted.split("."):
        found = getattr(found, part)
    return found


def _block_defining(name: str) -> str:
    return next(block for block in BLOCKS if name in block)


def test_the_table_lists_names_the_package_exports() -> None:
    names = _table_names()
    assert len(names) > 30, names
    missing = [name for name in names if not hasattr(mcp_common, name.split(".", 1)[0])]
    assert not missing, f"the README's table names what mcp_common lacks: {missing}"
    for name in names:
        _resolve(name)


@pytest.mark.parametrize("defines", ["class CheckArguments", "class UniquenessSettings"])
def test_a_declaration_example_runs_as_written(defines: str) -> None:
    namespace: dict[str, Any] = {}
    # compiled apart from this module, whose postponed annotations would leave models undefined
    for source in (PRELUDE, _block_defining(defines)):
        exec(compile(source, "README.md", "exec", dont_inherit=True), namespace)  # noqa: S102
    name = defines.split()[1]
    assert inspect.isclass(namespace[name])


def test_the_run_isolated_example_passes_only_parameters_that_exist() -> None:
    tree = ast.parse(_block_defining("run_isolated("))
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)]
    checked: dict[str, Callable[..., object]] = {
        "run_isolated": mcp_common.run_isolated,
        "IsolationLimits": mcp_common.IsolationLimits,
    }
    seen = set()
    for call in calls:
        if isinstance(call.func, ast.Name) and call.func.id in checked:
            parameters = inspect.signature(checked[call.func.id]).parameters
            for keyword in call.keywords:
                assert keyword.arg in parameters, f"{call.func.id} takes no {keyword.arg}"
            seen.add(call.func.id)
    assert seen == set(checked)
