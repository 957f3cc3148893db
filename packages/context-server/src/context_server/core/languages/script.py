"""TypeScript, TSX and JavaScript: ES module facts and import resolution by file path.

A script file is a module named by its path; it sees another file only through an import
(``import``, ``import type``, ``export … from``, ``require("…")``), so resolution never
guesses by simple name. A specifier resolves like the TypeScript compiler's ``bundler``
mode: relative (``./x``, ``../y``) from the importing file, with the extension optional and
``x/index`` for a folder; ``.js`` written for a ``.ts`` source; a bare specifier through the
``paths`` and ``baseUrl`` of the nearest ``tsconfig.json`` / ``jsconfig.json`` (following a
relative ``extends``). A bare specifier that maps to no project file is a package from
outside the project: no edge.
"""

from __future__ import annotations

import posixpath
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import json5
import tree_sitter
import tree_sitter_javascript
import tree_sitter_typescript

from context_server.core.facts import (
    Declaration,
    EdgeSet,
    Import,
    Linked,
    LinkKeys,
    SourceFacts,
)
from context_server.core.languages.base import Linker, SourceLanguage, in_order

TYPESCRIPT = SourceLanguage(
    "typescript", "TypeScript", (".ts", ".mts", ".cts"), tree_sitter_typescript.language_typescript
)
TSX = SourceLanguage("tsx", "TSX", (".tsx",), tree_sitter_typescript.language_tsx)
JAVASCRIPT = SourceLanguage(
    "javascript", "JavaScript", (".js", ".jsx", ".mjs", ".cjs"), tree_sitter_javascript.language
)
# Tried in this order for a specifier without a source extension.
_EXTENSIONS = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")
# ``./x.js`` in TypeScript source means the ``x.ts`` the compiler turns into ``x.js``.
_EMITTED = {
    ".js": (".ts", ".tsx", ".js", ".jsx"),
    ".jsx": (".tsx", ".jsx"),
    ".mjs": (".mts", ".mjs"),
    ".cjs": (".cts", ".cjs"),
}
_TYPES = frozenset(
    {
        "class_declaration",
        "abstract_class_declaration",
        "class",
        "interface_declaration",
        "type_alias_declaration",
        "enum_declaration",
        "internal_module",
    }
)
_MEMBERS = frozenset(
    {"function_declaration", "generator_function_declaration", "function_signature"}
)
_VARIABLES = frozenset({"lexical_declaration", "variable_declaration"})
_NAMES = ("identifier", "type_identifier", "shorthand_property_identifier")
_MAX_EXTENDS = 8
_MAX_CONDITIONS = 8
_COMPILER_CONFIGS = frozenset({"tsconfig.json", "jsconfig.json"})
_MANIFEST = "package.json"
MAX_MEMBERS = 3
"""Members read after a name (``ns.inner.member``): enough for namespaces of namespaces."""
MAX_REEXPORT_DEPTH = 32
"""Re-exports followed in a row at most, looking for where a name is declared."""
MAX_REEXPORT_VISITS = 2000
"""Modules searched at most for one imported name (a barrel of barrels of ``export *``)."""


def _query(language: SourceLanguage) -> tree_sitter.Query:
    """One query per grammar: every name node and every ``require``/``import()`` call."""
    grammar = language.grammar_language()
    patterns = " ".join(
        f"({kind}) @name" for kind in _NAMES if grammar.id_for_node_kind(kind, True)
    )
    return language.query(f"{patterns} (call_expression) @call")


def module_name(relative: str) -> str:
    """The module a file is: its path without the source extension (``src/a/user``)."""
    for extension in (".d.ts", *_EXTENSIONS):
        if relative.endswith(extension):
            return relative[: -len(extension)]
    return relative.rsplit(".", 1)[0]


def _text(node: tree_sitter.Node | None) -> str:
    return (node.text or b"").decode("utf-8", "replace") if node is not None else ""


