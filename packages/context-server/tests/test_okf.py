"""OKF bundles: layout, names, content and every conformance condition of the reference."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path

import yaml
from conftest import service_for
from context_server.core.languages import LANGUAGES
from context_server.core.okf import OkfDocument, build_bundle, concept_name
from context_server.core.tree import build_tree

Project = Callable[[Mapping[str, str | bytes]], Path]
AT = datetime(2026, 8, 3, 10, 15, 30, 123456, tzinfo=UTC)


def bundle(root: Path, depth: int = 1) -> list[OkfDocument]:
    index = service_for(root).index(str(root))
    return build_bundle(build_tree(index, depth), LANGUAGES, "context-server/test", AT)


def conformance_problems(documents: list[OkfDocument]) -> list[str]:
    """The reference's conformance conditions 1-7 over one bundle."""
    problems: list[str] = []
    paths = [d.path for d in documents]
    if len(paths) != len(set(paths)):
        problems.append("document paths are not unique")
    for document in documents:
        name = document.path.rsplit("/", 1)[-1]
        is_index = name == "index.md"
        lines = document.content.split("\n")
        if document.path == "index.md":
            if lines[:3] != ["---", 'okf_version: "0.2"', "---"]:
                problems.append("root index front matter is not exactly okf_version 0.2")
            continue
        if is_index:
            if lines[0] == "---":
                problems.append(f"{document.path}: nested index has front matter")
            continue
        if name == "log.md":
            problems.append(f"{document.path}: concept at a reserved name")
        if lines[0] != "---" or "---" not in lines[1:]:
            problems.append(f"{document.path}: no front matter block")
            continue
        header = yaml.safe_load("\n".join(lines[1 : lines.index("---", 1)]))
        if not str(header.get("type", "")).strip():
            problems.append(f"{document.path}: empty type")
        if "okf_version" in header:
            problems.append(f"{document.path}: okf_version outside the root index")
        at = header.get("generated", {}).get("at", "")
        parsed = datetime.fromisoformat(at.replace("Z", "+00:00"))
        if parsed.strftime("%Y-%m-%dT%H:%M:%SZ") != at:
            problems.append(f"{document.path}: generated.at {at!r} is not canonical")
        for target in re.findall(r"\]\(/([^)]*)\)", document.content):
            if target not in paths:
                problems.append(f"{document.path}: link to missing /{target}")
    return problems


def test_concept_names_never_claim_reserved_documents() -> None:
    assert concept_name("index") == "index.concept.md"
    assert concept_name("log") == "log.concept.md"
    assert concept_name("index.concept") == "index.concept.concept.md"
    assert concept_name("index.md") == "index.md.md"
    assert concept_name("README.md") == "README.md.md"


def test_layout_and_content(project: Project) -> None:
    root = project(
        {
            "pkg/A.java": "package pkg; public class A {}",
            "pkg/B.java": "package pkg; public class B { A a; }",
            "README.md": "# hi\n",
        }
    )
    documents = bundle(root)
    assert [d.path for d in documents] == [
        "index.md",
        "pkg/index.md",
        "pkg/A.java.md",
        "pkg/B.java.md",
        "README.md.md",
    ]
    by_path = {d.path: d.content for d in documents}
    assert by_path["pkg/B.java.md"] == (
        "---\n"
        "type: Java Source File\n"
        "title: B.java\n"
        "description: Java source file with 1 project dependency.\n"
        "resource: pkg/B.java\n"
        "tags:\n- source\n- java\n"
        "generated:\n  by: context-server/test\n  at: '2026-08-03T10:15:30Z'\n"
        "---\n\n# Dependencies\n\n* [`pkg/A.java`](/pkg/A.java.md)\n"
    )
    assert by_path["pkg/A.java.md"].endswith(
        "---\n\nThis file depends on no other file in the project.\n"
    )
    assert by_path["index.md"] == (
        '---\nokf_version: "0.2"\n---\n\n'
        "# Directories\n\n* [pkg](pkg/) - Directory holding 2 concepts.\n\n"
        "# Files\n\n* [README.md](README.md.md) - Project file README.md.\n\n"
    )
    assert by_path["pkg/index.md"].startswith("# Files\n\n* [A.java](A.java.md) - Java source")
    assert "type: Project File" in by_path["README.md.md"]
    assert "- file\n" in by_path["README.md.md"]


def test_empty_project_gives_only_the_root_index(project: Project) -> None:
    root = project({})
    assert [(d.path, d.content) for d in bundle(root)] == [
        (
            "index.md",
            '---\nokf_version: "0.2"\n---\n\n# Contents\n\nThis directory holds no concepts.\n',
        )
    ]


def test_reserved_names_and_kotlin(project: Project) -> None:
    root = project(
        {
            "index": "x",
            "log": "y",
            "index.md": "z",
            "index.concept": "w",
            "pom.xml": "<project/>",
            "k/Foo.kt": "package k\nclass Foo",
            "k/Bar.kt": "package k\nclass Bar(val f: Foo)",
            "notes.md": "Foo and Bar",
        }
    )
    documents = bundle(root)
    paths = [d.path for d in documents]
    assert paths[0] == "index.md"
    assert {"index.concept.md", "log.concept.md", "index.md.md", "index.concept.concept.md"} <= set(
        paths
    )
    kotlin = next(d.content for d in documents if d.path == "k/Bar.kt.md")
    assert "type: Kotlin Source File" in kotlin
    assert "- kotlin\n" in kotlin
    assert "[`k/Foo.kt`](/k/Foo.kt.md)" in kotlin
    assert conformance_problems(documents) == []


def test_conformance_over_the_labelled_corpus() -> None:
    from conftest import CORPUS

    documents = bundle(CORPUS, depth=2)
    assert len(documents) > 30
    assert conformance_problems(documents) == []


def test_a_value_needing_quotes_round_trips(project: Project) -> None:
    name = 'a: b # x "q" back\\slash.txt'
    root = project({name: "x"})
    document = next(d for d in bundle(root) if d.path != "index.md")
    header = document.content.split("---\n")[1]
    assert yaml.safe_load(header)["title"] == name
