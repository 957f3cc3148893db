"""The tools called directly: answers, structured content and the issue's bad inputs."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from conftest import CORPUS, call, tools_for
from mcp_common import ToolContext

Project = Callable[[Mapping[str, str | bytes]], Path]

SMALL = {
    "pkg/A.java": "package pkg; public class A { }",
    "pkg/B.java": "package pkg; public class B { A a; }",
    "pkg/C.java": "package pkg; public class C { B b; }",
    "README.md": "# readme\n",
}


def snapshot(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_project_tree_markdown_default(project: Project) -> None:
    root = project(SMALL)
    result = call(tools_for(root)["project_tree"], {"path": str(root)})
    assert not result.is_error
    assert "4 files, 3 source files, 2 dependency edges at depth 1." in result.text
    assert "    - `B.java`\n      - depends on: `pkg/A.java`\n" in result.text
    assert result.structured is not None
    assert result.structured["root"] == "."
    assert result.structured["nodes"][0] == {"path": ".", "type": "directory", "dependencies": []}


@pytest.mark.parametrize(
    ("format_name", "start"),
    [("text", "[dir] proj\n"), ("json", '{"name":"proj"'), ("dot", "digraph project {\n")],
)
def test_project_tree_formats(project: Project, format_name: str, start: str) -> None:
    root = project(SMALL)
    result = call(tools_for(root)["project_tree"], {"path": ".", "format": format_name})
    assert result.text.startswith(start)


def test_project_tree_depth_two_and_mermaid(project: Project) -> None:
    root = project(SMALL)
    result = call(tools_for(root)["project_tree"], {"path": ".", "format": "mermaid", "depth": 2})
    assert '  n0["pkg/B.java"] --> n1["pkg/A.java"]\n' in result.text
    assert '  n2["pkg/C.java"] --> n1["pkg/A.java"]\n' in result.text


def test_project_tree_pages(project: Project) -> None:
    root = project(SMALL)
    tool = tools_for(root)["project_tree"]
    first = call(tool, {"path": ".", "limit": 2})
    assert first.structured is not None
    assert first.structured["page"] == {
        "total": 6,
        "offset": 0,
        "limit": 2,
        "returned": 2,
        "nextOffset": 2,
    }
    assert "(showing 1-2 of 6; pass offset=2 for more)" in first.text
    second = call(tool, {"path": ".", "limit": 2, "offset": 2, "format": "json"})
    tree = json.loads(second.text)
    assert [c["name"] for c in tree["children"][0]["children"]] == ["A.java", "B.java"]


def test_find_context_with_alias_budget_and_source(project: Project) -> None:
    root = project(SMALL)
    tool = tools_for(root)["find_context"]
    result = call(tool, {"path": ".", "class_name": "C", "depth": 2, "includeSource": True})
    assert result.structured is not None
    assert [d["path"] for d in result.structured["dependencies"]] == ["pkg/B.java", "pkg/A.java"]
    assert [d["level"] for d in result.structured["dependencies"]] == [1, 2]
    assert result.structured["dependencies"][0]["source"] == SMALL["pkg/B.java"]
    assert "```java\npackage pkg; public class B { A a; }\n```" in result.text
    first_cost = result.structured["dependencies"][0]["tokens"]
    budgeted = call(
        tool, {"path": ".", "className": "pkg.C", "depth": 2, "tokenBudget": first_cost}
    )
    assert budgeted.structured is not None
    assert [d["path"] for d in budgeted.structured["dependencies"]] == ["pkg/B.java"]
    assert [o["path"] for o in budgeted.structured["omitted"]] == ["pkg/A.java"]
    tight = call(tool, {"path": ".", "className": "C", "tokenBudget": 1})
    assert tight.structured is not None
    assert tight.structured["dependencies"] == []
    assert [o["path"] for o in tight.structured["omitted"]] == ["pkg/B.java"]
    assert "No dependency fits the 1 token budget: the nearest, `pkg/B.java`" in tight.text
    for spelling in ("pkg/C.java", "./pkg/C.java", str(root / "pkg" / "C.java"), "C.java"):
        by_path = call(tool, {"path": ".", "className": spelling, "tokenizer": "subword"})
        assert by_path.structured is not None
        assert by_path.structured["target"]["path"] == "pkg/C.java"


def test_find_context_reports_ambiguity_and_duplicates() -> None:
    tool = tools_for(CORPUS)["find_context"]
    result = call(tool, {"path": ".", "className": "Ambiguous"})
    assert result.structured is not None
    assert result.structured["ambiguous"] == [
        {
            "name": "Config",
            "candidates": ["java/com/shop/a/Config.java", "java/com/shop/b/Config.java"],
        }
    ]
    assert "ambiguous" in result.text
    duplicate = call(tool, {"path": ".", "className": "Config"})
    assert duplicate.structured is not None
    assert duplicate.structured["target"]["path"] == "java/com/shop/a/Config.java"
    assert duplicate.structured["otherMatches"] == ["java/com/shop/b/Config.java"]


def test_estimate_tokens_puts_the_target_first(project: Project) -> None:
    root = project({"A.java": "class A { }", "B.java": "class B { A a; }"})
    tool = tools_for(root)["estimate_tokens"]
    result = call(tool, {"path": ".", "className": "B", "tokenizer": "subword"})
    assert result.structured == {
        "target": "B.java",
        "tokenizer": "subword",
        "depth": 1,
        "total": 13,
        "files": [
            {"path": "B.java", "role": "target", "level": 0, "tokens": 8},
            {"path": "A.java", "role": "dependency", "level": 1, "tokens": 5},
        ],
        "page": {"total": 2, "offset": 0, "limit": 500, "returned": 2, "nextOffset": None},
    }


def test_okf_bundle_is_returned_and_nothing_is_written(project: Project) -> None:
    root = project(SMALL)
    before = snapshot(root)
    result = call(tools_for(root)["okf_bundle"], {"path": ".", "language": "java"})
    assert result.structured is not None
    assert result.structured["okfVersion"] == "0.2"
    assert [d["path"] for d in result.structured["documents"]] == [
        "index.md",
        "pkg/index.md",
        "pkg/A.java.md",
        "pkg/B.java.md",
        "pkg/C.java.md",
        "README.md.md",
    ]
    assert snapshot(root) == before


def test_progress_is_reported_while_indexing(project: Project) -> None:
    root = project({f"C{n}.java": f"class C{n} {{}}" for n in range(401)})
    seen: list[tuple[float, float | None, str | None]] = []
    context = ToolContext(lambda done, total, message: seen.append((done, total, message)))
    call(tools_for(root)["project_tree"], {"path": "."}, context)
    assert seen == [
        (200, 401, "indexed 200 of 401 source files"),
        (400, 401, "indexed 400 of 401 source files"),
        (401, 401, "indexed 401 of 401 source files"),
    ]


@pytest.mark.parametrize(
    ("tool_name", "arguments", "code", "fragment"),
    [
        ("find_context", {"path": ".", "className": "Missing"}, "not_found", "class not found"),
        ("find_context", {"path": "."}, "invalid_argument", "missing required argument"),
        ("estimate_tokens", {"path": ".", "className": ""}, "invalid_argument", "className"),
        ("project_tree", {}, "invalid_argument", "missing required argument: path"),
        ("project_tree", {"path": "/etc"}, "access_denied", "outside the allowed"),
        ("project_tree", {"path": "../"}, "access_denied", "'..'"),
        ("project_tree", {"path": "nope"}, "not_found", "does not exist"),
        ("project_tree", {"path": "pkg/A.java"}, "invalid_argument", "not a directory"),
        ("project_tree", {"path": ".", "depth": 0}, "invalid_argument", "between 1 and 10"),
        ("okf_bundle", {"path": ".", "depth": 11}, "invalid_argument", "between 1 and 10"),
        ("find_context", {"path": ".", "className": "A", "depth": "2.0"}, "invalid_argument", ""),
        ("project_tree", {"path": ".", "language": "cobol"}, "invalid_argument", "auto, java"),
        ("project_tree", {"path": ".", "format": "yaml"}, "invalid_argument", "markdown, text"),
        (
            "estimate_tokens",
            {"path": ".", "className": "A", "tokenizer": "gpt2"},
            "invalid_argument",
            "",
        ),
        ("find_context", {"path": ".", "className": "A", "tokenBudget": 0}, "invalid_argument", ""),
        ("project_tree", {"path": ".", "colour": "red"}, "invalid_argument", "unknown argument"),
    ],
)
def test_bad_input_is_a_clear_error_and_writes_nothing(
    project: Project, tool_name: str, arguments: dict[str, object], code: str, fragment: str
) -> None:
    root = project(SMALL)
    before = snapshot(root)
    result = call(tools_for(root)[tool_name], arguments)
    assert result.is_error
    assert result.code == code
    assert fragment in result.text
    assert str(root) not in result.text
    assert snapshot(root) == before


def test_binary_and_huge_sources_are_reported_in_the_answer(project: Project) -> None:
    root = project(
        {
            "A.java": "class A { }",
            "Blob.java": b"\x00\x00\x00\xff",
            "Huge.kt": "val x = 1\n" * 1_100_000,
            "Latin.scala": 'object L { val s = "\xe9" }'.encode("latin-1"),
        }
    )
    result = call(tools_for(root)["project_tree"], {"path": "."})
    assert not result.is_error
    assert result.structured is not None
    reasons = {p["path"]: p["reason"] for p in result.structured["problems"]}
    assert set(reasons) == {"Blob.java", "Huge.kt", "Latin.scala"}
    assert "## Skipped" in result.text


def test_empty_project_is_an_honest_empty_answer(project: Project) -> None:
    root = project({})
    result = call(tools_for(root)["project_tree"], {"path": "."})
    assert not result.is_error
    assert "0 files, 0 source files" in result.text
    assert "holds no files" in result.text
    missing = call(tools_for(root)["find_context"], {"path": ".", "className": "A"})
    assert missing.is_error


def test_tree_order_and_a_one_language_tree_still_lists_other_files(project: Project) -> None:
    root = project(
        {
            "b/x.kt": "class X",
            "Z/y.kt": "class Y(val x: X)",
            "a.java": "class Lower {}",
            "A.java": "class Upper {}",
            ".hidden.kt": "class Hidden",
        }
    )
    tool = tools_for(root)["project_tree"]
    result = call(tool, {"path": ".", "format": "text", "language": "  Kotlin  "})
    assert result.text == (
        "[dir] proj\n"
        "  [dir] Z\n"
        "    [file] y.kt\n"
        "      -> b/x.kt\n"
        "  [dir] b\n"
        "    [file] x.kt\n"
        "  [file] .hidden.kt\n"
        "  [file] A.java\n"
        "  [file] a.java\n"
    )