def _specifier(node: tree_sitter.Node | None) -> str | None:
    """The text of a string literal without quotes (no template, no concatenation)."""
    if node is None or node.type != "string":
        return None
    return "".join(_text(c) for c in node.named_children if c.type == "string_fragment")


def extract_script(
    language: SourceLanguage, text: str, module: str, span: tuple[int, int] | None = None
) -> SourceFacts:
    """The facts of one script file at root-relative path ``module``.

    Imports carry the specifier as written in ``target``, the local name they bind in
    ``alias`` and the name taken from the module in ``name`` (``default`` for a default
    import; ``wildcard`` for ``import * as ns``; no alias for a side-effect import or a
    ``require``). Re-exports are imports marked ``exported``: ``export { a as b } from``
    (alias ``b``, name ``a``), ``export * from`` (wildcard, no alias), ``export * as ns
    from`` (wildcard, alias ``ns``), and the module's own export lists ``export { a as b }``
    and ``export default a`` (target ``""``). References are the names used in code outside
    import statements, ``ns.member`` for a member of a name (comments and strings never
    count); with ``span``, only those inside it.
    """
    source = text.encode("utf-8")
    parsed = language.parse(source)
    root = parsed.root
    scope = module_name(module)
    imports: list[Import] = []
    declarations: list[Declaration] = []
    skipped: list[tuple[int, int]] = []
    for child in root.named_children:
        if child.type == "import_statement":
            imports.extend(_imports(child))
            skipped.append((child.start_byte, child.end_byte))
        elif child.type == "export_statement":
            specifier = _specifier(child.child_by_field_name("source"))
            if specifier is not None:
                imports.extend(_reexports(child, specifier))
                skipped.append((child.start_byte, child.end_byte))
                continue
            found = list(_declared(child, scope))
            declarations.extend(found)
            imports.extend(_exports(child, found))
        else:
            declarations.extend(_declared(child, scope))
    names: list[str] = []
    for node in parsed.each(in_order(tree_sitter.QueryCursor(_query(language)).captures(root))):
        start = node.start_byte
        if any(first <= start < last for first, last in skipped):
            continue
        if node.type == "call_expression":
            imports.extend(_required(node))
        elif span is None or span[0] <= start < span[1]:
            names.append(_reference(node))
    counts = Counter(names)
    return SourceFacts(
        language=language.name,
        package=posixpath.dirname(module),
        imports=tuple(imports),
        declarations=tuple(declarations),
        local_names=frozenset(d.simple_name for d in declarations),
        references=tuple(counts),
        module=module,
        uses=tuple(counts.values()),
    )


def _reference(node: tree_sitter.Node) -> str:
    """The name ``node`` spells, with the members taken from it (``ns.member``,
    ``ns.inner.member``, at most :data:`MAX_MEMBERS` deep) when it is the object of a member
    access or the module of a qualified type."""
    parts = [_text(node)]
    current = node
    while len(parts) <= MAX_MEMBERS:
        parent = current.parent
        if parent is None:
            break
        if parent.type == "member_expression":
            member = parent.child_by_field_name("property")
            owner = parent.child_by_field_name("object")
        elif parent.type in {"nested_type_identifier", "nested_identifier"}:
            member = parent.child_by_field_name("name") or parent.child_by_field_name("property")
            owner = parent.child_by_field_name("module") or parent.child_by_field_name("object")
        else:
            break
        if owner is None or owner.id != current.id or member is None:
            break
        parts.append(_text(member))
        current = parent
    return ".".join(parts)


def _imports(node: tree_sitter.Node) -> Iterator[Import]:
    specifier = _specifier(node.child_by_field_name("source"))
    if specifier is None:
        return
    clause = next((c for c in node.named_children if c.type == "import_clause"), None)
    if clause is None:
        yield Import(specifier)  # a side-effect import: ``import "./polyfill"``
        return
    for part in clause.named_children:
        if part.type == "identifier":
            yield Import(specifier, _text(part), name="default")
        elif part.type == "namespace_import":
            alias = next((c for c in part.named_children if c.type == "identifier"), None)
            yield Import(specifier, _text(alias), True)
        elif part.type == "named_imports":
            for item in part.named_children:
                if item.type == "import_specifier":
                    name = _text(item.child_by_field_name("name"))
                    bound = _text(item.child_by_field_name("alias")) or name
                    yield Import(specifier, bound, name=name)


