"""The project tree: directories first, then files, each file with its dependencies."""

from __future__ import annotations

from dataclasses import dataclass, field

from context_server.core.index import ProjectIndex
from context_server.core.walk import DirectoryEntry, sort_key


@dataclass(slots=True)
class TreeNode:
    """A directory or a file; a file's dependencies are root-relative paths, sorted."""

    name: str
    relative: str
    kind: str
    dependencies: list[str] = field(default_factory=list)
    children: list[TreeNode] = field(default_factory=list)

    @property
    def is_directory(self) -> bool:
        """Whether this node is a directory."""
        return self.kind == "directory"


def build_tree(index: ProjectIndex, depth: int) -> TreeNode:
    """The tree of ``index``; each source file lists the files within ``depth`` hops."""

    # depth 1: every file's direct dependencies, sorted, in one pass over the graph
    direct = index.resolver.graph.every_files(sort_key) if depth == 1 else {}

    def dependencies(relative: str) -> list[str]:
        if depth == 1:
            return direct.get(relative, [])
        reached = [path for path, _ in index.resolver.dependencies(relative, depth)]
        return sorted(reached, key=sort_key)

    def directory(entry: DirectoryEntry) -> TreeNode:
        node = TreeNode(entry.name, entry.relative, "directory")
        node.children.extend(directory(sub) for sub in entry.directories)
        node.children.extend(
            TreeNode(item.name, item.relative, "file", dependencies(item.relative))
            for item in entry.files
        )
        return node

    return directory(index.listing.root)


def flatten(root: TreeNode) -> list[tuple[int, TreeNode]]:
    """Every node in pre-order with its nesting level (the root is level 0)."""
    out: list[tuple[int, TreeNode]] = []
    stack = [(0, root)]
    while stack:
        level, node = stack.pop()
        out.append((level, node))
        stack.extend((level + 1, child) for child in reversed(node.children))
    return out


@dataclass(frozen=True, slots=True)
class StoredTree:
    """The tree of an index at one depth, flattened for paging, with its edge count."""

    root: TreeNode
    nodes: list[tuple[int, TreeNode]]
    edges: int


def stored_tree(index: ProjectIndex, depth: int) -> StoredTree:
    """The tree of ``index`` at ``depth``, built once per index and depth: a warm page is
    cut from it, never rebuilt."""

    def build() -> StoredTree:
        root = build_tree(index, depth)
        nodes = flatten(root)
        return StoredTree(root, nodes, sum(len(node.dependencies) for _, node in nodes))

    return index.derived(f"tree {depth}", build)
