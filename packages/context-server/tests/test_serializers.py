"""The five tree formats, pinned on a small tree."""

from __future__ import annotations

import json

import pytest
from context_server.core.serializers import serialize
from context_server.core.tree import TreeNode, flatten


def sample() -> TreeNode:
    """proj -> pkg -> A.java, B.java (B depends on A); then README.md."""
    a = TreeNode("A.java", "pkg/A.java", "file")
    b = TreeNode("B.java", "pkg/B.java", "file", ["pkg/A.java"])
    c = TreeNode('C "q".java', 'pkg/C "q".java', "file", ["pkg/A.java"])
    pkg = TreeNode("pkg", "pkg", "directory", children=[a, b, c])
    readme = TreeNode("README.md", "README.md", "file")
    return TreeNode("proj", "", "directory", children=[pkg, readme])


def test_text() -> None:
    assert serialize("text", sample()) == (
        "[dir] proj\n"
        "  [dir] pkg\n"
        "    [file] A.java\n"
        "    [file] B.java\n"
        "      -> pkg/A.java\n"
        '    [file] C "q".java\n'
        "      -> pkg/A.java\n"
        "  [file] README.md\n"
    )


def test_markdown() -> None:
    assert serialize("markdown", sample()) == (
        "- **proj**\n"
        "  - **pkg**\n"
        "    - `A.java`\n"
        "    - `B.java`\n"
        "      - depends on: `pkg/A.java`\n"
        '    - `C "q".java`\n'
        "      - depends on: `pkg/A.java`\n"
        "  - `README.md`\n"
    )


def test_json() -> None:
    text = serialize("json", sample())
    assert text.startswith(
        '{"name":"proj","type":"directory","dependencies":[],"children":[{"name":"pkg",'
        '"type":"directory","dependencies":[],"children":[{"name":"A.java","type":"file",'
        '"dependencies":[],"children":[]},{"name":"B.java","type":"file","dependencies":'
        '["pkg/A.java"],"children":[]}'
    )
    assert json.loads(text)["children"][1] == {
        "name": "README.md",
        "type": "file",
        "dependencies": [],
        "children": [],
    }


def test_json_page_keeps_the_path_to_the_root() -> None:
    root = sample()
    page = flatten(root)[3:4]  # only B.java
    assert json.loads(serialize("json", root, page)) == {
        "name": "proj",
        "type": "directory",
        "dependencies": [],
        "children": [
            {
                "name": "pkg",
                "type": "directory",
                "dependencies": [],
                "children": [
                    {
                        "name": "B.java",
                        "type": "file",
                        "dependencies": ["pkg/A.java"],
                        "children": [],
                    }
                ],
            }
        ],
    }


def test_dot() -> None:
    assert serialize("dot", sample()) == (
        "digraph project {\n"
        '  "pkg/B.java" -> "pkg/A.java";\n'
        '  "pkg/C \\"q\\".java" -> "pkg/A.java";\n'
        "}\n"
    )
    assert serialize("dot", TreeNode("e", "", "directory")) == "digraph project {\n}\n"


def test_mermaid() -> None:
    assert serialize("mermaid", sample()) == (
        "flowchart LR\n"
        '  n0["pkg/B.java"] --> n1["pkg/A.java"]\n'
        '  n2["pkg/C #quot;q#quot;.java"] --> n1["pkg/A.java"]\n'
    )
    assert serialize("mermaid", TreeNode("e", "", "directory")) == "flowchart LR\n"


def test_unknown_format_is_an_error() -> None:
    with pytest.raises(ValueError, match="markdown, text, json, dot, mermaid"):
        serialize("yaml", sample())
