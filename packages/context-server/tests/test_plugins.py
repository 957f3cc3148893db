"""The language plugins: one module per family behind one protocol, reached through the
registry only."""

from __future__ import annotations

import ast
import importlib
from collections.abc import Callable, Mapping
from pathlib import Path

import grimp
import pytest
from conftest import service_for
from context_server.core.languages import FAMILIES, LANGUAGES, Language, family_of, language_of

Project = Callable[[Mapping[str, str | bytes]], Path]
CORE = Path(importlib.import_module("context_server.core").__file__ or "").parent
PLUGINS = sorted({type(family).__module__ for family in FAMILIES})


def test_every_dialect_belongs_to_exactly_one_plugin_module() -> None:
    owners = [family for family in FAMILIES for _ in family.dialects]
    assert len(owners) == len(LANGUAGES) == len({d.name for d in LANGUAGES})
    assert len(PLUGINS) == len(FAMILIES) == 6
    for language in LANGUAGES:
        assert language in family_of(language.name).dialects
        for extension in language.extensions:
            assert language_of(f"x{extension}", LANGUAGES) is language


def test_no_plugin_imports_another() -> None:
    graph = grimp.build_graph("context_server")
    for importer in PLUGINS:
        for imported in PLUGINS:
            if importer != imported:
                chain = graph.find_shortest_chain(importer, imported)
                assert chain is None, f"{importer} reaches {imported}: {chain}"


def _string_constants(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.add(node.value)
    return found


def test_no_module_outside_the_plugins_names_a_language() -> None:
    names = {d.name for d in LANGUAGES} | {f.name for f in FAMILIES}
    package = CORE.parent
    offenders = {}
    for path in sorted(package.rglob("*.py")):
        if path.is_relative_to(CORE / "languages"):
            continue
        named = _string_constants(path) & names
        if named:
            offenders[path.relative_to(package).as_posix()] = sorted(named)
    assert offenders == {}


def test_a_project_builds_only_the_linkers_of_its_languages(project: Project) -> None:
    root = project(
        {
            "src/a/A.java": "package a; public class A { B b; }",
            "src/a/B.kt": "package a\nclass B",
            "notes.md": "# not code",
        }
    )
    index = service_for(root).index(str(root))
    assert index.resolver.linked_languages == ("jvm",)
    assert index.resolver.direct("src/a/A.java").files == ("src/a/B.kt",)


def test_a_mixed_project_builds_one_linker_per_language_present(project: Project) -> None:
    root = project(
        {
            "A.java": "class A {}",
            "m.py": "import os\n",
            "web/x.ts": 'import { y } from "./y";\n',
            "web/y.ts": "export const y = 1;\n",
        }
    )
    index = service_for(root).index(str(root))
    assert sorted(index.resolver.linked_languages) == ["ecmascript", "jvm", "python"]
    assert index.resolver.direct("web/x.ts").files == ("web/y.ts",)


@pytest.mark.parametrize("plugin", FAMILIES, ids=lambda family: family.name)
def test_every_plugin_names_extracts_and_links_an_empty_file(plugin: Language) -> None:
    dialect = plugin.dialects[0]
    path = f"src/empty{dialect.extensions[0]}"
    module = plugin.modules([path])[path]
    facts = plugin.extract(dialect, "", path, module)
    assert facts.language == dialect.name
    assert facts.declarations == ()
    assert facts.references == ()
    linker = plugin.linker({path: facts}, {})
    assert linker.link(path, facts, True).dependencies.edges == ()