def _reexports(node: tree_sitter.Node, specifier: str) -> Iterator[Import]:
    """The names ``export … from specifier`` passes on."""
    clause = next((c for c in node.named_children if c.type == "export_clause"), None)
    namespace = next((c for c in node.named_children if c.type == "namespace_export"), None)
    if clause is not None:
        for item in clause.named_children:
            if item.type == "export_specifier":
                name = _text(item.child_by_field_name("name"))
                alias = _text(item.child_by_field_name("alias")) or name
                yield Import(specifier, alias, name=name, exported=True)
    elif namespace is not None:
        bound = next((c for c in namespace.named_children if c.type.endswith("identifier")), None)
        yield Import(specifier, _text(bound), True, exported=True)
    else:
        yield Import(specifier, None, True, exported=True)


def _exports(node: tree_sitter.Node, declared: list[Declaration]) -> Iterator[Import]:
    """The module's own export list (``export { a as b }``) and default export, as
    exports of local names (target ``""``)."""
    clause = next((c for c in node.named_children if c.type == "export_clause"), None)
    if clause is not None:
        for item in clause.named_children:
            if item.type == "export_specifier":
                name = _text(item.child_by_field_name("name"))
                alias = _text(item.child_by_field_name("alias")) or name
                yield Import("", alias, name=name, exported=True)
        return
    if not any(child.type == "default" for child in node.children):
        return
    value = node.child_by_field_name("value")
    if value is not None and value.type == "identifier":
        yield Import("", "default", name=_text(value), exported=True)
    elif declared:
        yield Import("", "default", name=declared[0].simple_name, exported=True)


def _required(node: tree_sitter.Node) -> Iterator[Import]:
    """``require("./x")`` and ``import("./x")`` with a literal specifier: the names a
    destructuring declaration takes from it (``const {A, B: C} = await import("./x")``),
    else the module."""
    function = node.child_by_field_name("function")
    arguments = node.child_by_field_name("arguments")
    if function is None or arguments is None or _text(function) not in {"require", "import"}:
        return
    literal = arguments.named_children[0] if arguments.named_child_count == 1 else None
    specifier = _specifier(literal)
    if specifier is None:
        return
    holder = node.parent
    if holder is not None and holder.type == "await_expression":
        holder = holder.parent
    pattern = holder.child_by_field_name("name") if holder is not None else None
    if holder is None or holder.type != "variable_declarator" or pattern is None:
        yield Import(specifier, None, True)
        return
    if pattern.type != "object_pattern":
        yield Import(specifier, None, True)
        return
    for part in pattern.named_children:
        if part.type == "shorthand_property_identifier_pattern":
            yield Import(specifier, _text(part), name=_text(part))
        elif part.type == "pair_pattern":
            key, value = part.child_by_field_name("key"), part.child_by_field_name("value")
            if key is not None and value is not None and value.type == "identifier":
                yield Import(specifier, _text(value), name=_text(key))
            else:
                yield Import(specifier, None, True)
        else:
            yield Import(specifier, None, True)  # a rest element takes everything


