"""Rust: module facts and resolution along the module tree of files.

The module tree follows the files as rustc reads them: ``mod x;`` in ``lib.rs``, ``main.rs``,
``mod.rs`` (or a crate root outside ``src``, such as ``tests/it.rs``) names ``x.rs`` or
``x/mod.rs`` beside it, and in ``a.rs`` names ``a/x.rs`` or ``a/x/mod.rs``. A path starts at
``crate`` (the crate root: ``src/lib.rs``, else ``src/main.rs``), ``super``, ``self``, the
name of a project crate (``[package] name`` or ``[lib] name`` of its ``Cargo.toml``, ``-``
read as ``_``), or a name the file binds (``use``, ``mod``); each segment naming a child
module descends, and the first that does not is an item of the module reached: that file
is the dependency (one that re-exports the item with ``pub use`` leads on to its source at
the next level). Other paths (``std``, dependencies) give no edge.
"""

from __future__ import annotations

import posixpath
import re
import tomllib
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence

import tree_sitter
import tree_sitter_rust

from context_server.core.facts import Declaration, EdgeSet, FileDependencies, Import, SourceFacts
from context_server.core.languages.base import Linker, SourceLanguage

RUST = SourceLanguage("rust", "Rust", (".rs",), tree_sitter_rust.language)

_TYPES = frozenset({"struct_item", "enum_item", "trait_item", "type_item", "union_item"})
_MEMBERS = frozenset({"function_item", "const_item", "static_item", "macro_definition"})
_CHAINS = frozenset({"scoped_identifier", "scoped_type_identifier"})
_PATH = re.compile(r"[\w]+(?:::[\w]+)+")
_ROOTS = ("lib.rs", "main.rs")
_ANCHORS = frozenset({"crate", "super", "self"})


def _query(language: SourceLanguage) -> tree_sitter.Query:
    return language.query(
        "(identifier) @name (type_identifier) @name (crate) @name (super) @name (self) @name"
    )


def _text(node: tree_sitter.Node | None) -> str:
    return (node.text or b"").decode("utf-8", "replace") if node is not None else ""


def _compact(node: tree_sitter.Node | None) -> str:
    return "".join(_text(node).split())


def module_path(relative: str) -> str:
    """The module a file is, as written in code: ``crate::billing::invoice`` for
    ``src/billing/invoice.rs``; a file outside ``src`` is a crate root of its own."""
    parts = relative.split("/")
    if "src" not in parts[:-1]:
        return "crate"
    inner = parts[len(parts) - 1 - parts[::-1].index("src") :][1:]
    stem = inner[-1].removesuffix(".rs")
    is_root = len(inner) == 1 and stem in {"lib", "main"}
    names = inner[:-1] if stem == "mod" or is_root else [*inner[:-1], stem]
    return "::".join(["crate", *names])


def extract_rust(
    language: SourceLanguage, text: str, module: str, span: tuple[int, int] | None = None
) -> SourceFacts:
    """The facts of the Rust file at root-relative path ``module``.

    Imports carry the ``use`` path (``::``-joined) in ``target`` and the name it binds in
    ``alias`` (``wildcard`` for ``*``); ``mod x;`` is the import ``self::x`` binding ``x``.
    References are the paths and names of code (the first segment of a path stands for
    it); declarations are named ``crate::<module>::<Name>``.
    """
    source = text.encode("utf-8")
    root = language.parser().parse(source).root_node
    scope = module_path(module)
    imports: list[Import] = []
    declarations: list[Declaration] = []
    skipped: list[tuple[int, int]] = []
    for child in root.named_children:
        if child.type == "use_declaration":
            imports.extend(_uses(child.child_by_field_name("argument"), []))
            skipped.append((child.start_byte, child.end_byte))
        elif child.type == "mod_item" and child.child_by_field_name("body") is None:
            child_module = _text(child.child_by_field_name("name"))
            imports.append(Import(f"self::{child_module}", child_module))
            skipped.append((child.start_byte, child.end_byte))
        else:
            declarations.extend(_declared(child, scope))
    names: list[str] = []
    for nodes in tree_sitter.QueryCursor(_query(language)).captures(root).values():
        for node in nodes:
            start = node.start_byte
            if span is not None and not span[0] <= start < span[1]:
                continue
            if any(first <= start < last for first, last in skipped):
                continue
            name = _reference(node)
            if name:
                names.append(name)
    counts = Counter(names)
    return SourceFacts(
        language=language.name,
        package=scope,
        imports=tuple(imports),
        declarations=tuple(declarations),
        local_names=frozenset(d.simple_name for d in declarations),
        references=tuple(counts),
        module=module,
        uses=tuple(counts.values()),
    )


