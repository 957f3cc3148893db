"""After an edit, the index links again only what the edit can change, and its graph is
the one a new process builds from the same files: for every language, whatever the edit
(a declaration or an import changed, a file added, removed or renamed)."""

from __future__ import annotations

import re
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from context_server.core.index import IndexCache, ProjectIndex
from context_server.core.service import ContextService
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp_common import AllowedPaths

HERE = Path(__file__).parent
# one real project per language (and the JVM and script families' dialects)
CORPORA = {
    "java": HERE / "corpus" / "java",
    "kotlin": HERE / "corpus" / "kotlin",
    "scala": HERE / "corpus" / "scala",
    "jvm-mixed": HERE / "corpus_shapes" / "jvm",
    "python": HERE / "corpus" / "python",
    "typescript": HERE / "corpus_langs" / "typescript",
    "go": HERE / "corpus_langs" / "go",
    "csharp": HERE / "corpus_langs" / "csharp",
    "rust": HERE / "corpus_langs" / "rust",
}

Graph = dict[str, object]


def graph(index: ProjectIndex) -> Graph:
    """Everything linking says of the project: each file's edges (target, rule, uses),
    ambiguous and shadowed names, and whether it is internal."""
    packed = index.resolver.graph
    return {
        path: (packed[path], path in packed.internal, index.sources[path].language)
        for path in packed
    }


def fresh(root: Path) -> ProjectIndex:
    """The index a new process builds of ``root``."""
    return ContextService(AllowedPaths([root]), IndexCache(watch=False)).index(".")


def linked_names(index: ProjectIndex) -> list[str]:
    """Every name segment the project declares, imports or names its packages by (sorted,
    each once): what an edit renames, or makes clash."""
    names: set[str] = set()
    for facts in index.sources.values():
        names.update(d.simple_name for d in facts.declarations)
        names.update(facts.package.replace("::", ".").split("."))
        for item in facts.imports:
            names.update(item.target.replace("/", ".").replace("::", ".").split("."))
    return sorted(name for name in names if name.isidentifier())


def _swap(root: Path, first: str, second: str) -> None:
    """Each file takes the other's text (both files' declarations and imports change)."""
    one, two = (root / first).read_bytes(), (root / second).read_bytes()
    (root / first).write_bytes(two)
    (root / second).write_bytes(one)


def _rename_declaration(root: Path, path: str, old: str, new: str) -> None:
    """Every whole-word ``old`` in ``path`` spelled ``new`` (a declaration, package or
    import renamed, or made to clash with another file's)."""
    text = (root / path).read_text(encoding="utf-8")
    (root / path).write_text(re.sub(rf"\b{re.escape(old)}\b", new, text), encoding="utf-8")


def _copy(root: Path, path: str) -> None:
    """A new file beside ``path`` with its text (its declarations now declared twice)."""
    source = root / path
    shutil.copyfile(source, source.with_name("Copy" + source.name))


def _delete(root: Path, path: str) -> None:
    (root / path).unlink()


def _move(root: Path, path: str) -> None:
    """``path`` renamed within its folder."""
    source = root / path
    source.rename(source.with_name("Moved" + source.name))


@st.composite
def edits(draw: st.DrawFn, files: list[str], names: list[str]) -> Callable[[Path], None]:
    """One edit of the project whose source files are ``files`` and declared names
    ``names``."""
    kinds = ["swap", "copy", "delete", "move"] + (["rename", "clash"] if names else [])
    kind = draw(st.sampled_from(kinds))
    path = draw(st.sampled_from(files))
    if kind == "swap":
        other = draw(st.sampled_from(files))
        return lambda root: _swap(root, path, other)
    if kind in {"rename", "clash"}:
        old = draw(st.sampled_from(names))
        new = draw(st.sampled_from(names)) if kind == "clash" else old + "Renamed"
        return lambda root: _rename_declaration(root, path, old, new)
    return lambda root: {"copy": _copy, "delete": _delete, "move": _move}[kind](root, path)


@pytest.mark.parametrize("language", sorted(CORPORA))
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_the_graph_after_edits_is_the_one_a_new_process_builds(
    language: str, data: st.DataObject
) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "project"
        shutil.copytree(CORPORA[language], root)
        service = ContextService(AllowedPaths([root]), IndexCache(watch=False))
        index = service.index(".")
        for _ in range(data.draw(st.integers(1, 3), label="edits")):
            files = sorted(index.sources)
            if not files:  # every source deleted: nothing left to edit
                break
            names = linked_names(index)
            data.draw(edits(files, names), label="edit")(root)
            index = service.index(".")
            assert graph(index) == graph(fresh(root))


# Edits that change what other files link against, in the languages whose linkers say
# what each file reads of the others (see Linker.keys): the files linked again are fewer
# than the project's, and the graph is still the one a new process builds.
RELINKS = {
    "java": (
        "com/shop/util/Money.java",
        lambda text: text.replace("class Money {", "class Money {}\nclass Cents {"),
    ),
    "kotlin": ("com/shop/kt/Tax.kt", lambda text: text + "\nclass TaxRate\n"),
    "csharp": (
        "src/Shop/Core/Money.cs",
        lambda text: "using System.Text;\n" + text.replace("Money(", "Cash("),
    ),
}


