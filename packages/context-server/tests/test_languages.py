"""The path-module and package languages (tests/corpus_langs, one labelled project each).

Each fixture holds comment and string decoys, two types of one name in different modules
and the language's import forms; its labels.json is the exact dependency set of every file.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from conftest import direct, service_for
from context_server.core.facts import SourceFacts
from context_server.core.languages.script import ScriptProject
from context_server.server import APP
from mcp_common.testing import in_process_client, result_text

LANGS = Path(__file__).parent / "corpus_langs"
Project = Callable[[Mapping[str, str | bytes]], Path]

# Per fixture: a declaration to ask for, the files it depends on, and the twin type name.
CASES = {
    "typescript": (
        "AccountService",
        ["src/app/models/user.ts", "src/app/config.ts", "src/shared/util.ts"],
        "User",
    ),
    "go": ("Invoice", ["internal/model/line.go"], "User"),
    "rust": (
        "Invoice",
        ["src/billing/line.rs", "src/model.rs", "src/util.rs", "src/model/admin.rs"],
        "User",
    ),
    "csharp": (
        "Audit",
        ["src/Shop/Admin/Models/User.cs", "src/Shop/Models/User.cs"],
        "User",
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_file_has_exactly_its_labelled_dependencies(name: str) -> None:
    root = LANGS / name
    labels = json.loads((root / "labels.json").read_text(encoding="utf-8"))
    assert direct(root) == {path: sorted(deps) for path, deps in labels.items()}


@pytest.mark.parametrize("name", sorted(CASES))
def test_two_types_of_one_name_are_both_found_and_told_apart(name: str) -> None:
    root = LANGS / name
    service = service_for(root)
    index = service.index(str(root))
    twin = CASES[name][2]
    declared = sorted(
        d.qualified_name
        for facts in index.sources.values()
        for d in facts.declarations
        if d.simple_name == twin
    )
    assert len(declared) == 2
    match = service.find_target(index, twin)
    assert len(match.others) == 1
    for qualified in declared:
        exact = service.find_target(index, qualified)
        assert exact.declaration is not None
        assert exact.declaration.qualified_name == qualified
        assert exact.others == ()


@pytest.mark.anyio
@pytest.mark.parametrize("name", sorted(CASES))
async def test_every_tool_answers_over_the_protocol(name: str) -> None:
    root = LANGS / name
    target, dependencies, _ = CASES[name]
    async with in_process_client(APP, ["--allowed-dir", str(root)]) as client:
        tree = await client.call_tool("project_tree", {"path": ".", "format": "json"})
        assert not tree.is_error, result_text(tree)
        assert tree.structured_content is not None
        labels = json.loads((root / "labels.json").read_text(encoding="utf-8"))
        assert tree.structured_content["sourceFiles"] == len(labels)
        # A file of no supported language is listed, never parsed, never an error.
        listed = {node["path"] for node in tree.structured_content["nodes"]}
        assert "notes.md" in listed

        found = await client.call_tool("find_context", {"path": ".", "className": target})
        assert not found.is_error, result_text(found)
        assert found.structured_content is not None
        paths = [d["path"] for d in found.structured_content["dependencies"]]
        assert paths == dependencies

        tokens = await client.call_tool("estimate_tokens", {"path": ".", "className": target})
        assert not tokens.is_error, result_text(tokens)
        assert tokens.structured_content is not None
        files = [f["path"] for f in tokens.structured_content["files"]]
        assert files[1:] == dependencies
        assert tokens.structured_content["total"] > 0

        bundle = await client.call_tool("okf_bundle", {"path": ".", "limit": 1000})
        assert not bundle.is_error, result_text(bundle)
        assert bundle.structured_content is not None
        documents = {d["path"]: d["content"] for d in bundle.structured_content["documents"]}
        target_file = found.structured_content["target"]["path"]
        assert any(path.startswith(target_file) for path in documents)


def test_one_language_indexes_only_its_own_extensions() -> None:
    root = LANGS / "typescript"
    assert sorted(direct(root, "javascript")) == ["src/legacy/plain.mjs", "src/legacy/report.js"]
    # without the TypeScript files indexed, the JavaScript file reaches none of them
    assert direct(root, "javascript")["src/legacy/report.js"] == []
    assert sorted(direct(root, "tsx")) == ["src/admin/card.tsx", "src/admin/panel.tsx"]


# --- TypeScript / JavaScript module resolution ------------------------------------------------
def _scripts(files: list[str], configs: Mapping[str, str] | None = None) -> ScriptProject:
    facts = SourceFacts("typescript", "", (), (), frozenset(), ())
    return ScriptProject(
        dict.fromkeys(files, facts),
        {path: text.encode() for path, text in (configs or {}).items()},
    )


def test_relative_specifiers_find_extensions_index_files_and_emitted_names() -> None:
    scripts = _scripts(["a/x.ts", "a/lib/index.tsx", "b/y.mts", "b/z.js"])
    assert scripts.resolve("a/main.ts", "./x") == "a/x.ts"
    assert scripts.resolve("a/main.ts", "./x.js") == "a/x.ts"
    assert scripts.resolve("a/main.ts", "./lib") == "a/lib/index.tsx"
    assert scripts.resolve("a/main.ts", "../b/y.mjs") == "b/y.mts"
    assert scripts.resolve("a/main.ts", "../b/z") == "b/z.js"
    assert scripts.resolve("a/main.ts", "./missing") is None
    # never above the project root
    assert scripts.resolve("a/main.ts", "../../a/x") is None


def test_tsconfig_paths_follow_extends_and_count_from_base_url() -> None:
    scripts = _scripts(
        ["web/src/app/core.ts", "web/src/util.ts", "shared/lib/index.ts"],
        {
            "tsconfig.base.json": '{"compilerOptions": {"paths": {"@lib": ["shared/lib"]}}}',
            "web/tsconfig.json": '{\n // mapped\n "extends": "../tsconfig.base",'
            ' "compilerOptions": {"baseUrl": "src", "paths": {"@app/*": ["app/*"],}}}',
        },
    )
    assert scripts.resolve("web/src/main.ts", "@app/core") == "web/src/app/core.ts"
    assert scripts.resolve("web/src/main.ts", "util") == "web/src/util.ts"  # baseUrl
    # the nearest config's own paths win over the extended ones
    assert scripts.resolve("web/src/main.ts", "@lib") is None
    assert scripts.resolve("other/main.ts", "@app/core") is None  # no config above it


def test_a_broken_or_hostile_tsconfig_maps_nothing() -> None:
    scripts = _scripts(
        ["src/a.ts"],
        {
            "tsconfig.json": '{"compilerOptions":'
            ' {"baseUrl": "../..", "paths": {"*": ["/etc/*"]}}}',
            "src/tsconfig.json": "{ not json",
        },
    )
    assert scripts.resolve("main.ts", "passwd") is None
    assert scripts.resolve("src/main.ts", "a") is None


def test_an_import_names_a_file_even_when_only_a_type_is_used(project: Project) -> None:
    root = project(
        {
            "types.ts": "export interface Shape { size: number }\nexport type Id = string;\n",
            "unused.ts": 'import { Id } from "./types";\nexport const x = 1;\n',
            "draw.ts": 'import type { Shape } from "./types";\n'
            "export function draw(s: Shape): Shape { return s; }\n"
            "export function clear(): void {}\n",
        }
    )
    index = service_for(root).index(str(root))
    assert [(e.target, e.uses) for e in index.resolver.direct("unused.ts").edges] == [
        ("types.ts", 0)
    ]
    assert [(e.target, e.uses) for e in index.resolver.direct("draw.ts").edges] == [("types.ts", 2)]
    # one function of a module: only what it uses
    service = service_for(root)
    assert [d.path for d in service.select(index, "draw.clear", 1).dependencies] == []
    assert [d.path for d in service.select(index, "draw.ts", 1).dependencies] == ["types.ts"]


def test_a_tsconfig_linked_from_outside_the_allowed_root_is_never_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text('{"compilerOptions": {"paths": {"@x": ["src/x.ts"]}}}', encoding="utf-8")
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / "x.ts").write_text("export class X {}\n", encoding="utf-8")
    (root / "src" / "main.ts").write_text('import { X } from "@x";\nnew X();\n', encoding="utf-8")
    (root / "tsconfig.json").symlink_to(outside)
    index = service_for(root).index(str(root))
    assert index.resolver.direct("src/main.ts").files == ()
    # the same config inside the root maps the import
    (root / "tsconfig.json").unlink()
    (root / "tsconfig.json").write_text(outside.read_text(encoding="utf-8"), encoding="utf-8")
    index = service_for(root).index(str(root))
    assert index.resolver.direct("src/main.ts").files == ("src/x.ts",)


# --- Go packages ------------------------------------------------------------------------------
def test_go_import_paths_map_through_the_longest_module_and_only_exported_names_link(
    project: Project,
) -> None:
    root = project(
        {
            "go.mod": "module example.com/app\n",
            "tools/go.mod": 'module "example.com/app/tools"\n',
            "tools/gen/gen.go": "package gen\n\nfunc Run() {}\nfunc hidden() {}\n",
            "gen/gen.go": "package gen\n\nfunc Run() {}\n",
            "main.go": 'package main\n\nimport g "example.com/app/tools/gen"\n\n'
            "func main() { g.Run(); g.hidden() }\n",
            "other.go": 'package main\n\nimport "example.com/elsewhere/gen"\n\n'
            "func other() { gen.Run() }\n",
        }
    )
    index = service_for(root).index(str(root))
    assert index.resolver.direct("main.go").files == ("tools/gen/gen.go",)
    assert index.resolver.direct("main.go").edges[0].uses == 1  # g.hidden is not exported
    assert index.resolver.direct("other.go").files == ()
    # one function of a file: only what it uses (main uses nothing of other.go)
    service = service_for(root)
    assert [d.path for d in service.select(index, "main.go", 1).dependencies] == [
        "tools/gen/gen.go"
    ]


def test_a_go_test_file_is_never_a_dependency_of_its_package(project: Project) -> None:
    root = project(
        {
            "go.mod": "module m\n",
            "a.go": "package a\n\nfunc Use() { helper() }\n",
            "a_test.go": "package a\n\nfunc helper() {}\n",
            "b.go": "package a\n\nfunc helper2() { Use() }\n",
        }
    )
    index = service_for(root).index(str(root))
    assert index.resolver.direct("a.go").files == ()
    assert index.resolver.direct("b.go").files == ("a.go",)


# --- C# namespaces --------------------------------------------------------------------------
def test_a_csharp_partial_class_is_one_class_across_its_files() -> None:
    root = LANGS / "csharp"
    index = service_for(root).index(str(root))
    assert index.resolver.declared("Shop.Billing.Invoice") == (
        "src/Shop/Billing/Invoice.Totals.cs",
        "src/Shop/Billing/Invoice.cs",
    )
    program = index.resolver.direct("src/Shop/App/Program.cs")
    assert [(e.target, e.rule) for e in program.edges] == [
        ("src/Shop/Billing/Invoice.Totals.cs", "wildcard"),
        ("src/Shop/Billing/Invoice.cs", "wildcard"),
    ]


def test_csharp_never_guesses_a_type_it_has_no_using_for(project: Project) -> None:
    root = project(
        {
            "A/Widget.cs": "namespace A { public class Widget {} }\n",
            "B/Use.cs": "namespace B { class Use { Widget w; A.Widget x; } }\n",
            "C/Use.cs": "namespace C { class Use { Widget w; } }\n",
            "A/Sub/Near.cs": "namespace A.Sub { class Near { Widget w; } }\n",
        }
    )
    index = service_for(root).index(str(root))
    assert [(e.target, e.rule) for e in index.resolver.direct("B/Use.cs").edges] == [
        ("A/Widget.cs", "qualified")
    ]
    assert index.resolver.direct("C/Use.cs").files == ()
    # an enclosing namespace's types are visible
    assert index.resolver.direct("A/Sub/Near.cs").files == ("A/Widget.cs",)


# --- Rust modules -----------------------------------------------------------------------------
def test_rust_mod_files_super_chains_and_crate_names(project: Project) -> None:
    root = project(
        {
            "app/Cargo.toml": '[package]\nname = "my-app"\n',
            "app/src/lib.rs": "pub mod a;\n",
            "app/src/a.rs": "pub mod b;\npub struct Top;\n",
            "app/src/a/b.rs": "pub mod c;\n",
            "app/src/a/b/c.rs": "use super::super::Top;\npub fn f(_: Top) {}\n",
            "app/src/main.rs": "fn main() { my_app::a::b::c::f(my_app::a::Top); }\n",
            "broken/Cargo.toml": "[package\nname=",
            "broken/src/lib.rs": "use crate::missing::Thing;\nuse std::fmt;\n",
        }
    )
    index = service_for(root).index(str(root))
    assert index.resolver.direct("app/src/a.rs").files == ("app/src/a/b.rs",)
    assert index.resolver.direct("app/src/a/b.rs").files == ("app/src/a/b/c.rs",)
    assert index.resolver.direct("app/src/a/b/c.rs").files == ("app/src/a.rs",)
    assert sorted(index.resolver.direct("app/src/main.rs").files) == [
        "app/src/a.rs",
        "app/src/a/b/c.rs",
    ]
    assert index.resolver.direct("broken/src/lib.rs").files == ()