def _uses(node: tree_sitter.Node | None, prefix: list[str]) -> Iterator[Import]:
    """Flatten a ``use`` tree into one import per name it binds."""
    if node is None:
        return
    kind = node.type
    if kind == "use_as_clause":
        path = [*prefix, *_compact(node.child_by_field_name("path")).split("::")]
        yield Import("::".join(path), _text(node.child_by_field_name("alias")))
    elif kind == "scoped_use_list":
        base = _compact(node.child_by_field_name("path"))
        yield from _uses(node.child_by_field_name("list"), [*prefix, *base.split("::")])
    elif kind == "use_list":
        for child in node.named_children:
            yield from _uses(child, prefix)
    elif kind == "use_wildcard":
        inner = next(iter(node.named_children), None)
        path = [*prefix, *(_compact(inner).split("::") if inner is not None else [])]
        yield Import("::".join(path), None, True)
    else:
        written = _compact(node).split("::")
        if written == ["self"] and prefix:
            yield Import("::".join(prefix), prefix[-1])
        else:
            path = [*prefix, *written]
            yield Import("::".join(path), path[-1])


def _reference(node: tree_sitter.Node) -> str | None:
    """A whole path at its first segment, nothing at a later one, else the name."""
    parent = node.parent
    best: str | None = None
    current = parent
    while current is not None and current.type in _CHAINS:
        if current.start_byte != node.start_byte:
            return None
        compact = _compact(current)
        if _PATH.fullmatch(compact):
            best = compact
        current = current.parent
    if best is not None:
        return best
    if parent is not None and parent.type.endswith("_item"):
        named = parent.child_by_field_name("name")
        if named is not None and named.id == node.id:
            return None  # a declaration's own name (a struct literal's name is a use)
    return _text(node)


def _declared(node: tree_sitter.Node, scope: str) -> Iterator[Declaration]:
    name = _text(node.child_by_field_name("name"))
    if not name:
        return
    kind = "type" if node.type in _TYPES else "member" if node.type in _MEMBERS else None
    if kind is None:
        return
    yield Declaration(
        name,
        f"{scope}::{name}",
        kind,
        False,
        (node.start_point[0] + 1, node.end_point[0] + 1),
        (node.start_byte, node.end_byte),
    )