@pytest.mark.parametrize("language", sorted(RELINKS))
def test_a_declaration_edit_links_again_only_the_files_reading_its_names(
    language: str, tmp_path: Path
) -> None:
    root = tmp_path / "project"
    shutil.copytree(CORPORA[language], root)
    service = ContextService(AllowedPaths([root]), IndexCache(watch=False))
    before = service.index(".")
    path, change = RELINKS[language]
    target = root / path
    target.write_text(change(target.read_text(encoding="utf-8")), encoding="utf-8")
    after = service.index(".")
    assert graph(after) == graph(fresh(root))
    assert 1 <= after.statistics.relinked < len(before.sources)


def test_a_file_moved_into_a_wildcard_imported_package_links_its_importers_again(
    tmp_path: Path,
) -> None:
    """A wildcard import of a package outside the project may supply any simple name, so
    nothing is guessed for its file; once a project file declares that package, the unique
    simple name is linked: the importer is linked again although it names nothing the
    edited file declares."""
    root = _write(tmp_path / "project", WILDCARD)
    service = ContextService(AllowedPaths([root]), IndexCache(watch=False))
    assert service.index(".").resolver.files("app/Main.java") == ()
    (root / "other/Thing.java").write_text("package lib;\npublic class Thing {}\n")
    after = service.index(".")
    assert after.resolver.files("app/Main.java") == ("util/Helper.java",)
    assert graph(after) == graph(fresh(root))
    assert after.statistics.relinked == 3  # Thing, Main (reads lib), Unrelated (reads Thing)


WILDCARD = {
    "app/Main.java": "package app;\nimport lib.*;\nclass Main { Helper helper; }\n",
    "util/Helper.java": "package util;\npublic class Helper {}\n",
    "other/Thing.java": "package other;\npublic class Thing {}\n",
    "other/Unrelated.java": "package other;\npublic class Unrelated { Thing thing; }\n",
}


def _write(root: Path, files: dict[str, str]) -> Path:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    return root


@pytest.mark.e2e
@pytest.mark.anyio
async def test_a_running_server_answers_each_declaration_edit_on_the_next_call(
    tmp_path: Path,
) -> None:
    """Through the server over stdio, its watches on: each edit changing what other files
    link against is in the next answer, and the server linked again, not whole."""
    root = _write(tmp_path / "project", WILDCARD)
    log_file = tmp_path / "server.log"
    command = Path(sys.executable).with_name("context-server")
    params = StdioServerParameters(
        command=str(command),
        args=["--allowed-dir", str(root), "--log-file", str(log_file), "--no-index-store"],
        cwd=str(root),
    )
    steps: list[Callable[[], None]] = [
        lambda: None,
        lambda: (root / "other/Thing.java").write_text("package lib;\npublic class Thing {}\n"),
        lambda: (root / "util/Helper.java").write_text("package util;\npublic class Aid {}\n"),
        lambda: (root / "util/Helper.java").write_text("package util;\npublic class Helper {}\n"),
    ]
    answers = []
    async with Client(params) as client:
        for step in steps:
            step()
            tree = await client.call_tool("project_tree", {"path": ".", "format": "json"})
            assert not tree.is_error, tree
            assert tree.structured_content is not None
            nodes = tree.structured_content["nodes"]
            answers.append(next(n["dependencies"] for n in nodes if n["path"] == "app/Main.java"))
    assert answers == [[], ["util/Helper.java"], [], ["util/Helper.java"]]
    assert log_file.read_text().count("graph relinked (") == 3


def test_a_global_using_edited_links_its_family_again(tmp_path: Path) -> None:
    """A C# ``global using`` is seen by every file below its folder, which names nothing of
    the file declaring it: editing it links the C# files whole, and the file using a type
    only that global using made visible loses its edge."""
    root = _write(
        tmp_path / "project",
        {
            "src/App/GlobalUsings.cs": "global using Lib.Models;\n",
            "src/App/Main.cs": "namespace App;\npublic class Main { Widget widget; }\n",
            "src/Lib/Models/Widget.cs": "namespace Lib.Models;\npublic class Widget {}\n",
            "src/Lib/Other/Gadget.cs": "namespace Lib.Other;\npublic class Gadget {}\n",
        },
    )
    service = ContextService(AllowedPaths([root]), IndexCache(watch=False))
    assert service.index(".").resolver.files("src/App/Main.cs") == ("src/Lib/Models/Widget.cs",)
    (root / "src/App/GlobalUsings.cs").write_text("global using Lib.Other;\n")
    after = service.index(".")
    assert after.resolver.files("src/App/Main.cs") == ()
    assert graph(after) == graph(fresh(root))
    assert after.statistics.relinked == 4
