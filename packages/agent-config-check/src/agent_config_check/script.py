"""The checker as one dependency-free script, generated from this package's own modules.

A guard commits this script into the adopted repository, so the repository can run the
checker with nothing but Python: no package to install, no index to reach. The script is the
checker modules concatenated in dependency order with their imports of one another removed —
one implementation, not a copy to keep in step. Those modules may import only the standard
library and each other, and must not define the same top-level name twice; :func:`script`
refuses to build a bundle that breaks either condition.
"""

from __future__ import annotations

import ast
import sys
import threading
from functools import cache
from importlib import resources

from agent_config_check.usage import installed_version

SCRIPT_PATH = ".github/agent-config-check.py"
"""Where the guards commit the script, relative to the repository root."""

MARKER = "Added by claude-code-adopt"
BUNDLED_MODULES = (
    "usage",
    "markdown",
    "rule_sets",
    "document_format",
    "reshape",
    "budget",
    "tree",
    "front_matter",
    "findings",
    "linear_regex",
    "globs",
    "family",
    "collection",
    "families.documents",
    "families.imports",
    "families.consistency",
    "families.definitions",
    "families.skills",
    "families.tools",
    "families.plugins",
    "families.settings",
    "families.hooks",
    "families.gitignore",
    "families.mcp",
    "families.okf",
    "families.secrets",
    "registry",
    "command",
)
"""The modules the script holds, each after the modules it imports."""
_PACKAGE = "agent_config_check"
_FUTURE = "from __future__ import annotations"
# CPython 3.11's ast module is not safe to drive from several threads at once, and batch
# adoptions install guards in parallel: build each version's script once, under a lock.
_LOCK = threading.Lock()


def module_source(name: str) -> str:
    """The source text of one bundled module."""
    *folders, leaf = name.split(".")
    source = resources.files(_PACKAGE)
    for folder in folders:
        source = source.joinpath(folder)
    return source.joinpath(f"{leaf}.py").read_text(encoding="utf-8")


def script(version: str | None = None) -> str:
    """The standalone checker script, carrying ``version`` (default: this package's installed
    version, so the script changes only when the checker does, not with the adopt-server).

    Raises ``ValueError`` when a bundled module imports a non-standard-library package or
    two modules define the same top-level name.
    """
    with _LOCK:
        return _script(installed_version() if version is None else version)


@cache
def _script(version: str) -> str:
    parts = [
        "#!/usr/bin/env python3",
        f"# {MARKER}: agent-config-check {version}, the Claude Code configuration checker.",
        "# Generated from the mcp-tools-agent-config-check package; do not edit,",
        "# re-run the adoption to update it. Needs only Python 3.11+. Run with --help.",
        _FUTURE,
        "",
    ]
    defined: dict[str, str] = {}
    for name in BUNDLED_MODULES:
        source = module_source(name)
        parts += [f"# ---- {_PACKAGE}.{name}", _without_local_imports(source, name, defined)]
    parts += [
        "",
        "if __name__ == '__main__':",
        f"    sys.exit(main(prog='agent-config-check', version={version!r}))",
        "",
    ]
    return "\n".join(parts)


def _without_local_imports(source: str, module: str, defined: dict[str, str]) -> str:
    tree = ast.parse(source)
    drop: set[int] = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            drop.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == _PACKAGE:
            if (node.module or "").removeprefix(_PACKAGE + ".") not in BUNDLED_MODULES:
                raise ValueError(f"{module} imports {node.module}, which is not bundled")
            drop.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                top = (getattr(node, "module", None) or alias.name).split(".")[0]
                if top not in sys.stdlib_module_names:
                    raise ValueError(f"{module} imports {top}, which an adopted repo lacks")
        for name in _top_level_names(node):
            if name in defined and defined[name] != module:
                raise ValueError(
                    f"{module} and {defined[name]} both define {name}; rename one of them"
                )
            defined[name] = module
    lines = source.splitlines()
    return "\n".join(line for number, line in enumerate(lines, 1) if number not in drop)


def _top_level_names(node: ast.stmt) -> list[str]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    if isinstance(node, ast.Assign):
        targets = [e for t in node.targets for e in (t.elts if isinstance(t, ast.Tuple) else [t])]
        return [t.id for t in targets if isinstance(t, ast.Name)]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return [node.target.id]
    return []
