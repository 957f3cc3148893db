"""The READMEs tell the truth: the root README's server example runs, its commands are the real
ones, and each server's "Python API" example runs as written on small data."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp_common.testing import result_text, run_contract_checks
from mcp_common.workspace import workspace_packages

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _example() -> str:
    match = re.search(
        r"<!-- readme-example:start -->\n```python\n(.*?)```\n<!-- readme-example:end -->",
        README,
        re.DOTALL,
    )
    assert match, "README lost its marked server example"
    return match.group(1)


def _quick_start_commands() -> list[str]:
    section = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.*?)\n```", section, re.DOTALL)


@pytest.fixture
def greeting_server(tmp_path: Path) -> Path:
    path = tmp_path / "greeting.py"
    path.write_text(_example(), encoding="utf-8")
    return path


@pytest.mark.anyio
async def test_the_example_server_serves_over_stdio(greeting_server: Path) -> None:
    parameters = StdioServerParameters(command=sys.executable, args=[str(greeting_server)])
    async with Client(parameters, mode="legacy") as client:
        listing = await client.list_tools()
        assert [tool.name for tool in listing.tools] == ["greet"]
        answer = await client.call_tool("greet", {"name": "Ada"})
        assert (answer.is_error, result_text(answer)) == (False, "Hello, Ada!")
        refused = await client.call_tool("greet", {"nmae": "Ada"})
        assert refused.is_error
        assert result_text(refused).startswith(
            "greet failed: unknown argument 'nmae'. Did you mean 'name'?"
        )


def test_the_example_tool_keeps_the_contract(greeting_server: Path) -> None:
    namespace: dict[str, object] = {"__name__": "readme_example"}
    code = compile(_example(), str(greeting_server), "exec", dont_inherit=True)
    exec(code, namespace)  # noqa: S102 - our README
    tool_class = namespace["Greet"]
    assert isinstance(tool_class, type)
    run_contract_checks([tool_class()], {"greet": [{"name": "Ada"}]})


def test_quick_start_is_exactly_two_commands_and_ci_runs_the_second_as_written() -> None:
    demo, tests = _quick_start_commands()
    assert demo == "pip install uv && uv run --locked python examples/demo.py"
    assert (ROOT / "examples" / "demo.py").is_file()
    assert tests == "pip install uv && uv run --locked nox"
    ci_lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert ci_lines[-1] == tests


def test_every_nox_session_the_readme_names_exists() -> None:
    noxfile = (ROOT / "noxfile.py").read_text(encoding="utf-8")
    table = README.split("## Testing and tooling", 1)[1]
    named = re.findall(r"^\| (`[^|]+) \|", table, re.MULTILINE)
    sessions = [s for cell in named for s in re.findall(r"`([a-z0-9_]+)`", cell)]
    package_sessions = [package.session for package in workspace_packages(ROOT)]
    named_packages = [s for s in sessions if s in package_sessions]
    assert named_packages[0] == "mcp_common"
    assert sessions == [*named_packages, "lint", "types", "imports", "e2e", "slow", "spark"]
    for session in sessions[len(named_packages) :]:
        assert f"def {session}(" in noxfile


def _testing_example() -> str:
    readme = (ROOT / "packages" / "mcp-common" / "README.md").read_text(encoding="utf-8")
    match = re.search(
        r"<!-- testing-example:start -->\n```python\n(.*?)```\n<!-- testing-example:end -->",
        readme,
        re.DOTALL,
    )
    assert match, "the mcp-common README lost its marked testing example"
    return match.group(1)


def _tool(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(Path(sys.executable).with_name(command[0])), *command[1:]],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_the_mcp_common_testing_example_type_checks_and_passes(tmp_path: Path) -> None:
    module = tmp_path / "test_testing_kit_example.py"
    module.write_text(_testing_example(), encoding="utf-8")

    checked = _tool("mypy", "--config-file", str(ROOT / "pyproject.toml"), str(module))
    assert checked.returncode == 0, checked.stdout + checked.stderr

    config = ["-c", str(ROOT / "pyproject.toml"), "--rootdir", str(ROOT)]
    ran = _tool("pytest", *config, str(module), "-p", "no:cacheprovider", "-q")
    assert ran.returncode == 0, ran.stdout[-4000:] + ran.stderr
    assert re.search(r"(?m)^4 passed in ", ran.stdout), ran.stdout[-2000:]


def test_the_example_type_checks_under_the_strict_configuration(greeting_server: Path) -> None:
    checked = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            # the checkout's cache (`nox -s types` fills it first): 0.4 s of CPU, not 5.6 s
            # analysing pydantic and the SDK again in a fresh one; keyed by content, so safe
            "--cache-dir",
            str(ROOT / ".mypy_cache"),
            str(greeting_server),
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=greeting_server.parent,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


API_CHECKS = {
    "context-server": (
        "import json\n"
        "print(json.dumps([selection.target.path, [u.path for u in users.users],"
        " bool(repo_map.entries)]))"
    ),
    "uniqueness-server": (
        "import json\n"
        "print(json.dumps([result.unique, result.rows, [list(k.columns) for k in keys.keys]]))"
    ),
}
"""What each server's Python API example is run with, after it: its results, as JSON."""


def _python_api_example(server: str) -> str:
    readme = (ROOT / "packages" / server / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Python API", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert match, f"{server}: the Python API section has no example"
    return match.group(1)


@pytest.mark.parametrize("server", API_CHECKS)
def test_a_python_api_example_runs_as_written(server: str, tmp_path: Path) -> None:
    """The example alone, in a directory holding what it names (``./repo``, ``orders.csv``):
    no variable the reader must guess, and the calls and fields it shows exist."""
    shutil.copytree(ROOT / "examples" / "shop-project", tmp_path / "repo")
    (tmp_path / "orders.csv").write_text("order_id,customer\n1,a\n2,a\n3,b\n", "utf-8")
    done = subprocess.run(
        [sys.executable, "-c", _python_api_example(server) + API_CHECKS[server]],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert done.returncode == 0, done.stderr[-3000:]
    answer = json.loads(done.stdout.splitlines()[-1])
    if server == "context-server":
        target, users, mapped = answer
        assert target.endswith("service/OrderService.java")
        assert "src/main/kotlin/com/example/shop/pricing/PriceCalculator.kt" in users
        assert mapped
    else:
        assert answer == [True, 3, [["order_id"]]]
