"""Shared fixtures: small real projects on disk and direct tool calls."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from context_server.core.index import IndexCache
from context_server.core.service import ContextService
from context_server.tools import build_tools
from mcp_common import AllowedPaths, McpTool, ToolContext, ToolResult, invoke

CORPUS = Path(__file__).parent / "corpus"


@pytest.fixture(autouse=True)
def _scratch_cache_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Servers the tests start keep their index store in a scratch cache directory, not in
    the user's (subprocesses inheriting the environment included)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "xdg-cache"))


def write_project(root: Path, files: Mapping[str, str | bytes]) -> Path:
    """Create ``files`` (relative path -> text or bytes) under ``root``."""
    for relative, content in files.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
    return root


@pytest.fixture
def project(tmp_path: Path) -> Callable[[Mapping[str, str | bytes]], Path]:
    """A factory writing a project under a fresh ``proj`` directory."""

    def make(files: Mapping[str, str | bytes]) -> Path:
        root = tmp_path / "proj"
        root.mkdir(exist_ok=True)
        return write_project(root, files)

    return make


@pytest.fixture
def java_beside_outside(tmp_path: Path) -> Callable[[str], Path]:
    """A factory of ``allowed/proj`` under ``tmp_path``, a small Java project whose ``Main``
    uses ``Util`` and ``Leak``, beside ``outside/Secret.java``, class ``Leak`` holding the
    secret it is given. Returns the project; planting ``src/app/Leak.java`` as a second name
    of the outside file is the attack of the test that asks for it."""

    def make(secret: str) -> Path:
        leak = f'package app; class Leak {{ String s = "{secret}"; }}\n'
        write_project(tmp_path, {"outside/Secret.java": leak})
        return write_project(
            tmp_path / "allowed" / "proj",
            {
                "src/app/Main.java": "package app; class Main { Util util; Leak leak; }\n",
                "src/app/Util.java": "package app; class Util {}\n",
            },
        )

    return make


def service_for(root: Path) -> ContextService:
    """A service allowed to read ``root`` only."""
    return ContextService(AllowedPaths([root]), IndexCache())


def direct(root: Path, language: str = "auto") -> dict[str, list[str]]:
    """Every source file's direct dependencies, sorted."""
    index = service_for(root).index(str(root), language)
    return {rel: sorted(index.resolver.direct(rel).files) for rel in index.sources}


def tools_for(*roots: Path) -> dict[str, McpTool]:
    """The tools confined to ``roots``, by name."""
    return {tool.definition.name: tool for tool in build_tools(AllowedPaths(list(roots)))}


def call(
    tool: McpTool, arguments: dict[str, Any], context: ToolContext | None = None
) -> ToolResult:
    """Call a tool the way the adapter does, turning a raised ToolError into an error result."""
    from mcp_common import ToolError

    try:
        return invoke(tool, arguments, context)
    except ToolError as exc:
        return ToolResult.error(exc.message, exc.code)
