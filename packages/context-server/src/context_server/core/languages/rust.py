"""Rust: module facts and resolution along the module tree of files, to the declaring file.

The module tree follows the files as rustc reads them: ``mod x;`` in ``lib.rs``, ``main.rs``,
``mod.rs`` (or a crate root outside ``src``, such as ``tests/it.rs``) names ``x.rs`` or
``x/mod.rs`` beside it, and in ``a.rs`` names ``a/x.rs`` or ``a/x/mod.rs``. A path starts at
``crate`` (the crate root: ``src/lib.rs``, else ``src/main.rs``), ``super``, ``self``, the
name of a project crate (``[package] name`` or ``[lib] name`` of its ``Cargo.toml``, ``-``
read as ``_``), or a name the file binds (``use``, ``mod``); each segment naming a child
module descends, and the first that does not is an item of the module reached. The
dependency is the file declaring that item: when the module only re-exports it (``pub use
a::Item``, ``pub use a::*``, a ``use`` binding it), the re-export is followed, each module
once per chain and at most :data:`MAX_REEXPORT_DEPTH` deep. A ``#[macro_export]`` macro is
an item of its crate's root. A ``use`` inside a function or an inline module binds its
names there only. Other paths (``std``, dependencies) give no edge.
"""

from __future__ import annotations

import posixpath
import re
import tomllib
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace

import tree_sitter
import tree_sitter_rust

from context_server.core.facts import Declaration, EdgeSet, Import, Linked, LinkKeys, SourceFacts
from context_server.core.languages.base import Linker, SourceLanguage, in_order

RUST = SourceLanguage("rust", "Rust", (".rs",), tree_sitter_rust.language)

