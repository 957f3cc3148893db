"""The five tree formats: markdown (default), text, json, dot and mermaid.

Each renders a pre-order run of ``(level, node)`` pairs, so a page of a large tree renders
the same way as the whole tree. Graph formats name nodes by root-relative path, so two files
with the same name stay two nodes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from context_server.core.tree import TreeNode, flatten

FORMATS: tuple[str, ...] = ("markdown", "text", "json", "dot", "mermaid")

Lines = Sequence[tuple[int, TreeNode]]


def serialize(format_name: str, root: TreeNode, lines: Lines | None = None) -> str:
    """Render ``lines`` (default: the whole tree under ``root``) in ``format_name``.

    An unknown format is a ``ValueError``.
    """
    if format_name not in FORMATS:
        raise ValueError(f"unknown format {format_name!r}; use one of {', '.join(FORMATS)}")
    selected = flatten(root) if lines is None else lines
    if format_name == "json":
        return to_json(root, selected)
    return _RENDERERS[format_name](selected)


def to_text(lines: Lines) -> str:
    """``[dir] name`` / ``[file] name`` lines, two spaces per level, ``-> dep`` below files."""
    out: list[str] = []
    for level, node in lines:
        pad = "  " * level
        out.append(f"{pad}[{'dir' if node.is_directory else 'file'}] {node.name}\n")
        out.extend(f"{pad}  -> {dependency}\n" for dependency in node.dependencies)
    return "".join(out)


def to_markdown(lines: Lines) -> str:
    """A nested list: ``- **dir**``, ``- `file` ``, ``- depends on: `dep` ``."""
    out: list[str] = []
    for level, node in lines:
        pad = "  " * level
        out.append(f"{pad}- **{node.name}**\n" if node.is_directory else f"{pad}- `{node.name}`\n")
        out.extend(f"{pad}  - depends on: `{dependency}`\n" for dependency in node.dependencies)
    return "".join(out)


def to_json(root: TreeNode, lines: Lines) -> str:
    """The nested tree as compact JSON: ``name, type, dependencies, children`` per node.

    Only the given nodes and their ancestors appear, so a page stays a valid tree (``lines``
    are a pre-order run of the tree under ``root``; only the root's own fields are read)."""

    def render(node: TreeNode) -> dict[str, Any]:
        return {
            "name": node.name,
            "type": node.kind,
            "dependencies": list(node.dependencies),
            "children": [],
        }

    top = render(root)
    made = {root.relative: top}
    for _, node in lines:
        if node.relative in made:
            continue
        parts = node.relative.split("/")
        parent = top
        for size in range(1, len(parts)):
            # an ancestor the page starts below: a directory, named by its path
            above = "/".join(parts[:size])
            found = made.get(above)
            if found is None:
                found = made[above] = {
                    "name": parts[size - 1],
                    "type": "directory",
                    "dependencies": [],
                    "children": [],
                }
                parent["children"].append(found)
            parent = found
        made[node.relative] = render(node)
        parent["children"].append(made[node.relative])
    return json.dumps(top, ensure_ascii=False, separators=(",", ":"))


def _edges(lines: Lines) -> list[tuple[str, str]]:
    return [
        (node.relative, dependency)
        for _, node in lines
        if not node.is_directory
        for dependency in node.dependencies
    ]


def to_dot(lines: Lines) -> str:
    """A Graphviz digraph of the dependency edges (directories are not drawn)."""

    def label(text: str) -> str:
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'

    body = "".join(f"  {label(a)} -> {label(b)};\n" for a, b in _edges(lines))
    return "digraph project {\n" + body + "}\n"


def to_mermaid(lines: Lines) -> str:
    """A Mermaid ``flowchart LR``; ids ``n0, n1, …`` in order of first appearance."""
    ids: dict[str, str] = {}

    def node(text: str) -> str:
        if text not in ids:
            ids[text] = f"n{len(ids)}"
        return f'{ids[text]}["{text.replace(chr(34), "#quot;")}"]'

    body = "".join(f"  {node(a)} --> {node(b)}\n" for a, b in _edges(lines))
    return "flowchart LR\n" + body


_RENDERERS = {
    "markdown": to_markdown,
    "text": to_text,
    "dot": to_dot,
    "mermaid": to_mermaid,
}