def _declared(node: tree_sitter.Node, scope: str) -> Iterator[Declaration]:
    """Top-level declarations of one statement (an ``export`` unwrapped)."""
    outer = node
    if node.type == "export_statement":
        inner = node.child_by_field_name("declaration")
        if inner is None:
            inner = next((c for c in node.named_children if c.type in _TYPES), None)
        if inner is None:
            return
        node = inner
    if node.type == "ambient_declaration":
        # ``declare class X``, ``declare function f``, ``declare const c``
        inner = next((c for c in node.named_children if c.type != "comment"), None)
        if inner is None:
            return
        node = inner
    lines = (outer.start_point[0] + 1, outer.end_point[0] + 1)
    where = (outer.start_byte, outer.end_byte)
    if node.type in _TYPES or node.type in _MEMBERS:
        name = _text(node.child_by_field_name("name"))
        if name:
            kind = "type" if node.type in _TYPES else "member"
            yield Declaration(name, f"{scope}.{name}", kind, False, lines, where)
    elif node.type in _VARIABLES:
        for declarator in node.named_children:
            name_node = declarator.child_by_field_name("name")
            if (
                declarator.type == "variable_declarator"
                and name_node is not None
                and name_node.type == "identifier"
            ):
                name = _text(name_node)
                yield Declaration(name, f"{scope}.{name}", "member", False, lines, where)


@dataclass(frozen=True, slots=True)
class _Mapping:
    """The module resolution settings of one config: ``baseUrl`` and ``paths``."""

    base: str | None
    paths: tuple[tuple[str, tuple[str, ...]], ...]
    paths_base: str


@dataclass(frozen=True, slots=True)
class _Place:
    """Where an exported name is declared: the file and the name there, or (``name`` None)
    the module itself (a namespace)."""

    file: str
    name: str | None


@dataclass(frozen=True, slots=True)
class _Package:
    """A project package (a ``package.json`` with a ``name``): its folder and ``exports``."""

    folder: str
    manifest: Mapping[str, object]