_TYPES = frozenset({"struct_item", "enum_item", "trait_item", "type_item", "union_item"})
_MEMBERS = frozenset({"function_item", "const_item", "static_item"})
_CHAINS = frozenset({"scoped_identifier", "scoped_type_identifier"})
_PATH = re.compile(r"[\w]+(?:::[\w]+)+")
_ROOTS = ("lib.rs", "main.rs")
_ANCHORS = frozenset({"crate", "super", "self"})
# Where a ``use`` binds its names only (its scope): a function, a closure, an inline module.
_SCOPES = frozenset({"function_item", "closure_expression", "mod_item", "impl_item", "trait_item"})
MAX_REEXPORT_DEPTH = 32
"""Re-exports followed in a row at most, looking for the file declaring an item."""
_CRATE_PATH = re.compile(r"\$crate\s*::\s*(\w+(?:\s*::\s*\w+)*)")


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
    ``alias`` (``wildcard`` for ``*``), ``exported`` for ``pub use``; ``mod x;`` is the import
    ``self::x`` binding ``x``. A ``use`` inside a function or an inline module binds
    ``name@<offset of its scope>``, and the references inside that scope use that name.
    References are the paths and names of code (the first segment of a path stands for it;
    a macro call is ``name!``); declarations are named ``crate::<module>::<Name>``, an inline
    module's items ``crate::<module>::<inline>::<Name>``.
    """
    source = text.encode("utf-8")
    parsed = language.parse(source)
    root = parsed.root
    scope = module_path(module)
    imports: list[Import] = []
    declarations: list[Declaration] = []
    skipped: list[tuple[int, int]] = []
    scoped: list[tuple[int, int, str, str]] = []  # start, end, name, bound as
    for child in root.named_children:
        if child.type == "mod_item" and child.child_by_field_name("body") is None:
            child_module = _text(child.child_by_field_name("name"))
            imports.append(Import(f"self::{child_module}", child_module, exported=_is_pub(child)))
            skipped.append((child.start_byte, child.end_byte))
        elif child.type != "use_declaration":
            declarations.extend(_declared(child, scope, ""))
    uses = tree_sitter.QueryCursor(_uses_query(language)).captures(root).get("use", ())
    for node in parsed.each(uses):
        skipped.append((node.start_byte, node.end_byte))
        owner = _scope_of(node)
        exported = _is_pub(node)
        condition = _cfg(node)
        found = list(_uses(node.child_by_field_name("argument"), []))
        if owner is None:
            imports.extend(replace(item, exported=exported, condition=condition) for item in found)
            continue
        inline = owner.type == "mod_item"
        for item in found:
            target = item.target
            if inline and target.split("::", 1)[0] == "super":
                # ``super`` of an inline module is the file's own module
                target = "self" + target[len("super") :]
            if item.wildcard or item.alias is None:
                imports.append(Import(target, item.alias, item.wildcard))
                continue
            bound = f"{item.alias}@{owner.start_byte}"
            scoped.append((owner.start_byte, owner.end_byte, item.alias, bound))
            imports.append(Import(target, bound))
    scoped.sort(key=lambda entry: entry[1] - entry[0])  # innermost first
    names: list[str] = []
    macros = tree_sitter.QueryCursor(_macros_query(language)).captures(root).get("macro", ())
    for node in parsed.each(macros):
        # a macro's expansion names the crate's items as ``$crate::path``
        if span is None or span[0] <= node.start_byte < span[1]:
            names.extend(
                "crate::" + "::".join(part.split())
                for part in (m.group(1) for m in _CRATE_PATH.finditer(_text(node)))
            )
    for node in parsed.each(in_order(tree_sitter.QueryCursor(_query(language)).captures(root))):
        start = node.start_byte
        if span is not None and not span[0] <= start < span[1]:
            continue
        if any(first <= start < last for first, last in skipped):
            continue
        name = _reference(node)
        if name:
            names.append(_scoped(name, start, scoped))
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


def _macros_query(language: SourceLanguage) -> tree_sitter.Query:
    return language.query("(macro_definition) @macro")


def _uses_query(language: SourceLanguage) -> tree_sitter.Query:
    return language.query("(use_declaration) @use")


def _scope_of(node: tree_sitter.Node) -> tree_sitter.Node | None:
    """The function or inline module a ``use`` sits in (None: the file's top level)."""
    current = node.parent
    while current is not None:
        if current.type in _SCOPES:
            return current
        current = current.parent
    return None


def _scoped(name: str, start: int, scoped: list[tuple[int, int, str, str]]) -> str:
    """``name`` with its first segment renamed to the scoped binding covering ``start``."""
    first, separator, rest = name.partition("::")
    bare = first.removesuffix("!")
    for low, high, bound_name, bound in scoped:
        if low <= start < high and bare == bound_name:
            return bound + first[len(bare) :] + separator + rest
    return name


def _is_pub(node: tree_sitter.Node) -> bool:
    """Whether the item is ``pub`` (not ``pub(crate)``, ``pub(super)``…)."""
    visibility = next((c for c in node.named_children if c.type == "visibility_modifier"), None)
    return visibility is not None and _compact(visibility) == "pub"


def _uses(node: tree_sitter.Node | None, prefix: list[str]) -> Iterator[Import]:
    """Flatten a ``use`` tree into one import per name it binds."""
    if node is None:
        return
    kind = node.type
    if kind == "use_as_clause":
        path = [*prefix, *_segments(node.child_by_field_name("path"))]
        yield Import("::".join(path), _text(node.child_by_field_name("alias")))
    elif kind == "scoped_use_list":
        base = _segments(node.child_by_field_name("path"))
        yield from _uses(node.child_by_field_name("list"), [*prefix, *base])
    elif kind == "use_list":
        for child in node.named_children:
            yield from _uses(child, prefix)
    elif kind == "use_wildcard":
        inner = next(iter(node.named_children), None)
        path = [*prefix, *(_segments(inner) if inner is not None else [])]
        yield Import("::".join(path), None, True)
    else:
        written = _segments(node)
        if written == ["self"] and prefix:
            yield Import("::".join(prefix), prefix[-1])
        else:
            path = [*prefix, *written]
            yield Import("::".join(path), path[-1])


def _segments(node: tree_sitter.Node | None) -> list[str]:
    """A written path's segments; a leading ``::`` (``::bytes::Buf``, an extern crate by
    its name) adds none."""
    return _compact(node).removeprefix("::").split("::")


def _reference(node: tree_sitter.Node) -> str | None:
    """A whole path at its first segment, nothing at a later one, a macro call as
    ``name!``, else the name."""
    parent = node.parent
    best: str | None = None
    current = parent
    while current is not None and current.type in _CHAINS:
        before = (current.text or b"")[: node.start_byte - current.start_byte]
        if before.strip() not in {b"", b"::"}:
            return None
        compact = _compact(current).removeprefix("::")
        if _PATH.fullmatch(compact):
            best = compact
        current = current.parent
    if best is not None:
        return best
    if parent is not None and parent.type == "macro_invocation":
        called = parent.child_by_field_name("macro")
        if called is not None and called.id == node.id:
            return f"{_text(node)}!"
    if parent is not None and parent.type.endswith("_item"):
        named = parent.child_by_field_name("name")
        if named is not None and named.id == node.id:
            return None  # a declaration's own name (a struct literal's name is a use)
    return _text(node)


def _declared(node: tree_sitter.Node, scope: str, inline: str) -> Iterator[Declaration]:
    """The items ``node`` declares (an inline module's too, named inside it)."""
    name = _text(node.child_by_field_name("name"))
    if not name:
        return
    prefix = f"{scope}::{inline}" if inline else scope
    if node.type == "mod_item":
        body = node.child_by_field_name("body")
        if body is not None:
            inner = f"{inline}::{name}" if inline else name
            for child in body.named_children:
                yield from _declared(child, scope, inner)
        return
    if node.type == "macro_definition":
        kind = "macro"
        exported = _macro_export(node)
    elif node.type in _TYPES or node.type in _MEMBERS:
        kind = "type" if node.type in _TYPES else "member"
        exported = _is_pub(node)
    else:
        return
    yield Declaration(
        name,
        f"{prefix}::{name}",
        kind,
        bool(inline),
        (node.start_point[0] + 1, node.end_point[0] + 1),
        (node.start_byte, node.end_byte),
        exported,
        _cfg(node),
    )


def _cfg(node: tree_sitter.Node) -> str:
    """The predicates of the ``#[cfg(…)]`` attributes before an item, joined by ``all``
    ("" when it has none: always compiled)."""
    found: list[str] = []
    sibling = node.prev_named_sibling
    while sibling is not None and sibling.type in {"attribute_item", "line_comment"}:
        text = "".join(_text(sibling).split())
        if text.startswith("#[cfg(") and text.endswith(")]"):
            found.append(text[len("#[cfg(") : -len(")]")])
        sibling = sibling.prev_named_sibling
    if len(found) > 1:
        return f"all({','.join(found)})"
    return found[0] if found else ""


def _macro_export(node: tree_sitter.Node) -> bool:
    """Whether ``#[macro_export]`` precedes the macro (it is then an item of the crate root)."""
    sibling = node.prev_named_sibling
    while sibling is not None and sibling.type in {"attribute_item", "line_comment"}:
        if sibling.type == "attribute_item" and "macro_export" in _text(sibling):
            return True
        sibling = sibling.prev_named_sibling
    return False


@dataclass(frozen=True, slots=True)
class _Place:
    """An item (``item``) of the module in ``file``, or (``item`` None) the module itself."""

    file: str
    item: str | None


@dataclass(slots=True)
class _Search:
    """One look-up: the (file, name) pairs on the current chain, and notes on what was cut."""

    notes: list[str]
    chain: list[tuple[str, str]] = field(default_factory=list)
    cut: bool = False


class RustProject:
    """Resolves ``use`` and ``mod`` paths of the project's Rust files to the files
    declaring the items they name."""

    def __init__(self, sources: Mapping[str, SourceFacts], configs: Mapping[str, bytes]) -> None:
        self._sources = sources
        self._files = frozenset(sources)
        self._declared: dict[str, list[str]] = {}
        self._items: dict[str, frozenset[str]] = {}
        self._macros: dict[tuple[str, str], str] = {}
        # every macro_rules! of a crate by name: (crate root, name) -> files
        self._crate_macros: dict[tuple[str, str], list[str]] = {}
        for path, facts in sources.items():
            self._items[path] = frozenset(
                d.qualified_name.split("::")[len(module_path(path).split("::"))]
                for d in facts.declarations
            )
            for declaration in facts.declarations:
                files = self._declared.setdefault(declaration.qualified_name, [])
                if path not in files:
                    files.append(path)
        self._crates: dict[str, str] = {}
        # default features by the folder of each Cargo.toml, deepest first
        manifests = {
            posixpath.dirname(path): _default_features(data)
            for path, data in configs.items()
            if posixpath.basename(path) == "Cargo.toml"
        }
        self._manifests = sorted(manifests.items(), key=lambda item: -len(item[0]))
        # (file, item) whose every declaration the default build leaves out (#[cfg])
        self._off: set[tuple[str, str]] = set()
        for path, facts in sources.items():
            depth = len(module_path(path).split("::"))
            states: dict[str, list[bool]] = {}
            for declaration in facts.declarations:
                name = declaration.qualified_name.split("::")[depth]
                states.setdefault(name, []).append(self._holds(path, declaration.condition))
            self._off.update((path, name) for name, held in states.items() if not any(held))
        for path, data in configs.items():
            if posixpath.basename(path) != "Cargo.toml":
                continue
            root = self._root_in(posixpath.join(posixpath.dirname(path), "src"))
            if root is None:
                continue
            for name in _crate_names(data):
                self._crates.setdefault(name.replace("-", "_"), root)
        self._aliases: dict[str, dict[str, Import]] = {}
        self._namesakes: dict[tuple[str, str], list[Import]] = {}
        for path, facts in sources.items():
            crate = self._crate_root(path)
            for declaration in facts.declarations:
                if declaration.kind != "macro" or crate is None:
                    continue
                if declaration.exported:
                    self._macros.setdefault((crate, declaration.simple_name), path)
                self._crate_macros.setdefault((crate, declaration.simple_name), []).append(path)
            aliases: dict[str, Import] = {}
            for item in facts.imports:
                if item.alias is not None and not item.wildcard and item.target:
                    if item.alias in aliases:
                        # one name in two namespaces (`anyhow::Error`, the derive macro
                        # `thiserror::Error`): each is tried, the project's first
                        self._namesakes.setdefault((path, item.alias), []).append(item)
                    aliases.setdefault(item.alias, item)
            self._aliases[path] = aliases
        self._bindings: dict[tuple[str, str], _Place | None] = {}
        self._public: frozenset[str] | None = None

    def _holds(self, path: str, condition: str) -> bool:
        """Whether ``condition`` (a ``#[cfg]`` predicate) holds for ``path`` in the default
        build of the nearest ``Cargo.toml``'s crate."""
        if not condition:
            return True
        features = next(
            (found for folder, found in self._manifests if _under(path, folder)), frozenset()
        )
        return cfg_holds(condition, features)

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

    def place(self, path: str, segments: list[str], search: _Search) -> _Place | None:
        """The item (or module) a path written in ``path`` names, if it stays in the
        project: followed through re-exports to the file declaring it."""
        first, rest = segments[0], segments[1:]
        current: str | None
        anchored = self._anchor(path, segments)
        if anchored is not None:
            current, rest = anchored
        else:
            bound = self._binding(path, first, search)
            if bound is None or bound.item is not None:
                return bound  # an item's associated items and variants are in its file
            current = bound.file
        for segment in rest:
            if current is None:
                return None
            child = self._child(current, segment)
            if child is None:
                return self._item(current, segment, search)
            current = child
        return _Place(current, None) if current is not None else None

    def _anchor(self, path: str, segments: list[str]) -> tuple[str | None, list[str]] | None:
        """Where a path written in ``path`` starts when its first segment is ``crate``,
        ``self``, ``super`` (repeated) or another crate's name, and the segments left; ``None``
        when the first segment is a name bound in ``path`` instead."""
        first, rest = segments[0], segments[1:]
        if first == "crate":
            return self._crate_root(path), rest
        if first == "self":
            return path, rest
        if first == "super":
            current = self._parent(path)
            while current is not None and rest[:1] == ["super"]:
                current, rest = self._parent(current), rest[1:]
            return current, rest
        if first in self._crates and not self._binds(path, first):
            return self._crates[first], rest
        return None

    def _binds(self, path: str, name: str) -> bool:
        """Whether a ``use``/``mod`` of ``path`` binds ``name`` for the first segment of a
        path. ``use anyhow::anyhow;`` binds the crate's macro (or function) named like
        the crate: a path ``anyhow::Error`` still starts at the crate (a macro or a value
        never holds items)."""
        item = self._aliases.get(path, {}).get(name)
        if item is None:
            return False
        return not (name in self._crates and item.target.startswith(f"{name}::"))

    def _binding(self, path: str, name: str, search: _Search) -> _Place | None:
        """What ``name`` is bound to in ``path`` by its ``use``/``mod`` (None: nothing in
        the project)."""
        key = (path, name)
        if key in self._bindings:
            return self._bindings[key]
        item = self._aliases.get(path, {}).get(name)
        if item is None:
            return None
        if key in search.chain:
            cycle = " -> ".join(f"{file}::{alias}" for file, alias in search.chain)
            search.notes.append(f"re-export cycle {cycle} (followed once)")
            search.cut = True
            return None
        if len(search.chain) >= MAX_REEXPORT_DEPTH:
            search.notes.append(
                f"re-exports of `{name}` followed {MAX_REEXPORT_DEPTH} deep; the rest not searched"
            )
            search.cut = True
            return None
        search.chain.append(key)
        try:
            found = None
            for bound in (item, *self._namesakes.get(key, ())):
                found = self.place(path, bound.target.split("::"), search)
                if found is not None:
                    break
        finally:
            search.chain.pop()
        if not search.cut:
            self._bindings[key] = found
        return found

    def _item(self, path: str, name: str, search: _Search) -> _Place | None:
        """The file declaring the item ``name`` of the module in ``path``: the module
        itself, the source of a re-export binding it, an exported macro of a crate root,
        or a module it glob-imports."""
        if name in self._items.get(path, ()):
            if (path, name) in self._off:
                # declared for another build only (#[cfg]); the default build's `use` wins
                item = self._aliases.get(path, {}).get(name)
                if item is not None and self._holds(path, item.condition):
                    bound = self._binding(path, name, search)
                    if bound is not None:
                        return bound
            return _Place(path, name)
        macro = self._macros.get((path, name))
        if macro is not None:
            return _Place(macro, name)
        bound = self._binding(path, name, search)
        if bound is not None:
            return bound
        facts = self._sources.get(path)
        if facts is None:
            return None
        for item in facts.imports:
            if not item.wildcard or (path, f"*{item.target}") in search.chain:
                continue
            search.chain.append((path, f"*{item.target}"))
            try:
                module = self.place(path, item.target.split("::"), search)
                found = self._item(module.file, name, search) if module is not None else None
            finally:
                search.chain.pop()
            if found is not None:
                return found
        return None

    def module(self, path: str, segments: list[str], depth: int = 0) -> _Place | None:
        """The module a path written in ``path`` reaches, descending through modules only
        (what a path names when the item it ends in cannot be found)."""
        first, rest = segments[0], segments[1:]
        current: str | None
        anchored = self._anchor(path, segments)
        if anchored is not None:
            current, rest = anchored
        elif self._binds(path, first) and depth < MAX_REEXPORT_DEPTH:
            bound = self.module(path, self._aliases[path][first].target.split("::"), depth + 1)
            current = bound.file if bound is not None else None
        else:
            return None
        for segment in rest:
            child = self._child(current, segment) if current is not None else None
            if child is None:
                break
            current = child
        return _Place(current, None) if current is not None else None

    def _macro(self, crate: str, name: str) -> str | None:
        """The file of the macro ``name!`` called unqualified in ``crate``: its exported
        macro of that name, else its one ``macro_rules!`` of that name (a macro is visible
        to the modules declared after it, in practice to the whole crate)."""
        exported = self._macros.get((crate, name))
        if exported is not None:
            return exported
        files = self._crate_macros.get((crate, name), [])
        return files[0] if len(files) == 1 else None

    def declared(self, name: str) -> tuple[str, ...]:
        """Files declaring ``name`` (``crate::<module>::<Name>``)."""
        return tuple(self._declared.get(name, ()))

    def keys(self, relative: str, facts: SourceFacts) -> LinkKeys | None:
        """Not said yet (``pub use`` chains and ``mod`` declarations lead through other modules):
        an edit changing what a file offers links the family whole."""
        return None

    def internal(self, relative: str) -> bool:
        """Whether no path from outside the crate reaches the module: not a crate root,
        not declared ``pub mod`` by a public module, and none of its items re-exported by
        a ``pub use`` of a public module."""
        if self._public is None:
            self._public = self._public_modules()
        return relative not in self._public

    def _public_modules(self) -> frozenset[str]:
        public: set[str] = set()
        pending = [path for path in self._sources if self._crate_root(path) == path]
        while pending:
            path = pending.pop()
            if path in public:
                continue
            public.add(path)
            facts = self._sources[path]
            for item in facts.imports:
                if not item.exported:
                    continue
                if item.wildcard:
                    place = self.place(path, item.target.split("::"), _Search([]))
                elif item.alias is not None:
                    place = self._binding(path, item.alias, _Search([]))
                else:
                    continue
                if place is not None and place.file not in public:
                    pending.append(place.file)
        return frozenset(public)

    def link(self, relative: str, facts: SourceFacts, whole: bool) -> Linked:
        """The files declaring what ``facts`` names through ``use``/``mod`` (rule
        ``import``) and written paths (rule ``qualified``), with how often the code uses
        each."""
        counts = facts.counted()
        search = _Search([])
        # The first rule that reached a file stays its rule.
        found = EdgeSet(relative, {})
        plain: Counter[str] = Counter()
        for reference, count in counts.items():
            first, _, rest = reference.partition("::")
            bare = first.removesuffix("!")
            if rest and not self._binds(relative, bare):
                continue  # a path from a crate or an item, not through a binding
            place = self._binding(relative, bare, search) if bare not in facts.local_names else None
            if place is not None and place.item is None and rest:
                # a path through a bound module: the item it names
                inner = self.place(place.file, ["self", *rest.split("::")], search)
                if inner is not None:
                    found.add(inner.file, "import", count, self._symbol(inner))
                    continue
            plain[bare] += count
        globs: list[_Place] = []
        for item in facts.imports:
            if item.wildcard:
                module = self.place(relative, item.target.split("::"), search)
                if module is not None:
                    globs.append(module)
                continue
            if item.alias is None or item.alias == "_":
                continue
            place = self._binding(relative, item.alias, search) or self.module(
                relative, item.target.split("::")
            )
            if place is None:
                continue
            uses = plain.get(item.alias, 0)
            if whole or uses:
                found.add(place.file, "import", uses, self._symbol(place))
        used_globs: set[str] = set()
        for reference, count in counts.items():
            segments = reference.split("::")
            bare = segments[0].removesuffix("!")
            if bare in facts.local_names or self._binds(relative, bare):
                continue
            if len(segments) > 1:
                path = [bare, *segments[1:]]
                place = self.place(relative, path, search) or self.module(relative, path)
                if place is not None:
                    found.add(place.file, "qualified", count, self._symbol(place))
                continue
            for module in globs:
                inner = self._item(module.file, bare, search)
                if inner is not None:
                    found.add(inner.file, "import", count, self._symbol(inner))
                    used_globs.add(module.file)
                    break
            else:
                crate = self._crate_root(relative)
                macro = self._macro(crate, bare) if segments[0].endswith("!") and crate else None
                if macro is not None:
                    found.add(macro, "package", count, self._symbol(_Place(macro, bare)))
        if whole:
            for module in globs:
                if module.file not in used_globs:
                    found.add(module.file, "import", 1, None)
        for note in search.notes:
            found.note(note)
        return found.linked()

    @staticmethod
    def _symbol(place: _Place) -> str | None:
        return f"{module_path(place.file)}::{place.item}" if place.item is not None else None


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


# The build a crate is read as: linux/x86_64, debug assertions, its default features.
_CFG_VALUES = {
    "target_os": "linux",
    "target_family": "unix",
    "target_arch": "x86_64",
    "target_pointer_width": "64",
    "target_endian": "little",
    "target_env": "gnu",
    "panic": "unwind",
}
_CFG_NAMES = frozenset({"unix", "debug_assertions"})
_CFG_TOKEN = re.compile(r'\s*(?:(\w+)\s*=\s*"([^"]*)"|(\w+)\s*(\()?|(,)|(\)))')
MAX_CFG_DEPTH = 16
"""Nesting of ``any``/``all``/``not`` read at most (deeper: taken as compiled)."""


def cfg_holds(predicate: str, features: frozenset[str]) -> bool:
    """Whether a ``#[cfg]`` predicate holds in the default build (linux/x86_64, debug,
    ``features`` on; ``test``, ``doc``, ``windows`` and build-script cfgs off). An
    unreadable predicate is taken as compiled."""
    if not predicate:
        return True
    tokens: list[tuple[str, ...]] = []
    position = 0
    while position < len(predicate):
        match = _CFG_TOKEN.match(predicate, position)
        if match is None or match.end() == position:
            return True
        tokens.append(tuple(part or "" for part in match.groups()))
        position = match.end()

    def one(at: int, depth: int) -> tuple[bool, int]:
        key, value, name, call, _, _ = tokens[at]
        if key:
            if key == "feature":
                return value in features, at + 1
            if key == "target_has_atomic":
                return True, at + 1
            return _CFG_VALUES.get(key) == value, at + 1
        if not name:
            raise ValueError("a predicate expected")
        if not call:
            return name in _CFG_NAMES, at + 1
        if depth > MAX_CFG_DEPTH or name not in {"any", "all", "not"}:
            raise ValueError("unknown or too deep")
        results: list[bool] = []
        at += 1
        while at < len(tokens) and not tokens[at][5]:
            if tokens[at][4]:
                at += 1
                continue
            result, at = one(at, depth + 1)
            results.append(result)
        if at >= len(tokens):
            raise ValueError("unclosed")
        if name == "not":
            return not (results[0] if results else False), at + 1
        return (any(results) if name == "any" else all(results)), at + 1

    try:
        result, end = one(0, 0)
    except (ValueError, IndexError):
        return True
    return result if end == len(tokens) else True


def _default_features(data: bytes) -> frozenset[str]:
    """The features a ``Cargo.toml``'s default build turns on (its ``default`` list and
    the features those enable in turn)."""
    try:
        manifest = tomllib.loads(data.decode("utf-8-sig"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return frozenset()
    table = manifest.get("features")
    if not isinstance(table, dict):
        return frozenset()
    on: set[str] = set()
    pending = ["default"]
    while pending:
        feature = pending.pop()
        if feature in on:
            continue
        on.add(feature)
        enabled = table.get(feature)
        if isinstance(enabled, list):
            pending.extend(
                item for item in enabled if isinstance(item, str) and not set(item) & {":", "/"}
            )
    return frozenset(on)


def _under(path: str, folder: str) -> bool:
    return not folder or path.startswith(f"{folder}/")


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
