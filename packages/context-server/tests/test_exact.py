"""Issue 16: the right class for a name, reasons kept, budgets filled, pages that fit whole."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path

from conftest import CORPUS, call, tools_for
from mcp_common.markdown import DEFAULT_MAX_OUTPUT_CHARS

Project = Callable[[Mapping[str, str | bytes]], Path]
SHAPES = CORPUS.parent / "corpus_shapes"


def test_a_simple_name_picks_the_top_level_main_class_and_lists_the_others() -> None:
    tool = tools_for(SHAPES)["find_context"]
    result = call(tool, {"path": ".", "className": "Request"})
    assert result.structured is not None
    # a nested data class in a test file also carries the name; the top-level one wins
    assert result.structured["target"]["path"] == "kotlin/src/main/kotlin/okhttp3/Request.kt"
    assert result.structured["target"]["symbol"] == "okhttp3.Request"
    assert result.structured["otherMatches"] == ["kotlin/src/test/kotlin/okhttp3/CallTest.kt"]
    assert "Also matched" in result.text
    assert "`kotlin/src/test/kotlin/okhttp3/CallTest.kt`" in result.text
    assert [d["path"] for d in result.structured["dependencies"]] == [
        "kotlin/src/main/kotlin/okhttp3/internal/-UtilJvm.kt"
    ]


def test_a_python_class_is_answered_for_its_own_lines_not_the_whole_module() -> None:
    tool = tools_for(SHAPES)["find_context"]
    command = call(tool, {"path": ".", "className": "Command"})
    assert command.structured is not None
    target = command.structured["target"]
    assert (target["path"], target["symbol"], target["lines"]) == (
        "python/cli/core.py",
        "cli.core.Command",
        [10, 12],
    )
    assert [d["path"] for d in command.structured["dependencies"]] == ["python/cli/parser.py"]
    assert "declaration `cli.core.Command` at lines 10-12" in command.text
    module = call(tool, {"path": ".", "className": "python/cli/core.py"})
    assert module.structured is not None
    assert "symbol" not in module.structured["target"]
    assert [d["path"] for d in module.structured["dependencies"]] == [
        "python/cli/formatting.py",
        "python/cli/parser.py",
    ]
    assert module.structured["target"]["tokens"] > target["tokens"]


def test_an_imported_top_level_function_links_its_declaring_files() -> None:
    tool = tools_for(SHAPES)["find_context"]
    result = call(tool, {"path": ".", "className": "RealCall"})
    assert result.structured is not None
    found = {d["path"]: (d["rule"], d["uses"]) for d in result.structured["dependencies"]}
    assert found == {
        "kotlin/src/main/kotlin/okhttp3/internal/-UtilCommon.kt": ("import", 2),
        "kotlin/src/main/kotlin/okhttp3/internal/-UtilJvm.kt": ("import", 1),
        "kotlin/src/main/kotlin/okhttp3/Request.kt": ("package", 1),
    }


def test_an_unknown_name_gets_close_names() -> None:
    result = call(tools_for(SHAPES)["find_context"], {"path": ".", "className": "Reqest"})
    assert result.is_error
    assert "class not found: Reqest; did you mean Request" in result.text


def test_a_skipped_file_is_named_with_its_reason(project: Project) -> None:
    root = project(
        {
            "Big.java": "class Big {}\n" + "//" + "x" * (2 * 1024 * 1024 + 100_000) + "\n",
            "Latin.java": 'class Latin { String s = "caf\xe9"; }'.encode("latin-1"),
            "Ok.java": "class Ok {}",
        }
    )
    tool = tools_for(root)["find_context"]
    big = call(tool, {"path": ".", "className": "Big"})
    assert big.is_error
    assert "`Big.java` was skipped: 2.1 MB is over the 2 MB limit for a source file" in big.text
    latin = call(tool, {"path": ".", "className": "Latin.java"})
    assert latin.is_error
    assert "`Latin.java` was skipped: not UTF-8" in latin.text


def test_the_budget_skips_a_large_file_and_keeps_the_smaller_ones(project: Project) -> None:
    big_body = " ".join(f"int f{n};" for n in range(3000))
    root = project(
        {
            "p/Big.java": f"package p; public class Big {{ {big_body} }}",
            "p/Small.java": "package p; public class Small { }",
            "p/Tiny.java": "package p; public class Tiny { }",
            # Big is used most, so it comes first, but it cannot fit the budget
            "p/T.java": "package p; class T { Big a; Big b; Big c; Small s; Tiny t; }",
        }
    )
    tool = tools_for(root)["find_context"]
    whole = call(tool, {"path": ".", "className": "T"})
    assert whole.structured is not None
    costs = {d["path"]: d["tokens"] for d in whole.structured["dependencies"]}
    assert list(costs) == ["p/Big.java", "p/Small.java", "p/Tiny.java"]
    budget = costs["p/Small.java"] + costs["p/Tiny.java"]
    assert costs["p/Big.java"] > budget
    fitted = call(tool, {"path": ".", "className": "T", "tokenBudget": budget})
    assert fitted.structured is not None
    assert [d["path"] for d in fitted.structured["dependencies"]] == ["p/Small.java", "p/Tiny.java"]
    assert fitted.structured["omitted"] == [{"path": "p/Big.java", "tokens": costs["p/Big.java"]}]
    assert f"`p/Big.java` ({costs['p/Big.java']})" in fitted.text


def test_documentation_only_imports_come_last(project: Project) -> None:
    root = project(
        {
            "a/Doc.java": "package a; public class Doc {}",
            "a/Used.java": "package a; public class Used {}",
            "a/Once.java": "package a; public class Once {}",
            "b/T.java": (
                "package b;\nimport a.Doc;\nimport a.Once;\nimport a.Used;\n"
                "/** See {@link Doc}. */\nclass T { Used u; Used v; Once o; }\n"
            ),
        }
    )
    result = call(tools_for(root)["find_context"], {"path": ".", "className": "T"})
    assert result.structured is not None
    assert [(d["path"], d["uses"]) for d in result.structured["dependencies"]] == [
        ("a/Used.java", 2),
        ("a/Once.java", 1),
        ("a/Doc.java", 0),
    ]
    assert "0 (import only)" in result.text


def _many_long_files(count: int) -> dict[str, str | bytes]:
    stem = "VeryLongGeneratedName" * 9
    return {f"src/{stem}{n:04d}.txt": "x" for n in range(count)}


def test_project_tree_pages_fit_the_cap_and_cover_every_node_once(project: Project) -> None:
    root = project(_many_long_files(700))
    tool = tools_for(root)["project_tree"]
    for format_name in ("json", "markdown"):
        seen: list[str] = []
        offset: int | None = 0
        pages = 0
        while offset is not None:
            args = {"path": ".", "format": format_name, "limit": 5000, "offset": offset}
            result = call(tool, args)
            assert result.structured is not None
            assert len(result.text) <= DEFAULT_MAX_OUTPUT_CHARS
            page = result.structured["page"]
            assert page["returned"] == len(result.structured["nodes"])
            seen += [node["path"] for node in result.structured["nodes"]]
            if format_name == "json":
                json.loads(result.text)  # every page is whole, valid JSON
            elif page["nextOffset"] is not None:
                assert f"pass offset={page['nextOffset']} for the next ones" in result.text
            offset = page["nextOffset"]
            pages += 1
        assert pages > 1
        assert len(seen) == len(set(seen)) == 702  # root, src/ and 700 files


def test_a_warm_page_is_the_page_that_fits_before_and_after_a_change(project: Project) -> None:
    """How many nodes fit the cap is kept with the index: the warm page is the same, and a
    change (longer names) makes the next page fit again, never overflow the cap."""
    root = project(_many_long_files(700))
    tool = tools_for(root)["project_tree"]
    args = {"path": ".", "limit": 5000}
    first = call(tool, args)
    assert call(tool, args).text == first.text
    assert first.structured is not None
    returned = first.structured["page"]["returned"]
    assert 1 < returned < 702
    for path in sorted((root / "src").iterdir())[:returned]:
        path.rename(path.with_name("Longer" * 5 + path.name))
    after = call(tool, args)
    assert after.structured is not None
    assert len(after.text) <= DEFAULT_MAX_OUTPUT_CHARS
    assert after.structured["page"]["returned"] < returned
    assert any("Longer" in node["path"] for node in after.structured["nodes"])


def test_find_context_pages_whole_sources_that_fit(project: Project) -> None:
    body = "\n".join(f"    int field{n} = {n};" for n in range(1500))
    files: dict[str, str | bytes] = {
        f"p/D{n}.java": f"package p;\npublic class D{n} {{\n{body}\n}}\n" for n in range(5)
    }
    files["p/T.java"] = "package p; class T { " + " ".join(f"D{n} d{n};" for n in range(5)) + " }"
    root = project(files)
    tool = tools_for(root)["find_context"]
    first = call(tool, {"path": ".", "className": "T", "includeSource": True})
    assert first.structured is not None
    page = first.structured["page"]
    assert len(first.text) <= DEFAULT_MAX_OUTPUT_CHARS
    assert 0 < page["returned"] < 5
    assert page["nextOffset"] == page["returned"]
    assert first.text.count("```java\n") == page["returned"]
    assert first.text.rstrip().endswith("```")  # the last source is whole
    rest = call(
        tool, {"path": ".", "className": "T", "includeSource": True, "offset": page["nextOffset"]}
    )
    assert rest.structured is not None
    paths = [d["path"] for d in first.structured["dependencies"]]
    paths += [d["path"] for d in rest.structured["dependencies"]]
    assert len(set(paths)) == len(paths)
    past = call(tool, {"path": ".", "className": "T", "offset": 50})
    assert past.structured is not None
    assert past.structured["dependencies"] == []
    assert "offset 50 is past the end" in past.text