class ScriptProject:
    """Resolves import specifiers of the project's script files to project files, and
    imported names through re-exports to the files declaring them."""

    def __init__(self, sources: Mapping[str, SourceFacts], configs: Mapping[str, bytes]) -> None:
        self._sources = sources
        self._files = frozenset(sources)
        self._declared: dict[str, list[str]] = {}
        self._names: dict[str, frozenset[str]] = {}
        for path, facts in sources.items():
            self._names[path] = frozenset(d.simple_name for d in facts.declarations)
            for declaration in facts.declarations:
                files = self._declared.setdefault(declaration.qualified_name, [])
                if path not in files:
                    files.append(path)
        self._raw = {
            path: _options(data)
            for path, data in configs.items()
            if posixpath.basename(path) in _COMPILER_CONFIGS
        }
        self._mappings: dict[str, _Mapping] = {}
        for path in self._raw:
            self._mappings[posixpath.dirname(path)] = self._mapping(path)
        self._packages: dict[str, _Package] = {}
        for path, data in sorted(configs.items()):
            if posixpath.basename(path) != _MANIFEST:
                continue
            manifest = _options(data)
            name = manifest.get("name")
            if isinstance(name, str) and name and name not in self._packages:
                self._packages[name] = _Package(posixpath.dirname(path), manifest)
        self._places: dict[tuple[str, str], _Place | None] = {}

    def _mapping(self, path: str) -> _Mapping:
        """The config's settings merged over those it ``extends`` (nearest wins)."""
        base: str | None = None
        paths: tuple[tuple[str, tuple[str, ...]], ...] | None = None
        paths_base = ""
        seen: set[str] = set()
        current: str | None = path
        while current is not None and current not in seen and len(seen) < _MAX_EXTENDS:
            seen.add(current)
            options = self._raw.get(current)
            if options is None:
                break
            folder = posixpath.dirname(current)
            compiler = options.get("compilerOptions")
            compiler = compiler if isinstance(compiler, dict) else {}
            base_url = compiler.get("baseUrl")
            if base is None and isinstance(base_url, str):
                base = _join(folder, base_url)
            found = compiler.get("paths")
            if paths is None and isinstance(found, dict):
                paths = tuple(
                    (str(key), tuple(str(v) for v in value if isinstance(v, str)))
                    for key, value in found.items()
                    if isinstance(value, list)
                )
                paths_base = folder
            parent = options.get("extends")
            current = (
                _join(folder, parent)
                if isinstance(parent, str) and parent.startswith(".")
                else None
            )
            if current is not None and not current.endswith(".json"):
                current += ".json"
        # ``paths`` count from ``baseUrl`` when there is one, else from their config.
        return _Mapping(base, paths or (), base if base is not None else paths_base)

    def resolve(self, importer: str, specifier: str) -> str | None:
        """The project file ``specifier`` (as written in ``importer``) names, if any."""
        if specifier.startswith(("./", "../")) or specifier in {".", ".."}:
            return self._file(_join(posixpath.dirname(importer), specifier))
        mapping = self._nearest(importer)
        if mapping is None:
            return self._workspace(specifier)
        for pattern, targets in mapping.paths:
            matched = _match(pattern, specifier)
            if matched is None:
                continue
            for target in targets:
                found = self._file(_join(mapping.paths_base, target.replace("*", matched, 1)))
                if found is not None:
                    return found
        if mapping.base is not None:
            found = self._file(_join(mapping.base, specifier))
            if found is not None:
                return found
        return self._workspace(specifier)

    def _nearest(self, importer: str) -> _Mapping | None:
        folder = posixpath.dirname(importer)
        while True:
            mapping = self._mappings.get(folder)
            if mapping is not None or not folder:
                return mapping
            folder = posixpath.dirname(folder)

    def _file(self, path: str | None) -> str | None:
        if path is None:
            return None
        for candidate in _candidates(path):
            if candidate in self._files:
                return candidate
        return None

    def declared(self, name: str) -> tuple[str, ...]:
        """Files declaring ``name`` (``<module>.<Name>``)."""
        return tuple(self._declared.get(name, ()))

    def _workspace(self, specifier: str) -> str | None:
        """The project file a bare ``specifier`` names through a project package of that
        name (its ``package.json`` ``exports``, else ``types``/``module``/``main``, else the
        path below its folder): a workspace package, or a package importing itself."""
        name, subpath = specifier, "."
        while name not in self._packages:
            name, slash, rest = name.rpartition("/")
            if not slash or not name:
                return None
            subpath = f"./{rest}" if subpath == "." else f"./{rest}/{subpath[2:]}"
        package = self._packages[name]
        exports = package.manifest.get("exports")
        if exports is not None:
            return self._exported(package.folder, exports, subpath)
        if subpath == ".":
            for field in ("types", "typings", "module", "main"):
                value = package.manifest.get(field)
                if isinstance(value, str):
                    found = self._file(_join(package.folder, value))
                    if found is not None:
                        return found
        return self._file(_join(package.folder, subpath))

    def _exported(self, folder: str, exports: object, subpath: str) -> str | None:
        """The project file ``exports`` maps ``subpath`` to (exact keys, then ``*``
        patterns; the first condition whose target is a project source wins)."""
        if not isinstance(exports, dict) or not any(str(k).startswith(".") for k in exports):
            exports = {".": exports}
        if subpath in exports:
            return self._condition(folder, exports[subpath], "")
        for pattern, value in exports.items():
            matched = _match(str(pattern), subpath)
            if matched is not None and "*" in str(pattern):
                return self._condition(folder, value, matched)
        return None

    def _condition(self, folder: str, value: object, star: str, depth: int = 0) -> str | None:
        if depth > _MAX_CONDITIONS:
            return None
        if isinstance(value, str):
            return self._file(_join(folder, value.replace("*", star)))
        options = value.values() if isinstance(value, dict) else value
        if isinstance(options, list | type({}.values())):
            for option in options:
                found = self._condition(folder, option, star, depth + 1)
                if found is not None:
                    return found
        return None

    def keys(self, relative: str, facts: SourceFacts) -> LinkKeys | None:
        """Not said yet (``export … from`` and ``export *`` chains lead through other modules): an
        edit changing what a file offers links the family whole."""
        return None

    def internal(self, relative: str) -> bool:
        """What a package exports is not read from its files: nothing is internal."""
        return False

    def place(self, module: str, name: str, notes: list[str]) -> _Place | None:
        """Where ``name``, imported from the project file ``module``, is declared: followed
        through ``export … from``, ``export *`` and import-then-export chains, each module
        at most once per chain, at most :data:`MAX_REEXPORT_DEPTH` deep and
        :data:`MAX_REEXPORT_VISITS` modules per name (``notes`` says what was cut)."""
        key = (module, name)
        if key in self._places:
            return self._places[key]
        search = _Search(notes)
        found = self._place(module, name, search, [])
        if not search.cut:
            self._places[key] = found
        return found

    def _place(self, module: str, name: str, search: _Search, chain: list[str]) -> _Place | None:
        if module in chain:
            search.cut = True
            cycle = " -> ".join([*chain[chain.index(module) :], module])
            search.notes.append(f"re-export cycle {cycle} (followed once)")
            return None
        if len(chain) >= MAX_REEXPORT_DEPTH or search.visits >= MAX_REEXPORT_VISITS:
            if not search.cut:
                search.notes.append(
                    f"re-exports of `{name}` followed through {search.visits} modules, "
                    f"{len(chain)} deep; the rest not searched"
                )
            search.cut = True
            return None
        search.visits += 1
        facts = self._sources.get(module)
        if facts is None:
            return None
        if name in self._names.get(module, ()):
            return _Place(module, name)
        chain = [*chain, module]
        stars: list[str] = []
        for item in facts.imports:
            if not item.exported:
                continue
            if item.alias is None:
                stars.append(item.target)
                continue
            if item.alias != name:
                continue
            if item.target:
                target = self.resolve(module, item.target)
                if target is None:
                    return None  # passed on from outside the project
                if item.wildcard:
                    return _Place(target, None)
                found = self._place(target, item.name or name, search, chain)
                return found or _Place(target, None)
            return self._local(module, facts, item.name or name, search, chain)
        for specifier in stars:
            target = self.resolve(module, specifier)
            if target is not None:
                found = self._place(target, name, search, chain)
                if found is not None:
                    return found
        return None

    def _local(
        self, module: str, facts: SourceFacts, local: str, search: _Search, chain: list[str]
    ) -> _Place | None:
        """Where the local name ``local`` of ``module`` (exported by an export list) is
        declared: the module itself, or where the import binding it leads."""
        if local in self._names.get(module, ()):
            return _Place(module, local)
        for item in facts.imports:
            if item.exported or item.alias != local or not item.target:
                continue
            target = self.resolve(module, item.target)
            if target is None:
                return None
            if item.wildcard:
                return _Place(target, None)
            return self._place(target, item.name or "default", search, chain) or _Place(
                target, None
            )
        return _Place(module, local)

    def _imported(
        self, relative: str, item: Import, notes: list[str]
    ) -> tuple[_Place | None, str | None]:
        """Where an import's name is declared (None: outside the project) and the module
        the specifier names."""
        target = self.resolve(relative, item.target)
        if target is None:
            return None, None
        if item.wildcard or item.name is None:
            return _Place(target, None), target
        return self.place(target, item.name, notes) or _Place(target, None), target

    def link(self, relative: str, facts: SourceFacts, whole: bool) -> Linked:
        """The files declaring what ``facts`` imports (rule ``import``), followed through
        re-exports, and how often the code uses each.

        A named or default import counts the uses of its name; a namespace import
        (``import * as ns``) counts ``ns.member`` as a use of the file declaring
        ``member`` and a bare ``ns`` as a use of the module; a side-effect import, a
        ``require`` and a re-export count as used once. With ``whole`` false (one
        declaration of the file), only imports whose names the declaration uses count.
        """
        counts = facts.counted()
        by_first: dict[str, list[tuple[str, int]]] = {}
        for reference, count in counts.items():
            first, _, member = reference.partition(".")
            by_first.setdefault(first, []).append((member, count))
        found = EdgeSet(relative)
        notes: list[str] = []
        for item in facts.imports:
            if not item.target:
                continue  # the module's own export list
            place, module = self._imported(relative, item, notes)
            if place is None or module is None:
                continue
            if item.exported or item.alias is None:
                if whole:
                    found.add(place.file, "import", 1, self._symbol(place))
                continue
            uses = by_first.get(item.alias, [])
            if place.name is not None:
                total = sum(count for _, count in uses)
                if whole or total:
                    found.add(place.file, "import", total, self._symbol(place))
                continue
            # a namespace: each member used is a use of the file declaring it (through
            # namespaces re-exported by it: ``z.core.$ZodError``)
            plain = 0
            for member, count in uses:
                inner: _Place | None = place
                for segment in member.split(".") if member else ():
                    if inner is None or inner.name is not None:
                        break
                    inner = self.place(inner.file, segment, notes)
                if inner is None or inner is place:
                    plain += count
                else:
                    found.add(inner.file, "import", count, self._symbol(inner))
            if plain or (whole and not uses):
                found.add(place.file, "import", plain, None)
        for note in notes:
            found.note(note)
        return found.linked()

    @staticmethod
    def _symbol(place: _Place) -> str | None:
        return f"{module_name(place.file)}.{place.name}" if place.name is not None else None


