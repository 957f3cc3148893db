"""The project tree: directories first, then files, each file with its dependencies."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import overload

from context_server.core.index import ProjectIndex
from context_server.core.walk import DirectoryEntry, FileEntry, sort_key


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


class _PreOrder(Sequence[tuple[int, TreeNode]]):
    """The nodes of a depth-1 tree in pre-order with their levels, made as far as a page
    asks (a first page of a 100,000-file project makes 500 nodes, not 140,000), each
    directory's children left out (a page is rendered from its lines). Safe to share
    between threads."""

    def __init__(self, index: ProjectIndex) -> None:
        self._graph = index.resolver.graph
        self._made: list[tuple[int, TreeNode]] = []
        self._stack: list[tuple[int, DirectoryEntry | FileEntry]] = [(0, index.listing.root)]
        self._count = -1
        self._root = index.listing.root
        self._lock = threading.Lock()

    def _node(self, item: DirectoryEntry | FileEntry) -> TreeNode:
        if isinstance(item, DirectoryEntry):
            return TreeNode(item.name, item.relative, "directory")
        found = self._graph.files(item.relative)
        return TreeNode(item.name, item.relative, "file", sorted(found, key=sort_key))

    def _make(self, count: int) -> None:
        """Make the nodes up to ``count`` (all of them for a negative one)."""
        with self._lock:
            made, stack = self._made, self._stack
            while stack and (count < 0 or len(made) < count):
                level, item = stack.pop()
                made.append((level, self._node(item)))
                if isinstance(item, DirectoryEntry):
                    stack.extend((level + 1, entry) for entry in reversed(item.files))
                    stack.extend((level + 1, entry) for entry in reversed(item.directories))

    def __len__(self) -> int:
        with self._lock:
            if self._count < 0:
                count, stack = 0, [self._root]
                while stack:
                    entry = stack.pop()
                    count += 1 + len(entry.files)
                    stack.extend(entry.directories)
                self._count = count
            return self._count

    @overload
    def __getitem__(self, at: int) -> tuple[int, TreeNode]: ...

    @overload
    def __getitem__(self, at: slice) -> list[tuple[int, TreeNode]]: ...

    def __getitem__(self, at: int | slice) -> tuple[int, TreeNode] | list[tuple[int, TreeNode]]:
        if isinstance(at, slice):
            _, stop, step = at.indices(len(self))
            self._make(stop if step > 0 else -1)
            return self._made[at]
        self._make(-1 if at < 0 else at + 1)
        return self._made[at]


class StoredTree:
    """The tree of an index at one depth, flattened for paging (``nodes``), with its edge
    count; ``root``, the whole tree, is made when first asked for."""

    def __init__(
        self,
        nodes: Sequence[tuple[int, TreeNode]],
        edges: int,
        root: Callable[[], TreeNode],
    ) -> None:
        self.nodes = nodes
        self.edges = edges
        self._root = root
        self._lock = threading.Lock()
        self._made: TreeNode | None = None

    @property
    def top(self) -> TreeNode:
        """The root's node, without its children (the first of ``nodes``)."""
        return self.nodes[0][1]

    @property
    def root(self) -> TreeNode:
        """The whole tree (see :func:`build_tree`)."""
        with self._lock:
            if self._made is None:
                self._made = self._root()
            return self._made


def stored_tree(index: ProjectIndex, depth: int) -> StoredTree:
    """The tree of ``index`` at ``depth``, kept once per index and depth: a warm page is
    cut from it, never rebuilt. At depth 1 its nodes are made as pages ask for them (a
    file's dependencies are its row of the packed graph), and its edges are the graph's."""

    def build() -> StoredTree:
        if depth == 1:
            # every edge of the graph is one dependency of one listed source file
            edges = len(index.resolver.graph.targets)
            return StoredTree(_PreOrder(index), edges, lambda: build_tree(index, depth))
        whole = build_tree(index, depth)
        flat = flatten(whole)
        return StoredTree(flat, sum(len(node.dependencies) for _, node in flat), lambda: whole)

    return index.derived(f"tree {depth}", build)
