"""The anchor's finder and traversal edge cases, as they apply to a parser-based resolver."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from conftest import direct, service_for

Project = Callable[[Mapping[str, str | bytes]], Path]


def deps(root: Path, target: str, depth: int) -> list[str]:
    index = service_for(root).index(str(root))
    return [path for path, _ in index.resolver.dependencies(target, depth)]


def test_depth_below_one_is_refused(project: Project) -> None:
    root = project({"A.java": "class A {}"})
    index = service_for(root).index(str(root))
    with pytest.raises(ValueError, match="positive"):
        index.resolver.dependencies("A.java", 0)


def test_a_class_never_depends_on_itself(project: Project) -> None:
    root = project({"A.java": "class A { A self; }"})
    assert direct(root) == {"A.java": []}


def test_repeated_references_count_once_in_first_use_order(project: Project) -> None:
    root = project(
        {"A.java": "class A {}", "C.java": "class C {}", "B.java": "class B { C c; A a; C d; }"}
    )
    index = service_for(root).index(str(root))
    assert index.resolver.direct("B.java").files == ("C.java", "A.java")


def test_diamond_lists_the_shared_dependency_once(project: Project) -> None:
    root = project(
        {
            "A.java": "class A {}",
            "B.java": "class B { A a; }",
            "C.java": "class C { A a; }",
            "D.java": "class D { B b; C c; }",
        }
    )
    assert deps(root, "D.java", 3) == ["B.java", "C.java", "A.java"]


def test_depth_bounds_a_chain_and_bfs_order_is_nearest_first(project: Project) -> None:
    root = project(
        {
            "A.java": "class A {}",
            "B.java": "class B { A a; }",
            "C.java": "class C { B b; }",
            "D.java": "class D { C c; }",
        }
    )
    assert deps(root, "C.java", 1) == ["B.java"]
    assert deps(root, "C.java", 2) == ["B.java", "A.java"]
    assert deps(root, "D.java", 2) == ["C.java", "B.java"]


def test_a_cycle_terminates(project: Project) -> None:
    root = project({"A.java": "class A { B b; }", "B.java": "class B { A a; }"})
    assert deps(root, "A.java", 10) == ["B.java"]


def test_unknown_names_are_ignored(project: Project) -> None:
    root = project({"A.java": "class A { Unknown u; }"})
    assert direct(root) == {"A.java": []}


def test_comments_strings_chars_and_text_blocks_name_nothing(project: Project) -> None:
    root = project(
        {
            "A.java": "class A {}",
            "Q.java": "class Q {}",
            "B.java": (
                'class B {\n  /* A */ // A\n  /*\n A\n */\n  String s = "A";\n'
                '  char c = \'A\';\n  String t = """\n    A\n    """;\n  Q real;\n}\n'
            ),
            "K.kt": 'class K { val s = """A"""; val q: Q? = null }',
        }
    )
    result = direct(root)
    assert result["B.java"] == ["Q.java"]
    assert result["K.kt"] == ["Q.java"]


def test_a_kotlin_string_template_is_code(project: Project) -> None:
    root = project({"Foo.kt": "class Foo", "Bar.kt": 'class Bar { val s = "${Foo()}" }'})
    assert direct(root)["Bar.kt"] == ["Foo.kt"]


def test_block_comment_before_package_and_import_keeps_them(project: Project) -> None:
    root = project(
        {
            "a/Foo.java": "package a; public class Foo {}",
            "b/Foo.java": "package b; public class Foo {}",
            "x/User.java": (
                "/* licence\n header */ package x; /* c\n*/ import a.Foo; class User { Foo f; }"
            ),
        }
    )
    index = service_for(root).index(str(root))
    assert index.sources["x/User.java"].package == "x"
    assert index.resolver.direct("x/User.java").files == ("a/Foo.java",)


def test_adjacent_names_around_a_comment_stay_separate(project: Project) -> None:
    root = project(
        {
            "Foo.java": "class Foo {}",
            "FooBar.java": "class FooBar {}",
            "U.java": "class U { Foo/* x */ f; }",
        }
    )
    assert direct(root)["U.java"] == ["Foo.java"]


def test_resolution_order_import_then_package_then_wildcard_then_unique(project: Project) -> None:
    root = project(
        {
            "p/Foo.java": "package p; public class Foo {}",
            "q/Foo.java": "package q; public class Foo {}",
            "r/Bar.java": "package r; public class Bar {}",
            "s/Only.java": "package s; public class Only {}",
            "p/ByImport.java": "package p; import q.Foo; class ByImport { Foo f; }",
            "p/ByPackage.java": "package p; class ByPackage { Foo f; }",
            "t/ByWildcard.java": (
                "package t; import r.*; import q.*; class ByWildcard { Bar b; Foo f; }"
            ),
            "t/ByUnique.java": "package t; class ByUnique { Only o; Foo ambiguous; }",
        }
    )
    result = direct(root)
    assert result["p/ByImport.java"] == ["q/Foo.java"]
    assert result["p/ByPackage.java"] == ["p/Foo.java"]
    assert result["t/ByWildcard.java"] == ["q/Foo.java", "r/Bar.java"]
    assert result["t/ByUnique.java"] == ["s/Only.java"]


def test_an_import_of_an_outside_class_does_not_fall_to_a_project_namesake(
    project: Project,
) -> None:
    # The anchor resolves this to the project's Map (a pinned false positive); we do not.
    root = project(
        {"Map.java": "class Map {}", "U.java": "import java.util.Map; class U { Map m; }"}
    )
    assert direct(root)["U.java"] == []


def test_qualified_uses_constants_and_nested_names(project: Project) -> None:
    root = project(
        {
            "a/Map.java": "package a; public class Map { public static class Entry {} }",
            "a/Const.java": "package a; public class Const { public static final int MAX = 1; }",
            "b/U.java": "package b; import a.Map; class U { Map.Entry e; int m = a.Const.MAX; }",
            "b/V.java": "package b; import a.Map.Entry; class V { Entry e; }",
        }
    )
    result = direct(root)
    assert result["b/U.java"] == ["a/Const.java", "a/Map.java"]
    assert result["b/V.java"] == ["a/Map.java"]


def test_default_package_and_kotlin_scala_without_semicolons(project: Project) -> None:
    root = project(
        {
            "A.java": "class A {}",
            "B.java": "class B { A a; }",
            "k/Foo.kt": "package k\nclass Foo",
            "k2/Use.kt": "package k2\nimport k.Foo\nclass Use(val f: Foo)",
            "s/Bar.scala": "package s\nclass Bar",
            "s2/Use2.scala": "package s2\nimport s.Bar\nclass Use2(b: Bar)",
        }
    )
    result = direct(root)
    assert result["B.java"] == ["A.java"]
    assert result["k2/Use.kt"] == ["k/Foo.kt"]
    assert result["s2/Use2.scala"] == ["s/Bar.scala"]


def test_cr_only_line_endings_and_a_bom_keep_package_and_imports(project: Project) -> None:
    root = project(
        {
            "a/Foo.java": "package a; public class Foo {}",
            "b/Foo.java": "package b; public class Foo {}",
            "x/Cr.java": "package x;\rimport a.Foo;\rclass Cr { Foo f; }\r",
            "x/Bom.java": "\ufeffpackage x; import b.Foo; class Bom { Foo f; }",
        }
    )
    index = service_for(root).index(str(root))
    assert index.sources["x/Bom.java"].package == "x"
    assert index.resolver.direct("x/Cr.java").files == ("a/Foo.java",)
    assert index.resolver.direct("x/Bom.java").files == ("b/Foo.java",)


def test_duplicate_qualified_names_resolve_to_the_first_sorted_path(project: Project) -> None:
    root = project(
        {
            "z/p/Dup.java": "package p; public class Dup {}",
            "a/p/Dup.java": "package p; public class Dup {}",
            "m/p/User.java": "package p; class User { Dup d; }",
        }
    )
    for _ in range(3):
        assert direct(root)["m/p/User.java"] == ["a/p/Dup.java"]


def test_scala_imports_wildcard_braces_and_renames(project: Project) -> None:
    root = project(
        {
            "a/Foo.scala": "package a\nclass Foo\nclass Baz",
            "b/Bar.scala": "package b\nclass Bar",
            "c/Use.scala": "package c\nimport a._\nimport b.{Bar => B}\nclass Use(f: Foo, b: B)",
        }
    )
    assert direct(root)["c/Use.scala"] == ["a/Foo.scala", "b/Bar.scala"]


def test_python_relative_imports_and_module_attributes(project: Project) -> None:
    root = project(
        {
            "app/__init__.py": "",
            "app/core/__init__.py": "from .engine import Engine\n",
            "app/core/engine.py": "class Engine:\n    pass\n",
            "app/web.py": "from .core import engine\n\nx = engine.Engine()\n",
            "app/cli.py": "from app.core.engine import Engine as E\n\nE()\n",
        }
    )
    result = direct(root)
    assert result["app/core/__init__.py"] == ["app/core/engine.py"]
    assert result["app/web.py"] == ["app/core/engine.py"]
    assert result["app/cli.py"] == ["app/core/engine.py"]


def test_kotlin_wildcard_and_alias_and_java_static_wildcard(project: Project) -> None:
    root = project(
        {
            "a/Util.java": "package a; public class Util { public static int one() { return 1; } }",
            "a/Shape.java": "package a; public interface Shape {}",
            "k/Use.kt": (
                "package k\nimport a.*\nimport a.Util as U\nclass Use : Shape { val x = U.one() }"
            ),
            "b/Static.java": "package b; import static a.Util.*; class Static { int y = one(); }",
        }
    )
    result = direct(root)
    assert result["k/Use.kt"] == ["a/Shape.java", "a/Util.java"]
    assert result["b/Static.java"] == ["a/Util.java"]


def test_scala_package_with_a_body_and_python_header_lines(project: Project) -> None:
    root = project(
        {
            "a/Foo.scala": "package a\nclass Foo",
            "b/Bar.scala": "package b {\n  import a.Foo\n  class Bar(f: Foo)\n}\n",
            "app/__init__.py": "",
            "app/models.py": "class User:\n    pass\n",
            "app/views.py": (
                '"""Views."""\nfrom __future__ import annotations\n# a comment\n'
                "from .models import User\n\nCURRENT = User()\n"
            ),
        }
    )
    index = service_for(root).index(str(root))
    assert [d.qualified_name for d in index.sources["b/Bar.scala"].declarations] == ["b.Bar"]
    result = direct(root)
    assert result["b/Bar.scala"] == ["a/Foo.scala"]
    assert result["app/views.py"] == ["app/models.py"]