@dataclass(slots=True)
class _Search:
    """One look-up through re-exports: modules visited, whether it was cut short, notes."""

    notes: list[str]
    visits: int = 0
    cut: bool = False


class Script:
    """The TypeScript/TSX/JavaScript plugin (see
    :class:`context_server.core.languages.base.Language`)."""

    name = "ecmascript"
    dialects = (TYPESCRIPT, TSX, JAVASCRIPT)
    config_files = (*sorted(_COMPILER_CONFIGS), _MANIFEST)

    def modules(self, paths: Sequence[str]) -> dict[str, str]:
        """An ES module is named by its root-relative path."""
        return {path: path for path in paths}

    def extract(
        self,
        dialect: SourceLanguage,
        text: str,
        path: str,
        module: str,
        span: tuple[int, int] | None = None,
    ) -> SourceFacts:
        """The facts of one script file."""
        return extract_script(dialect, text, module, span)

    def linker(self, sources: Mapping[str, SourceFacts], configs: Mapping[str, bytes]) -> Linker:
        """Specifiers resolved by path, ``paths`` and ``baseUrl``."""
        return ScriptProject(sources, configs)

    def user_names(self, facts: SourceFacts) -> Iterable[str]:
        """Users name a module's declarations only."""
        return ()


SCRIPT = Script()