class RustProject:
    """Resolves ``use`` and ``mod`` paths of the project's Rust files to files."""

    def __init__(self, sources: Mapping[str, SourceFacts], configs: Mapping[str, bytes]) -> None:
        self._files = frozenset(sources)
        self._declared: dict[str, list[str]] = {}
        for path, facts in sources.items():
            for declaration in facts.declarations:
                files = self._declared.setdefault(declaration.qualified_name, [])
                if path not in files:
                    files.append(path)
        self._crates: dict[str, str] = {}
        for path, data in configs.items():
            if posixpath.basename(path) != "Cargo.toml":
                continue
            root = self._root_in(posixpath.join(posixpath.dirname(path), "src"))
            if root is None:
                continue
            for name in _crate_names(data):
                self._crates.setdefault(name.replace("-", "_"), root)

    def _root_in(self, folder: str) -> str | None:
        for name in _ROOTS:
            candidate = posixpath.join(folder, name) if folder else name
            if candidate in self._files:
                return candidate
        return None

    def _is_dir_owner(self, path: str) -> bool:
        """Whether ``mod x;`` in ``path`` names a file beside it (else in a folder of its stem)."""
        parts = path.split("/")
        return parts[-1] in {"mod.rs", *_ROOTS} or "src" not in parts[:-1]

    def _child(self, path: str, name: str) -> str | None:
        folder = posixpath.dirname(path)
        if not self._is_dir_owner(path):
            folder = posixpath.join(folder, posixpath.basename(path).removesuffix(".rs"))
        for candidate in (f"{name}.rs", f"{name}/mod.rs"):
            full = posixpath.join(folder, candidate) if folder else candidate
            if full in self._files:
                return full
        return None

    def _parent(self, path: str) -> str | None:
        folder = posixpath.dirname(path)
        if path.split("/")[-1] == "mod.rs":
            folder = posixpath.dirname(folder)
        owner = self._root_in(folder) if posixpath.basename(folder) == "src" else None
        if owner is not None:
            return owner
        for candidate in (posixpath.join(folder, "mod.rs"), f"{folder}.rs"):
            if candidate in self._files and candidate != path:
                return candidate
        return self._root_in(folder)

    def _crate_root(self, path: str) -> str | None:
        parts = path.split("/")
        if "src" not in parts[:-1]:
            return path
        index = len(parts) - 1 - parts[::-1].index("src")
        folder = "/".join(parts[: index + 1])
        if parts[-1] == "main.rs" and len(parts) == index + 2:
            return path
        return self._root_in(folder)

    def walk(self, path: str, segments: list[str], bound: Mapping[str, str]) -> str | None:
        """The file a path written in ``path`` leads to, if it stays in the project."""
        first, rest = segments[0], segments[1:]
        current: str | None
        if first == "crate":
            current = self._crate_root(path)
        elif first == "self":
            current = path
        elif first == "super":
            current = self._parent(path)
            while current is not None and rest[:1] == ["super"]:
                current, rest = self._parent(current), rest[1:]
        elif first in bound:
            current = bound[first]
        elif first in self._crates:
            current = self._crates[first]
        else:
            return None
        for segment in rest:
            if current is None:
                return None
            child = self._child(current, segment)
            if child is None:
                break
            current = child
        return current

    def declared(self, name: str) -> tuple[str, ...]:
        """Files declaring ``name`` (``crate::<module>::<Name>``)."""
        return tuple(self._declared.get(name, ()))

    def edges(self, relative: str, facts: SourceFacts, whole: bool) -> FileDependencies:
        """The files ``facts`` reaches through ``use``/``mod`` (rule ``import``) and written
        paths (rule ``qualified``), with how often the code uses each."""
        counts = facts.counted()
        firsts: Counter[str] = Counter()
        for reference, count in counts.items():
            firsts[reference.split("::", 1)[0]] += count
        # The first rule that reached a file stays its rule.
        found = EdgeSet(relative, {})
        bound: dict[str, str] = {}
        for item in facts.imports:
            target = self.walk(relative, item.target.split("::"), bound)
            if target is None:
                continue
            if item.alias is not None and item.alias != "_":
                bound[item.alias] = target
            uses = 1 if item.wildcard or item.alias is None else firsts.get(item.alias, 0)
            if whole or uses:
                found.add(target, "import", uses)
        for reference, count in counts.items():
            segments = reference.split("::")
            if (
                len(segments) > 1
                and segments[0] not in bound
                and segments[0] not in facts.local_names
            ):
                found.add(self.walk(relative, segments, bound), "qualified", count)
        return FileDependencies(found.edges(), ())


class Rust:
    """The Rust plugin (see :class:`context_server.core.languages.base.Language`)."""

    name = "rust"
    dialects = (RUST,)
    config_files = ("Cargo.toml",)

    def modules(self, paths: Sequence[str]) -> dict[str, str]:
        """A Rust file is named by its root-relative path (its module follows from it)."""
        return {path: path for path in paths}

    def extract(
        self,
        dialect: SourceLanguage,
        text: str,
        path: str,
        module: str,
        span: tuple[int, int] | None = None,
    ) -> SourceFacts:
        """The facts of one Rust file."""
        return extract_rust(dialect, text, module, span)

    def linker(self, sources: Mapping[str, SourceFacts], configs: Mapping[str, bytes]) -> Linker:
        """The module tree of files, crates by ``Cargo.toml``."""
        return RustProject(sources, configs)

    def user_names(self, facts: SourceFacts) -> Iterable[str]:
        """Users name a module's items only."""
        return ()


RUST_LANGUAGE = Rust()


def _crate_names(data: bytes) -> list[str]:
    """The crate names a ``Cargo.toml`` declares (library name first); none if unreadable."""
    try:
        manifest = tomllib.loads(data.decode("utf-8-sig"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return []
    names: list[str] = []
    for table in ("lib", "package"):
        section = manifest.get(table)
        if isinstance(section, dict) and isinstance(section.get("name"), str):
            names.append(section["name"])
    return names