def _options(data: bytes) -> dict[str, object]:
    """A config's JSON (comments and trailing commas allowed); unreadable means empty."""
    try:
        loaded = json5.loads(data.decode("utf-8-sig"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return {}
    return loaded if isinstance(loaded, dict) else {}


def _join(folder: str, path: str) -> str | None:
    """``path`` relative to ``folder`` as a root-relative path; None when it leaves the root."""
    if path.startswith("/"):
        return None
    joined = posixpath.normpath(posixpath.join(folder, path))
    if joined == ".":
        return ""
    return None if joined == ".." or joined.startswith("../") else joined


def _match(pattern: str, specifier: str) -> str | None:
    """What ``*`` stands for when ``specifier`` matches ``pattern`` ('' for an exact one)."""
    if "*" not in pattern:
        return "" if pattern == specifier else None
    prefix, suffix = pattern.split("*", 1)
    if (
        specifier.startswith(prefix)
        and specifier.endswith(suffix)
        and len(specifier) >= len(prefix) + len(suffix)
    ):
        return specifier[len(prefix) : len(specifier) - len(suffix)]
    return None


def _candidates(path: str) -> Iterator[str]:
    """The files a module path may name, in the compiler's order."""
    stem, extension = posixpath.splitext(path)
    if extension in _EMITTED:
        for replacement in _EMITTED[extension]:
            yield stem + replacement
    elif extension in _EXTENSIONS:
        yield path
    for suffix in _EXTENSIONS:
        yield path + suffix
    folder = f"{path}/index" if path else "index"
    for suffix in _EXTENSIONS:
        yield folder + suffix
